// The census's walk of the string table on hand-built GC64 heaps, and the
// page order its rounds are walked in: chains longer than the rounds,
// cyclic chains, tables of more buckets than a batch walked by two
// threads, and heaps spread wider than the radix sort's two digits. Only
// the benchmark's heaps of tens of millions of objects reach these paths
// in a core; these reach them in milliseconds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analyzer/gc/gc_census.h"
#include "analyzer/gc/page_order.h"
#include "analyzer/gc/string_batches.h"
#include "luajit/layouts.h"
#include "tests/unit/flat_memory.h"

using namespace ljcore;

namespace {

const lj_layout &ly = lj_layout_upstream_gc64_x64;
constexpr uint64_t base = 0x1000000;
constexpr uint64_t string_slot = 64; // room for a string of up to 32 characters

// Plain memory that two threads may read at once, as a mapped core's, so
// the census walks the string table on two threads.
class SharedFlatMemory : public FlatMemory {
public:
	using FlatMemory::FlatMemory;
	bool concurrent_reads() const override { return true; }
};

// A VM whose only objects are strings: GG_State at base, the string hash
// table after it, then room for strings slots of string_slot bytes. Every
// other list of global_State is empty.
class StringHeap {
public:
	StringHeap(uint64_t buckets, uint64_t slots)
	    : g(base + ly.gg_g), tab(base + ((ly.gg_size + 0xfff) & ~uint64_t(0xfff))),
	      first_slot(tab + ((buckets * 8 + 0xfff) & ~uint64_t(0xfff))),
	      mem(base, first_slot - base + slots * string_slot), buckets_(buckets)
	{
		mem.put64(g + ly.g_str_tab, tab);
		mem.put32(g + ly.g_str_mask, uint32_t(buckets - 1));
	}

	uint64_t slot(uint64_t i) const { return first_slot + i * string_slot; }

	// Makes slot i a string of len characters at the head of bucket's
	// chain; flag is the anchor's secondary-hash bit (lj_str.c).
	uint64_t push(uint64_t bucket, uint64_t i, uint32_t len = 3, bool flag = false)
	{
		REQUIRE(bucket < buckets_);
		REQUIRE(len <= 32);
		uint64_t s = slot(i);
		mem.put64(s, anchor(bucket) & ~uint64_t(1));
		put8(s + LJ_GCT_OFFSET(&ly), LJ_TSTR);
		mem.put32(s + ly.str_len, len);
		mem.put64(tab + bucket * 8, s | uint64_t(flag));
		strings++;
		return s;
	}
	// The object in slot i is no string, and heads bucket's chain.
	void push_table(uint64_t bucket, uint64_t i)
	{
		push(bucket, i);
		put8(slot(i) + LJ_GCT_OFFSET(&ly), LJ_TTAB);
		strings--;
	}
	// Slot i's string continues with slot j's.
	void link(uint64_t i, uint64_t j) { mem.put64(slot(i), slot(j)); }

	GcCensus census(gc::BigArray<uint64_t> *objects = nullptr)
	{
		mem.put32(g + ly.g_str_num, uint32_t(strings));
		return gc_census(Vm(mem, ly, g), GcCensusOptions{}, objects);
	}

	const uint64_t g, tab, first_slot;
	SharedFlatMemory mem;
	uint64_t strings = 0;

private:
	uint64_t anchor(uint64_t bucket) const
	{
		return mem.read_value<uint64_t>(tab + bucket * 8).value();
	}
	void put8(uint64_t addr, uint8_t v)
	{
		uint64_t word = mem.read_value<uint64_t>(addr & ~uint64_t(7)).value();
		unsigned shift = 8 * (addr & 7);
		word = (word & ~(uint64_t(0xff) << shift)) | uint64_t(v) << shift;
		mem.put64(addr & ~uint64_t(7), word);
	}
	uint64_t buckets_;
};

// Bytes of a string of len characters, as lj_str.c allocates it.
uint64_t string_bytes(uint32_t len)
{
	return ly.str_size + ((uint64_t(len) + 4) & ~uint64_t(3));
}

// The census's problems about the string table (a heap with nothing but
// strings has others: no jit_State, no main thread).
std::vector<std::string> string_problems(const GcCensus &c)
{
	std::vector<std::string> out;
	for (auto &p : c.diagnostics.problems())
		if (p.find("string") != std::string::npos)
			out.push_back(p);
	return out;
}

bool has(const std::vector<std::string> &problems, const std::string &text)
{
	return std::any_of(problems.begin(), problems.end(),
			   [&](const std::string &p) { return p.find(text) != std::string::npos; });
}

} // namespace

