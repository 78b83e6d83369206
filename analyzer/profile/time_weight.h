// ljcore profile --off-cpu and --wall: samples weighed in nanoseconds, under
// a root frame that says where the thread was: [on-cpu], [off-cpu: blocked]
// (waiting for something: a system call, a lock, a page) or [off-cpu:
// runqueue] (preempted, runnable, waiting for a CPU).
#pragma once

#include <cstdint>

#include "analyzer/profile/sample_namer.h"

namespace ljcore {

// The nanoseconds s stands for: its time off the CPU, or, taken on it,
// the sampling period. Adds the root frame to named's frames.
uint64_t weigh_in_time(NamedSample &named, const lj_profile_sample &s, uint64_t period_ns);

} // namespace ljcore
