// Every GC object of a VM, as the census found them on LuaJIT's own lists
// (gc_census.h): kept as sorted addresses, so a reference can be checked
// against them and numbered by its index; an index of buckets over the
// address range keeps a lookup to a few comparisons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ljcore::gc {

class HeapObjects {
public:
	static constexpr uint32_t none = UINT32_MAX;

	// At most none - 1 of addrs are kept: more than a heap can hold.
	explicit HeapObjects(std::vector<uint64_t> addrs);

	size_t size() const { return addrs_.size(); }
	uint64_t address(uint32_t i) const { return addrs_[i]; }
	// The index of the object at addr, none if no list holds it.
	uint32_t find(uint64_t addr) const
	{
		if (addrs_.empty() || addr < addrs_.front() || addr > addrs_.back())
			return none;
		uint64_t b = (addr - addrs_.front()) >> shift_;
		uint32_t lo = buckets_[b], hi = buckets_[b + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (addrs_[mid] < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < addrs_.size() && addrs_[lo] == addr ? lo : none;
	}

private:
	std::vector<uint64_t> addrs_;
	std::vector<uint32_t> buckets_; // first index of each bucket, and the end
	unsigned shift_ = 0;
};

} // namespace ljcore::gc
