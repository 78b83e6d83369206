// Paths from the roots of a VM to its objects: a breadth-first search, so
// each path found is a shortest one, with bounded work.
#pragma once

#include <cstdint>

#include "analyzer/gc/gc_census.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/gc_model.h"

namespace ljcore {

struct GcPathOptions {
	uint64_t max_objects = 4000000; // objects visited before giving up
	uint64_t max_slots = 64000000;  // table, stack and upvalue slots read
};

// Roots, in the order that breaks ties between paths of equal length:
// _G (the main thread's globals), package.loaded (registry._LOADED), the
// registry; only objects none of them reaches get a path from the stack
// of the main thread or of the running coroutine. Edges:
// table keys and values, metatables, Lua and C function upvalues, stack
// slots. A census (gc_census.h) with, besides, the path of census.top and
// census.strings.largest, and census.by_prefix: the bytes of the objects
// first reached through each root and first key. census.paths_complete
// says whether the search ran to its end.
// objects: as gc_census's.
GcCensus gc_census_with_paths(const Vm &vm, const GcCensusOptions &census_options,
			      const GcPathOptions &path_options,
			      std::vector<uint64_t> *objects = nullptr);

} // namespace ljcore
