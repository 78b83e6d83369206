// The Lua frames of one lua_State: the shared walker (luajit/walker.h)
// finds them, the symbolizer names them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/analysis.h"
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

// lua_getstack() visits at most this many frames: LuaJIT's stack holds at
// most LJ_STACK_MAXEX slots and every frame takes at least one.
constexpr size_t max_lua_frames = 1 << 17;

// The frames of start.L, innermost first; a walk stopped at max_frames is
// not complete.
LuaStack walk_lua_stack(const Vm &mem, const WalkStart &start, const CodeSymbolizer &symbolize,
			size_t max_frames = max_lua_frames);

// Whether a walk from start holds: every frame link leads down the stack
// to its bottom. Empty if it does, else why not, as walk_lua_stack() would
// say it. Frames are not named, so it costs little more than the reads.
std::string frame_chain_problem(const Vm &mem, const WalkStart &start);

// lj_walk_returning_to() (luajit/walker.h): the base of the frame the
// frame at base returns to, when the interpreter's PC is its return
// address, as the frame's link says (linked) or as pc alone says; nullopt
// if not.
std::optional<uint64_t> returning_to(const Vm &mem, uint64_t base, uint64_t pc, bool linked);

// One frame as the walker (luajit/walker.h, struct lj_frame) visits it.
struct WalkedFrame {
	uint64_t slot = 0;
	uint64_t nextslot = 0;
	uint64_t prevslot = 0;
	uint64_t func = 0;
	uint64_t pc = 0;
	uint32_t type = 0;
	uint32_t level = 0;
};

// Appends to stack.frames the frames a walk gave (innermost first), named
// as lua_getinfo("Snl") names them: a frame's name comes from the call
// instruction of the frame right below, when it links there. The first
// ncompiled + 1 run in compiled's trace (none without it). For walks made
// elsewhere, as the profiler's in BPF.
void name_frames(const Vm &mem, const std::vector<WalkedFrame> &raw, const TraceFrames *compiled,
		 size_t ncompiled, const CodeSymbolizer &symbolize, LuaStack &stack);

} // namespace ljcore
