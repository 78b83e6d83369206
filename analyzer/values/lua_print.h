// `ljcore print`: the value an expression (lua_path.h) names in one VM,
// read with raw table accesses (no __index), as rawget would.
#pragma once

#include <cstdint>
#include <string>

#include "analyzer/lua/vm.h"
#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "analyzer/values/lua_path.h"
#include "analyzer/values/lua_values.h"

namespace ljcore {

// vm.stack must carry its frames' variables (read with LocalsOptions::all)
// when the path starts at a local or an upvalue.
PrintedValue print_value(const Vm &mem, const VmResult &vm, const PrintRequest &request,
			 const SymbolLookup &symbolize);

} // namespace ljcore
