#include "analyzer/lua/table.h"

#include <cstring>

#include "analyzer/lua/limits.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

Expected<Table> read_table(const Vm &vm, uint64_t t)
{
	const lj_layout &ly = vm.layout();
	auto array = vm.ref(t + ly.tab_array);
	auto asize = vm.value<uint32_t>(t + ly.tab_asize);
	auto node = vm.ref(t + ly.tab_node);
	auto hmask = vm.value<uint32_t>(t + ly.tab_hmask);
	if (!array || !asize || !node || !hmask)
		return fail("table " + hex(t) + " is unreadable");
	return Table{t, *array, *asize, *node, *hmask, ly.node_size};
}

Read<uint64_t> table_metatable(const Vm &vm, uint64_t t)
{
	return vm.ref(t + vm.layout().tab_metatable);
}

Read<TableNode> read_node(const Vm &vm, uint64_t node)
{
	auto value = vm.value<uint64_t>(node);
	if (!value)
		return std::unexpected(value.error());
	auto key = vm.value<uint64_t>(node + 8);
	if (!key)
		return std::unexpected(key.error());
	return TableNode{*value, *key};
}

bool hash_part_empty(const Vm &vm, const Table &t)
{
	if (t.hmask != 0)
		return false;
	auto key = vm.value<uint64_t>(t.node + 8);
	return !key || tvalue::is_nil(vm.layout(), *key);
}

Expected<size_t> table_each(const Vm &vm, uint64_t addr, size_t max_entries,
			    const std::function<void(uint64_t key, uint64_t value)> &visit)
{
	const lj_layout &ly = vm.layout();
	auto t = read_table(vm, addr);
	if (!t)
		return std::unexpected(t.error());
	size_t seen = 0;
	for (uint64_t i = 0; i < t->asize && seen < max_entries; i++) {
		auto raw = vm.value<uint64_t>(t->slot_at(i));
		if (!raw)
			return fail("array part of table " + hex(addr) + " is unreadable");
		if (tvalue::is_nil(ly, *raw))
			continue;
		double key = double(i);
		uint64_t key_raw;
		memcpy(&key_raw, &key, 8);
		visit(key_raw, *raw);
		seen++;
	}
	for (uint64_t i = 0; i <= t->hmask && i < lj_limit::hash_nodes && seen < max_entries; i++) {
		auto n = read_node(vm, t->node_at(i));
		if (!n)
			return fail("hash node " + hex(t->node_at(i)) + " of table " + hex(addr) +
				    " is unreadable");
		if (tvalue::is_nil(ly, n->value))
			continue;
		visit(n->key, n->value);
		seen++;
	}
	return seen;
}

} // namespace ljcore
