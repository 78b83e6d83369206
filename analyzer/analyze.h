// The whole analysis of a core: threads, VMs, Lua stacks, as a result model.
#pragma once

#include <optional>
#include <string>

#include "analyzer/gc/gc_census.h"
#include "analyzer/locate/locate.h"
#include "analyzer/model/analysis.h"
#include "analyzer/session.h"
#include "analyzer/values/lua_locals.h"
#include "analyzer/values/lua_print.h"
#include "readers/error.h"
#include "readers/mapped_files.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

struct AnalyzeOptions {
	FileLookup lookup;
	ScanMode scan = ScanMode::automatic;
	bool all_coroutines = false;         // walk every lua_State, not just the running one
	bool traces = false;                 // read the JIT's traces
	bool mcode = false;                  //   and their machine code
	std::optional<GcCensusOptions> gc;   // a census of each VM's GC heap
	std::optional<LocalsOptions> locals; // locals and upvalues of Lua frames
	std::optional<PrintRequest> print;   // one value by its path (ljcore print)
};

// Fails only when the core cannot be read at all; everything that goes
// wrong later is recorded as a problem in Analysis::diagnostics and the
// result is partial.
Expected<Analysis> analyze_core(const std::string &path, const AnalyzeOptions &options);

// Everything after opening: the same for a core, a live process, or a
// target that records what is read.
Analysis analyze_target(const Target &target, const NativeSession &native,
			const AnalyzeOptions &options);

// A running process, stopped (ptrace) only while it is read, never written.
Expected<Analysis> analyze_pid(int32_t pid, const AnalyzeOptions &options);

} // namespace ljcore
