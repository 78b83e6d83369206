// What an analysis is asked for: the options of analyze_target() and of
// the steps it runs, in one header that the commands include without the
// analyzer's internals.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "analyzer/model/value_model.h"
#include "analyzer/values/lua_path.h"
#include "readers/mapped_files.h"

namespace ljcore {

// When to scan writable memory for VMs: only when neither the VM register
// nor a symbol found one, always (finds idle VMs too), or never.
enum class ScanMode { automatic, always, never };

// Which layouts a VM may be read with: DWARF, then the one derived from
// LuaJIT's code, then the built-in tables; or only the derived one (to
// check the deriver, or when a table would mislead); or DWARF and the
// tables without reading code (LLVM's module not loaded, as before
// deriving existed: the figure deriving's cost is measured against).
enum class LayoutChoice { automatic, derived, tables };

struct GcCensusOptions {
	size_t top = 10;        // largest objects to keep
	size_t top_strings = 5; // largest strings to keep
	bool paths = false;     // also a path from a root to each (gc_paths.h)
	// Retained sizes (gc/retained.h): the objects of the largest, each
	// table with its largest dominated children down to retained_depth.
	bool retained = false;
	size_t retained_top = 10;
	size_t retained_depth = 0;
};

struct LocalsOptions {
	bool all = false; // also (*temporary) and (*vararg) slots
	ValueLimits limits;
};

// One value by its path (ljcore print).
struct PrintRequest {
	std::string expression;
	LuaPath path;
	ValueLimits limits;
};

struct AnalyzeOptions {
	FileLookup lookup;
	ScanMode scan = ScanMode::automatic;
	LayoutChoice layout = LayoutChoice::automatic;
	bool all_coroutines = false;         // walk every lua_State, not just the running one
	bool traces = false;                 // read the JIT's traces
	bool mcode = false;                  //   and their machine code
	std::optional<GcCensusOptions> gc;   // a census of each VM's GC heap
	std::optional<LocalsOptions> locals; // locals and upvalues of Lua frames
	std::optional<PrintRequest> print;   // one value by its path (ljcore print)
};

} // namespace ljcore
