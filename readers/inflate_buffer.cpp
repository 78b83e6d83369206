#include "readers/inflate_buffer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <sys/sysinfo.h>

namespace ljcore {

namespace {

constexpr size_t first_mapping = size_t(1) << 20;

std::string gib(uint64_t bytes)
{
	return std::to_string(bytes >> 30) + " GiB";
}

} // namespace

uint64_t InflateBuffer::default_limit()
{
	struct sysinfo si;
	if (sysinfo(&si) != 0)
		return max_core_bytes;
	uint64_t memory = (uint64_t(si.totalram) + si.totalswap) * si.mem_unit;
	return std::min(max_core_bytes, memory);
}

InflateBuffer::~InflateBuffer()
{
	if (data_)
		munmap(data_, mapped_);
}

Expected<void> InflateBuffer::grow(size_t want)
{
	void *p = data_ ? mremap(data_, mapped_, want, MREMAP_MAYMOVE)
			: mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
	if (p == MAP_FAILED)
		return fail("no memory for " + std::to_string(want) +
			    " decompressed bytes: " + strerror(errno));
	data_ = static_cast<std::byte *>(p);
	mapped_ = want;
	return {};
}

Expected<void> InflateBuffer::expect(uint64_t declared)
{
	if (declared > limit_)
		return fail("the frame declares " + std::to_string(declared) +
			    " decompressed bytes, more than the limit of " + gib(limit_));
	// One byte more than declared, so that a frame which lies about its
	// size is seen going past it rather than stopping exactly at the end.
	return grow(std::max(first_mapping, size_t(declared) + 1));
}

Expected<std::span<std::byte>> InflateBuffer::room()
{
	if (size_ == mapped_) {
		if (mapped_ >= limit_)
			return fail("decompressed core larger than the limit of " + gib(limit_));
		size_t want =
			std::min<uint64_t>(mapped_ ? uint64_t(mapped_) * 2 : first_mapping, limit_);
		if (auto r = grow(want); !r)
			return std::unexpected(r.error());
	}
	return std::span<std::byte>(data_ + size_, mapped_ - size_);
}

std::byte *InflateBuffer::release(size_t &mapped)
{
	if (data_)
		mprotect(data_, mapped_, PROT_READ);
	mapped = mapped_;
	std::byte *p = data_;
	data_ = nullptr;
	size_ = mapped_ = 0;
	return p;
}

} // namespace ljcore
