// The version string of LuaJIT's module as a hint for the layout search:
// the built-in tables whose builds carry it are tried first, and
// --explain says what it suggested and whether memory agreed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/analysis.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"

namespace ljcore {

// Looks for the version string in the module of setmode, the symbol
// luaJIT_setmode (every LuaJIT exports it, executable or library; none
// when no module does), moves the tables it names to the front of
// builtin, and says what it found in evidence.
std::optional<VersionString> version_hint(const Memory &mem, const NativeSession &native,
					  const std::optional<SymbolInfo> &setmode,
					  std::vector<const lj_layout *> &builtin,
					  Diagnostics &diag);

// Sets v.layout_matches_version when the hint names any table, and says
// in evidence when v's layout is none of them.
void compare_with_hint(const std::optional<VersionString> &hint, VmResult &v, Diagnostics &diag);

} // namespace ljcore
