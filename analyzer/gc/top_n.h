// The n largest of the objects a census offers it, in memory proportional
// to n, however many it is offered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/model/gc_model.h"

namespace ljcore::gc {

struct Ranked {
	uint64_t bytes;
	uint64_t addr;
	GcType type;
	bool operator>(const Ranked &o) const
	{
		return bytes != o.bytes ? bytes > o.bytes : addr > o.addr;
	}
};

class TopN {
public:
	explicit TopN(size_t n) : n_(n) {}
	// Small enough to be inlined: most objects are turned away here.
	void offer(uint64_t bytes, uint64_t addr, GcType type)
	{
		if (n_ != 0 && bytes >= floor_)
			consider(bytes, addr, type);
	}
	// Sizes below which nothing can be among the n largest any more.
	uint64_t floor() const { return floor_; }
	// What another TopN of the same objects knows: n of them are at
	// least this big, so nothing smaller needs to be kept here.
	void raise_floor(uint64_t bytes) { floor_ = std::max(floor_, bytes); }
	std::vector<Ranked> largest_first();

private:
	[[gnu::noinline]] void consider(uint64_t bytes, uint64_t addr, GcType type);
	void replace_smallest(const Ranked &r);

	size_t n_;
	uint64_t floor_ = 0;
	std::vector<Ranked> heap_; // a min-heap: the smallest kept in front
};

} // namespace ljcore::gc
