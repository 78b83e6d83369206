// The userspace backend of ljcore profile, for machines that refuse bpf()
// (an unprivileged container): a timer at the rate and, per tick, the
// shared sample walk (luajit/profile_walk.h) of each process's VM thread,
// reading its memory with process_vm_readv.
//
// By default the process is not stopped, so its registers are unknown: a
// sample in the interpreter is walked from L->base, the frames as of the
// VM's last exit to C, and a sample in a trace at the line it was entered
// at (what it inlined unknown). With
// blocking, each sample stops the VM thread (PTRACE_INTERRUPT) for as long
// as its walk takes, and walks from its registers as the BPF program does.
// Either way a thread that is not running is not walked (an idle sample),
// as a CPU-clock event would not fire for it. A seized thread's events are
// handled as they come (SIGCHLD wakes the sampler): a signal for it is
// delivered at once, its exit reaped so that its parent sees it.
#pragma once

#include <chrono>
#include <csignal>
#include <memory>
#include <vector>

#include "analyzer/profile/remote_walk.h"
#include "analyzer/profile/sampler.h"

struct user_regs_struct; // sys/user.h

namespace ljcore {

class UserSampler final : public Sampler {
public:
	static Expected<std::unique_ptr<UserSampler>> open(uint32_t rate_hz, bool blocking);
	~UserSampler() override; // lets go of every thread it seized
	UserSampler(const UserSampler &) = delete;
	UserSampler &operator=(const UserSampler &) = delete;

	Expected<void> add(int32_t pid, const lj_profile_vm &vm) override;
	Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) override;
	Expected<void> poll(int timeout_ms, const Handler &handler) override;
	// Ticks that came while the previous ones were still being taken.
	uint64_t dropped() const override { return missed_; }
	const char *dropped_reason() const override { return "sampler behind its rate"; }
	const char *backend() const override
	{
		return blocking_ ? "userspace, blocking" : "userspace";
	}

private:
	struct Thread {
		int32_t pid = 0, tid = 0;
		lj_profile_vm vm{};
		lj_nginx_offsets nginx{};  // L_exdata 0: not an nginx worker
		int stat_fd = -1;          // /proc/PID/task/TID/stat: is it running?
		bool seized = false;       // blocking: we are its tracer
		bool stop_pending = false; // interrupted, its stop not yet seen
		bool stopped = false;      // in our interrupt's stop, not resumed
		bool gone = false;         // exited (and reaped, if seized)
	};

	UserSampler() = default;
	void sample(Thread &t, lj_profile_sample &out);
	bool running(Thread &t); // also marks a thread that exited
	// Blocking: stops t and reads its registers into regs.
	bool stop(Thread &t, WalkRegs &regs, lj_profile_sample &out);
	// --native: the registers and the stack above sp, for unwinding.
	static void copy_native(const Thread &t, const user_regs_struct &r, lj_profile_sample &out);
	void cont(Thread &t);
	// Blocking: what the kernel reports of a seized thread (a signal to
	// deliver, a group-stop, its exit, our stop), handled at once.
	void handle_events(Thread &t);
	// Sleeps until then; blocking, it wakes for each thread's events.
	void wait_until(std::chrono::steady_clock::time_point when);

	std::vector<Thread> threads_;
	std::chrono::nanoseconds period_{};
	std::chrono::steady_clock::time_point next_{};
	uint64_t missed_ = 0;
	bool blocking_ = false;
	sigset_t old_mask_{}; // blocking: the signal mask before SIGCHLD was blocked
	std::unique_ptr<lj_profile_sample> sample_; // 16 KB, reused
};

} // namespace ljcore
