// ljcore gc --diff BEFORE AFTER: what grew between two cores of one program.
#pragma once

#include <string>

#include "analyzer/analyze.h"

namespace ljcore {

// Analyzes both cores (census and paths of every VM), pairs their VMs in
// order and prints the growth; returns the exit status.
int gc_diff_command(const std::string &before, const std::string &after,
		    const AnalyzeOptions &options, bool json);

} // namespace ljcore
