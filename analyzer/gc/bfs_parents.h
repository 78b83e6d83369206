// The parent of each node of a breadth-first search that numbers the
// nodes as it finds them (the start is node 0, the nodes it finds 1, 2...)
// and visits them in that order: a node found while visiting node p has p
// for parent, so the parents of nodes 1, 2... never decrease. Kept as a
// unary code, a one for each node found and a zero for each visit begun,
// in a quarter of a byte a node where an array of parents takes four; the
// count of ones before each block of bits finds a node's one (its parent)
// or the zero of its visit (its children) with a binary search and a few
// popcounts.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ljcore::gc {

class BfsParents {
public:
	// The search visits its next node (1, then 2...); node 0 is being
	// visited from the start.
	void visit_next() { push_bit(false); }
	// The node being visited found a new node.
	void found() { push_bit(true); }
	// After the search: the parent of node n, 1 <= n <= the nodes found.
	uint32_t parent(uint32_t n) const;
	// The nodes node p found, first to last: [first, end) (empty when
	// first == end), numbered in a row as they were found.
	std::pair<uint32_t, uint32_t> children(uint32_t p) const
	{
		return {first_child(p), first_child(p + 1)};
	}

private:
	static constexpr unsigned block_words = 8;

	// The first node p found, or would have: one more than the nodes
	// found before its visit began.
	uint32_t first_child(uint32_t p) const;

	void push_bit(bool one)
	{
		if ((size_ & 63) == 0) {
			if (bits_.size() % block_words == 0)
				ones_before_.push_back(ones_);
			bits_.push_back(0);
		}
		bits_.back() |= uint64_t(one) << (size_ & 63);
		size_++;
		ones_ += one;
	}

	std::vector<uint64_t> bits_;
	uint64_t size_ = 0;
	std::vector<uint32_t> ones_before_; // by block of block_words words
	uint32_t ones_ = 0;
};

} // namespace ljcore::gc
