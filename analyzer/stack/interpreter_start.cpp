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
	const std::string broken = "; from the register, " + registers_problem;
	if (auto caller = returning_to(vm, regs.base, regs.pc)) {
		const WalkStart from_caller{L, *caller, regs.pc};
		if (frame_chain_problem(vm, from_caller).empty()) {
			diag.evidence(said + broken +
				      "; PC is the return address of the frame at the register, "
				      "whose results may cover its function: walked from the frame "
				      "it returns to, " +
				      luajit_pointer(*caller));
			return from_caller;
		}
	}
	if (l_base && !agree) {
		const WalkStart from_l_base{L, *l_base, regs.pc};
		const std::string l_base_problem = frame_chain_problem(vm, from_l_base);
		if (l_base_problem.empty()) {
			diag.evidence(said + broken +
				      "; L->base's frame chain holds: walked from it (the "
				      "interpreter stored BASE there and reused the register, as "
				      "it does before calling C)");
			return from_l_base;
		}
		diag.evidence(said + broken + "; from L->base, " + l_base_problem +
			      ": walked from the register");
		return from_registers;
	}
	diag.evidence(said + broken + "; no other start holds: walked from the register");
	return from_registers;
}

} // namespace ljcore
