// LuaJIT's IR opcodes by name, and the number a fork gives each
// (luajit/ir_names.h). A trace's instructions carry lj_ir_ops' numbers,
// which are upstream's and luajit2's: Tarantool's fork numbers them its own
// way (it lacks TMPREF and ALEN), so its traces are translated as they are
// read. The names jit.dump prints are cli/'s (render_trace_ir.cpp).
#pragma once

#include <cstdint>
#include <string_view>

// lj_ir_ops: the opcodes' names and operand modes, in the numbering used here.
#include "luajit/ir_names.h"

namespace ljcore {

// lj_ir_ops' number of the opcode named so, -1 if none.
int ir_op(std::string_view name);

// lj_ir_ops' number of the fork's opcode raw; 0xff if it has none. The
// same number for upstream and luajit2. fork: TraceSet::fork ("upstream",
// "luajit2", "tarantool").
uint8_t canonical_ir_op(std::string_view fork, uint8_t raw);

} // namespace ljcore
