// Paths from the roots of a VM to its objects: a breadth-first search, so
// each path found is a shortest one, with bounded work.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/gc/gc_census.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/gc_model.h"

namespace ljcore {

struct GcPathOptions {
	uint64_t max_objects = 4000000; // objects visited before giving up
	uint64_t max_slots = 64000000;  // table, stack and upvalue slots read
	// Steps below the root that name a prefix in GcCensus::by_prefix: 1
	// is a root and its first key ("_G.app"); deeper ones ("_G.app.cache")
	// tell a leak in one field of a big table from the rest. Below the
	// first step, array elements count toward their table's prefix, and
	// past max_prefixes every object counts toward its parent's.
	uint32_t prefix_depth = 1;
	uint32_t max_prefixes = 100000;
};

// Roots, in the order that breaks ties between paths of equal length:
// _G (the main thread's globals), package.loaded (registry._LOADED), the
// registry; only objects none of them reaches get a path from the stack
// of the main thread or of the running coroutine. Edges:
// table keys and values, metatables, Lua and C function upvalues, stack
// slots. A census (gc_census.h) with, besides, the path of census.top and
// census.strings.largest, and census.by_prefix: the bytes of the objects
// first reached through each path prefix (the bytes under "_G.app.cache"
// also count toward "_G.app"). census.paths_complete says whether the
// search ran to its end.
// objects: as gc_census's.
GcCensus gc_census_with_paths(const Vm &vm, const GcCensusOptions &census_options,
			      const GcPathOptions &path_options,
			      gc::BigArray<uint64_t> *objects = nullptr);

// Where the search first reaches a block: the object it is, or whose
// array, hash part or stack (a block of its own) it is; and the path
// prefix (to path_options.prefix_depth) of that object. object 0 for a
// block it does not reach (garbage, or past the search's bounds).
struct BlockPlace {
	std::string path;
	uint64_t object = 0;
};
std::vector<BlockPlace> gc_block_places(const Vm &vm, const std::vector<uint64_t> &blocks,
					const GcPathOptions &path_options);

// Each path prefix (to path_options.prefix_depth) of the search, with the
// object at its end: "_G.app.cache" and the cache table's address.
// complete: whether the search ran to its end.
std::map<std::string, uint64_t> gc_path_heads(const Vm &vm, const GcPathOptions &path_options,
					      bool &complete);

} // namespace ljcore
