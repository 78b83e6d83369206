// The one way the analyzer sees a target's address space: read bytes at an
// address, or learn exactly why they cannot be read. Never garbage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>

namespace ljcore {

struct ReadMiss {
	uint64_t addr;      // first address that could not be served
	std::string reason; // e.g. "not dumped in the core (p_filesz < p_memsz)"
};

// A stretch of the target's memory readable in place (a core segment the
// file holds, mapped): its first address and its bytes.
struct MemoryView {
	uint64_t addr = 0;
	std::span<const std::byte> bytes;
};

class Memory {
public:
	virtual ~Memory() = default;

	// The stretch holding addr that can be read without a copy, for walks
	// over millions of objects; empty when there is none (a live process,
	// memory served from files): then read() is the way.
	virtual MemoryView view(uint64_t addr) const
	{
		(void)addr;
		return {};
	}

	// Whether read() and view() may run on two threads at once (the GC
	// census walks the string table beside the object list).
	virtual bool concurrent_reads() const { return false; }

	// Fills all of out from addr on, or reports the first byte it could not.
	virtual std::expected<void, ReadMiss> read(uint64_t addr,
						   std::span<std::byte> out) const = 0;

	template <typename T> std::expected<T, ReadMiss> read_value(uint64_t addr) const
	{
		T value{};
		auto r = read(addr, std::as_writable_bytes(std::span(&value, 1)));
		if (!r)
			return std::unexpected(r.error());
		return value;
	}
};

} // namespace ljcore
