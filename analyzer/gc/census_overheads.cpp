#include "analyzer/gc/census.h"
#include "analyzer/gc/gc_sizes.h"

namespace ljcore::gc {

namespace {

// CTypeID1 (lj_ctype.h), native pointers on the 64-bit targets we read.
constexpr uint64_t ctypeid1_size = 2;
constexpr uint64_t native_ptr = 8;

} // namespace

// What g->gc.total counts besides objects: allocations of the VM itself
// (lj_state.c close_state lists them as it frees them).
void Census::add_overheads()
{
	const lj_layout &ly = ly_;
	uint64_t gg = g_ - ly.gg_g;
	out_.overheads.push_back({"GG_State (main lua_State, global_State, jit_State, "
				  "dispatch table)",
				  ly.gg_size});
	// g->tmpbuf: an SBuf {w, e, b, L} of native pointers (lj_buf.h
	// sbufsz); in Tarantool's fork {p, e, b, L} of MRefs, 32 bits
	// without GC64 (its lj_obj.h).
	const bool mrefs = LJ_LAYOUT_TARANTOOL(&ly);
	const uint64_t field = mrefs ? ly.ptrsize : native_ptr;
	auto sbuf_ptr = [&](uint64_t at) { return mrefs ? vm_.ref(at) : vm_.value<uint64_t>(at); };
	auto e = sbuf_ptr(g_ + ly.g_tmpbuf + field);
	auto b = sbuf_ptr(g_ + ly.g_tmpbuf + 2 * field);
	if (e && b && *e >= *b)
		out_.overheads.push_back({"temporary string buffer", *e - *b});
	else
		problem("g->tmpbuf unreadable");
	// Lightuserdata segments (lj_udata.c), 64-bit builds.
	auto seg = vm_.ref(g_ + ly.g_gc_lightudseg);
	auto segnum = vm_.value<uint8_t>(g_ + ly.g_gc_lightudnum);
	if (seg && *seg && segnum) {
		uint64_t n = *segnum ? uint64_t(2) << (31 - __builtin_clz(*segnum)) : 2;
		out_.overheads.push_back({"lightuserdata segment map", n * 4});
	}
	if (tl_) { // lj_trace.c lj_trace_freestate
		uint64_t J = gg + tl_->gg_J;
		auto sizetrace = vm_.value<uint32_t>(J + tl_->J_sizetrace);
		auto irtop = vm_.value<uint32_t>(J + tl_->J_irtoplim);
		auto irbot = vm_.value<uint32_t>(J + tl_->J_irbotlim);
		auto sizesnap = vm_.value<uint32_t>(J + tl_->J_sizesnap);
		auto sizesnapmap = vm_.value<uint32_t>(J + tl_->J_sizesnapmap);
		if (sizetrace && irtop && irbot && sizesnap && sizesnapmap) {
			out_.overheads.push_back(
				{"JIT trace number table", uint64_t(*sizetrace) * ly.ptrsize});
			out_.overheads.push_back(
				{"JIT IR buffer", uint64_t(*irtop - *irbot) * gc_size::irins});
			out_.overheads.push_back(
				{"JIT snapshot buffers",
				 uint64_t(*sizesnap) * LJ_SNAP_SIZE +
					 uint64_t(*sizesnapmap) * gc_size::snapentry});
		} else {
			problem("jit_State unreadable");
		}
	}
	// The FFI's C type state (lj_ctype.c lj_ctype_freestate).
	auto cts = vm_.ref(g_ + ly.g_ctype_state);
	if (cts && *cts) {
		auto tab = vm_.value<uint64_t>(*cts + ly.cts_tab);
		auto sizetab = vm_.value<uint32_t>(*cts + ly.cts_sizetab);
		auto sizeid = vm_.value<uint32_t>(*cts + ly.cts_cb_sizeid);
		if (tab && sizetab && sizeid) {
			cts_tab_ = *tab;
			cts_sizetab_ = *sizetab;
			out_.overheads.push_back({"FFI C type state",
						  ly.cts_size + uint64_t(*sizetab) * ly.ctype_size +
							  uint64_t(*sizeid) * ctypeid1_size});
		} else {
			problem("FFI C type state unreadable");
		}
	}
}

} // namespace ljcore::gc
