// What ljcore knows of a processor architecture below LuaJIT: its names,
// its ELF machine, its registers by role and where a core's notes keep
// them. One description per architecture (x86_64.cpp, aarch64.cpp), as
// drgn's platform.h and elfutils' backends/ do; adding one is adding a
// file here and its line in arch.cpp. LuaJIT's own conventions on each
// architecture are in analyzer/lua/luajit_arch.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace ljcore {

enum class Arch { x86_64, aarch64 };

struct ArchInfo {
	Arch arch;
	const char *name; // as printed: "x86_64"
	uint16_t e_machine;
	// For LLVM's disassembler; x86 is printed in Intel syntax, as
	// LuaJIT's jit.dump prints it.
	const char *llvm_triple;
	bool intel_syntax;
	// Bytes per instruction where all have one size (LuaJIT counts
	// machine code offsets in them), else 1.
	uint32_t insn_unit;

	// Registers by role, as DWARF numbers (ThreadRegs' index). A pc
	// that DWARF gives no number is kept past the last numbered one.
	int sp, pc, fp;
	int lr; // -1 where calls push the return address
	// DWARF registers 0 .. unwound_regs-1: what the CFI unwinder recovers.
	int unwound_regs;

	// NT_PRSTATUS: pr_reg holds prstatus_regs words (user_regs_struct,
	// the layout PTRACE_GETREGSET gives too), the i-th of them is DWARF
	// register prstatus_dwarf[i] (-1: none).
	size_t prstatus_regs;
	std::span<const int8_t> prstatus_dwarf;
	// The word of pr_reg that holds the thread pointer (x86_64 fs_base),
	// -1 where it is not there (aarch64 keeps it in NT_ARM_TLS, which
	// ElfCore reads).
	int prstatus_thread_pointer;
	// NT_PRFPREG: vector_regs registers of 16 bytes from byte
	// vector_offset, whose low 8 bytes hold a double.
	size_t vector_offset;
	size_t vector_regs;
};

const ArchInfo &arch_info(Arch arch);
std::optional<Arch> arch_of_machine(uint16_t e_machine);
const char *arch_name(Arch arch);

// The descriptions, one per file.
extern const ArchInfo x86_64_arch;
extern const ArchInfo aarch64_arch;

} // namespace ljcore
