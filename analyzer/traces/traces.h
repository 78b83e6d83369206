// Reading the JIT's traces from a VM: jit_State's trace array, each
// GCtrace with its IR, constants and snapshots (lj_jit.h, lj_ir.h).
#pragma once

#include <cstdint>
#include <string>

#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/trace_model.h"
#include "luajit/trace_layout.h"

namespace ljcore {

// Every trace of vm, or only trace number only when it is not 0. A trace that cannot be read is
// listed with the reason; the others still are. with_mcode also reads machine code.
TraceSet read_traces(const Vm &vm, const lj_trace_layout &tl, bool with_mcode, uint32_t only = 0);

// lj_debug_pushloc(): how LuaJIT names a place in a function for jit.dump
// and jit.util.funcinfo: "file.lua:12" (directories dropped), "=name:12",
// "\"chunk\":12", or "0x...:12" for a long chunk name.
std::string luajit_location(const std::string &chunkname, int32_t firstline, uint64_t proto,
			    int32_t line);

// The function a prototype defines, as a trace's start names it:
// "main chunk" (debug.getinfo's what == "main"), else "function <loc>" with
// the loc jit.util.funcinfo() gives it, e.g. "function <file.lua:10>".
std::string luajit_function(const std::string &chunkname, const Proto &pt);

} // namespace ljcore
