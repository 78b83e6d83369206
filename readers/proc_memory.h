// A process's memory read through /proc/PID/mem alone, with no ptrace: for
// a process the kernel is dumping (core_pattern's pipe handler), whose
// threads are already stopped for good and cannot be attached to.
#pragma once

#include <cstdint>

#include "readers/error.h"
#include "readers/memory.h"

namespace ljcore {

class ProcMemory final : public Memory {
public:
	// Opens /proc/PID/mem read-only (pid as this process's namespace sees it).
	static Expected<ProcMemory> open(int32_t pid);
	ProcMemory(ProcMemory &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
	ProcMemory &operator=(ProcMemory &&) = delete;
	~ProcMemory() override;

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override;

private:
	explicit ProcMemory(int fd) : fd_(fd) {}
	int fd_ = -1;
};

} // namespace ljcore
