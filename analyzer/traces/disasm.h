// Machine code to instructions, through LLVM's MC disassembler
// (disasm_module.h): lengths, text, and where each branch goes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/traces/disasm_module.h"
#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

struct MachineInsn {
	uint64_t addr = 0;
	uint32_t size = 0;
	std::string text;                  // Intel syntax on x86_64
	std::optional<uint64_t> branch_to; // the target of a direct branch
	bool undecodable = false;          // a byte LLVM could not decode
};

class Disassembler {
public:
	static Expected<std::unique_ptr<Disassembler>> create(Arch arch);
	// One on the shared libLLVM's C interface, as a binary without its
	// module has (LLVM's own subtarget and printing), for tests to
	// compare the module with.
	static Expected<std::unique_ptr<Disassembler>> create_shared(Arch arch);
	~Disassembler();
	Disassembler(const Disassembler &) = delete;
	Disassembler &operator=(const Disassembler &) = delete;

	// Every instruction of code, which starts at addr. A byte that does
	// not decode becomes a one-byte instruction marked undecodable, so
	// the sizes always add up to code.size().
	std::vector<MachineInsn> disassemble(std::span<const uint8_t> code, uint64_t addr);
	// The first instruction of code (not empty), which starts at addr.
	MachineInsn decode(std::span<const uint8_t> code, uint64_t addr);
	// The same into insn, whose text keeps its buffer from one
	// instruction to the next.
	void decode(std::span<const uint8_t> code, uint64_t addr, MachineInsn &insn);
	// The parts of the first instruction of code, which its text would
	// show (disasm_module.h), and its length; 0 when only its text can
	// tell: not x86_64, LLVM without ljcore's module, or an instruction
	// of a shape the parts do not hold.
	size_t describe(std::span<const uint8_t> code, uint64_t addr, ljcore_mc_operation &out);
	// LLVM's name of the register numbered reg in parts ("EAX"), empty if
	// none.
	std::string_view register_name(unsigned reg) const;

private:
	Disassembler(Arch arch, const ljcore_mc *mc) : arch_(arch), mc_(mc) {}
	// A decoder for arch from lib, once loaded.
	static Expected<std::unique_ptr<Disassembler>>
	create_from(Arch arch, const Expected<const ljcore_mc *> &lib);

	Arch arch_;
	const ljcore_mc *mc_;
	void *decoder_ = nullptr; // mc_'s (disasm_module.h)
};

} // namespace ljcore
