#include "analyzer/gc/bfs_parents.h"

#include <algorithm>
#include <bit>

namespace ljcore::gc {

namespace {

// The bit index of word's n-th one (n from 1, at most its ones).
unsigned nth_one(uint64_t word, uint64_t n)
{
	while (--n)
		word &= word - 1;
	return unsigned(std::countr_zero(word));
}

} // namespace

// Node n's one is the n-th; the zeros before it are the visits begun
// before n was found, the last of them its parent's.
uint32_t BfsParents::parent(uint32_t n) const
{
	if (n == 0 || n > ones_)
		return 0;
	// The last block with fewer than n ones before it holds the n-th.
	auto block = std::lower_bound(ones_before_.begin(), ones_before_.end(), n) - 1;
	uint32_t left = n - *block;
	for (size_t w = size_t(block - ones_before_.begin()) * block_words; w < bits_.size(); w++) {
		uint64_t word = bits_[w];
		const unsigned ones = unsigned(std::popcount(word));
		if (left > ones) {
			left -= ones;
			continue;
		}
		const uint64_t at = w * 64 + nth_one(word, left);
		return uint32_t(at - (n - 1));
	}
	return 0;
}

// Node p's visit began at its zero, the p-th (node 0's at the start);
// the ones before it are the nodes found before. After the last visit
// begun, every node found is before it.
uint32_t BfsParents::first_child(uint32_t p) const
{
	const uint64_t zeros = size_ - ones_;
	if (p == 0)
		return 1;
	if (p > zeros)
		return ones_ + 1;
	// The last block with fewer than p zeros before it holds the p-th.
	size_t lo = 0, hi = ones_before_.size();
	while (hi - lo > 1) {
		const size_t mid = lo + (hi - lo) / 2;
		if (mid * block_words * 64 - ones_before_[mid] < p)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t left = p - (lo * block_words * 64 - ones_before_[lo]);
	for (size_t w = lo * block_words; w < bits_.size(); w++) {
		// The bits past size_ are no zeros of the code.
		const unsigned valid = w + 1 < bits_.size() || !(size_ & 63) ? 64 : size_ & 63;
		uint64_t word = ~bits_[w];
		if (valid < 64)
			word &= (uint64_t(1) << valid) - 1;
		const unsigned z = unsigned(std::popcount(word));
		if (left > z) {
			left -= z;
			continue;
		}
		const uint64_t at = w * 64 + nth_one(word, left);
		return uint32_t(at - (p - 1) + 1);
	}
	return ones_ + 1;
}

} // namespace ljcore::gc
