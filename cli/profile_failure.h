// How a profiler that could not start is told: its message on stderr and
// the exit status of its kind (profile and gc --pid --every/--alloc-sites).
#pragma once

#include "analyzer/profile/profiler.h"

namespace ljcore {

int report_profile_failure(const ProfileError &e);

} // namespace ljcore
