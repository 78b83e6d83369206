// The BPF backend of ljcore profile: a CPU-clock perf event on every CPU
// runs luajit/bpf/profile.bpf.c, which walks the Lua frames of the
// processes it is given and sends one record per sample.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "luajit/bpf/profile_sample.h"
#include "readers/error.h"

struct lj_profile;
struct ring_buffer;
struct bpf_link;

namespace ljcore {

class BpfSampler {
public:
	// Loads the program and opens a sampling event per CPU at rate_hz.
	// Fails with the reason where the kernel refuses bpf() or
	// perf_event_open (privilege, lockdown, no BTF).
	static Expected<std::unique_ptr<BpfSampler>> open(uint32_t rate_hz);
	~BpfSampler();
	BpfSampler(const BpfSampler &) = delete;
	BpfSampler &operator=(const BpfSampler &) = delete;

	// Samples pid's threads from now on, walking the VM given.
	Expected<void> add(int32_t pid, const lj_profile_vm &vm);

	using Handler = std::function<void(const lj_profile_sample &)>;
	// Waits up to timeout_ms for samples and hands each to handler.
	Expected<void> poll(int timeout_ms, const Handler &handler);

	// Samples the ring buffer had no room for, so never seen.
	uint64_t dropped() const;

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
