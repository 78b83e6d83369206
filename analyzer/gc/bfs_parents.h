// The parent of each node of a breadth-first search that numbers the
// nodes as it finds them (the start is node 0, the nodes it finds 1, 2...)
// and visits them in that order: a node found while visiting node p has p
// for parent, so the parents of nodes 1, 2... never decrease. Kept as a
// unary code, a one for each node found and a zero for each visit begun,
// in a quarter of a byte a node where an array of parents takes four; the
// count of ones before each block of bits finds a node's one with a binary
// search and a few popcounts.
#pragma once

#include <cstdint>
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
	// f(n, parent of n) for every node found, in order.
	template <typename F> void for_each(F &&f) const
	{
		uint32_t node = 0, parent = 0;
		for (uint64_t b = 0; b < size_; b++) {
			if (bits_[b >> 6] >> (b & 63) & 1)
				f(++node, parent);
			else
				parent++;
		}
	}

private:
	static constexpr unsigned block_words = 8;

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
