// LuaJIT's IR opcodes and the names jit.dump prints, by fork
// (luajit/ir_names.h). A trace's instructions carry lj_ir_ops' numbers,
// which are upstream's and luajit2's: Tarantool's fork numbers them its own
// way (it lacks TMPREF and ALEN), so its traces are translated as they are
// read, and its IR dump takes its own operand modes and names.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "luajit/ir_names.h"

namespace ljcore {

struct IrNames {
	std::span<const lj_ir_op> ops; // in the fork's own numbering
	std::span<const char *const> fields, calls, ffnames;
};

// fork: TraceSet::fork ("upstream", "luajit2", "tarantool").
const IrNames &ir_names(std::string_view fork);

// lj_ir_ops' number of the opcode named so, -1 if none.
int ir_op(std::string_view name);

// lj_ir_ops' number of the fork's opcode raw; 0xff if it has none. The
// same number for upstream and luajit2.
uint8_t canonical_ir_op(std::string_view fork, uint8_t raw);

// The fork's operand modes of opcode op (lj_ir_ops' number); {"?", 3, 3}
// (no operands) for one it does not know.
lj_ir_op ir_op_modes(std::string_view fork, uint8_t op);

} // namespace ljcore
