// The architecture descriptions (readers/arch/): a core's registers land
// at their DWARF numbers, and every description is found by its machine.
#include <doctest/doctest.h>

#include <cstring>
#include <elf.h>
#include <string>

#include "readers/arch/thread_regs.h"

using namespace ljcore;

TEST_CASE("every architecture is found by its ELF machine")
{
	for (Arch arch : {Arch::x86_64, Arch::aarch64}) {
		const ArchInfo &a = arch_info(arch);
		CHECK(a.arch == arch);
		CHECK(arch_of_machine(a.e_machine) == arch);
		CHECK(a.prstatus_dwarf.size() <= a.prstatus_regs);
		CHECK(a.vector_regs <= ThreadRegs{}.fpr.size());
		CHECK(a.unwound_regs <= 64); // NativeFrame::known_regs has a bit each
	}
	CHECK_FALSE(arch_of_machine(EM_386).has_value());
	CHECK(std::string(arch_name(Arch::aarch64)) == "aarch64");
}

TEST_CASE("x86_64 pr_reg: user_regs_struct order to DWARF numbers")
{
	// Word i holds 100 + i: r15 is word 0, rip word 16, rsp word 19.
	uint64_t words[27];
	for (size_t i = 0; i < 27; i++)
		words[i] = 100 + i;
	ThreadRegs r = regs_from_prstatus(x86_64_arch, reinterpret_cast<std::byte *>(words));
	CHECK(r.dwarf[15] == 100); // r15
	CHECK(r.dwarf[6] == 104);  // rbp
	CHECK(r.dwarf[0] == 110);  // rax
	CHECK(r.dwarf[1] == 112);  // rdx
	CHECK(r.pc == 116);
	CHECK(r.dwarf[16] == 116);
	CHECK(r.sp == 119);
	CHECK(r.dwarf[7] == 119);
}

TEST_CASE("aarch64 pr_reg: x0..x30, sp, pc in order; vector registers from byte 0")
{
	uint64_t words[34];
	for (size_t i = 0; i < 34; i++)
		words[i] = 100 + i;
	ThreadRegs r = regs_from_prstatus(aarch64_arch, reinterpret_cast<std::byte *>(words));
	CHECK(r.dwarf[29] == 129);
	CHECK(r.sp == 131);
	CHECK(r.pc == 132);

	uint64_t fp[64] = {};
	fp[2] = 0x4000000000000000; // v1's low half: 2.0
	read_vector_regs(aarch64_arch, reinterpret_cast<std::byte *>(fp), r);
	CHECK(r.has_fpr);
	CHECK(r.fpr[1] == 0x4000000000000000);
}
