// Exit statuses of ljcore, for scripts and CI (also in README.md).
#pragma once

namespace ljcore {

constexpr int exit_ok = 0;         // everything the command asked for was read
constexpr int exit_partial = 1;    // printed, but something could not be read
constexpr int exit_no_vm = 2;      // the core was read, no LuaJIT VM was found
constexpr int exit_unreadable = 3; // the input could not be read at all
constexpr int exit_no_sampler = 4; // profile: the kernel refused to sample (bpf, perf events)
constexpr int exit_usage = 64;     // bad command line (EX_USAGE)
constexpr int exit_internal = 70;  // ljcore failed: out of memory or a bug (EX_SOFTWARE)

constexpr const char *exit_codes_help =
	"Exit status: 0 complete, 1 partial (see the problems), 2 no LuaJIT VM "
	"found, 3 input unreadable, 4 profile: sampling refused, 64 usage error, 70 internal "
	"error.";

} // namespace ljcore
