#include "analyzer/gc/top_n.h"

#include <algorithm>
#include <functional>

namespace ljcore::gc {

std::vector<Ranked> TopN::largest_first()
{
	std::vector<Ranked> out = std::move(heap_);
	std::sort(out.begin(), out.end(), std::greater<Ranked>());
	return out;
}

void TopN::consider(uint64_t bytes, uint64_t addr, GcType type)
{
	Ranked r{bytes, addr, type};
	if (heap_.size() < n_) {
		heap_.push_back(r);
		std::push_heap(heap_.begin(), heap_.end(), std::greater<Ranked>());
	} else if (r > heap_.front()) {
		replace_smallest(r);
	}
	// Once n are kept, the smallest of them is the floor.
	if (heap_.size() == n_)
		floor_ = std::max(floor_, heap_.front().bytes);
}

// r in place of the smallest kept, moved down to where it belongs: one
// pass down the heap, where a pop and a push are two. Objects of one size
// seen in rising address order replace the smallest again and again
// (equal sizes rank by address).
void TopN::replace_smallest(const Ranked &r)
{
	size_t i = 0, n = heap_.size();
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && heap_[c] > heap_[c + 1])
			c++; // the smaller child
		if (!(r > heap_[c]))
			break;
		heap_[i] = heap_[c];
	}
	heap_[i] = r;
}

} // namespace ljcore::gc
