// What the analysis harnesses ask of a core: everything `analyze --all
// --locals=all`, `traces --mcode`, `gc --paths` and `print` (a path that
// searches tables by string and number keys) read, from the input alone.
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
	o.locals = LocalsOptions{true, ValueLimits{}};
	const char *expression = "package.loaded[\"string\"][1]";
	o.print = PrintRequest{expression, *parse_lua_path(expression), ValueLimits{}};
	return o;
}

} // namespace ljcore::fuzz
