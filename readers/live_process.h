// A running process, read without writing to it: every thread is stopped
// with PTRACE_SEIZE + PTRACE_INTERRUPT only while it is read, memory comes
// from /proc/PID/mem opened read-only, mappings from /proc/PID/maps.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "readers/error.h"
#include "readers/target.h"

struct user_regs_struct; // sys/user.h

namespace ljcore {

// A thread's registers as PTRACE_GETREGSET gives them (x86_64), by DWARF
// register number.
ThreadRegs x86_64_thread_regs(const user_regs_struct &regs);

struct ProcMapping {
	uint64_t start = 0, end = 0;
	bool readable = false, writable = false;
	uint64_t offset = 0;
	std::string path;
};

class LiveProcess final : public Target {
public:
	// Stops every thread; they run again on resume() or destruction.
	static Expected<std::unique_ptr<LiveProcess>> attach(int32_t pid);
	~LiveProcess() override;
	LiveProcess(const LiveProcess &) = delete;
	LiveProcess &operator=(const LiveProcess &) = delete;

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override;
	Arch arch() const override { return Arch::x86_64; }
	const ProcessInfo &process() const override { return process_; }
	const std::optional<SignalInfo> &signal() const override { return signal_; }
	const std::vector<ThreadInfo> &threads() const override { return threads_; }
	void visit_writable(const Visitor &visit) const override;
	bool writable(uint64_t addr) const override;
	const Diagnostics &diagnostics() const override { return diagnostics_; }
	std::vector<FileStatus> file_statuses() const override { return {}; }
	const std::vector<ProcMapping> &mappings() const { return mappings_; }
	// What a core's notes hold, read while the threads are stopped: the
	// registers as PTRACE_GETREGSET gave them (user_regs_struct, in the
	// order of threads()), and /proc/PID/auxv.
	const std::vector<std::vector<std::byte>> &raw_regs() const { return raw_regs_; }
	const std::vector<std::byte> &auxv() const { return auxv_; }

	// Lets the threads run again. Returns how long they were stopped.
	std::chrono::microseconds resume();

private:
	LiveProcess() = default;
	Expected<void> stop_threads();

	ProcessInfo process_;
	std::optional<SignalInfo> signal_; // a live process has none
	std::vector<ThreadInfo> threads_;
	// A thread we hold in ptrace-stop, and the signal its stop took from
	// it (0 if none), given back as it is detached.
	struct Stopped {
		int32_t tid = 0;
		int signal = 0;
	};
	std::vector<Stopped> stopped_;
	std::vector<ProcMapping> mappings_;
	std::vector<std::vector<std::byte>> raw_regs_;
	std::vector<std::byte> auxv_;
	Diagnostics diagnostics_;
	int mem_fd_ = -1;
	std::chrono::steady_clock::time_point stopped_at_;
	std::chrono::microseconds paused_{0};
};

} // namespace ljcore
