// Raw access to a Lua table in a target: rawget by a key written as Lua
// source writes it, and a bounded walk of its entries.
#pragma once

#include <cstdint>
#include <functional>

#include "analyzer/lua/vm.h"
#include "analyzer/values/lua_path.h"
#include "readers/error.h"

namespace ljcore {

// rawget(t, key) as a raw TValue (tvalue.h); nil when the table has no
// such key. A key is found by a scan of the hash part, not by its hash:
// the string hash function differs between LuaJIT versions. The scan is
// bounded by what LuaJIT allows a table.
Expected<uint64_t> table_get(const Vm &mem, uint64_t t, const LuaKey &key);

// Visits up to max_entries non-nil entries of t as raw TValues, the array
// part first (its keys as numbers), then the hash part. Returns how many.
Expected<size_t> table_each(const Vm &mem, uint64_t t, size_t max_entries,
			    const std::function<void(uint64_t key, uint64_t value)> &visit);

} // namespace ljcore
