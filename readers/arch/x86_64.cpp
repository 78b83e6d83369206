// x86_64: DWARF numbers rax=0, rdx=1, rcx=2, rbx=3, rsi=4, rdi=5, rbp=6,
// rsp=7, r8..r15=8..15, and 16 the return address column (rip).
#include <elf.h>

#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// struct user_regs_struct (<sys/user.h>) in order: r15, r14, r13, r12,
// rbp, rbx, r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi, orig_rax, rip, cs,
// eflags, rsp; then ss and the segment bases, which DWARF does not number.
constexpr int8_t user_regs_dwarf[] = {15, 14, 13, 12, 6, 3,  11, 10, 9,  8,
				      0,  2,  1,  4,  5, -1, 16, -1, -1, 7};

} // namespace

constinit const ArchInfo x86_64_arch = {
	.arch = Arch::x86_64,
	.name = "x86_64",
	.e_machine = EM_X86_64,
	.llvm_triple = "x86_64-unknown-linux-gnu",
	.intel_syntax = true,
	.insn_unit = 1,
	.sp = 7,
	.pc = 16,
	.fp = 6,
	.lr = -1,
	.unwound_regs = 17,
	.prstatus_regs = 27,
	.prstatus_dwarf = user_regs_dwarf,
	.prstatus_thread_pointer = 21, // fs_base, after ss
	// struct user_fpregs_struct: xmm0..15 after the x87 state.
	.vector_offset = 160,
	.vector_regs = 16,
};

} // namespace ljcore
