// Census of a VM's GC heap: one bounded pass over every object, sized as
// LuaJIT itself accounts it, reconciled with g->gc.total.
#pragma once

#include <cstdint>

#include "analyzer/model/gc_model.h"
#include "analyzer/lua/vm.h"

namespace ljcore {

struct GcCensusOptions {
	size_t top = 10;        // largest objects to keep
	size_t top_strings = 5; // largest strings to keep
	bool paths = false;     // also a path from a root to each (gc_paths.h)
};

// Walks g->gc.root, g->gc.mmudata, the string table and every thread's
// open upvalues once. Never fails: what could not be read ends one walk
// and is recorded in GcCensus::problems.
GcCensus gc_census(const Vm &mem, uint64_t g, const GcCensusOptions &options);

} // namespace ljcore
