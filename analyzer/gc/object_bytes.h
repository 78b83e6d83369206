// The bytes of one GC object at a time, for the census's walks: inside a
// core segment they are read in place (no copy, and only the cache lines a
// field is on are touched); elsewhere each field range is copied with
// read(). The census reads millions of objects through it, so what runs
// per field is inline here and only the move to another segment is not.
#pragma once

#include <cstdint>
#include <cstring>

#include "readers/memory.h"

namespace ljcore::gc {

class ObjBytes {
public:
	explicit ObjBytes(const Memory &mem) : mem_(mem) {}

	// Moves to the object at addr; false if its header is unreadable.
	bool fetch(uint64_t addr)
	{
		addr_ = addr;
		avail_ = 0;
		failed_ = false;
		return ensure(0, header_bytes);
	}
	template <typename T> T at(size_t off)
	{
		T v{};
		if (ensure(off, sizeof v))
			memcpy(&v, p_ + off, sizeof v);
		return v;
	}
	uint64_t ref(size_t off, unsigned ptrsize)
	{
		return ptrsize == 8 ? at<uint64_t>(off) : at<uint32_t>(off);
	}
	bool failed() const { return failed_; }
	const ReadMiss &miss() const { return miss_; }

	// Asks the CPU to start loading the object at addr, to be fetched a
	// little later: a hint only, so an address outside the mapped core
	// is simply not prefetched.
	void prefetch(uint64_t addr)
	{
		if (addr - ahead_.addr >= ahead_.bytes.size())
			ahead_ = mem_.view(addr);
		if (addr - ahead_.addr < ahead_.bytes.size())
			__builtin_prefetch(ahead_.bytes.data() + (addr - ahead_.addr));
	}

private:
	// nextgc, marked, gct: enough for any build.
	static constexpr size_t header_bytes = 10;

	// The object's bytes [off, off + size) at p_ + off.
	bool ensure(size_t off, size_t size) { return off + size <= avail_ || refill(off, size); }
	bool refill(size_t off, size_t size);

	const Memory &mem_;
	MemoryView view_;
	MemoryView ahead_; // the view prefetch() last used
	uint64_t addr_ = 0;
	const unsigned char *p_ = nullptr;
	size_t avail_ = 0;
	bool failed_ = false;
	alignas(8) unsigned char buf_[256];
	ReadMiss miss_;
};

} // namespace ljcore::gc
