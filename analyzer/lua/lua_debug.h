// Names and lines of Lua frames, derived the way lj_debug.c derives them:
// chunk name and current line from the GCproto, the function's name from
// the bytecode of its caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/lua_text.h"
#include "readers/error.h"

namespace ljcore {

// The parts of a GCproto the symbolizer reads.
struct Proto {
	uint64_t addr = 0;
	uint32_t sizebc = 0;
	uint8_t sizeuv = 0;
	uint8_t numparams = 0;
	uint8_t flags = 0; // PROTO_* of lj_obj.h
	uint64_t k = 0;
	uint64_t chunkname = 0; // GCstr *
	int32_t firstline = 0;
	int32_t numline = 0;
	uint64_t lineinfo = 0;
	uint64_t uvinfo = 0;
	uint64_t varinfo = 0;
	uint64_t bc = 0; // first instruction, right after the header
};

constexpr uint32_t no_bcpos = ~uint32_t(0);

Expected<Proto> read_proto(const Vm &mem, uint64_t pt);
// The GCproto of a Lua function (GCfuncL).
Expected<Proto> function_proto(const Vm &mem, uint64_t fn);

// BCPos of a raw pc as debug_framepc() computes it, or no_bcpos.
uint32_t bc_position(const Proto &pt, uint64_t pc);

// lj_debug_line(): the source line of a bytecode position.
Expected<int32_t> proto_line(const Vm &mem, const Proto &pt, uint32_t pos);

// lj_debug_shortname(): "file.lua", "...tail/of/a/long/path.lua",
// [string "chunk..."].
std::string short_source(const std::string &chunkname, int32_t firstline);

struct FunctionName {
	std::string namewhat; // empty if LuaJIT would find no name
	std::string name;
};

// lj_debug_funcname(): how the caller, a Lua function stopped at the call
// instruction at caller_pos, named the function it called.
Expected<FunctionName> name_from_caller(const Vm &mem, const Proto &caller, uint32_t caller_pos);

// The names of the variables live at a position, in slot order: what
// debug_varname() gives for slots 0, 1, ... (the varinfo of a stripped
// function gives none). Slots are reused once a scope ends.
Expected<std::vector<std::string>> live_variables(const Vm &mem, const Proto &pt, uint32_t pos);

// lj_debug_uvname(): the name of an upvalue, "" without uvinfo.
Expected<std::string> upvalue_name(const Vm &mem, const Proto &pt, uint32_t index);

} // namespace ljcore
