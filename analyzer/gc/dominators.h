// Immediate dominators of a graph whose nodes are numbered so that every
// node but the entry (0) is reached first from a node of a smaller number
// (breadth-first order does that). Cooper, Harvey and Kennedy's iteration
// ("A Simple, Fast Dominance Algorithm"), pushed along the successor
// lists: each edge p -> s moves idom[s] to the nearest common dominator of
// idom[s] and p until nothing moves. Their walk up the tree compares node
// numbers, which needs dominators numbered below the nodes they dominate:
// every path from the entry to a node passes its dominators, so a
// shortest one reaches them first.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/gc/big_array.h"
#include "analyzer/gc/successor_lists.h"

namespace ljcore::gc {

struct Dominators {
	static constexpr uint32_t none = UINT32_MAX;
	// By node: its immediate dominator; none for the entry and for a
	// node the entry does not reach.
	BigArray<uint32_t> idom;
	bool settled = true; // false: max_passes ran out first
};

// The nodes are those succ has lists for.
Dominators dominators(const SuccessorLists &succ, int max_passes = 1000);

} // namespace ljcore::gc
