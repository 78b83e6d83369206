// Where the survivors came from: profile --alloc=outstanding's sampled
// blocks still allocated at the end, placed in the heap by the path from a
// root through which each is reached, and grouped there by the Lua stack
// that allocated them (gc --alloc-sites).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/profile/profiler.h"

namespace ljcore {

struct AllocSite {
	std::vector<ProfileFrame> stack; // root first, as in a Profile
	double bytes = 0;                // the sampled blocks' bytes, scaled
	uint64_t blocks = 0;             // sampled blocks
};

// The outstanding blocks reached through one path prefix ("" for those
// the heap walk did not reach: garbage not yet swept, or blocks that are
// no object's), by allocating stack, the most bytes first.
struct AllocSitePath {
	std::string path;
	double bytes = 0;
	uint64_t blocks = 0;
	std::vector<AllocSite> sites;
};

struct AllocSitesVm {
	int32_t pid = 0;
	uint64_t global_state = 0;
	uint64_t paused_us = 0;           // stopped to copy the heap at the end
	std::vector<AllocSitePath> paths; // the most bytes first
};

struct AllocSites {
	Profile profile; // the allocation profile the blocks came from
	std::vector<AllocSitesVm> vms;
};

// Profiles allocations, then copies each process's heap and places the
// sampled blocks not freed by then.
// depth: path steps below a root that are told apart.
std::expected<AllocSites, ProfileError> alloc_sites(ProfileOptions options, uint32_t depth);

} // namespace ljcore
