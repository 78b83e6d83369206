// Mixed native and Lua stacks: which entry into the VM runs which Lua
// frames, and which native frame that entry is.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/analysis.h"
#include "readers/native_stack.h"

namespace ljcore {

// For each frame of a walked stack, the C frame (cframe) of the VM entry
// that runs it, 0 where the chain could not follow. Also says why it
// stopped early, if it did.
struct FrameCframes {
	std::vector<uint64_t> cframe; // one per stack frame
	std::string problem;
};
FrameCframes frame_cframes(const Vm &mem, const LuaStack &stack);

// Groups the frames into runs of one C frame each and places every run at
// the native frame whose stack pointer is that C frame (the interpreter
// keeps its stack pointer there, vm_x64.dasc/vm_arm64.dasc): no symbol is
// needed, so stripped binaries work. Placed runs go to their thread; runs
// no native frame matches go to home_thread (if any) unplaced, unless none
// at all was placed, in which case nothing is added.
void place_lua_runs(std::vector<ThreadResult> &threads, const std::vector<NativeStack> &stacks,
		    Arch arch, size_t vm, const LuaStack &stack, const FrameCframes &cframes,
		    std::optional<size_t> home_thread);
// Puts each thread's runs in order, innermost first, once all are placed
// (in order of placement where they tie): one sort rather than a sorted
// insert per run, which took minutes for 100 000 coroutines.
void order_lua_runs(std::vector<ThreadResult> &threads);

// Where native unwinding goes on below a trace's machine code, which has no
// CFI: the trace runs on the C frame of the interpreter that entered it, so
// at the interpreter's JLOOP handler (dispatch[BC_JLOOP] in GG_State) with
// the stack pointer at L->cframe. The handler's address, if readable.
std::optional<uint64_t> jloop_handler(const Vm &vm);

// lua_States of vm, other than those in `known`, that a VM entry on
// some native stack runs, innermost first: coroutines waiting in
// coroutine.resume for the running one, or states a C host entered. A
// native frame counts only when the lua_State its C frame names (CFRAME_L)
// is a thread of vm whose own C-frame chain holds that very C frame.
std::vector<uint64_t> entered_states(const Vm &vm, const std::vector<NativeStack> &stacks,
				     Arch arch, const std::vector<uint64_t> &known);

} // namespace ljcore
