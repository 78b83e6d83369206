#include "analyzer/values/lua_values.h"

#include <algorithm>
#include <cstring>

#include "analyzer/lua/function.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/table.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/lua/userdata.h"
#include "analyzer/stack/coroutines.h"
#include "analyzer/values/builtin_names.h"

namespace ljcore {

namespace {

using namespace tvalue;

// Table slots looked at per table for its first entries: a sparse array
// or hash must not make one value cost a scan of a huge table.
constexpr uint64_t max_slots_scanned = 4096;
// Values read for one local, nested table entries included.
constexpr size_t max_values = 2000;

// Fixed ctype ids (CTTYDEF in lj_ctype.h) of the number-like types, the
// same in every LuaJIT 2.1.
enum : uint16_t {
	ctid_bool = 3,
	ctid_cchar,
	ctid_int8,
	ctid_uint8,
	ctid_int16,
	ctid_uint16,
	ctid_int32,
	ctid_uint32,
	ctid_int64,
	ctid_uint64,
	ctid_float,
	ctid_double,
};

LuaValue unreadable(uint64_t addr)
{
	LuaValue v;
	v.type = LuaValue::Type::unreadable;
	v.address = addr;
	return v;
}

} // namespace

LuaValue ValueReader::at(uint64_t addr) const
{
	auto raw = mem_.value<uint64_t>(addr);
	if (!raw)
		return unreadable(addr);
	return of_raw(*raw);
}

LuaValue ValueReader::of_raw(uint64_t raw) const
{
	std::vector<uint64_t> open_tables;
	budget_ = max_values;
	LuaValue v = decode(raw, 0, open_tables);
	v.raw = raw;
	return v;
}

LuaValue ValueReader::decode(uint64_t raw, uint32_t depth, std::vector<uint64_t> &open_tables) const
{
	const lj_layout &ly = mem_.layout();
	LuaValue v;
	if (budget_ == 0)
		return unreadable(0);
	budget_--;
	// The itype sits above a 47-bit payload with GC64, in the upper word
	// with 32-bit refs; lightuserdata keeps 47 bits of pointer in both.
	uint32_t it = itype(ly, raw);
	if (is_lightuserdata(ly, raw)) {
		v.type = LuaValue::Type::lightuserdata;
		v.address = lightuserdata_pointer(mem_, raw);
		return v;
	}
	if (it < ~tag_isnum) {
		v.type = LuaValue::Type::number;
		memcpy(&v.number, &raw, 8);
		return v;
	}
	if (it == ~tag_isnum) {
		v.type = LuaValue::Type::integer;
		v.integer = int32_t(uint32_t(raw));
		return v;
	}
	uint32_t tag = ~it;
	uint64_t gc = gc_object(ly, raw);
	switch (tag) {
	case tag_nil:
		return v;
	case tag_false:
	case tag_true:
		v.type = LuaValue::Type::boolean;
		v.boolean = tag == tag_true;
		return v;
	default:
		break;
	}
	v.address = gc;
	auto gct = mem_.gct(gc);
	if (!gct || *gct != tag)
		return unreadable(gc);
	switch (tag) {
	case LJ_TSTR: {
		v.type = LuaValue::Type::string;
		auto len = mem_.str_len(gc);
		auto s = mem_.str(gc, limits_.max_string);
		if (!len || !s)
			return unreadable(gc);
		v.length = *len;
		v.bytes = std::move(*s);
		return v;
	}
	case LJ_TTAB:
		v.type = LuaValue::Type::table;
		read_table(v, depth, open_tables);
		return v;
	case LJ_TFUNC:
		v.type = LuaValue::Type::function;
		read_function(v);
		return v;
	case LJ_TTHREAD:
		v.type = LuaValue::Type::thread;
		v.status = coroutine_status(mem_, gc, current_L_);
		return v;
	case LJ_TUDATA: {
		v.type = LuaValue::Type::userdata;
		auto len = udata_len(mem_, gc);
		auto mt = udata_metatable(mem_, gc);
		if (!len || !mt)
			return unreadable(gc);
		v.length = *len;
		v.metatable = *mt;
		return v;
	}
	case LJ_TCDATA:
		v.type = LuaValue::Type::cdata;
		read_cdata(v);
		return v;
	default:
		return unreadable(gc);
	}
}

void ValueReader::read_table(LuaValue &v, uint32_t depth, std::vector<uint64_t> &open_tables) const
{
	const lj_layout &ly = mem_.layout();
	auto mt = table_metatable(mem_, v.address);
	auto t = ljcore::read_table(mem_, v.address);
	if (!mt || !t) {
		v = unreadable(v.address);
		return;
	}
	v.metatable = *mt;
	v.array_size = t->asize;
	v.hash_size = hash_part_empty(mem_, *t) ? 0 : t->hmask + 1;
	if (depth >= limits_.depth)
		return;
	if (std::find(open_tables.begin(), open_tables.end(), t->addr) != open_tables.end()) {
		v.cycle = true;
		return;
	}
	v.expanded = true;
	open_tables.push_back(t->addr);
	uint64_t scanned = 0;
	// The array part, t[0] first as lj_tab_next() visits it.
	for (uint32_t i = 0; i < t->asize && scanned < max_slots_scanned; i++, scanned++) {
		auto raw = mem_.value<uint64_t>(t->slot_at(i));
		if (!raw) {
			v.entries.push_back({LuaValue{}, unreadable(t->slot_at(i))});
			break;
		}
		if (is_nil(ly, *raw))
			continue;
		if (v.entries.size() == limits_.max_items) {
			v.more = true;
			break;
		}
		LuaValue key;
		key.type = LuaValue::Type::number;
		key.number = i;
		v.entries.push_back({key, decode(*raw, depth + 1, open_tables)});
	}
	for (uint64_t i = 0; v.hash_size && !v.more && i <= t->hmask && scanned < max_slots_scanned;
	     i++, scanned++) {
		auto n = read_node(mem_, t->node_at(i));
		if (!n) {
			v.entries.push_back({LuaValue{}, unreadable(t->node_at(i))});
			break;
		}
		if (is_nil(ly, n->value))
			continue;
		if (v.entries.size() == limits_.max_items) {
			v.more = true;
			break;
		}
		LuaValue k = decode(n->key, depth + 1, open_tables);
		v.entries.push_back({std::move(k), decode(n->value, depth + 1, open_tables)});
	}
	if (scanned == max_slots_scanned)
		v.more = true;
	open_tables.pop_back();
}

void ValueReader::read_function(LuaValue &v) const
{
	Function fn(mem_, v.address);
	auto ffid = fn.ffid();
	if (!ffid) {
		v = unreadable(v.address);
		return;
	}
	v.ffid = *ffid;
	if (v.ffid == LJ_FF_C) {
		auto cf = fn.c_function();
		if (cf && symbolize_)
			v.where = symbolize_(*cf);
		return;
	}
	if (v.ffid != LJ_FF_LUA) {
		if (!builtins_)
			builtins_ = builtin_names(mem_);
		auto name = builtins_->find(v.address);
		if (name != builtins_->end())
			v.where = name->second;
		return;
	}
	auto pt = function_proto(mem_, v.address);
	if (!pt)
		return;
	auto chunk = mem_.str(pt->chunkname);
	if (chunk)
		v.where = short_source(*chunk, pt->firstline) + ":" + std::to_string(pt->firstline);
}

void ValueReader::read_cdata(LuaValue &v) const
{
	auto id = cdata_ctypeid(mem_, v.address);
	if (!id) {
		v = unreadable(v.address);
		return;
	}
	v.ctypeid = *id;
	uint64_t payload = cdata_payload(mem_, v.address);
	auto load = [&](auto sample, LuaValue::Scalar kind) {
		auto x = mem_.value<decltype(sample)>(payload);
		if (!x)
			return;
		v.scalar = kind;
		if constexpr (std::is_floating_point_v<decltype(sample)>) {
			double d = *x;
			memcpy(&v.scalar_bits, &d, 8);
		} else if constexpr (std::is_signed_v<decltype(sample)>) {
			v.scalar_bits = uint64_t(int64_t(*x));
		} else {
			v.scalar_bits = uint64_t(*x);
		}
	};
	using S = LuaValue::Scalar;
	switch (v.ctypeid) {
	case ctid_bool:
		load(uint8_t(), S::boolean);
		break;
	case ctid_cchar:
	case ctid_int8:
		load(int8_t(), S::i64);
		break;
	case ctid_uint8:
		load(uint8_t(), S::u64);
		break;
	case ctid_int16:
		load(int16_t(), S::i64);
		break;
	case ctid_uint16:
		load(uint16_t(), S::u64);
		break;
	case ctid_int32:
		load(int32_t(), S::i64);
		break;
	case ctid_uint32:
		load(uint32_t(), S::u64);
		break;
	case ctid_int64:
		load(int64_t(), S::i64);
		break;
	case ctid_uint64:
		load(uint64_t(), S::u64);
		break;
	case ctid_float:
		load(float(), S::f64);
		break;
	case ctid_double:
		load(double(), S::f64);
		break;
	default:
		read_pointer(v, payload);
		break;
	}
}

void ValueReader::read_pointer(LuaValue &v, uint64_t payload) const
{
	// The ctype's CTInfo: its kind in the top 4 bits, for a pointer the
	// id of what it points to in the low 16 (lj_ctype.h).
	constexpr uint32_t ctshift_num = 28, ct_ptr = 2, ctmask_cid = 0xffff;
	auto info = ctype_info(mem_, v.ctypeid);
	if (!info || *info >> ctshift_num != ct_ptr)
		return;
	auto p = mem_.value<uint64_t>(payload);
	if (!p)
		return;
	v.scalar = LuaValue::Scalar::pointer;
	v.scalar_bits = *p;
	v.pointee = uint16_t(*info & ctmask_cid);
}

} // namespace ljcore
