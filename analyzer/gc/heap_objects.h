// Every GC object of a VM, as the census found them on LuaJIT's own lists
// (gc_census.h): kept as sorted addresses (32-bit where they fit), so a reference can be checked
// against them and numbered by its index. Where the heap is dense, a bit
// for each 8 bytes of it says where an object starts, and the count of
// ones before each word of bits makes the index of one a popcount away:
// no sort, and a lookup is two loads. Elsewhere an index of buckets over
// the address range keeps a lookup to a few comparisons.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/gc/big_array.h"

namespace ljcore::gc {

// The ones in v. find() counts them once a reference, and std::popcount
// is a call into libgcc where x86-64's baseline has no popcnt
// instruction: there, the sum of bits in ever wider fields, inline.
inline unsigned count_ones(uint64_t v)
{
#if defined(__x86_64__) && !defined(__POPCNT__)
	v -= (v >> 1) & 0x5555555555555555;
	v = (v & 0x3333333333333333) + ((v >> 2) & 0x3333333333333333);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0f;
	return unsigned((v * 0x0101010101010101) >> 56);
#else
	return unsigned(std::popcount(v));
#endif
}

class HeapObjects {
public:
	static constexpr uint32_t none = UINT32_MAX;

	HeapObjects() = default; // no objects
	// At most none - 1 of addrs are kept: more than a heap can hold.
	explicit HeapObjects(BigArray<uint64_t> addrs);

	size_t size() const { return packed_.empty() ? addrs_.size() : packed_.size(); }
	uint64_t address(uint32_t i) const
	{
		return packed_.empty() ? addrs_[i] : base_ + (uint64_t(packed_[i]) << align_bits);
	}
	// The index of the object at addr, none if no list holds it.
	uint32_t find(uint64_t addr) const
	{
		const size_t n = size();
		if (!n || addr < address(0) || addr > address(uint32_t(n - 1)))
			return none;
		if (!starts_.empty()) {
			const uint64_t unit = addr - base_;
			if (unit & align)
				return none;
			const uint64_t word = unit >> (align_bits + 6),
				       bit = (unit >> align_bits) & 63;
			const uint64_t bits = starts_[word];
			if (!(bits >> bit & 1))
				return none;
			return ones_before_[word] + count_ones(bits & ((uint64_t(1) << bit) - 1));
		}
		uint64_t b = (addr - address(0)) >> shift_;
		uint32_t lo = buckets_[b], hi = buckets_[b + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (address(mid) < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < n && address(lo) == addr ? lo : none;
	}

private:
	// LuaJIT's allocators align every GC object to 8 bytes: the
	// addresses of a heap under 32 GB wide fit in 32 bits as their
	// distance from the lowest in units of 8, half the memory of
	// addrs_, which keeps the others (a hostile core's odd ones).
	static constexpr unsigned align_bits = 3;
	static constexpr uint64_t align = (uint64_t(1) << align_bits) - 1;
	// Packs addrs through a bitmap of the heap: false, nothing done,
	// where that would take more memory than sorting them.
	bool pack_dense(const BigArray<uint64_t> &addrs, uint64_t span);
	uint64_t base_ = 0;
	BigArray<uint32_t> packed_;
	BigArray<uint64_t> addrs_;
	BigArray<uint32_t> buckets_; // first index of each bucket, and the end
	// Dense heaps: a bit per 8 bytes from base_, set where an object
	// starts, and the ones before each word.
	BigArray<uint64_t> starts_;
	BigArray<uint32_t> ones_before_;
	unsigned shift_ = 0;
};

} // namespace ljcore::gc
