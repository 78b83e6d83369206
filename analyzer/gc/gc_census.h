// Census of a VM's GC heap: one bounded pass over every object, sized as
// LuaJIT itself accounts it, reconciled with g->gc.total.
#pragma once

#include <cstddef>

#include "analyzer/lua/vm.h"
#include "analyzer/model/gc_model.h"
#include "analyzer/options.h"

namespace ljcore {

// Walks g->gc.root, g->gc.mmudata, the string table and every thread's
// open upvalues once. Never fails: what could not be read ends one walk
// and is recorded as a problem in GcCensus::diagnostics.
GcCensus gc_census(const Vm &vm, const GcCensusOptions &options);

} // namespace ljcore
