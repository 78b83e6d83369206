// ljcore profile --alloc: what a live process allocates, by Lua stack,
// from allocations sampled at its VM's allocator (alloc_sampler.h) and
// scaled back; --alloc=outstanding keeps only the sampled blocks not freed
// by the end, after a full GC cycle has had the chance to free what was
// garbage by then.
#pragma once

#include "analyzer/profile/profiler.h"

namespace ljcore {

std::expected<Profile, ProfileError> profile_allocations(const ProfileOptions &options);

} // namespace ljcore
