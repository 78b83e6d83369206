// What grew between two censuses of the same program's heap: by type, by
// path prefix (names, so addresses may differ between the cores), and
// the largest objects that are new.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model/gc_model.h"

namespace ljcore {

struct GcGrowth {
	int64_t count = 0;
	int64_t bytes = 0;
};

struct GcPrefixGrowth {
	std::string prefix;
	uint64_t before = 0;
	uint64_t after = 0;
	int64_t growth() const { return int64_t(after) - int64_t(before); }
};

struct GcDiff {
	uint64_t total_before = 0; // g->gc.total
	uint64_t total_after = 0;
	std::array<GcGrowth, gc_type_count> types{};
	std::vector<GcPrefixGrowth> prefixes; // most grown first
	// Retained bytes of the object at each path prefix, most grown
	// first; empty unless both censuses have retained sizes.
	std::vector<GcPrefixGrowth> retained;
	// Largest objects of the second core with a path that none of the
	// first core's largest objects has.
	std::vector<GcObject> new_largest;
};

GcDiff gc_diff(const GcCensus &before, const GcCensus &after);

} // namespace ljcore
