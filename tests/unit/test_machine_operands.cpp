// Instructions as LLVM prints them, split into operands: registers by
// their DWARF number (the x86_64 and AArch64 psABIs), whatever width the
// name gives, and the calling conventions' registers by the same numbers.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "analyzer/derive/machine_operands.h"
#include "tests/unit/elf_text.h"

using namespace ljcore;

namespace {

// The operands of one instruction.
Operands operands(const char *text, Arch arch)
{
	MachineInsn insn;
	insn.addr = 0x1000, insn.size = 4, insn.text = text;
	return operation_of(insn, arch).operands;
}

// The register and width of "mov NAME, 0" (x86) or "mov NAME, #0"
// (AArch64); no_reg when the name is not a register.
std::pair<Reg, uint8_t> reg(const char *name, Arch arch)
{
	std::string text = std::string("mov ") + name + (arch == Arch::x86_64 ? ", 0" : ", #0");
	Operands o = operands(text.c_str(), arch);
	if (o.empty() || o[0].kind != OperandKind::reg)
		return {no_reg, 0};
	return {o[0].reg, o[0].width};
}

// What the value tracker reads of an operand, as text.
std::string shown(const Operand &o)
{
	std::ostringstream s;
	switch (o.kind) {
	case OperandKind::reg:
		s << "reg " << int(o.reg) << "/" << int(o.width);
		break;
	case OperandKind::imm:
		s << "imm " << o.value;
		break;
	case OperandKind::mem:
		s << "mem " << int(o.reg) << "+" << int(o.scale) << "*" << int(o.index) << "+"
		  << o.value << "/" << int(o.width);
		break;
	case OperandKind::other:
		s << "other";
		break;
	}
	return s.str();
}

std::string shown(const Operation &op)
{
	std::string s(std::string_view(op.mnemonic));
	for (const Operand &o : op.operands)
		s += ", " + shown(o);
	if (op.branch_to)
		s += " -> " + std::to_string(*op.branch_to);
	return s;
}

} // namespace

TEST_CASE("x86_64: an operation read from LLVM's parts is the one read from its text")
{
	auto dis = Disassembler::create(Arch::x86_64);
	REQUIRE(dis);
	auto [text, addr] = text_of(LJCORE_SOURCE_DIR "/testdata/example/luajit");
	size_t described = 0, total = 0;
	std::map<std::string, std::string> differ; // by mnemonic, one example each
	for (size_t at = 0; at < text.size(); total++) {
		std::span<const uint8_t> code(text.data() + at, text.size() - at);
		MachineInsn insn = (*dis)->decode(code, addr + at);
		Operation printed = operation_of(insn, Arch::x86_64);
		ljcore_mc_operation parts;
		if (size_t n = (*dis)->describe(code, addr + at, parts)) {
			described++;
			CHECK(n == insn.size);
			Operation read = operation_of(parts, addr + at, n, **dis);
			if (shown(read) != shown(printed))
				differ.emplace(printed.mnemonic, insn.text + ": " + shown(read) +
									 " | " + shown(printed));
		}
		at += insn.size;
	}
	for (const auto &[mnemonic, example] : differ)
		FAIL_CHECK(example);
	// Most instructions have parts: else the text is read after all.
	MESSAGE(described << " of " << total << " instructions described");
	CHECK(described * 100 >= total * 95);
}

// The operation of one instruction of bytes at 0x1000: from its text,
// and from its parts when the module gives them.
std::pair<Operation, std::optional<Operation>> both_ways(Disassembler &dis,
							 std::vector<uint8_t> bytes)
{
	MachineInsn insn = dis.decode(bytes, 0x1000);
	std::pair<Operation, std::optional<Operation>> out{operation_of(insn, Arch::x86_64),
							   std::nullopt};
	ljcore_mc_operation parts;
	if (size_t n = dis.describe(bytes, 0x1000, parts))
		out.second = operation_of(parts, 0x1000, n, dis);
	return out;
}

TEST_CASE("x86_64: what the parts would read otherwise than the text is printed")
{
	auto dis = Disassembler::create(Arch::x86_64);
	REQUIRE(dis);
	// Each the first of its opcode, or another instance of one met
	// before: prefixes an instance has of its own (repne, lock), sources
	// the text puts first (xchg, xadd), a vector compare's predicate in
	// the mnemonic or not, an index alone, a segment, a width LLVM's name
	// does not tell (lar's word).
	const std::vector<std::vector<uint8_t>> cases = {
		{0xc3},
		{0xf2, 0xc3},
		{0x48, 0x87, 0x07},
		{0xf0, 0x48, 0x0f, 0xc1, 0x07},
		{0x48, 0x0f, 0xc1, 0x07},
		{0x8b, 0x04, 0x05, 0x34, 0x12, 0x00, 0x00},
		{0x0f, 0x02, 0x07},
		{0x0f, 0xc2, 0xc1, 0x08},
		{0x0f, 0xc2, 0xc1, 0x01},
		{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00},
		{0x48, 0x8b, 0x47, 0x10},
		{0x48, 0x8d, 0x04, 0xc7},
		{0x74, 0x02},
	};
	for (const auto &bytes : cases) {
		auto [printed, read] = both_ways(**dis, bytes);
		if (read)
			CHECK_MESSAGE(shown(*read) == shown(printed), shown(printed));
	}
	// The text's own reading of a bnd or repne ret, an index alone.
	CHECK(std::string_view(both_ways(**dis, {0xf2, 0xc3}).first.mnemonic) == "ret");
	Operation index_alone = both_ways(**dis, {0x8b, 0x04, 0x05, 0x34, 0x12, 0x00, 0x00}).first;
	REQUIRE(index_alone.operands.size() == 2);
	CHECK(index_alone.operands[1].reg == 0);
	CHECK(index_alone.operands[1].index == no_reg);
	// The plain ones have parts.
	CHECK(both_ways(**dis, {0x48, 0x8b, 0x47, 0x10}).second);
	CHECK(both_ways(**dis, {0x74, 0x02}).second);
}

