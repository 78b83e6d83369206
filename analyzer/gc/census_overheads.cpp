#include "analyzer/gc/census.h"
#include "analyzer/lua/ctype_state.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/jit_state.h"

namespace ljcore::gc {

// What g->gc.total counts besides objects: allocations of the VM itself
// (lj_state.c close_state lists them as it frees them).
void Census::add_overheads()
{
	const GlobalState g(vm_);
	out_.overheads.push_back({"GG_State (main lua_State, global_State, jit_State, "
				  "dispatch table)",
				  ly_.gg_size});
	auto e = g.tmpbuf_e();
	auto b = g.tmpbuf_b();
	if (e && b && *e >= *b)
		out_.overheads.push_back({"temporary string buffer", *e - *b});
	else
		problem("g->tmpbuf unreadable");
	// Lightuserdata segments (lj_udata.c), 64-bit builds.
	auto seg = g.lightudseg();
	auto segnum = g.lightudnum();
	if (seg && *seg && segnum) {
		uint64_t n = *segnum ? uint64_t(2) << (31 - __builtin_clz(*segnum)) : 2;
		out_.overheads.push_back({"lightuserdata segment map", n * 4});
	}
	if (tl_) { // lj_trace.c lj_trace_freestate
		if (auto jit = jit_buffers(vm_, *tl_)) {
			out_.overheads.push_back({"JIT trace number table", jit->trace_table});
			out_.overheads.push_back({"JIT IR buffer", jit->ir});
			out_.overheads.push_back({"JIT snapshot buffers", jit->snapshots});
		} else {
			problem("jit_State unreadable");
		}
	}
	// The FFI's C type state (lj_ctype.c lj_ctype_freestate).
	auto cts_addr = g.ctype_state();
	if (cts_addr && *cts_addr) {
		const CTypeState cts(vm_, *cts_addr);
		auto tab = cts.tab();
		auto sizetab = cts.sizetab();
		auto sizeid = cts.cb_sizeid();
		if (tab && sizetab && sizeid) {
			cts_tab_ = *tab;
			cts_sizetab_ = *sizetab;
			out_.overheads.push_back(
				{"FFI C type state", cts.bytes(*sizetab, *sizeid)});
		} else {
			problem("FFI C type state unreadable");
		}
	}
}

} // namespace ljcore::gc
