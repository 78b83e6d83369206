// The rules that read the FFI's C type state from luaopen_ffi.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// luaopen_ffi(L) first calls lj_ctype_init(L) (lib_ffi.c), whose
// first allocation is the CTState: lj_mem_realloc(L, NULL, 0,
// sizeof(CTState)) (lj_ctype.c, lj_gc.h lj_mem_newt). A build
// without the FFI exports no luaopen_ffi, and has no CTState to read.
void Deriver::ctype_state()
{
	if (!code_.function("luaopen_ffi"))
		return;
	auto f = follow("luaopen_ffi");
	if (!f)
		return;
	auto allocation = [](const CallSite &c) {
		auto zero = [](const TrackedValue &v) {
			return v.kind == TrackedValue::constant && v.k == 0;
		};
		return c.args.size() > 3 && c.args[0].is(0, {}) && zero(c.args[1]) &&
		       zero(c.args[2]) && c.args[3].kind == TrackedValue::constant &&
		       c.args[3].k >= 256 && c.args[3].k <= 4096;
	};
	auto add_from = [&](const Traced &t) {
		for (const CallSite &c : t.trace.calls)
			if (allocation(c)) {
				// CTState ends with cb.sizeid, topid, slot
				// (16 bytes with padding) and hash[128]
				// (lj_ctype.h): the same in every version.
				add("cts_size", uint32_t(c.args[3].k), t.at(c.addr));
				add("cts_cb_sizeid", uint32_t(c.args[3].k - 272), t.at(c.addr));
				ctype_init(t, c);
				return true;
			}
		return false;
	};
	// lj_ctype_init inlined, or the first call with L.
	if (add_from(*f))
		return;
	auto init =
		std::find_if(f->trace.calls.begin(), f->trace.calls.end(), [](const CallSite &c) {
			return !c.args.empty() && c.args[0].is(0, {});
		});
	if (init == f->trace.calls.end())
		return problem("cts_size", "luaopen_ffi calls nothing with L");
	auto callee = follow_call(*f, *init);
	if (callee && !add_from(*callee))
		problem("cts_size", "lj_ctype_init allocates no constant size");
}

// The rest of lj_ctype_init after the CTState's allocation at alloc:
// the type table, CTTYPETAB_MIN (128) CTypes, allocated next, and
// cts->tab = it (lj_ctype.c). cts->sizetab shares a store with
// cts->top, and G(L)->ctype_state is set after a loop: neither shows.
void Deriver::ctype_init(const Traced &t, const CallSite &alloc)
{
	constexpr int64_t tab_min = 128;
	auto result_of = [&](const CallSite &c) {
		return TrackedValue::call_result + unsigned(&c - t.trace.calls.data());
	};
	unsigned cts = result_of(alloc);
	const CallSite *tab = nullptr;
	for (const CallSite &c : t.trace.calls)
		if (c.addr > alloc.addr && c.args.size() > 3 && c.args[0].is(0, {}) &&
		    c.args[3].kind == TrackedValue::constant && c.args[3].k > 0 &&
		    c.args[3].k % tab_min == 0 && c.args[3].k / tab_min <= 64) {
			tab = &c;
			add("ctype_size", uint32_t(c.args[3].k / tab_min), t.at(c.addr));
			break;
		}
	if (const MemoryAccess *a = first_access(t, [&](const MemoryAccess &a) {
		    return tab && a.store && a.object.is(cts, {}) &&
			   a.value.is(result_of(*tab), {});
	    }))
		add("cts_tab", uint32_t(a->offset), t.at(a->addr));
	for (const char *name : {"ctype_size", "cts_tab"})
		if (!out_.field(name))
			problem(name, "lj_ctype_init does not show it");
}

} // namespace ljcore
