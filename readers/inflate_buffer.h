// Where a decoder writes a decompressed core: an anonymous mapping that
// grows as it fills, never past a limit, so a hostile or corrupt input
// cannot make ljcore take the machine's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "readers/error.h"

namespace ljcore {

// No real core is larger: the bound on what ljcore decompresses or spools.
constexpr uint64_t max_core_bytes = uint64_t(64) << 30;

class InflateBuffer {
public:
	// The limit is the smaller of 64 GiB and the machine's RAM plus swap:
	// the core is held in memory, and no real core is larger.
	static uint64_t default_limit();

	explicit InflateBuffer(uint64_t limit) : limit_(limit) {}
	~InflateBuffer();
	InflateBuffer(const InflateBuffer &) = delete;
	InflateBuffer &operator=(const InflateBuffer &) = delete;

	// Sized for a frame that declares its content size: refused when it
	// declares more than the limit, before anything is decoded.
	Expected<void> expect(uint64_t declared);

	// Free room after what was decoded, made larger when there is none
	// left; an error past the limit or when memory runs out.
	Expected<std::span<std::byte>> room();
	void filled(size_t n) { size_ += n; }

	size_t size() const { return size_; }
	uint64_t limit() const { return limit_; }

	// The decoded bytes, now read-only, and the length of their mapping;
	// the caller unmaps them.
	std::byte *release(size_t &mapped);

private:
	Expected<void> grow(size_t want);
	uint64_t limit_;
	std::byte *data_ = nullptr;
	size_t size_ = 0;
	size_t mapped_ = 0;
};

} // namespace ljcore
