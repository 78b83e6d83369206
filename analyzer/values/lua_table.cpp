#include "analyzer/values/lua_table.h"

#include <cstring>

#include "analyzer/lua/limits.h"
#include "analyzer/lua/table.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

namespace {

using namespace tvalue;

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
	auto len = mem.str_len(s);
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

Expected<uint64_t> table_get(const Vm &mem, uint64_t addr, const LuaKey &key)
{
	const lj_layout &ly = mem.layout();
	auto t = read_table(mem, addr);
	if (!t)
		return std::unexpected(t.error());
	// Integer keys below asize live in the array part only (lj_tab.c).
	if (key.kind == LuaKey::Kind::number && key.number >= 0 && key.number < double(t->asize) &&
	    key.number == double(uint64_t(key.number))) {
		uint64_t slot = t->slot_at(uint64_t(key.number));
		auto raw = mem.value<uint64_t>(slot);
		if (!raw)
			return fail("array slot " + hex(slot) + " of table " + hex(addr) +
				    " is unreadable");
		return *raw;
	}
	if (t->nodes() > lj_limit::hash_nodes)
		return fail("table " + hex(addr) + " claims " + std::to_string(t->nodes()) +
			    " hash nodes, more than LuaJIT allows");
	for (uint64_t i = 0; i < t->nodes(); i++) {
		auto n = read_node(mem, t->node_at(i));
		if (!n)
			return fail("hash node " + hex(t->node_at(i)) + " of table " + hex(addr) +
				    " is unreadable");
		if (is_nil(ly, n->value))
			continue;
		auto match = key_matches(mem, n->key, key);
		if (!match)
			return std::unexpected(match.error());
		if (*match)
			return n->value;
	}
	return ~uint64_t(0); // nil in both layouts
}

} // namespace ljcore
