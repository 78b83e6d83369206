// Lua values read from a target into plain data, for locals and upvalues.
// Reading is bounded by ValueLimits: strings are cut, tables expanded only
// to a depth and a number of entries, so a hostile heap costs little.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/value_model.h"

namespace ljcore {

// Names a code address (a C function), empty if unknown.
using SymbolLookup = std::function<std::string(uint64_t)>;

class ValueReader {
public:
	// current_L: the running coroutine, so threads read "running".
	ValueReader(const Vm &vm, uint64_t current_L, ValueLimits limits, SymbolLookup symbolize)
	    : mem_(vm), current_L_(current_L), limits_(limits), symbolize_(std::move(symbolize))
	{
	}

	// The value of the TValue at addr.
	LuaValue at(uint64_t addr) const;
	// The value of a TValue already read (tvalue.h).
	LuaValue of_raw(uint64_t raw) const;

private:
	LuaValue decode(uint64_t raw, uint32_t depth, std::vector<uint64_t> &open_tables) const;
	void read_table(LuaValue &v, uint32_t depth, std::vector<uint64_t> &open_tables) const;
	void read_function(LuaValue &v) const;
	void read_cdata(LuaValue &v) const;
	void read_pointer(LuaValue &v, uint64_t payload) const;

	const Vm &mem_;
	uint64_t current_L_;
	ValueLimits limits_;
	SymbolLookup symbolize_;
	mutable size_t budget_ = 0; // values still to read for this one
	// Fast functions' names (builtin_names.h), read when the first one
	// is met.
	mutable std::optional<std::unordered_map<uint64_t, std::string>> builtins_;
};

} // namespace ljcore
