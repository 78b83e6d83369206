#include "analyzer/gc/heap_objects.h"

#include <algorithm>

namespace ljcore::gc {

// About two objects a bucket where the heap is dense; a heap spread over
// distant mappings gets its clusters into fewer buckets, still found by
// a binary search within the bucket.
HeapObjects::HeapObjects(std::vector<uint64_t> addrs) : addrs_(std::move(addrs))
{
	std::sort(addrs_.begin(), addrs_.end());
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
