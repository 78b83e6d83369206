// Where ljcore profile's samples come from: each backend takes, at a rate,
// samples of the processes it is given, walking their Lua frames with the
// shared sample walk (luajit/profile_walk.h), and hands them over one by
// one for naming.
#pragma once

#include <cstdint>
#include <functional>

#include "luajit/bpf/profile_sample.h"
#include "readers/error.h"

namespace ljcore {

class Sampler {
public:
	virtual ~Sampler() = default;

	// Samples pid's threads from now on, walking the VM given.
	virtual Expected<void> add(int32_t pid, const lj_profile_vm &vm) = 0;
	// pid (added) is an nginx worker: tag each of its samples with the
	// request the walked coroutine serves, read through these offsets.
	virtual Expected<void> add_nginx(int32_t pid, const lj_nginx_offsets &offsets) = 0;

	using Handler = std::function<void(const lj_profile_sample &)>;
	// Waits up to timeout_ms for samples and hands each to handler.
	virtual Expected<void> poll(int timeout_ms, const Handler &handler) = 0;

	// Samples taken but lost before they could be handed over, with why.
	virtual uint64_t dropped() const = 0;
	virtual const char *dropped_reason() const = 0;

	// "bpf", "userspace", "userspace, blocking": for the summary.
	virtual const char *backend() const = 0;
};

} // namespace ljcore
