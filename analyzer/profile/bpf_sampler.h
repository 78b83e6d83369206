// The BPF backend of ljcore profile: a CPU-clock perf event on every CPU
// runs luajit/bpf/profile.bpf.c, which walks the Lua frames of the
// processes it is given and sends one record per sample.
#pragma once

#include <memory>
#include <vector>

#include "analyzer/profile/sampler.h"

struct lj_profile;
struct ring_buffer;
struct bpf_link;

namespace ljcore {

class BpfSampler final : public Sampler {
public:
	// Loads the program and opens a sampling event per CPU at rate_hz.
	// Fails with the reason where the kernel refuses bpf() or
	// perf_event_open (privilege, lockdown, no BTF).
	static Expected<std::unique_ptr<BpfSampler>> open(uint32_t rate_hz);
	~BpfSampler() override;
	BpfSampler(const BpfSampler &) = delete;
	BpfSampler &operator=(const BpfSampler &) = delete;

	Expected<void> add(int32_t pid, const lj_profile_vm &vm) override;
	Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) override;
	Expected<void> poll(int timeout_ms, const Handler &handler) override;
	// Samples the ring buffer had no room for, so never seen.
	uint64_t dropped() const override;
	const char *dropped_reason() const override { return "ring buffer full"; }
	const char *backend() const override { return "bpf"; }

private:
	BpfSampler() = default;
	static int on_record(void *self, void *data, size_t size);

	lj_profile *skel_ = nullptr;
	ring_buffer *ring_ = nullptr;
	std::vector<int> events_;       // perf event fds, one per CPU
	std::vector<bpf_link *> links_; // the program attached to each
	const Handler *handler_ = nullptr;
};

} // namespace ljcore
