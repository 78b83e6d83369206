// ljcore profile: samples a live process's Lua stacks at a rate for a
// while, names them, and counts every sample by what it found.
#pragma once

#include <cstdint>
#include <functional>

#include "analyzer/model/profile_model.h"
#include "readers/error.h"

namespace ljcore {

struct ProfileOptions {
	int32_t pid = 0;
	uint32_t rate_hz = 99;
	double duration_s = 10;
	// The sampler: BPF where the kernel allows it, else userspace.
	enum class Backend { automatic, bpf, userspace } backend = Backend::automatic;
	// Userspace: stop the VM thread for each sample, for exact frames.
	bool blocking = false;
	// Also sample pid's children (on by itself for an nginx master).
	bool children = false;
	// The native frames around the Lua frames of each sample.
	bool native = false;
	// What a sample weighs: CPU time (a sample per period on the CPU),
	// the time off the CPU (a sample of the periods off it, weighing
	// their nanoseconds), or both (wall-clock time).
	enum class Time { cpu, off_cpu, wall } time = Time::cpu;
	// off_cpu, wall: a period off the CPU shorter than this is walked
	// with probability its length / this, and weighs this
	// (luajit/bpf/offcpu.bpf.c); below 2^32.
	uint64_t off_cpu_period_ns = 1000000;
	// Allocations instead of CPU time (a uprobe at the VM's allocator):
	// bytes still allocated at the end, or every byte allocated.
	enum class Alloc { off, outstanding, all } alloc = Alloc::off;
	// The mean bytes between sampled allocations.
	uint64_t sample_bytes = 512 * 1024;
	// outstanding: how long, at most, to wait after the end for a GC sweep
	// to free what was garbage by then.
	double settle_s = 10;
	// Polled a few times a second: true ends the profile early (Ctrl-C).
	std::function<bool()> stop;
	// Called a few times a second with the samples so far.
	std::function<void(const Profile &)> progress;
};

// Why a profile could not be taken, for the exit status.
enum class ProfileFailure { unreadable, no_vm, no_sampler };
struct ProfileError {
	ProfileFailure kind;
	std::string message;
};

std::expected<Profile, ProfileError> profile_process(const ProfileOptions &options);

} // namespace ljcore
