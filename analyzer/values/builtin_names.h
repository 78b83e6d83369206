// Names of a VM's fast functions (builtin#N), as its own library tables
// hold them: "pcall", "string.format". Taken from the registry's _LOADED
// in the target, they are right for whichever LuaJIT version and fork ran,
// where a table of fast function ids would have to match the build.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "analyzer/lua/vm.h"

namespace ljcore {

// GCfunc address -> name; empty when the registry cannot be read.
std::unordered_map<uint64_t, std::string> builtin_names(const Vm &vm);

} // namespace ljcore
