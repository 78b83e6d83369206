// The machine code of a binary's exported functions, read from its ELF
// file: the dynamic symbols (what a stripped luajit, libluajit-5.1.so or
// nginx still carries, for hosts to link against), then the static ones
// when the binary has them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <libelf.h>

#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

struct FunctionCode {
	std::string name;
	uint64_t addr = 0; // as the ELF file has it (unrelocated)
	std::vector<uint8_t> bytes;

	// "lua_close+0x31" for the instruction at insn.
	std::string at(uint64_t insn) const;
};

class ExportedCode {
public:
	// elf stays owned by the caller and must outlive this.
	static Expected<ExportedCode> open(Elf *elf);

	Arch arch() const { return arch_; }
	// Whether the binary exports a function of that name.
	bool exports(const std::string &name) const;
	// The function's code: its symbol's size, at most max_bytes.
	Expected<FunctionCode> function(const std::string &name, size_t max_bytes = 2048) const;
	// Code at addr (a call's target, which may have no symbol): up to
	// max_bytes, as far as its section goes.
	Expected<FunctionCode> code_at(uint64_t addr, size_t max_bytes) const;
	// The width-byte word the file holds at addr, in a section of data
	// (a table of functions' entry), little-endian. Where it holds 0, the
	// addend of the relative relocation at addr, if one: lld puts the
	// value only there, bfd in both places.
	Expected<uint64_t> word_at(uint64_t addr, unsigned width) const;

private:
	// The bytes from addr to the end of the section holding it, one of
	// code or (code false) of data.
	Expected<std::span<const uint8_t>> bytes_at(uint64_t addr, bool code) const;
	// The addend of the dynamic R_*_RELATIVE relocation at addr, if one.
	std::optional<uint64_t> relative_addend(uint64_t addr) const;

	struct Symbol {
		std::string name;
		uint64_t addr, size;
	};
	Elf *elf_ = nullptr;
	Arch arch_ = Arch::x86_64;
	std::vector<Symbol> symbols_; // functions, dynamic ones first
};

} // namespace ljcore
