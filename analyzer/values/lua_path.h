// The expressions of `ljcore print`: a root (the globals, the registry, a
// frame's local or upvalue, any GC object by address) and a chain of
// .name and [key] steps into tables, as a Lua programmer writes them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "readers/error.h"

namespace ljcore {

// A table key written in an expression: a string (any bytes), a number or
// a boolean.
struct LuaKey {
	enum class Kind : uint8_t { string, number, boolean };
	Kind kind = Kind::string;
	std::string bytes;
	double number = 0;
	bool boolean = false;
};

struct LuaPath {
	enum class Root : uint8_t {
		globals,  // _G, or a leading name: package.loaded is _G.package.loaded
		registry, // registry, LUA_REGISTRYINDEX's table
		address,  // 0x7f..., any GC object
		local,    // frame N local NAME|INDEX, local NAME|INDEX of frame N
		upvalue,  // frame N upvalue NAME|INDEX, upvalue NAME|INDEX of frame N
	};
	Root root = Root::globals;
	uint64_t address = 0;
	uint32_t frame = 0;   // a Lua level, as lua_getstack() counts
	std::string variable; // by name, or
	uint32_t index = 0;   //   by position from 1 (debug.getlocal's n)
	std::vector<LuaKey> steps;
};

// Parses an expression; the error says where and what was expected.
Expected<LuaPath> parse_lua_path(std::string_view text);

// The key as Lua source would write it: .name, ["bytes"], [1], [true].
std::string key_text(const LuaKey &k);

} // namespace ljcore
