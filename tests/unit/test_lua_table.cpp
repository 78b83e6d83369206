// GCtab readers on a hand-built GC64 table: its entries in lj_tab_next()
// order, and the table or node a miss names.
#include <doctest/doctest.h>

#include <bit>
#include <utility>
#include <vector>

#include "analyzer/lua/table.h"
#include "analyzer/lua/tvalue.h"
#include "luajit/layouts.h"
#include "tests/unit/flat_memory.h"

using namespace ljcore;

namespace {

const lj_layout &ly = lj_layout_upstream_gc64_x64;
constexpr uint64_t base = 0x20000, tab = base, array = base + 0x100, node = base + 0x200;

uint64_t number(double d)
{
	return std::bit_cast<uint64_t>(d);
}

// {[1] = 2.5, [2] = true, [7] = false}: t[0] is nil in the array part,
// and the first of the two hash nodes is free.
FlatMemory small_table(size_t size = 0x1000)
{
	FlatMemory mem(base, size);
	mem.put64(tab + ly.tab_metatable, 0);
	mem.put64(tab + ly.tab_array, array);
	mem.put32(tab + ly.tab_asize, 3);
	mem.put64(tab + ly.tab_node, node);
	mem.put32(tab + ly.tab_hmask, 1);
	mem.put64(array, tvalue::of_primitive(ly, tvalue::tag_nil));
	mem.put64(array + 8, number(2.5));
	mem.put64(array + 16, tvalue::of_primitive(ly, tvalue::tag_true));
	mem.put64(node, tvalue::of_primitive(ly, tvalue::tag_nil));
	mem.put64(node + ly.node_size, tvalue::of_primitive(ly, tvalue::tag_false));
	mem.put64(node + ly.node_size + 8, number(7));
	return mem;
}

} // namespace

TEST_CASE("table_each visits the array part, then the hash part, skipping nils")
{
	FlatMemory mem = small_table();
	Vm vm(mem, ly, 0);
	std::vector<std::pair<uint64_t, uint64_t>> seen;
	auto n = table_each(vm, tab, 10, [&](uint64_t k, uint64_t v) { seen.emplace_back(k, v); });
	REQUIRE(n);
	CHECK(*n == 3);
	REQUIRE(seen.size() == 3);
	CHECK(seen[0] == std::pair{number(1), number(2.5)});
	CHECK(seen[1] == std::pair{number(2), tvalue::of_primitive(ly, tvalue::tag_true)});
	CHECK(seen[2] == std::pair{number(7), tvalue::of_primitive(ly, tvalue::tag_false)});
	CHECK(table_each(vm, tab, 1, [](uint64_t, uint64_t) {}).value_or(0) == 1);
}

TEST_CASE("a table's hash part is empty only when it is the nil node")
{
	FlatMemory mem = small_table();
	Vm vm(mem, ly, 0);
	auto t = read_table(vm, tab);
	REQUIRE(t);
	CHECK(t->nodes() == 2);
	CHECK_FALSE(hash_part_empty(vm, *t));
	// One node, free, whose key is nil: the nil node.
	t->hmask = 0;
	CHECK_FALSE(hash_part_empty(vm, *t));
	mem.put64(node + 8, tvalue::of_primitive(ly, tvalue::tag_nil));
	CHECK(hash_part_empty(vm, *t));
}

TEST_CASE("a miss names the table, or the node it stopped at")
{
	FlatMemory mem = small_table();
	Vm vm(mem, ly, 0);
	auto none = table_each(vm, base + 0x2000, 10, [](uint64_t, uint64_t) {});
	REQUIRE_FALSE(none);
	CHECK(none.error().message == "table 0x22000 is unreadable");
	// A hash part that runs off the memory.
	mem.put32(tab + ly.tab_hmask, 0x1000);
	auto cut = table_each(vm, tab, 10000, [](uint64_t, uint64_t) {});
	REQUIRE_FALSE(cut);
	CHECK(cut.error().message.starts_with("hash node 0x"));
}
