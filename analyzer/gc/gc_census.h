// Census of a VM's GC heap: one bounded pass over every object, sized as
// LuaJIT itself accounts it, reconciled with g->gc.total.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/gc/big_array.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/gc_model.h"
#include "analyzer/options.h"

namespace ljcore {

// Walks g->gc.root, g->gc.mmudata, the string table and every thread's
// open upvalues once. Never fails: what could not be read ends one walk
// and is recorded as a problem in GcCensus::diagnostics. objects, when
// given, receives the address of every object counted (what the
// dominator tree of gc/retained.h is made over), in no order.
GcCensus gc_census(const Vm &vm, const GcCensusOptions &options,
		   gc::BigArray<uint64_t> *objects = nullptr);

} // namespace ljcore
