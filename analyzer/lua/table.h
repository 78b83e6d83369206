// A GCtab (lj_obj.h): its array part of TValues, its hash part of Nodes,
// its metatable, and a bounded walk of its entries as lj_tab_next() makes
// it.
#pragma once

#include <cstdint>
#include <functional>

#include "analyzer/lua/vm.h"
#include "readers/error.h"

namespace ljcore {

// A table's header: where its parts are and how large they are.
struct Table {
	uint64_t addr = 0;
	uint64_t array = 0;     // TValue[asize]
	uint32_t asize = 0;
	uint64_t node = 0; // Node[hmask + 1]
	uint32_t hmask = 0;
	uint32_t node_size = 0; // sizeof(Node) in this build

	// Where array slot i and hash node i are.
	uint64_t slot_at(uint64_t i) const { return array + 8 * i; }
	uint64_t node_at(uint64_t i) const { return node + i * node_size; }
	uint64_t nodes() const { return uint64_t(hmask) + 1; }
};

// The header of the table at t; the error names the table.
Expected<Table> read_table(const Vm &vm, uint64_t t);

// A Node of the hash part as raw TValues (tvalue.h): the value comes
// first, then the key. A nil value is a free node.
// GCtab.metatable: the metatable of table t, 0 without. Apart from
// read_table(), which needs only what finds the entries.
Read<uint64_t> table_metatable(const Vm &vm, uint64_t t);

struct TableNode {
	uint64_t value = 0;
	uint64_t key = 0;
};
Read<TableNode> read_node(const Vm &vm, uint64_t node);

// An empty hash part is the VM's shared nilnode, one node whose key is
// nil: does t have no hash part?
bool hash_part_empty(const Vm &vm, const Table &t);

// Visits up to max_entries non-nil entries of t as raw TValues, the array
// part first (its keys as numbers), then the hash part, bounded by what
// LuaJIT allows a table. Returns how many.
Expected<size_t> table_each(const Vm &vm, uint64_t t, size_t max_entries,
			    const std::function<void(uint64_t key, uint64_t value)> &visit);

} // namespace ljcore
