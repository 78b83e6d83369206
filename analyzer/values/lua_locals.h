// Locals, varargs and upvalues of Lua frames, named as debug.getlocal and
// debug.getupvalue name them (lj_debug.c debug_localname, lua_getupvalue).
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"
#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "analyzer/traces/snapshot_values.h"
#include "analyzer/values/lua_values.h"

namespace ljcore {

// Fills frames[].variables of every Lua frame of stack. current_L: the
// running coroutine (threads' status). For a stack that crashed in a
// trace, trace_values are what its snapshot restores: the frames that run
// in the trace take their slots from there first (a slot it does not list
// is current on the stack). Without them, such frames get a note instead:
// their stack slots may be stale.
void read_frame_variables(const Vm &vm, uint64_t current_L, LuaStack &stack,
			  const LocalsOptions &options, const SymbolLookup &symbolize,
			  const SnapshotValues *trace_values = nullptr);

} // namespace ljcore
