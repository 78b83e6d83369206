#include "analyzer/profile/user_sampler.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <thread>

#include <elf.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/profile/remote_walk.h"
#include "readers/live_process.h"

namespace ljcore {

namespace {

// How long a blocking sample waits for the thread to stop: a thread in an
// uninterruptible sleep stops only when it wakes.
constexpr auto stop_timeout = std::chrono::milliseconds(50);

} // namespace

Expected<std::unique_ptr<UserSampler>> UserSampler::open(uint32_t rate_hz, bool blocking)
{
	std::unique_ptr<UserSampler> s(new UserSampler);
	s->blocking_ = blocking;
	s->period_ = std::chrono::nanoseconds(1'000'000'000 / rate_hz);
	s->next_ = std::chrono::steady_clock::now() + s->period_;
	s->sample_ = std::make_unique<lj_profile_sample>();
	if (blocking) {
		// A traced thread's stops (a signal for it, its exit) come as
		// SIGCHLD: blocked, so that the wait between samples can wake
		// for them at once (sigtimedwait) and let the thread go on.
		sigset_t chld;
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, &s->old_mask_);
	}
	return s;
}

UserSampler::~UserSampler()
{
	for (Thread &t : threads_) {
		if (t.seized && !t.gone) {
			// PTRACE_DETACH needs the thread in a ptrace-stop: one
			// more interrupt, unless one is already on its way.
			if (!t.stopped && !t.stop_pending &&
			    ptrace(PTRACE_INTERRUPT, t.tid, nullptr, nullptr) == 0)
				t.stop_pending = true;
			for (int i = 0; i < 50 && t.stop_pending && !t.gone; i++) {
				handle_events(t);
				if (t.stop_pending)
					std::this_thread::sleep_for(std::chrono::milliseconds(1));
			}
			if (!t.gone)
				ptrace(PTRACE_DETACH, t.tid, nullptr, nullptr);
		}
		if (t.stat_fd >= 0)
			close(t.stat_fd);
	}
	if (blocking_)
		sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

Expected<void> UserSampler::add(int32_t pid, const lj_profile_vm &vm)
{
	Thread t;
	t.pid = pid;
	// The thread that runs the VM; where the analysis did not tell, the
	// main thread (a VM found from symbols or by a scan).
	t.tid = vm.tid ? int32_t(vm.tid) : pid;
	t.vm = vm;
	std::string stat =
		"/proc/" + std::to_string(pid) + "/task/" + std::to_string(t.tid) + "/stat";
	t.stat_fd = ::open(stat.c_str(), O_RDONLY | O_CLOEXEC);
	if (t.stat_fd < 0)
		return fail(stat + ": " + strerror(errno));
	if (blocking_) {
		// PTRACE_SEIZE does not stop the thread; each sample does.
		if (ptrace(PTRACE_SEIZE, t.tid, nullptr, nullptr) != 0) {
			int err = errno;
			close(t.stat_fd);
			return fail("cannot ptrace thread " + std::to_string(t.tid) + ": " +
				    strerror(err));
		}
		t.seized = true;
	}
	threads_.push_back(t);
	return {};
}

Expected<void> UserSampler::add_nginx(int32_t pid, const lj_nginx_offsets &offsets)
{
	for (Thread &t : threads_)
		if (t.pid == pid)
			t.nginx = offsets;
	return {};
}

bool UserSampler::running(Thread &t)
{
	// The state is the first field after the command name, which is in
	// parentheses and may hold any byte: look after the last ')'.
	char buf[512];
	ssize_t n = pread(t.stat_fd, buf, sizeof buf - 1, 0);
	if (n <= 0) {
		// The thread is gone (a seized one is reaped by handle_events).
		t.gone = !t.seized && n < 0 && errno == ESRCH;
		return false;
	}
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'R';
}

void UserSampler::handle_events(Thread &t)
{
	// Bounded: a thread cannot stop more often than we resume it.
	for (int i = 0; i < 16 && !t.gone; i++) {
		int status;
		pid_t got = waitpid(t.tid, &status, __WALL | WNOHANG);
		if (got == 0)
			return;
		if (got < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			// Reaped: its parent can now see it exit.
			t.gone = true;
			return;
		}
		if (!WIFSTOPPED(status))
			continue;
		int sig = WSTOPSIG(status);
		if (status >> 16 != PTRACE_EVENT_STOP) {
			// A signal on its way to the thread: deliver it.
			ptrace(PTRACE_CONT, t.tid, nullptr,
			       reinterpret_cast<void *>(uintptr_t(sig)));
		} else if (sig != SIGTRAP) {
			// A group-stop (SIGSTOP from someone): the process stays
			// stopped as it was asked to.
			ptrace(PTRACE_LISTEN, t.tid, nullptr, nullptr);
		} else if (t.stop_pending) {
			t.stop_pending = false;
			t.stopped = true; // ours: sample it, then PTRACE_CONT
			return;
		} else {
			ptrace(PTRACE_CONT, t.tid, nullptr, nullptr);
		}
	}
}

bool UserSampler::stop(Thread &t, WalkRegs &regs, lj_profile_sample &out)
{
	if (!t.stop_pending && !t.stopped) {
		if (ptrace(PTRACE_INTERRUPT, t.tid, nullptr, nullptr) != 0) {
			t.gone = errno == ESRCH;
			return false;
		}
		t.stop_pending = true;
	}
	auto deadline = std::chrono::steady_clock::now() + stop_timeout;
	while (!t.stopped && !t.gone) {
		handle_events(t);
		if (t.stopped || t.gone)
			break;
		if (std::chrono::steady_clock::now() > deadline)
			return false; // the stop comes later; a next tick samples it
		std::this_thread::sleep_for(std::chrono::microseconds(50));
	}
	if (t.gone)
		return false;
	user_regs_struct r;
	iovec iov{&r, sizeof r};
	if (ptrace(PTRACE_GETREGSET, t.tid, NT_PRSTATUS, &iov) != 0) {
		cont(t);
		return false;
	}
	regs.user = true;
	regs.ip = r.rip;
	regs.sp = r.rsp;
	regs.rdx = r.rdx;
	regs.rbx = r.rbx;
	if (t.vm.native)
		copy_native(t, r, out);
	return true;
}

void UserSampler::copy_native(const Thread &t, const user_regs_struct &r, lj_profile_sample &out)
{
	// In DWARF order, as the BPF program copies them.
	ThreadRegs regs = x86_64_thread_regs(r);
	memcpy(out.regs, regs.dwarf.data(), sizeof out.regs);
	copy_remote_stack(t.pid, r.rsp, LJ_PROFILE_STACK_BYTES, out);
}

void UserSampler::cont(Thread &t)
{
	t.stopped = false;
	if (ptrace(PTRACE_CONT, t.tid, nullptr, nullptr) != 0 && errno == ESRCH)
		t.gone = true;
}

void UserSampler::sample(Thread &t, lj_profile_sample &out)
{
	out.pid = uint32_t(t.pid);
	out.tid = uint32_t(t.tid);
	out.nframes = 0;
	out.source = LJ_PROFILE_WALKED;
	out.request.status = LJ_REQUEST_NONE;
	// A thread whose stop is still pending is sampled when it comes.
	if (!t.stop_pending && !t.stopped && !running(t)) {
		out.source = LJ_PROFILE_OFF_CPU;
		return;
	}
	WalkRegs regs;
	out.stack_len = 0;
	if (blocking_ && !stop(t, regs, out)) {
		out.source = t.gone ? LJ_PROFILE_OFF_CPU : LJ_PROFILE_NOT_STOPPED;
		return;
	}
	walk_remote(t.pid, t.tid, t.vm, t.nginx, regs, blocking_, out);
	if (blocking_)
		cont(t);
}

void UserSampler::wait_until(std::chrono::steady_clock::time_point when)
{
	using Clock = std::chrono::steady_clock;
	if (!blocking_) {
		std::this_thread::sleep_until(when);
		return;
	}
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		for (Thread &t : threads_)
			if (t.seized && !t.gone)
				handle_events(t);
		auto left = when - Clock::now();
		if (left <= Clock::duration::zero())
			return;
		auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
		timespec ts{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
		sigtimedwait(&chld, nullptr, &ts);
	}
}

Expected<void> UserSampler::poll(int timeout_ms, const Handler &handler)
{
	using Clock = std::chrono::steady_clock;
	auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
	while (next_ <= until) {
		wait_until(next_);
		for (Thread &t : threads_) {
			if (t.gone)
				continue;
			sample(t, *sample_);
			handler(*sample_);
		}
		next_ += period_;
		// Ticks that passed while sampling are missed, and counted.
		auto now = Clock::now();
		if (next_ < now) {
			auto behind = uint64_t((now - next_) / period_) + 1;
			missed_ += behind * threads_.size();
			next_ += period_ * behind;
		}
	}
	// Up to the poll's end: a traced thread's events are not left waiting.
	wait_until(std::min(until, next_));
	return {};
}

} // namespace ljcore
