// An instruction as LLVM prints it, split into its mnemonic and operands:
// registers by their full-width name, immediates, and memory operands
// (base, index, displacement, width). Enough of x86_64 (Intel syntax) and
// AArch64 for the deriver to follow values through registers; anything it
// cannot read becomes an Operand of kind other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/traces/disasm.h"
#include "readers/target.h"

namespace ljcore {

enum class OperandKind { other, reg, imm, mem };

struct Operand {
	OperandKind kind = OperandKind::other;
	std::string reg;   // reg: full-width name ("rax", "x0"); mem: the base
	std::string index; // mem: index register, if any
	int64_t value = 0; // imm: the value; mem: the displacement
	uint8_t width = 0; // bytes the register or memory operand covers, 0 if unknown
	bool zero = false; // reg: xzr or wzr, which read as 0
};

struct Operation {
	uint64_t addr = 0;
	std::string mnemonic;
	std::vector<Operand> operands;
	std::optional<uint64_t> branch_to;
};

// The operation of insn, or one with an empty mnemonic when it did not
// decode.
Operation operation_of(const MachineInsn &insn, Arch arch);

// Registers a call may change (the System V and AAPCS64 calling
// conventions) and those it passes arguments in, by position.
bool caller_saved(const std::string &reg, Arch arch);
const std::vector<std::string> &argument_registers(Arch arch);
const char *return_register(Arch arch);

} // namespace ljcore
