// The processes a profile runs on: pid, or pid and its children (an nginx
// master's workers), each with its VM found while it was stopped, and a
// Vm that reads it as it runs.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/profile/profiler.h"
#include "analyzer/session.h"
#include "luajit/bpf/profile_sample.h"

namespace ljcore {

struct ProfiledProcess {
	int32_t pid = 0;
	LiveSession live;
	lj_profile_vm config{};
	// An nginx worker whose coroutines' requests can be read: where.
	std::optional<lj_nginx_offsets> nginx;
	// The layouts, as copies that live as long as the profile (the
	// locate step's may have come from DWARF it freed).
	lj_layout layout{};
	lj_trace_layout trace_layout{};
	std::unique_ptr<Vm> mem;
};

using ProfiledProcesses = std::vector<std::unique_ptr<ProfiledProcess>>;

// The processes a profile runs on, each with its VM: pid, and its children
// with children or when pid is an nginx master. Each is stopped only while
// its VM is located (p.paused_us adds the time); of several, one that cannot
// be profiled is named in a note of p.diagnostics. Fails with the first
// reason when none can (no_vm when none has a VM).
std::expected<ProfiledProcesses, ProfileError> attach_profiled(int32_t pid, bool children,
							       Profile &p);

} // namespace ljcore
