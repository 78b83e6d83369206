// The BPF backend of ljcore profile --off-cpu: luajit/bpf/offcpu.bpf.c at
// the scheduler's switch (tp_btf/sched_switch) walks the Lua frames of a
// profiled VM thread leaving the CPU and says when it runs again, and how
// long of that it waited for a CPU once woken (sched_wakeup). Its sample
// is handed over then, weighing the nanoseconds it was away
// (lj_profile_sample.offcpu_ns): twice, when it was blocked, then waited
// on the run queue.
#pragma once

#include <memory>
#include <unordered_map>

#include "analyzer/profile/sampler.h"
#include "luajit/bpf/offcpu_event.h"

struct lj_offcpu;
struct ring_buffer;

namespace ljcore {

class OffCpuSampler final : public Sampler {
public:
	// Loads and attaches the program. Fails with the reason where the
	// kernel refuses bpf() or has no BTF for tp_btf.
	static Expected<std::unique_ptr<OffCpuSampler>> open();
	~OffCpuSampler() override;
	OffCpuSampler(const OffCpuSampler &) = delete;
	OffCpuSampler &operator=(const OffCpuSampler &) = delete;

	Expected<void> add(int32_t pid, const lj_profile_vm &vm) override;
	Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) override;
	Expected<void> poll(int timeout_ms, const Handler &handler) override;
	// The threads still off the CPU, weighing the time until now.
	void finish(const Handler &handler) override;
	uint64_t dropped() const override;
	const char *dropped_reason() const override { return "ring buffer full"; }
	const char *backend() const override { return "bpf, sched_switch"; }

private:
	OffCpuSampler() = default;
	static int on_record(void *self, void *data, size_t size);
	void switched_out(const lj_profile_sample &s);
	void resumed(const lj_offcpu_resume &r);

	lj_offcpu *skel_ = nullptr;
	ring_buffer *ring_ = nullptr;
	const Handler *handler_ = nullptr;
	// The sample of each thread off the CPU now, by thread id, until it
	// runs again. A thread's next switch out replaces it (its resume
	// record was lost, and counted so).
	std::unordered_map<uint32_t, std::unique_ptr<lj_profile_sample>> away_;
};

} // namespace ljcore
