// How many bytes of g->gc.total each GC object holds: the sizes LuaJIT
// passes to lj_mem_free when it frees one, from the object's own fields.
// The fields are read through a field accessor (anything with at<T>(off)
// and ref(off, ptrsize) over one object's bytes): the census sizes
// millions of objects read in place through gc::ObjBytes, so all of this
// is inline; VmObject (vm_object.h) reads one object through a Vm.
#pragma once

#include <cstdint>

#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/vm.h"
#include "analyzer/lua/vm_object.h"
#include "luajit/layout.h"
#include "luajit/trace_layout.h"

namespace ljcore::object_size {

// Sizes no layout varies: TValue (lj_obj.h), IRIns (lj_ir.h), SnapEntry
// (lj_jit.h).
constexpr uint64_t tvalue = 8;
constexpr uint64_t irins = 8;
constexpr uint64_t snapentry = 4;

// lj_str.h lj_str_size: header, characters, NUL, rounded to 4 since
// the string interning rework of 2020. Tarantool's fork predates it:
// header, characters, NUL (its lj_str.c, lj_str_new and sizestring).
struct String {
	uint32_t len;
	uint64_t total;
};
template <typename Fields> String string(const lj_layout &ly, Fields &o)
{
	uint32_t len = o.template at<uint32_t>(ly.str_len);
	if (LJ_LAYOUT_TARANTOOL(&ly))
		return {len, ly.str_size + uint64_t(len) + 1};
	return {len, ly.str_size + ((uint64_t(len) + 4) & ~uint64_t(3))};
}

// lj_func.c lj_func_freeuv.
inline uint64_t upvalue(const lj_layout &ly)
{
	return ly.uv_size;
}

// lj_state.c lj_state_free: the lua_State and its stack. The main
// lua_State is part of GG_State, which holds it: only its stack.
struct Thread {
	uint32_t slots;
	uint64_t stack, total;
};
template <typename Fields> Thread thread(const lj_layout &ly, Fields &o, bool main)
{
	uint32_t slots = o.template at<uint32_t>(ly.L_stacksize);
	uint64_t stack = uint64_t(slots) * tvalue;
	return {slots, stack, (main ? 0 : ly.L_size) + stack};
}

// lj_func.c lj_func_freeproto: sizept, the whole allocation.
template <typename Fields> uint64_t proto(const lj_layout &ly, Fields &o)
{
	return o.template at<uint32_t>(ly.pt_sizept);
}

// lj_func.c lj_func_free, lj_obj.h sizeLfunc / sizeCfunc: the header
// holds one upvalue already.
struct Function {
	bool lua;
	uint64_t total;
};
template <typename Fields> Function function(const lj_layout &ly, Fields &o)
{
	uint8_t nup = o.template at<uint8_t>(ly.fn_nupvalues);
	if (o.template at<uint8_t>(ly.fn_ffid) == LJ_FF_LUA)
		return {true, ly.fnl_size - ly.ptrsize + uint64_t(ly.ptrsize) * nup};
	return {false, ly.fnc_size - tvalue + tvalue * nup};
}

// lj_tab.c lj_tab_free. A colocated array (colo != 0) sits after the
// header; colo < 0 means the table outgrew it and has a separate one too.
// hmask 0 is the shared nilnode, not an allocation.
struct Table {
	uint32_t asize, hmask;
	uint64_t array, hash, total;
};
template <typename Fields> Table table(const lj_layout &ly, Fields &o)
{
	Table t;
	t.asize = o.template at<uint32_t>(ly.tab_asize);
	t.hmask = o.template at<uint32_t>(ly.tab_hmask);
	int8_t colo = o.template at<int8_t>(ly.tab_colo);
	t.hash = t.hmask ? (uint64_t(t.hmask) + 1) * ly.node_size : 0;
	uint64_t separate = t.asize && colo <= 0 ? uint64_t(t.asize) * tvalue : 0;
	uint64_t colocated = colo ? uint64_t(colo & 0x7f) * tvalue : 0;
	t.array = separate + colocated;
	t.total = ly.tab_size + t.array + t.hash;
	return t;
}

// lj_udata.c lj_udata_free.
template <typename Fields> uint64_t userdata(const lj_layout &ly, Fields &o)
{
	return ly.ud_size + uint64_t(o.template at<uint32_t>(ly.ud_len));
}

// lj_trace.c lj_trace_free: header (8-aligned), IR above the constants,
// snapshots and their map. The machine code is in the mcode area, not
// in g->gc.total.
struct Trace {
	uint32_t ir_ins, snapmap;
	uint64_t ir, snapshots, total, mcode;
};
template <typename Fields> Trace trace(const lj_trace_layout &tl, Fields &o)
{
	Trace t;
	t.ir_ins = o.template at<uint32_t>(tl.T_nins) - o.template at<uint32_t>(tl.T_nk);
	t.snapmap = o.template at<uint32_t>(tl.T_nsnapmap);
	uint16_t nsnap = o.template at<uint16_t>(tl.T_nsnap);
	t.ir = uint64_t(t.ir_ins) * irins;
	t.snapshots = uint64_t(nsnap) * LJ_SNAP_SIZE + uint64_t(t.snapmap) * snapentry;
	t.total = ((tl.T_size + 7u) & ~7u) + t.ir + t.snapshots;
	t.mcode = o.template at<uint32_t>(tl.T_szmcode);
	return t;
}

// lj_cdata.c lj_cdata_free. GCcdata.marked bit 0x80: a variable-sized
// cdata, with a GCcdataVar {offset, extra, len} (8 bytes) right before
// it (lj_obj.h cdataisv), which says its size.
template <typename Fields> bool cdata_variable(const lj_layout &ly, Fields &o)
{
	return gc_header::marked(ly, o) & 0x80;
}
inline Read<uint64_t> cdata_variable_size(const Vm &vm, uint64_t cd)
{
	constexpr uint64_t cdatavar_size = 8;
	auto extra = vm.value<uint16_t>(cd - cdatavar_size + 2);
	auto len = vm.value<uint32_t>(cd - cdatavar_size + 4);
	if (!extra)
		return std::unexpected(extra.error());
	if (!len)
		return std::unexpected(len.error());
	return uint64_t(*len) + *extra;
}
// A fixed-size cdata: the header, then the payload its C type's size says
// (ctype_state.h).
template <typename Fields> uint16_t cdata_ctypeid(const lj_layout &ly, Fields &o)
{
	return o.template at<uint16_t>(ly.cd_ctypeid);
}
inline uint64_t cdata_fixed(const lj_layout &ly, uint64_t payload)
{
	return ly.cd_size + payload;
}

} // namespace ljcore::object_size
