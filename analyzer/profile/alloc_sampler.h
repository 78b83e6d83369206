// The BPF side of ljcore profile --alloc: luajit/bpf/alloc.bpf.c as a
// uprobe and a uretprobe at each process's allocator (the function whose
// address its VM holds in g->allocf), handing over sampled allocations,
// where they were placed, and frees of them.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "luajit/bpf/alloc_event.h"
#include "readers/error.h"

struct lj_alloc;
struct ring_buffer;
struct bpf_link;

namespace ljcore {

class AllocSampler {
public:
	// Loads the program with intervals drawn around sample_bytes. Fails
	// with the reason where the kernel refuses bpf() or uprobes.
	static Expected<std::unique_ptr<AllocSampler>> open(uint64_t sample_bytes);
	~AllocSampler();
	AllocSampler(const AllocSampler &) = delete;
	AllocSampler &operator=(const AllocSampler &) = delete;

	// Probes the allocator at allocf in process pid, for the calls whose
	// first argument is allocd (the VM's own).
	Expected<void> add(int32_t pid, const lj_profile_vm &vm, uint64_t allocf, uint64_t allocd);

	struct Handlers {
		std::function<void(const lj_alloc_sample &)> sampled;
		std::function<void(const lj_alloc_note &)> noted; // placed, freed, untracked
	};
	// Waits up to timeout_ms for records and hands each over.
	Expected<void> poll(int timeout_ms, const Handlers &handlers);

	// From now on frees are still reported, no allocation is sampled.
	void stop_sampling();
	// Records the ring buffer had no room for.
	uint64_t dropped() const;

private:
	AllocSampler() = default;
	static int on_record(void *self, void *data, size_t size);

	lj_alloc *skel_ = nullptr;
	ring_buffer *ring_ = nullptr;
	std::vector<bpf_link *> links_;
	const Handlers *handlers_ = nullptr;
};

} // namespace ljcore
