// The whole analysis of a core: threads, VMs, Lua stacks, as a result model.
#pragma once

#include <string>

#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "analyzer/session.h"
#include "readers/error.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

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