TEST_CASE("string table walk: chains of scattered strings, each counted once")
{
	// 1 024 buckets holding 0 to 5 strings in slots shuffled over the
	// heap, so that each round's address order differs from its bucket
	// order.
	constexpr uint64_t buckets = 1024, slots = 3000;
	StringHeap heap(buckets, slots);
	std::vector<uint64_t> order(slots);
	for (uint64_t i = 0; i < slots; i++)
		order[i] = i;
	std::mt19937_64 random(31);
	std::shuffle(order.begin(), order.end(), random);
	std::vector<uint64_t> made;
	uint64_t used = 0, longest = 0, next = 0;
	for (uint64_t b = 0; b < buckets; b++) {
		uint64_t length = b % 6;
		for (uint64_t k = 0; k < length; k++)
			made.push_back(heap.push(b, order[next++], 3, b % 7 == 0));
		used += length > 0;
		longest = std::max(longest, length);
	}
	gc::BigArray<uint64_t> objects;
	GcCensus c = heap.census(&objects);
	CHECK(string_problems(c).empty());
	CHECK(c.strings.buckets == buckets);
	CHECK(c.strings.num == made.size());
	CHECK(c.strings.used == used);
	CHECK(c.strings.longest == longest);
	CHECK(c.strings.strings == made.size());
	CHECK(c.strings.bytes == made.size() * string_bytes(3));
	CHECK(c.types[size_t(GcType::string)].count == made.size());
	std::sort(objects.begin(), objects.end());
	std::sort(made.begin(), made.end());
	CHECK(std::vector<uint64_t>(objects.begin(), objects.end()) == made);
}

TEST_CASE("string table walk: a chain longer than the rounds is followed to its end")
{
	// Past 64 links a chain is walked on its own: 200 strings in one
	// bucket, one in each of a few others.
	StringHeap heap(16, 210);
	for (uint64_t i = 0; i < 200; i++)
		heap.push(3, i);
	for (uint64_t b = 4; b < 10; b++)
		heap.push(b, 200 + b);
	GcCensus c = heap.census();
	CHECK(string_problems(c).empty());
	CHECK(c.strings.longest == 200);
	CHECK(c.strings.used == 7);
	CHECK(c.strings.strings == 206);
}

TEST_CASE("string table walk: a cyclic chain is a problem, not a hang")
{
	for (uint64_t cycle : {1, 3, 100}) {
		CAPTURE(cycle);
		StringHeap heap(8, 100);
		for (uint64_t i = 0; i < cycle; i++)
			heap.push(5, i);
		heap.link(0, cycle - 1); // the last string pushed is the head
		GcCensus c = heap.census();
		CHECK_FALSE(c.complete);
		CHECK(has(string_problems(c), "string table chain is cyclic"));
		// 64 rounds, then Brent's walk, which passes a cycle of n
		// links fewer than 5n times.
		CHECK(c.strings.strings <= 64 + 5 * cycle);
	}
}

TEST_CASE("string table walk: more buckets than a batch, added in bucket order")
{
	// Two batches, the second one a few buckets, walked by two threads.
	const uint64_t batch = gc::StringBatches::buckets_per_batch, buckets = batch + 8;
	StringHeap heap(buckets, 16);
	heap.push(0, 0);
	heap.push(batch - 1, 1);
	uint64_t largest = heap.push(batch - 1, 2, 30);
	for (uint64_t i = 3; i < 7; i++)
		heap.push(buckets - 1, i);
	gc::BigArray<uint64_t> objects;
	GcCensus c = heap.census(&objects);
	CHECK(string_problems(c).empty());
	CHECK(c.strings.buckets == buckets);
	CHECK(c.strings.used == 3);
	CHECK(c.strings.longest == 4);
	CHECK(c.strings.strings == 7);
	CHECK(c.strings.bytes == 6 * string_bytes(3) + string_bytes(30));
	CHECK(objects.size() == 7);
	REQUIRE_FALSE(c.strings.largest.empty());
	CHECK(c.strings.largest.front().addr == largest);
}

