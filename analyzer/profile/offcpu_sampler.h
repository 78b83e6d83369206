// The BPF backend of ljcore profile --off-cpu: luajit/bpf/offcpu.bpf.c
// times each period a profiled VM thread spends off the CPU (from
// tp_btf/sched_switch), walks its Lua frames when it runs again
// (tp_btf/sched_exit_tp; a period shorter than the sampling period only
// with probability its length / the period, weighing the period), and
// sums in the kernel how long it was away by stack and state: blocked, or
// waiting for a CPU once woken or preempted (the kernel's run_delay at the
// return; sched_wakeup without sched_exit_tp)
// (luajit/bpf/offcpu_event.h). Each stack is sent once; the sums are read
// a few times a second, and each stack's new time handed over as one
// sample weighing those nanoseconds (lj_profile_sample.offcpu_ns) and
// standing for that many walks (offcpu_switches). On a kernel without
// sched_exit_tp every switch out is walked as it happens.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <unordered_map>
#include <vector>

#include "analyzer/profile/sampler.h"
#include "luajit/bpf/offcpu_event.h"

struct lj_offcpu;
struct ring_buffer;

namespace ljcore {

class OffCpuSampler final : public Sampler {
public:
	// Loads and attaches the program, which walks a period off the CPU
	// shorter than period_ns (below 2^32) with probability
	// d / period_ns, weighing period_ns (offcpu.bpf.c). Fails with the
	// reason where the kernel refuses bpf() or has no BTF for tp_btf.
	static Expected<std::unique_ptr<OffCpuSampler>> open(uint64_t period_ns);
	~OffCpuSampler() override;
	OffCpuSampler(const OffCpuSampler &) = delete;
	OffCpuSampler &operator=(const OffCpuSampler &) = delete;

	Expected<void> add(int32_t pid, const lj_profile_vm &vm) override;
	Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) override;
	Expected<void> poll(int timeout_ms, const Handler &handler) override;
	// The time summed since the last poll, and the threads still off the
	// CPU, weighing the time until now (detached first; walked now from
	// userspace where their walk was to come as they ran again).
	void finish(const Handler &handler) override;
	// Records the ring buffer had no room for, and the switches whose
	// stack it could never send.
	uint64_t dropped() const override;
	const char *dropped_reason() const override { return "ring buffer full"; }
	const char *backend() const override
	{
		return walk_at_return_ ? "bpf, sched_switch and sched_exit_tp"
				       : "bpf, sched_switch";
	}

private:
	struct KeyHash {
		size_t operator()(const lj_offcpu_key &k) const
		{
			return size_t(k.stack ^ (uint64_t(k.pid) << 2) ^ k.state);
		}
	};
	struct KeyEqual {
		bool operator()(const lj_offcpu_key &a, const lj_offcpu_key &b) const
		{
			return a.stack == b.stack && a.pid == b.pid && a.state == b.state;
		}
	};

	OffCpuSampler() = default;
	static int on_record(void *self, void *data, size_t size);
	void keep(const lj_profile_sample &s);
	// Hands over time under key; false when its stack has not come (yet).
	bool weigh(const lj_offcpu_key &key, uint64_t ns, uint64_t switches, bool last);
	// Hands over ns of a thread still away at the end, walked now from
	// userspace: its stack was to be walked as it ran again.
	void weigh_away(uint32_t tid, const lj_offcpu_away &away, uint64_t ns);
	// Hands over what the map of times added since it was last read.
	void drain(bool last);
	Expected<void> read_ring(int timeout_ms);

	lj_offcpu *skel_ = nullptr;
	// Walked as they run again, estimated; else at every switch out.
	bool walk_at_return_ = false;
	ring_buffer *ring_ = nullptr;
	const Handler *handler_ = nullptr;
	// Each stack sent, by offcpu_stack: its sample's bytes as far as used.
	std::unordered_map<uint64_t, std::vector<std::byte>> stacks_;
	// What the map of times held when last read.
	std::unordered_map<lj_offcpu_key, lj_offcpu_time, KeyHash, KeyEqual> read_;
	std::chrono::steady_clock::time_point drained_{};
	// Where a kept stack becomes a sample again.
	std::unique_ptr<lj_profile_sample> sample_ = std::make_unique<lj_profile_sample>();
	uint64_t unnamed_ = 0; // switches timed under a stack never received
	// The VMs and nginx workers given, for the walks at the end.
	std::unordered_map<int32_t, lj_profile_vm> vms_;
	std::unordered_map<int32_t, lj_nginx_offsets> nginx_;
};

} // namespace ljcore
