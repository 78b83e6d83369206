// The rules that read what lua_close frees last, members no other exported
// function shows: close_state(L) frees g->tmpbuf and the lightuserdata
// segments itself, and calls lj_trace_freestate(g) and
// lj_ctype_freestate(g), which free the JIT's buffers and the FFI's type
// table (lj_state.c, lj_trace.c, lj_ctype.c).
#include <algorithm>
#include <cstdint>
#include <set>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_close(L) ends with close_state(mainthread(g)), a tail call in gcc's
// code, or inlined: its last call with the main thread, else lua_close
// itself, where close_state's G(L) is g reloaded through the main thread.
// Its callees with g come after lj_gc_freeall(g), so they are read from
// the last: lj_ctype_freestate, lj_trace_freestate, each where the build
// has it.
void Deriver::state_frees()
{
	const DerivedField *mainthref = out_.field("g_mainthref");
	if (!close_ || !glref_ || !mainthref)
		return unshown("g_tmpbuf, g_gc_lightudnum, g_ctype_state and the JIT's buffers",
			       "lua_close's main thread is unknown");
	std::vector<int64_t> main_L = {*glref_, int64_t(mainthref->value)};
	const CallSite *last = nullptr;
	for (const CallSite &c : close_->trace.calls)
		if (!c.args.empty() && c.args[0].is(0, main_L) && c.target)
			last = &c;
	std::optional<Traced> called;
	if (last)
		called = follow_call(*close_, *last, 1024);
	// Where tmpbuf is freed is close_state; without that, the call
	// followed, where the freestates may still be.
	std::vector<int64_t> g = {*glref_}, main_g = main_L;
	main_g.push_back(*glref_);
	bool in_called = called && close_buffers(*called, g);
	bool in_close = !in_called && close_buffers(*close_, main_g);
	if (!in_called && !in_close)
		unshown("g_tmpbuf and g_gc_lightudnum",
			"close_state frees no buffer of global_State");
	bool in_lua_close = in_close || !called;
	const Traced &t = in_lua_close ? *close_ : *called;
	if (in_lua_close)
		g = main_g;
	// Its first call with g, lj_gc_freeall, frees every object
	// (gc_free_rules.cpp).
	object_frees(t, g);
	bool want_jit = out_.field("gg_J") && out_.field("gg_g") && out_.field("J_sizetrace") &&
			!jit_buffers(t, g),
	     want_ffi = out_.field("cts_cb_sizeid") && !ctype_table(t, g);
	std::vector<const CallSite *> with_g;
	for (const CallSite &c : t.trace.calls)
		if (!c.args.empty() && c.args[0].is(0, g) && c.target)
			with_g.push_back(&c);
	for (auto c = with_g.rbegin(); c != with_g.rend() && (want_jit || want_ffi); ++c) {
		auto callee = follow_call(t, **c, 256);
		if (!callee)
			continue;
		if (want_ffi && ctype_table(*callee, {}))
			want_ffi = false;
		else if (want_jit && jit_buffers(*callee, {}))
			want_jit = false;
	}
	if (want_jit)
		unshown("J_irtoplim, J_irbotlim, J_sizesnap and J_sizesnapmap",
			"close_state calls no lj_trace_freestate that frees them");
	if (want_ffi)
		unshown("g_ctype_state and cts_sizetab",
			"close_state calls no lj_ctype_freestate that frees the type table");
}

// In close_state, g at path from argument 0 of t: lj_buf_free(g,
// &g->tmpbuf) frees sbufsz() = e - b, of SBuf {w, e, b, L}, three fields
// of one width (lj_buf.h); then, on 64-bit targets, the lightuserdata
// segments g->gc.lightudseg, as many as g->gc.lightudnum + 1, a byte read
// after testing them (lj_udata.h).
bool Deriver::close_buffers(const Traced &t, const std::vector<int64_t> &g)
{
	// Members of global_State lie before jit_State, or, without the JIT,
	// the dispatch table (GG_State, lj_dispatch.h): not irtoplim -
	// irbotlim, a subtraction of the same shape that lj_trace_freestate
	// makes before tmpbuf is freed. Without that bound (no gg_J derived),
	// the one latest in the code is taken, as in the source.
	const DerivedField *gg_g = out_.field("gg_g");
	const DerivedField *after = out_.field("gg_J")          ? out_.field("gg_J")
				    : !out_.field("g_jit_base") ? out_.field("gg_dispatch")
								: nullptr;
	int64_t end = gg_g && after ? int64_t(after->value) - int64_t(gg_g->value) : 1 << 16;
	std::optional<int64_t> tmpbuf;
	uint64_t freed_at = 0;
	for (const Subtraction &s : t.trace.subtractions) {
		auto e = s.minuend.member_of(0, g), b = s.subtrahend.member_of(0, g);
		// Bounded first: the offsets are what the code added up.
		if (!e || !b || *e <= 0 || *b >= end || *e >= *b || (tmpbuf && s.addr < freed_at))
			continue;
		if (*b - *e == s.minuend.width && s.minuend.width == s.subtrahend.width &&
		    2 * *e - *b > 0)
			tmpbuf = 2 * *e - *b, freed_at = s.addr;
	}
	if (!tmpbuf)
		return false;
	add("g_tmpbuf", uint32_t(*tmpbuf), t.at(freed_at) + ", e - b");
	const DerivedField *seg = out_.field("g_gc_lightudseg");
	if (!seg) {
		unshown("g_gc_lightudnum", "g_gc_lightudseg is unknown");
		return true;
	}
	const MemoryAccess *segments = first_access(t, [&](const MemoryAccess &a) {
		return !a.store && a.object.is(0, g) && a.offset == int64_t(seg->value);
	});
	const MemoryAccess *num = segments ? first_access(t,
							  [&](const MemoryAccess &a) {
								  return !a.store && a.width == 1 &&
									 a.addr > segments->addr &&
									 a.object.is(0, g);
							  })
					   : nullptr;
	if (num)
		add("g_gc_lightudnum", uint32_t(num->offset), t.at(num->addr));
	else
		unshown("g_gc_lightudnum", t.code.name + " reads no count of the lightuserdata "
							 "segments after testing them");
	return true;
}

