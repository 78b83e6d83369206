// The whole analysis of a core: threads, VMs, Lua stacks, as a result model.
#pragma once

#include <string>

#include "analyzer/model.h"
#include "readers/error.h"
#include "readers/mapped_files.h"

namespace ljcore {

struct AnalyzeOptions {
	FileLookup lookup;
};

// Fails only when the core cannot be read at all; everything that goes
// wrong later is recorded in Analysis::problems and the result is partial.
Expected<Analysis> analyze_core(const std::string &path, const AnalyzeOptions &options);

} // namespace ljcore
