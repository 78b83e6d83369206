// ljcore profile --alloc: what a live process allocates, by Lua stack,
// from allocations sampled at its VM's allocator (alloc_sampler.h) and
// scaled back; --alloc=outstanding keeps only the sampled blocks not freed
// by the end, after a full GC cycle has had the chance to free what was
// garbage by then.
#pragma once

#include <functional>

#include "analyzer/profile/profiled_process.h"
#include "analyzer/profile/profiler.h"

namespace ljcore {

// A sampled block still allocated after the sweep that follows the end.
struct OutstandingBlock {
	uint64_t addr = 0;
	double bytes = 0;                                 // the bytes it stands for
	const std::vector<ProfileFrame> *stack = nullptr; // that allocated it
};

// Called for each process at the end, with the sampled blocks not freed by
// then, garbage not yet swept included: for a caller that walks the heap,
// which tells garbage apart, so no sweep is waited for. The process runs
// on: a block it frees during the visit may already hold something else.
using OutstandingVisitor =
	std::function<void(const ProfiledProcess &, const std::vector<OutstandingBlock> &)>;

std::expected<Profile, ProfileError> profile_allocations(const ProfileOptions &options,
							 const OutstandingVisitor &visit = {});

} // namespace ljcore
