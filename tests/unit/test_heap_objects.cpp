// gc::HeapObjects (analyzer/gc/heap_objects.h): the same answers whether
// the addresses are packed into 32 bits or, when one is not 8-aligned or
// the heap is wider than 32 GB, kept whole.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "analyzer/gc/big_array.h"
#include "analyzer/gc/heap_objects.h"

using ljcore::gc::HeapObjects;

namespace {

// Every address is found at its rank, and addresses between, below and
// above them are not.
void check_lookups(const std::vector<uint64_t> &sorted)
{
	HeapObjects objects({sorted.rbegin(), sorted.rend()});
	REQUIRE(objects.size() == sorted.size());
	for (uint32_t i = 0; i < sorted.size(); i++) {
		CHECK(objects.address(i) == sorted[i]);
		CHECK(objects.find(sorted[i]) == i);
		CHECK(objects.find(sorted[i] + 1) == HeapObjects::none);
		CHECK(objects.find(sorted[i] - 1) == HeapObjects::none);
	}
	CHECK(objects.find(0) == HeapObjects::none);
	CHECK(objects.find(UINT64_MAX) == HeapObjects::none);
}

} // namespace

TEST_CASE("heap objects: 8-aligned addresses within 32 GB")
{
	std::vector<uint64_t> a;
	for (uint64_t k = 0; k < 5000; k++)
		a.push_back(0x7f0000000000 + k * 24 + (k / 1000) * 0x100000);
	check_lookups(a);
}

TEST_CASE("heap objects: a dense heap, found through its bitmap")
{
	// An object every 16 to 56 bytes, across many words of bits.
	std::vector<uint64_t> a;
	for (uint64_t k = 0, at = 0x7f0000001000; k < 5000; k++, at += 16 + (k % 6) * 8)
		a.push_back(at);
	check_lookups(a);
}

TEST_CASE("heap objects: an address that is not 8-aligned")
{
	check_lookups({0x10000, 0x10008, 0x10013, 0x20000});
}

TEST_CASE("heap objects: a heap wider than 32 GB")
{
	check_lookups({0x10000, 0x10010, 0x7f0000000000, 0x7f0000000040});
}

TEST_CASE("heap objects: duplicates once, and none at all")
{
	HeapObjects twice({0x1000, 0x1000, 0x2000});
	CHECK(twice.size() == 2);
	CHECK(twice.find(0x2000) == 1);
	for (const HeapObjects &empty :
	     {HeapObjects(ljcore::gc::BigArray<uint64_t>{}), HeapObjects()}) {
		CHECK(empty.size() == 0);
		CHECK(empty.find(0x1000) == HeapObjects::none);
	}
}

// As LuaJIT's lists give them: a few runs in order either way (merged), or
// too many of them (radix-sorted). The same objects either way.
TEST_CASE("heap objects: runs merged, or too many of them sorted")
{
	std::vector<uint64_t> sorted;
	for (uint64_t k = 0; k < 3000; k++)
		sorted.push_back(0x7f0000000000 + k * 16);
	auto from_runs = [&](size_t runs) {
		ljcore::gc::BigArray<uint64_t> a;
		// Run r takes every runs-th object from r on, descending
		// where r is odd.
		for (size_t r = 0; r < runs; r++) {
			std::vector<uint64_t> run;
			for (size_t k = r; k < sorted.size(); k += runs)
				run.push_back(sorted[k]);
			if (r % 2)
				a.insert(a.end(), run.rbegin(), run.rend());
			else
				a.insert(a.end(), run.begin(), run.end());
		}
		return HeapObjects(std::move(a));
	};
	for (size_t runs : {1, 2, 3, 5, 8, 9, 40}) {
		CAPTURE(runs);
		HeapObjects objects = from_runs(runs);
		REQUIRE(objects.size() == sorted.size());
		for (uint32_t i = 0; i < sorted.size(); i++)
			CHECK(objects.address(i) == sorted[i]);
	}
}

TEST_CASE("heap objects: count_ones agrees with std::popcount")
{
	uint64_t v = 0x9e3779b97f4a7c15;
	for (int i = 0; i < 1000; i++, v = v * 6364136223846793005 + 1442695040888963407)
		REQUIRE(ljcore::gc::count_ones(v) == unsigned(std::popcount(v)));
	CHECK(ljcore::gc::count_ones(0) == 0);
	CHECK(ljcore::gc::count_ones(~uint64_t(0)) == 64);
}
