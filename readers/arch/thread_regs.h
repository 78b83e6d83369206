// The registers of one thread, as a core's notes or ptrace give them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "readers/arch/arch.h"

namespace ljcore {

// Indexed by DWARF register number, as each architecture's description
// (readers/arch/) numbers them.
struct ThreadRegs {
	static constexpr int count = 33; // the most an ArchInfo numbers
	std::array<uint64_t, count> dwarf{};
	uint64_t pc = 0;
	uint64_t sp = 0;
	// Where the thread's TLS and its pthread are (x86_64 fs_base,
	// aarch64 tpidr_el0), 0 if unknown.
	uint64_t thread_pointer = 0;
	// The low 64 bits of each vector register (x86_64 xmm0..15, aarch64
	// v0..31), where compiled Lua code keeps its doubles; from NT_PRFPREG.
	std::array<uint64_t, 32> fpr{};
	bool has_fpr = false;
};

// From the general registers of NT_PRSTATUS (pr_reg) or PTRACE_GETREGSET:
// arch.prstatus_regs words.
ThreadRegs regs_from_prstatus(const ArchInfo &arch, const std::byte *pr_reg);
// The vector registers, from NT_PRFPREG or PTRACE_GETREGSET: at least
// arch.vector_offset + 16 * arch.vector_regs bytes.
void read_vector_regs(const ArchInfo &arch, const std::byte *fpregs, ThreadRegs &regs);

} // namespace ljcore
