// A process's memory read through /proc/PID/mem alone, with no ptrace: for
// a process the kernel is dumping (core_pattern's pipe handler), whose
// threads are already stopped for good and cannot be attached to.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "readers/error.h"
#include "readers/memory.h"

namespace ljcore {

class ProcMemory final : public Memory {
public:
	// Opens /proc/PID/mem read-only (pid as this process's namespace sees it).
	static Expected<std::unique_ptr<ProcMemory>> open(int32_t pid);
	ProcMemory(const ProcMemory &) = delete;
	ProcMemory &operator=(const ProcMemory &) = delete;
	~ProcMemory() override;

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override;

private:
	explicit ProcMemory(int fd) : fd_(fd) {}
	// The page holding addr, read whole and kept: a walk over the GC heap
	// reads a field or two of each object, a system call each without it.
	std::expected<const std::byte *, ReadMiss> page(uint64_t addr) const;

	static constexpr uint64_t page_size = 4096;
	static constexpr size_t cached_pages = 1024; // direct-mapped by page number
	struct Page {
		uint64_t number = UINT64_MAX;
		std::array<std::byte, page_size> bytes;
	};
	int fd_ = -1;
	mutable std::unique_ptr<Page[]> cache_ = std::make_unique<Page[]>(cached_pages);
};

} // namespace ljcore
