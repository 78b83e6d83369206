// The Lua frames of one lua_State: the shared walker (luajit/walker.h)
// finds them, the symbolizer names them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "analyzer/lua_memory.h"
#include "analyzer/model.h"
#include "analyzer/traces/trace_frames.h"

namespace ljcore {

struct WalkStart {
	uint64_t L = 0;
	uint64_t base = 0;   // BASE register when the VM is on top, else 0
	uint64_t top_pc = 0; // PC register when the VM is on top, else 0
	// A crash in compiled code: the frames above base come from the
	// trace's snapshot, and the frame at base runs in the trace too.
	const TraceFrames *compiled = nullptr;
};

// Names a C function pointer (a symbol), empty if unknown.
using CodeSymbolizer = std::function<std::string(uint64_t)>;

LuaStack walk_lua_stack(const LuaMemory &mem, const WalkStart &start,
			const CodeSymbolizer &symbolize);

} // namespace ljcore
