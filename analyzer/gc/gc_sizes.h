// How many bytes of g->gc.total each GC object holds: the sizes LuaJIT
// passes to lj_mem_free when it frees one, from the object's own fields.
#pragma once

#include <cstdint>

#include "luajit/layout.h"
#include "luajit/trace_layout.h"

namespace ljcore::gc_size {

// Sizes no layout varies: TValue (lj_obj.h), IRIns (lj_ir.h), SnapEntry
// (lj_jit.h).
constexpr uint64_t tvalue = 8;
constexpr uint64_t irins = 8;
constexpr uint64_t snapentry = 4;

// lj_str.h lj_str_size: header, characters, NUL, rounded to 4 since
// the string interning rework of 2020. Tarantool's fork predates it:
// header, characters, NUL (its lj_str.c, lj_str_new and sizestring).
inline uint64_t string(const lj_layout &ly, uint32_t len)
{
	if (LJ_LAYOUT_TARANTOOL(&ly))
		return ly.str_size + uint64_t(len) + 1;
	return ly.str_size + ((uint64_t(len) + 4) & ~uint64_t(3));
}

// lj_tab.c lj_tab_free. A colocated array (colo != 0) sits after the
// header; colo < 0 means the table outgrew it and has a separate one too.
// hmask 0 is the shared nilnode, not an allocation.
struct Table {
	uint64_t array, hash, total;
};
inline Table table(const lj_layout &ly, int8_t colo, uint32_t asize, uint32_t hmask)
{
	Table t;
	t.hash = hmask ? (uint64_t(hmask) + 1) * ly.node_size : 0;
	uint64_t separate = asize && colo <= 0 ? uint64_t(asize) * tvalue : 0;
	uint64_t colocated = colo ? uint64_t(colo & 0x7f) * tvalue : 0;
	t.array = separate + colocated;
	t.total = ly.tab_size + t.array + t.hash;
	return t;
}

// lj_obj.h sizeLfunc / sizeCfunc: the header holds one upvalue already.
inline uint64_t lua_function(const lj_layout &ly, uint8_t nupvalues)
{
	return ly.fnl_size - ly.ptrsize + uint64_t(ly.ptrsize) * nupvalues;
}
inline uint64_t c_function(const lj_layout &ly, uint8_t nupvalues)
{
	return ly.fnc_size - tvalue + tvalue * nupvalues;
}

// lj_state.c lj_state_free: the lua_State and its stack.
inline uint64_t thread_stack(uint32_t stacksize)
{
	return uint64_t(stacksize) * tvalue;
}

// lj_udata.c lj_udata_free.
inline uint64_t userdata(const lj_layout &ly, uint32_t len)
{
	return ly.ud_size + uint64_t(len);
}

// lj_trace.c lj_trace_free: header (8-aligned), IR above the constants,
// snapshots and their map.
struct Trace {
	uint64_t ir, snapshots, total;
};
inline Trace trace(const lj_trace_layout &tl, uint32_t nins, uint32_t nk, uint16_t nsnap,
		   uint32_t nsnapmap)
{
	Trace t;
	t.ir = uint64_t(nins - nk) * irins;
	t.snapshots = uint64_t(nsnap) * LJ_SNAP_SIZE + uint64_t(nsnapmap) * snapentry;
	t.total = ((tl.T_size + 7u) & ~7u) + t.ir + t.snapshots;
	return t;
}

} // namespace ljcore::gc_size
