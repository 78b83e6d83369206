// ljcore's LLVM module decodes as LLVM itself does: the shared libLLVM's C
// interface, with LLVM's own subtarget and printing, is the oracle for
// the module, which makes x86's subtarget without its CPU models
// (disasm_module.cpp) and prints through its own stream.
#include <doctest/doctest.h>

#include <string>

#include "analyzer/traces/disasm.h"
#include "tests/unit/elf_text.h"

using namespace ljcore;

TEST_CASE("x86_64: the module decodes the example's whole .text as the shared libLLVM does")
{
	auto module = Disassembler::create(Arch::x86_64);
	REQUIRE(module);
	// The module, not the shared libLLVM that create falls back to: only
	// the module describes an instruction ("ret").
	ljcore_mc_operation ret;
	const uint8_t c3[] = {0xc3};
	REQUIRE((*module)->describe(c3, 0x1000, ret) == 1);
	// llvm-14-dev depends on the shared libLLVM: a build has it.
	auto shared = Disassembler::create_shared(Arch::x86_64);
	REQUIRE_MESSAGE(shared, (shared ? "" : shared.error().message));
	auto [text, addr] = text_of(LJCORE_SOURCE_DIR "/testdata/example/luajit");
	size_t total = 0, differ = 0;
	for (size_t at = 0; at < text.size(); total++) {
		std::span<const uint8_t> code(text.data() + at, text.size() - at);
		MachineInsn ours = (*module)->decode(code, addr + at);
		MachineInsn llvms = (*shared)->decode(code, addr + at);
		if ((ours.text != llvms.text || ours.size != llvms.size ||
		     ours.branch_to != llvms.branch_to) &&
		    differ++ < 10)
			FAIL_CHECK(ours.text << " | " << llvms.text);
		at += ours.size;
	}
	MESSAGE(total << " instructions decoded");
	CHECK(differ == 0);
	CHECK(total > 100000);
}
