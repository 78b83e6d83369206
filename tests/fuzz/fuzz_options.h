// What the analysis harnesses ask of a core: everything `analyze --all`,
// `traces --mcode` and `gc --paths` read, from the input alone.
#pragma once

#include "analyzer/analyze.h"

namespace ljcore::fuzz {

inline AnalyzeOptions everything()
{
	AnalyzeOptions o;
	o.lookup.core_only = true;
	o.scan = ScanMode::always;
	o.all_coroutines = true;
	o.traces = true;
	o.mcode = true;
	GcCensusOptions gc;
	gc.paths = true;
	o.gc = gc;
	return o;
}

} // namespace ljcore::fuzz
