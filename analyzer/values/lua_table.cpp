#include "analyzer/values/lua_table.h"

#include <cstdio>
#include <cstring>

#include "analyzer/lua/limits.h"
#include "analyzer/lua/tvalue.h"

namespace ljcore {

namespace {

using namespace tvalue;

std::string hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
	return buf;
}

// Whether the raw TValue k is the key written in the expression.
Expected<bool> key_matches(const Vm &mem, uint64_t k, const LuaKey &key)
{
	const lj_layout &ly = mem.layout();
	uint32_t it = itype(ly, k);
	switch (key.kind) {
	case LuaKey::Kind::boolean:
		return it == ~(key.boolean ? tag_true : tag_false);
	case LuaKey::Kind::number:
		if (it == ~tag_isnum)
			return double(int32_t(uint32_t(k))) == key.number;
		if (is_double(ly, k)) {
			double d;
			memcpy(&d, &k, 8);
			return d == key.number;
		}
		return false;
	case LuaKey::Kind::string:
		break;
	}
	if (it != ~uint32_t(LJ_TSTR))
		return false;
	uint64_t s = gc_object(ly, k);
	auto len = mem.value<uint32_t>(s + ly.str_len);
	if (!len)
		return fail("string key at " + hex(s) + " is unreadable");
	if (*len != key.bytes.size())
		return false;
	auto bytes = mem.str(s, *len);
	if (!bytes)
		return fail("string key at " + hex(s) + " is unreadable");
	return *bytes == key.bytes;
}

} // namespace

Expected<uint64_t> table_get(const Vm &mem, uint64_t t, const LuaKey &key)
{
	const lj_layout &ly = mem.layout();
	auto array = mem.ref(t + ly.tab_array);
	auto asize = mem.value<uint32_t>(t + ly.tab_asize);
	auto node = mem.ref(t + ly.tab_node);
	auto hmask = mem.value<uint32_t>(t + ly.tab_hmask);
	if (!array || !asize || !node || !hmask)
		return fail("table " + hex(t) + " is unreadable");
	// Integer keys below asize live in the array part only (lj_tab.c).
	if (key.kind == LuaKey::Kind::number && key.number >= 0 && key.number < double(*asize) &&
	    key.number == double(uint64_t(key.number))) {
		uint64_t slot = *array + 8 * uint64_t(key.number);
		auto raw = mem.value<uint64_t>(slot);
		if (!raw)
			return fail("array slot " + hex(slot) + " of table " + hex(t) +
				    " is unreadable");
		return *raw;
	}
	// A key is found by a scan of the hash part, not by its hash: the
	// string hash function differs between LuaJIT versions. The scan is
	// bounded by what LuaJIT allows a table.
	uint64_t nodes = uint64_t(*hmask) + 1;
	if (nodes > lj_limit::hash_nodes)
		return fail("table " + hex(t) + " claims " + std::to_string(nodes) +
			    " hash nodes, more than LuaJIT allows");
	for (uint64_t i = 0; i < nodes; i++) {
		uint64_t n = *node + i * ly.node_size;
		// Node: the value, then the key (lj_obj.h).
		auto val = mem.value<uint64_t>(n);
		auto k = mem.value<uint64_t>(n + 8);
		if (!val || !k)
			return fail("hash node " + hex(n) + " of table " + hex(t) +
				    " is unreadable");
		if (is_nil(ly, *val))
			continue;
		auto match = key_matches(mem, *k, key);
		if (!match)
			return std::unexpected(match.error());
		if (*match)
			return *val;
	}
	return ~uint64_t(0); // nil in both layouts
}

Expected<size_t> table_each(const Vm &mem, uint64_t t, size_t max_entries,
			    const std::function<void(uint64_t key, uint64_t value)> &visit)
{
	const lj_layout &ly = mem.layout();
	auto array = mem.ref(t + ly.tab_array);
	auto asize = mem.value<uint32_t>(t + ly.tab_asize);
	auto node = mem.ref(t + ly.tab_node);
	auto hmask = mem.value<uint32_t>(t + ly.tab_hmask);
	if (!array || !asize || !node || !hmask)
		return fail("table " + hex(t) + " is unreadable");
	size_t seen = 0;
	for (uint64_t i = 0; i < *asize && seen < max_entries; i++) {
		auto raw = mem.value<uint64_t>(*array + 8 * i);
		if (!raw)
			return fail("array part of table " + hex(t) + " is unreadable");
		if (is_nil(ly, *raw))
			continue;
		double key = double(i);
		uint64_t key_raw;
		memcpy(&key_raw, &key, 8);
		visit(key_raw, *raw);
		seen++;
	}
	for (uint64_t i = 0; i <= *hmask && i < lj_limit::hash_nodes && seen < max_entries; i++) {
		uint64_t n = *node + i * ly.node_size;
		auto val = mem.value<uint64_t>(n);
		auto key = mem.value<uint64_t>(n + 8);
		if (!val || !key)
			return fail("hash node " + hex(n) + " of table " + hex(t) +
				    " is unreadable");
		if (is_nil(ly, *val))
			continue;
		visit(*key, *val);
		seen++;
	}
	return seen;
}

} // namespace ljcore
