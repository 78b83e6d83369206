// The compact arrays of RetainedHeap's search (analyzer/gc/bfs_parents.h,
// analyzer/gc/successor_lists.h): what goes in comes out, across the
// words, blocks and chunks they are kept in.
#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "analyzer/gc/bfs_parents.h"
#include "analyzer/gc/successor_lists.h"

using ljcore::gc::BfsParents;
using ljcore::gc::SuccessorLists;

TEST_CASE("a breadth-first search's parents and children read back")
{
	// Node p (0 first) finds p % 7 new nodes, visited in turn, until
	// 5000 are found: lists of 0 to 6 children, many of them empty.
	BfsParents parents;
	std::vector<uint32_t> want{0};
	for (uint32_t p = 0; p < want.size(); p++) {
		if (p)
			parents.visit_next();
		for (uint32_t k = 0; k < p % 7 + (p == 0) && want.size() <= 5000; k++) {
			parents.found();
			want.push_back(p);
		}
	}
	for (uint32_t n = 1; n < want.size(); n++)
		REQUIRE(parents.parent(n) == want[n]);
	// Each node's children, a range of the nodes that follow; the
	// last visits found none.
	uint32_t next = 1;
	for (uint32_t p = 0; p < want.size() + 2; p++) {
		auto [first, end] = parents.children(p);
		REQUIRE(first == next);
		REQUIRE(first <= end);
		for (uint32_t n = first; n < end; n++)
			REQUIRE(want[n] == p);
		next = end;
	}
	CHECK(next == want.size());
}

TEST_CASE("successor lists come back in order, empty ones included")
{
	SuccessorLists succ;
	std::vector<std::pair<uint32_t, uint32_t>> want;
	// Past a chunk of edges: 3 M edges over 1 M nodes, every third empty.
	for (uint32_t n = 0; n < 1000000; n++) {
		for (uint32_t k = 0; n % 3 && k < 4; k++) {
			succ.add(n + k);
			want.emplace_back(n, n + k);
		}
		succ.end_list();
	}
	succ.set_target(5, 42);
	want[5].second = 42;
	CHECK(succ.lists() == 1000000);
	CHECK(succ.edges() == want.size());
	size_t at = 0;
	bool same = true;
	succ.for_each([&](uint32_t n, uint32_t t) {
		same = same && at < want.size() && want[at] == std::pair(n, t);
		at++;
	});
	CHECK(same);
	CHECK(at == want.size());
}

TEST_CASE("successor lists: long lists, long runs of empty ones, an open one")
{
	SuccessorLists succ;
	std::vector<std::pair<uint32_t, uint32_t>> want;
	// Lists of 0, 1, 63, 64, 65 and 200 edges, each after 0 to 130 empty
	// ones, so that runs of each kind start and end across words.
	uint32_t node = 0;
	for (uint32_t len : {0u, 1u, 63u, 64u, 65u, 200u, 3u})
		for (uint32_t empty : {0u, 1u, 63u, 64u, 130u}) {
			for (uint32_t k = 0; k < empty; k++, node++)
				succ.end_list();
			for (uint32_t k = 0; k < len; k++) {
				succ.add(node * 7 + k);
				want.emplace_back(node, node * 7 + k);
			}
			succ.end_list();
			node++;
		}
	succ.add(1); // the open list: no edge of a closed one
	succ.add(2);
	CHECK(succ.lists() == node);
	std::vector<std::pair<uint32_t, uint32_t>> got;
	succ.for_each([&](uint32_t n, uint32_t t) { got.emplace_back(n, t); });
	CHECK(got == want);
}
