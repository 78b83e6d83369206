// rawget on a Lua table in a target, by a key written as Lua source
// writes it (lua_path.h). The table itself is read by analyzer/lua/table.h.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"
#include "analyzer/values/lua_path.h"
#include "readers/error.h"

namespace ljcore {

// rawget(t, key) as a raw TValue (tvalue.h); nil when the table has no
// such key. A key is found by a scan of the hash part, not by its hash:
// the string hash function differs between LuaJIT versions. The scan is
// bounded by what LuaJIT allows a table.
Expected<uint64_t> table_get(const Vm &mem, uint64_t t, const LuaKey &key);

} // namespace ljcore
