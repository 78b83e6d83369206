// aarch64: DWARF numbers x0..x30=0..30 (x29 the frame pointer, x30 the
// link register), sp=31; DWARF has no number for pc: kept at 32.
#include <elf.h>

#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// struct user_pt_regs: x0..x30, sp, pc, then pstate, which is not kept.
constexpr int8_t user_regs_dwarf[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
				      11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
				      22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

} // namespace

constinit const ArchInfo aarch64_arch = {
	.arch = Arch::aarch64,
	.name = "aarch64",
	.e_machine = EM_AARCH64,
	.llvm_triple = "aarch64-unknown-linux-gnu",
	.intel_syntax = false,
	.insn_unit = 4,
	.sp = 31,
	.pc = 32,
	.fp = 29,
	.lr = 30,
	.unwound_regs = 32,
	.prstatus_regs = 34,
	.prstatus_dwarf = user_regs_dwarf,
	.prstatus_thread_pointer = -1,
	// struct user_fpsimd_state: v0..31 first.
	.vector_offset = 0,
	.vector_regs = 32,
};

} // namespace ljcore
