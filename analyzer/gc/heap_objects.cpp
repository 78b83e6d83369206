#include "analyzer/gc/heap_objects.h"

#include <algorithm>
#include <utility>

namespace ljcore::gc {

namespace {

// Sorts addrs by their offset from the lowest, 11 bits a pass (a radix
// sort: millions of addresses in a few linear passes, where std::sort
// took a seventh of gc --retained).
void sort_addresses(std::vector<uint64_t> &addrs)
{
	if (addrs.size() < 2)
		return;
	auto [lo, hi] = std::minmax_element(addrs.begin(), addrs.end());
	const uint64_t base = *lo, span = *hi - *lo;
	constexpr unsigned bits = 11;
	std::vector<uint64_t> other(addrs.size());
	std::vector<size_t> counts(size_t(1) << bits);
	for (unsigned shift = 0; shift < 64 && (span >> shift); shift += bits) {
		std::fill(counts.begin(), counts.end(), 0);
		for (uint64_t a : addrs)
			counts[((a - base) >> shift) & (counts.size() - 1)]++;
		size_t at = 0;
		for (size_t &c : counts)
			at += std::exchange(c, at);
		for (uint64_t a : addrs)
			other[counts[((a - base) >> shift) & (counts.size() - 1)]++] = a;
		addrs.swap(other);
	}
}

} // namespace

// About two objects a bucket where the heap is dense; a heap spread over
// distant mappings gets its clusters into fewer buckets, still found by
// a binary search within the bucket.
HeapObjects::HeapObjects(std::vector<uint64_t> addrs) : addrs_(std::move(addrs))
{
	sort_addresses(addrs_);
	addrs_.erase(std::unique(addrs_.begin(), addrs_.end()), addrs_.end());
	if (addrs_.size() >= none)
		addrs_.resize(none - 1);
	if (addrs_.empty())
		return;
	uint64_t span = addrs_.back() - addrs_.front();
	uint64_t want = std::max<uint64_t>(addrs_.size() / 2, 1024);
	while ((span >> shift_) >= want)
		shift_++;
	buckets_.assign((span >> shift_) + 2, 0);
	for (uint64_t a : addrs_)
		buckets_[((a - addrs_.front()) >> shift_) + 1]++;
	for (size_t b = 1; b < buckets_.size(); b++)
		buckets_[b] += buckets_[b - 1];
}

} // namespace ljcore::gc