TEST_CASE("string table walk: a broken chain ends the walk there, whichever thread walks on")
{
	// Batch 0's only chain leads to a table; batch 1's strings, walked by
	// the other thread or after, are not added, as a single walk in
	// bucket order would not have reached them.
	const uint64_t batch = gc::StringBatches::buckets_per_batch, buckets = 2 * batch;
	StringHeap heap(buckets, 16);
	heap.push(7, 0);
	heap.push_table(7, 1);
	for (uint64_t i = 2; i < 12; i++)
		heap.push(batch + i, i);
	GcCensus c = heap.census();
	CHECK_FALSE(c.complete);
	auto problems = string_problems(c);
	CHECK(problems.size() == 1);
	CHECK(has(problems, "is no string"));
	CHECK(c.strings.strings == 0);
	CHECK(c.types[size_t(GcType::string)].count == 0);
}

namespace {

// Whether links holds what sorted holds, in some order.
bool same_addresses(std::vector<uint64_t> links, std::vector<uint64_t> sorted)
{
	std::sort(links.begin(), links.end());
	return links == sorted;
}

// Whether links are in order of their region of 2^shift bytes from lo.
bool by_region(const std::vector<uint64_t> &links, uint64_t lo, unsigned shift)
{
	return std::is_sorted(links.begin(), links.end(), [&](uint64_t a, uint64_t b) {
		return ((a - lo) >> shift) < ((b - lo) >> shift);
	});
}

// count random 8-aligned addresses in [lo, lo + span), some on pages
// shared with others.
std::vector<uint64_t> scattered(uint64_t lo, uint64_t span, size_t count)
{
	std::mt19937_64 random(span);
	std::vector<uint64_t> out;
	for (size_t i = 0; i < count; i++)
		out.push_back(lo + (random() % span & ~uint64_t(7)));
	out.push_back(lo);
	out.push_back(lo + span - 8);
	out.push_back(out[count / 2]);
	return out;
}

} // namespace

TEST_CASE("page order: by page, within one digit, two, and wider than two")
{
	std::vector<uint64_t> spare;
	std::vector<uint32_t> counts;
	const uint64_t lo = 0x7f0000000000;
	// One pass (8 MB: 2 K pages), two (4 GB), and 64 GB: past two
	// digits' 16 GB, in 4 M regions of 16 KB.
	struct Heap {
		uint64_t span;
		unsigned shift;
	};
	for (Heap h :
	     {Heap{8 << 20, 12}, Heap{uint64_t(4) << 30, 12}, Heap{uint64_t(64) << 30, 14}}) {
		CAPTURE(h.span);
		std::vector<uint64_t> links = scattered(lo, h.span, 20000);
		std::vector<uint64_t> sorted = links;
		std::sort(sorted.begin(), sorted.end());
		gc::order_by_page(links, spare, counts);
		CHECK(same_addresses(links, sorted));
		CHECK(by_region(links, lo, h.shift));
		// The sort is stable: an address list already in order stays so.
		links = sorted;
		gc::order_by_page(links, spare, counts);
		CHECK(links == sorted);
	}
}

TEST_CASE("page order: none, one, and all on one page")
{
	std::vector<uint64_t> spare;
	std::vector<uint32_t> counts;
	std::vector<uint64_t> none, one{0x1000}, page{0x5ff8, 0x5000, 0x5ff8, 0x5008};
	gc::order_by_page(none, spare, counts);
	CHECK(none.empty());
	gc::order_by_page(one, spare, counts);
	CHECK(one == std::vector<uint64_t>{0x1000});
	gc::order_by_page(page, spare, counts);
	CHECK(page == std::vector<uint64_t>{0x5ff8, 0x5000, 0x5ff8, 0x5008});
}
