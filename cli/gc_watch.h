// ljcore gc --pid N --every D --count K (heap snapshots of a running
// process, and the paths that grew in every interval) and gc --pid N
// --alloc-sites (outstanding allocations placed in the heap).
#pragma once

#include <optional>
#include <string>

#include "analyzer/alloc_sites.h"
#include "analyzer/heap_watch.h"

namespace ljcore {

// "30s", "1.5s", "500ms", "2m", "1h", or seconds alone: the seconds, or
// nothing when s is none of these.
std::optional<double> parse_duration(const std::string &s);

// Each prints text or JSON and returns the exit status. Ctrl-C (SIGINT,
// SIGTERM) ends them early, the process left running.
int gc_watch_command(HeapWatchOptions options, bool json);
int gc_alloc_sites_command(ProfileOptions options, size_t top, bool json);

} // namespace ljcore
