#include "analyzer/stack/interpreter_start.h"

#include <optional>
#include <string>

#include "analyzer/lua/lua_state.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

WalkStart interpreter_start(const Vm &vm, uint64_t L, const InterpreterRegs &regs,
			    Diagnostics &diag)
{
	const WalkStart from_registers{L, regs.base, regs.pc};
	auto l_base = LuaState(vm, L).base();
	const std::string registers_problem = frame_chain_problem(vm, from_registers);
	const bool agree = l_base && *l_base == regs.base;
	if (registers_problem.empty() && agree)
		return from_registers;

	const std::string said =
		"Lua stack of " + luajit_pointer(L) +
		(agree ? ": the BASE register and L->base, " + luajit_pointer(regs.base)
		       : ": the BASE register " + luajit_pointer(regs.base) + " and L->base " +
				 (l_base ? luajit_pointer(*l_base) : "(unreadable)"));
	if (registers_problem.empty()) {
		diag.evidence(said + " disagree; the register's frame chain holds: walked from it "
				     "(L->base lags while the interpreter runs bytecode)");
		return from_registers;
	}
	// The other starts, in the order interpreter_start.h gives.
	struct Other {
		std::optional<uint64_t> base;
		const char *what;
	};
	const Other others[] = {
		{returning_to(vm, regs.base, regs.pc, true),
		 "the frame the register's returns to (its link is PC, as when returning; "
		 "the results may cover its function)"},
		{agree || !l_base ? std::nullopt : std::optional<uint64_t>(*l_base),
		 "L->base (stored there before the register was reused, as before a call "
		 "to C)"},
		{returning_to(vm, regs.base, regs.pc, false),
		 "the frame PC returns to (a one-slot link the results overwrote)"},
	};
	std::string said_of_others = "; from the register, " + registers_problem;
	for (const Other &o : others) {
		if (!o.base)
			continue;
		const WalkStart start{L, *o.base, regs.pc};
		const std::string problem = frame_chain_problem(vm, start);
		if (problem.empty()) {
			diag.evidence(said + said_of_others + "; walked from " + o.what + ", " +
				      luajit_pointer(*o.base) + ", whose frame chain holds");
			return start;
		}
		said_of_others += "; from " + luajit_pointer(*o.base) + ", " + problem;
	}
	diag.evidence(said + said_of_others + "; no start holds: walked from the register");
	return from_registers;
}

} // namespace ljcore
