// Locals, varargs and upvalues of Lua frames, named as debug.getlocal and
// debug.getupvalue name them (lj_debug.c debug_localname, lua_getupvalue).
#pragma once

#include <cstdint>

#include "analyzer/lua_memory.h"
#include "analyzer/values/lua_values.h"
#include "analyzer/model.h"

namespace ljcore {

struct LocalsOptions {
	bool all = false; // also (*temporary) and (*vararg) slots
	ValueLimits limits;
};

// Fills frames[].variables of every Lua frame of stack. current_L: the
// running coroutine (threads' status). Frames that run in a compiled trace
// get a note instead: their stack slots may be stale.
void read_frame_variables(const LuaMemory &mem, uint64_t g, uint64_t current_L, LuaStack &stack,
			  const LocalsOptions &options, const SymbolLookup &symbolize);

} // namespace ljcore
