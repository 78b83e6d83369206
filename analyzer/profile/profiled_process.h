// The processes a profile runs on: pid, or pid and its children (an nginx
// master's workers), each with its VM found while it was stopped, and a
// LuaMemory that reads it as it runs.
#pragma once

#include <memory>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/lua_memory.h"
#include "luajit/bpf/profile_sample.h"

namespace ljcore {

struct ProfiledProcess {
	int32_t pid = 0;
	LiveSession live;
	lj_profile_vm config{};
	// The layouts, as copies that live as long as the profile (the
	// analysis's own may have come from DWARF it freed).
	lj_layout layout{};
	lj_trace_layout trace_layout{};
	std::unique_ptr<LuaMemory> mem;
};

// pid, and its children with children or when pid is an nginx master.
std::vector<int32_t> processes_to_profile(int32_t pid, bool children);

// Stops pid only while its VM is found, adding the time to paused_us.
// Sets no_vm when the process has none.
Expected<std::unique_ptr<ProfiledProcess>> find_vm(int32_t pid, uint64_t &paused_us, bool &no_vm);

} // namespace ljcore
