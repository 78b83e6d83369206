// Where the survivors came from: profile --alloc's sampled blocks not freed
// by the end, placed in the heap under the objects that retain the most
// (gc/retained.h), and grouped there by the Lua stack that allocated them
// (gc --alloc-sites).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model/gc_model.h"
#include "analyzer/profile/profiler.h"

namespace ljcore {

struct AllocSite {
	std::vector<ProfileFrame> stack; // root first, as in a Profile
	double bytes = 0;                // the sampled blocks' bytes, scaled
	uint64_t blocks = 0;             // sampled blocks
};

// The sampled blocks under one holder, by allocating stack, the most bytes
// first. A holder is one of the objects of the largest retained sizes:
// a block is under the nearest of them that dominates the object it is
// (or whose array, hash part or stack it is).
struct AllocHolder {
	enum class Kind {
		object,    // under the object below
		elsewhere, // reached from a root, but under none of those objects
		garbage,   // reached from no root: garbage not yet swept
	} kind = Kind::object;
	uint64_t address = 0;
	GcType type = GcType::table;
	uint64_t retained_bytes = 0;
	std::string path; // a shortest one from a root
	double bytes = 0; // of the sampled blocks under it
	uint64_t blocks = 0;
	std::vector<AllocSite> sites;
};

struct AllocSitesVm {
	int32_t pid = 0;
	uint64_t global_state = 0;
	uint64_t paused_us = 0; // stopped to copy the heap at the end
	bool complete = true;   // the heap walk reached everything
	// The objects in order of retained size, then elsewhere and garbage;
	// those with no sampled block left out.
	std::vector<AllocHolder> holders;
};

struct AllocSites {
	Profile profile; // the allocation profile the blocks came from
	std::vector<AllocSitesVm> vms;
};

// Profiles allocations, then copies each process's heap and places the
// sampled blocks not freed by then under its top objects by retained size.
std::expected<AllocSites, ProfileError> alloc_sites(ProfileOptions options, size_t top);

} // namespace ljcore
