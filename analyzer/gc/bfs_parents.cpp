#include "analyzer/gc/bfs_parents.h"

#include <algorithm>
#include <bit>

namespace ljcore::gc {

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
		while (--left)
			word &= word - 1;
		const uint64_t at = w * 64 + unsigned(std::countr_zero(word));
		return uint32_t(at - (n - 1));
	}
	return 0;
}

} // namespace ljcore::gc
