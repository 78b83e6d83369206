// ljcore profile --wall: the on-CPU samples of the CPU-clock sampler and
// the off-CPU ones of the sched_switch sampler, in one stream, so that a
// profile weighs both in time (py-spy --idle, async-profiler's wall mode).
#pragma once

#include <memory>

#include "analyzer/profile/bpf_sampler.h"
#include "analyzer/profile/offcpu_sampler.h"

namespace ljcore {

class WallSampler final : public Sampler {
public:
	WallSampler(std::unique_ptr<Sampler> on_cpu, std::unique_ptr<Sampler> off_cpu)
	    : on_(std::move(on_cpu)), off_(std::move(off_cpu))
	{
	}

	Expected<void> add(int32_t pid, const lj_profile_vm &vm) override
	{
		if (auto r = on_->add(pid, vm); !r)
			return r;
		return off_->add(pid, vm);
	}
	Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) override
	{
		if (auto r = on_->add_nginx(pid, offsets); !r)
			return r;
		return off_->add_nginx(pid, offsets);
	}
	// The off-CPU sampler is read without waiting: it wakes no reader
	// until much is waiting.
	Expected<void> poll(int timeout_ms, const Handler &handler) override
	{
		if (auto r = off_->poll(0, handler); !r)
			return r;
		return on_->poll(timeout_ms, handler);
	}
	void finish(const Handler &handler) override { off_->finish(handler); }
	uint64_t dropped() const override { return on_->dropped() + off_->dropped(); }
	const char *dropped_reason() const override { return "ring buffer full"; }
	const char *backend() const override { return "bpf, perf event and sched_switch"; }

private:
	std::unique_ptr<Sampler> on_, off_;
};

} // namespace ljcore
