// Where the walk of the running coroutine starts when a thread was caught
// in the interpreter itself: its BASE and PC registers are evidence, not
// truth. While it runs bytecode they are live and L->base lags behind; but
// before a call to C the interpreter stores BASE to L->base and may reuse
// the register for an argument (vm_x64.dasc: BASE is rdx, also CARG3), and
// while it returns, PC already points into the caller while BASE is still
// the callee's, whose function slot the results may cover. Each start is
// checked against the frame chain (frame_chain_problem()) and the first
// that holds is taken:
//   1. the registers, BASE and PC;
//   2. the frame BASE returns to, if its link is PC (lj_walk_returning_to());
//   3. L->base, with PC (the function on top there is the one PC is in
//      when L->base is current; a C function's pc is not read from it);
//   4. the frame PC returns to, the link gone: with one-slot links
//      (!LJ_FR2) the first result overwrites it.
// When none holds, the registers stay, and the walk says where they broke.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"
#include "analyzer/stack/lua_stack.h"
#include "readers/diagnostics.h"

namespace ljcore {

// The interpreter's registers at its native frame.
struct InterpreterRegs {
	uint64_t base = 0;
	uint64_t pc = 0;
};

// The start of the walk of L; diag gets, as evidence, which start was
// taken and why whenever the registers and L->base disagree.
WalkStart interpreter_start(const Vm &vm, uint64_t L, const InterpreterRegs &regs,
			    Diagnostics &diag);

} // namespace ljcore
