// The global_State of a VM (lj_obj.h) and the GG_State it sits in
// (lj_dispatch.h): the roots every other object is reached from.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"

namespace ljcore {

class GlobalState {
public:
	explicit GlobalState(const Vm &vm) : vm_(vm), g_(vm.g()) {}

	uint64_t addr() const { return g_; }
	const Vm &vm() const { return vm_; }
	// The lua_State created with the VM, and the one running now.
	Read<uint64_t> mainthread() const { return vm_.ref(g_ + ly().g_mainthref); }
	Read<uint64_t> cur_L() const { return vm_.ref(g_ + ly().g_cur_L); }
	// ~LJ_VMST_* while in the VM, else the number of the running trace.
	Read<int32_t> vmstate() const { return vm_.value<int32_t>(g_ + ly().g_vmstate); }
	// The base of the frames a trace runs on, 0 outside traces.
	Read<uint64_t> jit_base() const { return vm_.ref(g_ + ly().g_jit_base); }
	// g->gc.total: bytes allocated.
	Read<uint64_t> gc_total() const { return vm_.ref(g_ + ly().g_gc_total); }
	// g->gc.state: the collector's phase (GCSpause, GCSpropagate, ...).
	Read<uint8_t> gc_state() const { return vm_.value<uint8_t>(g_ + LJ_G_GC_STATE(&ly())); }
	// g->gc.currentwhite, right before state: the white of objects
	// allocated since the last atomic phase (lj_gc.h).
	Read<uint8_t> gc_currentwhite() const
	{
		return vm_.value<uint8_t>(g_ + LJ_G_GC_STATE(&ly()) - 1);
	}
	// g->allocf and g->allocd: the allocator every object comes from, and
	// its argument (lua_getallocf()).
	Read<uint64_t> allocf() const { return vm_.value<uint64_t>(g_ + LJ_G_ALLOCF(&ly())); }
	Read<uint64_t> allocd() const { return vm_.value<uint64_t>(g_ + LJ_G_ALLOCD(&ly())); }
	// g->gc.root: the list of every GC object but strings, linked
	// through GCHeader.nextgc (the first field of every object).
	Read<uint64_t> gc_root() const { return vm_.ref(g_ + ly().g_gc_root); }
	// g->gc.mmudata: the last of the userdata and cdata waiting for
	// their finalizer, a ring through nextgc (lj_gc.c gc_finalize).
	Read<uint64_t> gc_mmudata() const { return vm_.ref(g_ + ly().g_gc_mmudata); }
	// g->gc.lightudseg and lightudnum: the segment map of 64-bit
	// lightuserdata (lj_udata.c) and its number of segments - 1.
	Read<uint64_t> lightudseg() const { return vm_.ref(g_ + ly().g_gc_lightudseg); }
	Read<uint8_t> lightudnum() const { return vm_.value<uint8_t>(g_ + ly().g_gc_lightudnum); }
	// g->str: the string hash table, its anchors tab[0..mask] (lj_str.c)
	// and how many strings it holds.
	Read<uint64_t> str_tab() const { return vm_.ref(g_ + ly().g_str_tab); }
	Read<uint32_t> str_mask() const { return vm_.value<uint32_t>(g_ + ly().g_str_mask); }
	Read<uint32_t> str_num() const { return vm_.value<uint32_t>(g_ + ly().g_str_num); }
	// g->tmpbuf's e and b, the end and start of its buffer: an SBuf
	// {w, e, b, L} of native pointers (lj_buf.h sbufsz); in Tarantool's
	// fork {p, e, b, L} of MRefs, 32 bits without GC64 (its lj_obj.h).
	Read<uint64_t> tmpbuf_e() const { return tmpbuf_ptr(1); }
	Read<uint64_t> tmpbuf_b() const { return tmpbuf_ptr(2); }
	// g->registrytv: the TValue holding the registry table, raw.
	Read<uint64_t> registry() const { return vm_.value<uint64_t>(g_ + ly().g_registrytv); }
	// &g->strempty: the GCstr of length 0 that is no GC object.
	uint64_t strempty() const { return g_ + ly().g_strempty; }
	// The FFI's CTState, or 0 (and 0 in a build without the FFI).
	Read<uint64_t> ctype_state() const
	{
		return ly().g_ctype_state ? vm_.ref(g_ + ly().g_ctype_state) : Read<uint64_t>(0);
	}
	// GG_State, the block that holds g, the main lua_State, the
	// jit_State and the dispatch table.
	uint64_t gg() const { return g_ - ly().gg_g; }
	// GG->dispatch: the interpreter's handler of each bytecode, in order.
	uint64_t dispatch_table() const { return gg() + ly().gg_dispatch; }
	// The handler of bytecode op: GG->dispatch[op].
	Read<uint64_t> dispatch(uint32_t op) const
	{
		return vm_.value<uint64_t>(dispatch_table() + 8 * uint64_t(op));
	}

private:
	const lj_layout &ly() const { return vm_.layout(); }
	Read<uint64_t> tmpbuf_ptr(unsigned field) const
	{
		const bool mrefs = LJ_LAYOUT_TARANTOOL(&ly());
		uint64_t at = g_ + ly().g_tmpbuf + field * (mrefs ? ly().ptrsize : 8u);
		return mrefs ? vm_.ref(at) : vm_.value<uint64_t>(at);
	}

	const Vm &vm_;
	uint64_t g_;
};

} // namespace ljcore
