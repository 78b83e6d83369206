// An instruction as LLVM prints it, split into its mnemonic and operands:
// registers by their DWARF number, immediates, and memory operands
// (base, index, displacement, width). Enough of x86_64 (Intel syntax) and
// AArch64 for the deriver to follow values through registers; anything it
// cannot read becomes an Operand of kind other. On x86_64 the same
// operations are read from LLVM's parts of an instruction, unprinted,
// wherever they read as its text (tests/unit/test_machine_operands.cpp
// compares the two over a whole luajit).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analyzer/traces/disasm.h"
#include "readers/target.h"

namespace ljcore {

enum class OperandKind : uint8_t { other, reg, imm, mem };

// A register by its DWARF number (the psABIs': x86_64 rax 0, rsp 7, rip 16,
// xmm0 17; AArch64 x0 0, sp 31, v0 64), the same for all its widths (eax
// is rax); xzr, which has none, as its own. Numbers, not names: the
// tracker compares registers at every step.
using Reg = uint8_t;
constexpr Reg no_reg = 0xff;
constexpr Reg x86_rip = 16;
constexpr Reg arm64_xzr = 0xfe;

// 16 bytes: a function's decoded operations are kept whole (LazyOperations),
// and the fewer bytes each takes, the fewer allocations hold them.
struct Operand {
	int64_t value = 0; // imm: the value; mem: the displacement
	OperandKind kind = OperandKind::other;
	Reg reg = no_reg;   // reg: the register; mem: the base, if any
	Reg index = no_reg; // mem: the index register, if any
	uint8_t scale = 1;  // mem: what the index is multiplied by
	uint8_t width = 0;  // bytes the register or memory operand covers, 0 if unknown
	bool zero = false;  // reg: xzr or wzr, which read as 0
	// mem, AArch64: pre-indexed ("[x0, #0x10]!"), the base register
	// becomes the address accessed.
	bool writeback = false;
};
static_assert(sizeof(Operand) == 16);

// An instruction's operands, in place: every instruction decoded has a
// few, and allocating a vector for them cost more than reading them. An
// instruction with more than max keeps its first max (the tracker reads
// at most four).
class Operands {
public:
	static constexpr size_t max = 6;

	size_t size() const { return n_; }
	bool empty() const { return n_ == 0; }
	const Operand &operator[](size_t i) const { return ops_[i]; }
	Operand &operator[](size_t i) { return ops_[i]; }
	const Operand *begin() const { return ops_.data(); }
	const Operand *end() const { return ops_.data() + n_; }
	Operand *begin() { return ops_.data(); }
	Operand *end() { return ops_.data() + n_; }
	void push_back(const Operand &o)
	{
		if (n_ < max)
			ops_[n_++] = o;
	}

private:
	std::array<Operand, max> ops_{};
	uint8_t n_ = 0;
};

// A mnemonic, in place, as Operands are: a function's operations are
// stored whole and compared at every step. The longest either
// architecture has (x86's vgf2p8affineinvqb, 17) fits; a longer one
// would keep its first max characters.
class Mnemonic {
public:
	static constexpr size_t max = 23;

	Mnemonic() = default;
	Mnemonic(std::string_view s) : n_(uint8_t(std::min(s.size(), max)))
	{
		std::copy_n(s.data(), n_, text_.data());
	}
	operator std::string_view() const { return {text_.data(), n_}; }
	bool empty() const { return n_ == 0; }
	size_t size() const { return n_; }
	char operator[](size_t i) const { return text_[i]; }
	bool operator==(const Mnemonic &other) const
	{
		return std::string_view(*this) == std::string_view(other);
	}

	// A name spelt out in the source: its length known when compiling,
	// and so compared inline, a word or two, not through memcmp (a step
	// compares its mnemonic with some thirty names). Only a literal
	// makes one: an array's contents are not known when compiling.
	struct Name {
		template <size_t N>
		consteval Name(const char (&literal)[N]) : text(literal), n(N - 1)
		{
		}
		const char *text;
		size_t n;
	};
	bool operator==(Name name) const
	{
		return n_ == name.n && std::memcmp(text_.data(), name.text, name.n) == 0;
	}
	bool starts_with(Name prefix) const
	{
		return n_ >= prefix.n && std::memcmp(text_.data(), prefix.text, prefix.n) == 0;
	}

private:
	std::array<char, max> text_{};
	uint8_t n_ = 0;
};

// Trivially copied: LazyOperations keeps a function's operations in one
// vector, moved as it grows.
struct Operation {
	uint64_t addr = 0;
	uint8_t size = 0; // bytes: x86's rip is addr + size
	Mnemonic mnemonic;
	Operands operands;
	std::optional<uint64_t> branch_to;
};
static_assert(std::is_trivially_copyable_v<Operation>);

// The operation of insn, or one with an empty mnemonic when it did not
// decode.
Operation operation_of(const MachineInsn &insn, Arch arch);
// The same operation from an x86_64 instruction's parts, which
// dis.describe gave for the size bytes at addr: its registers named by
// dis.
Operation operation_of(const ljcore_mc_operation &parts, uint64_t addr, size_t size,
		       const Disassembler &dis);

// A function's code as operations, decoded only as far as asked: the value
// tracker's paths end at the function's returns, mostly well before the
// end of the bytes read (a call's target is read 512 bytes long, its
// size unknown), and decoding the rest cost as much as all else deriving
// does.
class LazyOperations {
public:
	// code must outlive this.
	LazyOperations(Disassembler &dis, std::span<const uint8_t> code, uint64_t addr, Arch arch)
	    : dis_(dis), code_(code), addr_(addr), arch_(arch)
	{
	}
	// The same code, going on from what another LazyOperations decoded of it.
	struct Decoded {
		std::vector<Operation> ops;
		size_t bytes = 0;
	};
	LazyOperations(Disassembler &dis, std::span<const uint8_t> code, uint64_t addr, Arch arch,
		       Decoded decoded)
	    : dis_(dis), code_(code), addr_(addr), arch_(arch), decoded_(decoded.bytes),
	      ops_(std::move(decoded.ops))
	{
	}
	// What was decoded, to go on from later.
	Decoded take() { return {std::move(ops_), decoded_}; }

	// The ith instruction, nullptr past the end of the code. The pointer
	// is valid until more is decoded (at, index_of).
	const Operation *at(size_t i);
	// The index of the instruction that starts at addr, if one does.
	std::optional<size_t> index_of(uint64_t addr);
	// The address just past the code.
	uint64_t end() const { return addr_ + code_.size(); }

private:
	bool decode_next();

	Disassembler &dis_;
	std::span<const uint8_t> code_;
	uint64_t addr_;
	Arch arch_;
	size_t decoded_ = 0; // bytes of code that ops_ covers
	std::vector<Operation> ops_;
	MachineInsn insn_; // the one being decoded, its text's buffer reused
	ljcore_mc_operation parts_;
};

// Registers a call may change (the System V and AAPCS64 calling
// conventions), those it passes arguments in, by position, the one it
// returns in, and the stack pointer.
bool caller_saved(Reg reg, Arch arch);
std::span<const Reg> argument_registers(Arch arch);
Reg return_register(Arch arch);
Reg stack_register(Arch arch);

} // namespace ljcore
