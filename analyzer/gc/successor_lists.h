// The successor lists of a graph's nodes, appended node by node in the
// order they are numbered. An edge is its 4-byte target, kept in chunks
// that never move: a heap's edges are counted only once its last object is
// visited, and a vector growing to them would hold three times their
// memory while it copies (each chunk a big array: big_array.h). Where each list ends is a bit,
// not a 4-byte offset a node: a one for each edge and a zero at the end of each list, read in order
// by for_each().
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/gc/big_array.h"

namespace ljcore::gc {

class SuccessorLists {
public:
	// An edge from the node whose list is open to target.
	void add(uint32_t target)
	{
		if ((edges_ & chunk_mask) == 0) {
			Chunk chunk(static_cast<uint32_t *>(
				map_big_array(chunk_edges * sizeof(uint32_t))));
			chunks_.push_back(std::move(chunk));
		}
		chunks_.back()[edges_ & chunk_mask] = target;
		edges_++;
		push_bit(true);
	}
	// Closes the open list; the next node's opens.
	void end_list()
	{
		lists_++;
		push_bit(false);
	}
	uint32_t lists() const { return lists_; }
	uint64_t edges() const { return edges_; }
	// Edge e (0 .. edges() - 1, in the order added) and a new target for it.
	uint32_t target(uint64_t e) const { return chunks_[e >> chunk_bits][e & chunk_mask]; }
	void set_target(uint64_t e, uint32_t target)
	{
		chunks_[e >> chunk_bits][e & chunk_mask] = target;
	}

	// f(node, target) for every edge of the closed lists, in order. A
	// word of the ends at a time, a run of ones (a list's edges) or of
	// zeros (lists ended: most of a heap's objects reference nothing)
	// at a time.
	template <typename F> void for_each(F &&f) const
	{
		uint32_t node = 0;
		uint64_t e = 0;
		for (size_t w = 0; w < ends_.size(); w++) {
			const unsigned n = w + 1 < ends_.size() || !(bits_ & 63) ? 64 : bits_ & 63;
			for (unsigned b = 0; b < n;) {
				if (node == lists_) // the open list's edges
					return;
				const uint64_t rest = ends_[w] >> b;
				const unsigned ones =
					std::min<unsigned>(std::countr_one(rest), n - b);
				for (unsigned k = 0; k < ones; k++)
					f(node, target(e++));
				b += ones;
				if (b == n)
					break;
				// rest has a zero below bit 64 - b: ones < 64. The
				// bits shifted in past n are no ends.
				const unsigned zeros =
					std::min<unsigned>(std::countr_zero(rest >> ones), n - b);
				node += zeros;
				b += zeros;
			}
		}
	}

private:
	static constexpr unsigned chunk_bits = 20;
	static constexpr uint64_t chunk_edges = uint64_t(1) << chunk_bits;
	static constexpr uint64_t chunk_mask = chunk_edges - 1;

	void push_bit(bool one)
	{
		if ((bits_ & 63) == 0)
			ends_.push_back(0);
		ends_.back() |= uint64_t(one) << (bits_ & 63);
		bits_++;
	}

	struct Unmap {
		void operator()(uint32_t *chunk) const
		{
			unmap_big_array(chunk, chunk_edges * sizeof(uint32_t));
		}
	};
	using Chunk = std::unique_ptr<uint32_t[], Unmap>;
	std::vector<Chunk> chunks_;
	uint64_t edges_ = 0;
	std::vector<uint64_t> ends_; // a one an edge, a zero where a list ends
	uint64_t bits_ = 0;
	uint32_t lists_ = 0;
};

} // namespace ljcore::gc