TEST_CASE("x86_64 registers are their DWARF numbers, at every width")
{
	const Arch x86 = Arch::x86_64;
	CHECK(reg("rax", x86) == std::pair<Reg, uint8_t>{0, 8});
	CHECK(reg("eax", x86) == std::pair<Reg, uint8_t>{0, 4});
	CHECK(reg("rdx", x86).first == 1);
	CHECK(reg("rcx", x86).first == 2);
	CHECK(reg("bl", x86).first == 3);
	CHECK(reg("esi", x86).first == 4);
	CHECK(reg("dil", x86).first == 5);
	CHECK(reg("bp", x86).first == 6);
	CHECK(reg("rsp", x86).first == 7);
	CHECK(reg("r8d", x86) == std::pair<Reg, uint8_t>{8, 4});
	CHECK(reg("r15b", x86) == std::pair<Reg, uint8_t>{15, 1});
	CHECK(reg("r12w", x86) == std::pair<Reg, uint8_t>{12, 2});
	CHECK(reg("rip", x86).first == x86_rip);
	CHECK(reg("xmm0", x86).first == 17);
	CHECK(reg("xmm15", x86).first == 32);
	CHECK(reg("ymm15", x86).first == 32);
	for (const char *not_one : {"r7", "r16", "xmm16", "r8q"})
		CHECK_MESSAGE(reg(not_one, x86).first == no_reg, not_one);
}

TEST_CASE("an xmmword operand is memory, not a register")
{
	Operands o = operands("movdqu xmm1, xmmword ptr [rbp + 0x60]", Arch::x86_64);
	REQUIRE(o.size() == 2);
	CHECK(o[0].kind == OperandKind::reg);
	CHECK(o[1].kind == OperandKind::mem);
	CHECK(o[1].reg == 6);
	CHECK(o[1].value == 0x60);
	CHECK(o[1].width == 16);
}

TEST_CASE("an x86 index keeps its scale; a scale that is no number makes the operand other")
{
	Operands o = operands("call qword ptr [r14 + 8*rax]", Arch::x86_64);
	REQUIRE(o.size() == 1);
	CHECK(o[0].kind == OperandKind::mem);
	CHECK(o[0].reg == 14);
	CHECK(o[0].index == 0);
	CHECK(o[0].scale == 8);
	CHECK(o[0].width == 8);
	o = operands("lea rdx, [rax + 2*rax]", Arch::x86_64);
	REQUIRE(o.size() == 2);
	CHECK(o[1].reg == 0);
	CHECK(o[1].index == 0);
	CHECK(o[1].scale == 2);
	CHECK(operands("lea rdx, [rax]", Arch::x86_64)[1].scale == 1);
	CHECK(operands("lea rdx, [x*rax]", Arch::x86_64)[1].kind == OperandKind::other);
}

TEST_CASE("AArch64 registers are their DWARF numbers, xzr none")
{
	const Arch a64 = Arch::aarch64;
	CHECK(reg("x0", a64) == std::pair<Reg, uint8_t>{0, 8});
	CHECK(reg("w30", a64) == std::pair<Reg, uint8_t>{30, 4});
	CHECK(reg("sp", a64).first == 31);
	CHECK(reg("wsp", a64).first == 31);
	CHECK(reg("xzr", a64).first == arm64_xzr);
	CHECK(reg("wzr", a64).first == arm64_xzr);
	CHECK(reg("d31", a64).first == 95);
	CHECK(reg("q31", a64).first == 95);
	CHECK(reg("v31.16b", a64).first == 95);
	CHECK(reg("x31", a64).first == no_reg);
	CHECK(reg("s32", a64).first == no_reg);
}

TEST_CASE("AArch64 writeback: pre-indexed is marked, post-indexed is the next operand")
{
	Operands pre = operands("stp x29, x30, [sp, #-0x20]!", Arch::aarch64);
	REQUIRE(pre.size() == 3);
	CHECK(pre[2].writeback);
	CHECK(pre[2].value == -0x20);
	Operands post = operands("ldr x4, [x21], #0xc8", Arch::aarch64);
	REQUIRE(post.size() == 3);
	CHECK(!post[1].writeback);
	CHECK(post[2].kind == OperandKind::imm);
	CHECK(post[2].value == 0xc8);
}

TEST_CASE("the calling conventions by DWARF number")
{
	auto x86_args = argument_registers(Arch::x86_64);
	REQUIRE(x86_args.size() == 6);
	CHECK(std::equal(x86_args.begin(), x86_args.end(),
			 std::initializer_list<Reg>{5, 4, 1, 2, 8, 9}.begin()));
	CHECK(return_register(Arch::x86_64) == 0);
	CHECK(stack_register(Arch::x86_64) == 7);
	for (Reg kept : {3, 6, 7, 12, 13, 14, 15})
		CHECK(!caller_saved(kept, Arch::x86_64));
	for (Reg lost : {0, 1, 2, 4, 5, 8, 9, 10, 11, 17})
		CHECK(caller_saved(lost, Arch::x86_64));
	auto a64_args = argument_registers(Arch::aarch64);
	CHECK(a64_args.size() == 8);
	CHECK(a64_args[7] == 7);
	CHECK(stack_register(Arch::aarch64) == 31);
	for (Reg kept : {19, 25, 29, 31})
		CHECK(!caller_saved(kept, Arch::aarch64));
	for (Reg lost : {0, 8, 16, 18, 30, 64})
		CHECK(caller_saved(lost, Arch::aarch64));
}
