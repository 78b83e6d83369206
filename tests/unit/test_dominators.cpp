// gc::dominators (analyzer/gc/dominators.h) on small graphs whose
// dominator trees are known, numbered breadth-first as RetainedHeap does.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "analyzer/gc/dominators.h"

using ljcore::gc::Dominators;
using ljcore::gc::dominators;

namespace {

constexpr uint32_t none = Dominators::none;

// The successor lists of nodes 0 .. n - 1 from their edges.
Dominators of(uint32_t n, const std::vector<std::pair<uint32_t, uint32_t>> &edges)
{
	ljcore::gc::SuccessorLists succ;
	for (uint32_t from = 0; from < n; from++) {
		for (auto [f, to] : edges)
			if (f == from)
				succ.add(to);
		succ.end_list();
	}
	return dominators(succ);
}

} // namespace

TEST_CASE("a tree is its own dominator tree")
{
	auto d = of(4, {{0, 1}, {0, 2}, {1, 3}});
	CHECK(d.idom == ljcore::gc::BigArray<uint32_t>{none, 0, 0, 1});
	CHECK(d.settled);
}

TEST_CASE("a node two owners share is dominated by neither")
{
	// 0 -> 1 -> 3, 0 -> 2 -> 3: 3 hangs from the entry alone.
	auto d = of(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
	CHECK(d.idom == ljcore::gc::BigArray<uint32_t>{none, 0, 0, 0});
}

TEST_CASE("a cycle is dominated through the node that enters it")
{
	// 0 -> 1 -> 2 -> 3 -> 1: 1 dominates 2 and 3; the back edge changes nothing.
	auto d = of(4, {{0, 1}, {1, 2}, {2, 3}, {3, 1}});
	CHECK(d.idom == ljcore::gc::BigArray<uint32_t>{none, 0, 1, 2});
}

TEST_CASE("an edge from a later node moves a dominator up")
{
	// Breadth-first: 0 -> 1, 0 -> 2, 1 -> 3, 3 -> 4; then 2 -> 4 makes 4's
	// dominator the entry, and 4 -> 3 (a later node to an earlier one) 3's.
	auto d = of(5, {{0, 1}, {0, 2}, {1, 3}, {3, 4}, {2, 4}, {4, 3}});
	CHECK(d.idom == ljcore::gc::BigArray<uint32_t>{none, 0, 0, 0, 0});
}

TEST_CASE("a long chain with edges back to its start")
{
	std::vector<std::pair<uint32_t, uint32_t>> edges;
	const uint32_t n = 10000;
	for (uint32_t i = 0; i + 1 < n; i++) {
		edges.push_back({i, i + 1});
		edges.push_back({i + 1, 1});
	}
	auto d = of(n, edges);
	REQUIRE(d.idom.size() == n);
	for (uint32_t i = 2; i < n; i++)
		CHECK(d.idom[i] == i - 1);
}

TEST_CASE("nodes the entry does not reach, and edges out of range, have no dominator")
{
	auto d = of(4, {{0, 1}, {2, 3}, {1, 7}});
	CHECK(d.idom == ljcore::gc::BigArray<uint32_t>{none, 0, none, none});
	CHECK(dominators({}, {}).idom.empty());
}