// lj_trace_freestate(g), J being G2J(g), g at path from argument 0 of t:
// frees J->snapmapbuf
// (J->sizesnapmap entries), J->snapbuf (J->sizesnap), the IR buffer
// J->irtoplim - J->irbotlim and J->trace (J->sizetrace): 32-bit sizes
// (lj_trace.c, lj_jit.h). irtoplim less irbotlim is the one subtraction
// of two; of the other two, sizesnap comes first in jit_State.
bool Deriver::jit_buffers(const Traced &t, const std::vector<int64_t> &g)
{
	int64_t J = int64_t(out_.field("gg_J")->value) - int64_t(out_.field("gg_g")->value),
		sizetrace = out_.field("J_sizetrace")->value;
	auto size_in_J = [&](const TrackedValue &v) -> std::optional<int64_t> {
		auto at = v.member_of(0, g);
		if (!at || v.width != 4 || *at < J)
			return std::nullopt;
		return *at - J;
	};
	std::set<int64_t> sizes;
	for (const MemoryAccess &a : t.trace.accesses)
		if (!a.store)
			if (auto at = size_in_J(a.value))
				sizes.insert(*at);
	auto ir_limits = std::find_if(t.trace.subtractions.begin(), t.trace.subtractions.end(),
				      [&](const Subtraction &s) {
					      auto top = size_in_J(s.minuend),
						   bot = size_in_J(s.subtrahend);
					      return top && bot && *top != *bot;
				      });
	if (!sizes.count(sizetrace) || ir_limits == t.trace.subtractions.end())
		return false;
	int64_t top = *size_in_J(ir_limits->minuend), bot = *size_in_J(ir_limits->subtrahend);
	sizes.erase(sizetrace), sizes.erase(top), sizes.erase(bot);
	if (sizes.size() != 2)
		return false;
	std::string at = t.at(ir_limits->addr) + ", irtoplim - irbotlim";
	add("J_irtoplim", uint32_t(top), at);
	add("J_irbotlim", uint32_t(bot), at);
	add("J_sizesnap", uint32_t(*sizes.begin()), t.code.name + ", the first other size");
	add("J_sizesnapmap", uint32_t(*sizes.rbegin()), t.code.name + ", the last");
	return true;
}

// lj_ctype_freestate(g), g at path from argument 0 of t: cts =
// ctype_ctsG(g), a reference in g; then
// lj_mem_freevec(g, cts->tab, cts->sizetab, CType) and the callback ids,
// cts->cb.sizeid of them (lj_ctype.c): the 32-bit loads from cts, one at
// cts_cb_sizeid, which ctype_state() found.
bool Deriver::ctype_table(const Traced &t, const std::vector<int64_t> &g)
{
	int64_t sizeid = out_.field("cts_cb_sizeid")->value;
	auto in_cts = [&](const MemoryAccess &a) {
		return !a.store && a.width == 4 && a.object.member_of(0, g);
	};
	const MemoryAccess *ids = first_access(
		t, [&](const MemoryAccess &a) { return in_cts(a) && a.offset == sizeid; });
	if (!ids)
		return false;
	int64_t cts = ids->object.path.back();
	const MemoryAccess *sizetab = first_access(t, [&](const MemoryAccess &a) {
		return in_cts(a) && a.object.path.back() == cts && a.offset != sizeid;
	});
	add("g_ctype_state", uint32_t(cts), t.at(ids->addr) + ", as cts");
	if (sizetab)
		add("cts_sizetab", uint32_t(sizetab->offset), t.at(sizetab->addr));
	else
		unshown("cts_sizetab", t.code.name + " reads no size of the type table");
	return true;
}

} // namespace ljcore
