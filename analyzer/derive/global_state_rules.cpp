// The rules that read global_State and GG_State: lj_state_newstate's
// stores into the new GG_State, and the interpreter's entry lj_vm_resume.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lj_state_newstate (lua_newstate with GC64; luaL_newstate calls it
// in every build): GG = allocf(allocd, NULL, 0, sizeof(GG_State)),
// the one allocation of a constant size with no old block (lj_state.c).
void Deriver::gg_size()
{
	auto allocation = [](const CallSite &c) {
		auto zero = [](const TrackedValue &v) {
			return v.kind == TrackedValue::constant && v.k == 0;
		};
		return c.args.size() > 3 && zero(c.args[1]) && zero(c.args[2]) &&
		       c.args[3].kind == TrackedValue::constant && c.args[3].k >= 1024 &&
		       c.args[3].k <= 65536;
	};
	auto find_in = [&](const Traced &t) {
		for (const CallSite &c : t.trace.calls)
			if (allocation(c)) {
				add("gg_size", uint32_t(c.args[3].k), t.at(c.addr));
				new_globals(t, c);
				return true;
			}
		return false;
	};
	for (const char *name : {"lua_newstate", "luaL_newstate"}) {
		auto f = follow(name);
		if (!f)
			continue;
		if (find_in(*f))
			return;
		// One call deeper: luaL_newstate calls lj_state_newstate.
		size_t followed = 0;
		for (const CallSite &c : f->trace.calls) {
			if (!c.target || ++followed > 4)
				continue;
			auto callee = follow_call(*f, c);
			if (callee && find_in(*callee))
				return;
		}
	}
	problem("gg_size", "no allocation of sizeof(GG_State) in lua_newstate or "
			   "luaL_newstate");
}

// The rest of lj_state_newstate, after GG's allocation at alloc and its
// memset: the fields of g it sets to what is not 0 (lj_state.c). The
// compiler orders and merges these stores as it likes (the nil keys of
// g->nilnode are one 16-byte store in gcc's -O2), so each is told by
// its value, not its place.
void Deriver::new_globals(const Traced &t, const CallSite &alloc)
{
	const DerivedField *gg_g = out_.field("gg_g");
	const DerivedField *mainthref = out_.field("g_mainthref");
	if (!gg_g || !mainthref || !ptrsize_)
		return problem("global_State's fields", "lua_State's size is unknown");
	unsigned GG = TrackedValue::call_result + unsigned(&alloc - t.trace.calls.data());
	auto constant = [](const MemoryAccess &a, int64_t k) {
		return a.value.kind == TrackedValue::constant &&
		       (a.value.k == k || (a.width == 4 && uint32_t(a.value.k) == uint32_t(k)));
	};
	std::vector<const MemoryAccess *> nils; // g->xxx = nil, by the offset of the TValue
	std::vector<int64_t> nil_at;
	for (const MemoryAccess &a : t.trace.accesses) {
		if (!a.store || a.addr < alloc.addr || !a.object.is(GG, {}) ||
		    a.offset < int64_t(gg_g->value))
			continue;
		int64_t off = a.offset - gg_g->value;
		// g->gc.total = sizeof(GG_State); GCSize is 64 bits with
		// GC64, 32 without.
		if (a.width == ptrsize_ && constant(a, out_.field("gg_size")->value))
			add("g_gc_total", uint32_t(off), t.at(a.addr));
		// setgcref(g->gc.root, obj2gco(L)), as mainthref.
		if (a.width == ptrsize_ && a.value.is(GG, {}) && off != mainthref->value)
			add("g_gc_root", uint32_t(off), t.at(a.addr));
		// g->str.mask = ~(MSize)0, after the GCRef *tab; setnilV
		// stores ~0u into the upper half of a TValue without GC64
		// (it), all of it with.
		if (a.width == 4 && constant(a, -1) && off % 8 == 0)
			add("g_str_mask", uint32_t(off), t.at(a.addr));
		if (constant(a, -1) && ((a.width == 4 && off % 8 == 4 && ptrsize_ == 4) ||
					(a.width == 8 && ptrsize_ == 8))) {
			nils.push_back(&a);
			nil_at.push_back(off - (a.width == 4 ? 4 : 0));
		}
		// g->strempty.marked and .gct, one 16-bit store after
		// the GCRef nextgc.
		if (a.width == 2 && off >= ptrsize_)
			add("g_strempty", uint32_t(off - ptrsize_), t.at(a.addr));
	}
	// StrInternState: GCRef *tab (a native pointer), then MSize mask
	// and num, in every fork (lj_obj.h).
	if (const DerivedField *mask = out_.field("g_str_mask")) {
		add("g_str_tab", mask->value - 8, mask->source);
		add("g_str_num", mask->value + 4, mask->source);
	}
	// setnilV(registry(L)) and the nil value and key of g->nilnode:
	// the key right after the value, the registry apart.
	for (size_t i = 0; i < nils.size(); i++) {
		auto near = [&](int64_t at) {
			return std::find(nil_at.begin(), nil_at.end(), at) != nil_at.end();
		};
		if (!near(nil_at[i] - 8) && !near(nil_at[i] + 8)) {
			add("g_registrytv", uint32_t(nil_at[i]), t.at(nils[i]->addr));
			break;
		}
	}
	for (const char *name :
	     {"g_gc_total", "g_gc_root", "g_str_mask", "g_registrytv", "g_strempty"})
		if (!out_.field(name))
			problem(name, "lj_state_newstate does not show it");
}

// lua_resume(L, nargs) ends in lj_vm_resume(L, base, 0, 0), the
// interpreter's entry (vm_<arch>.dasc): it sets DISPATCH = G(L) +
// GG_G2DISP, and when resuming after a yield stores L into g->cur_L
// and ~LJ_VMST_INTERP (-1) into g->vmstate through it.
void Deriver::resume()
{
	auto f = follow("lua_resume");
	if (!f)
		return;
	const DerivedField *gg_g = out_.field("gg_g");
	size_t tried = 0;
	for (const CallSite &c : f->trace.calls) {
		if (!glref_ || c.args.empty() || !c.args[0].is(0, {}) || !c.target || ++tried > 4)
			continue;
		auto vm = follow_call(*f, c);
		if (!vm)
			continue;
		std::vector<int64_t> g = {*glref_};
		const MemoryAccess *state = first_access(*vm, [&](const MemoryAccess &a) {
			return a.store && a.object.is(0, g) && a.width == 4 &&
			       a.value.kind == TrackedValue::constant && int32_t(a.value.k) == -1;
		});
		if (!state)
			continue;
		add("g_vmstate", uint32_t(state->offset), vm->at(state->addr));
		for (const Addition &d : vm->trace.additions)
			if (gg_g && d.result.kind == TrackedValue::pointer && d.result.arg == 0 &&
			    d.result.path == g && d.result.k > 0) {
				add("gg_dispatch", uint32_t(gg_g->value + d.result.k),
				    vm->at(d.addr));
				return;
			}
		// arm64's interpreter has no DISPATCH register: it
		// indexes GL + GG_G2DISP with each opcode
		// (vm_arm64.dasc ins_NEXT), which the tracker does not
		// follow; the table's offset stands there.
		code_.arch() == Arch::x86_64
			? problem("gg_dispatch", "lj_vm_resume adds nothing to G(L)")
			: unshown("gg_dispatch", "arm64's lj_vm_resume indexes G(L)");
		return;
	}
	problem("g_vmstate", "lua_resume calls nothing that sets it");
}

// lua_error(L) is lj_err_run(L), which first asks whether the error
// comes from a trace: tvref(G(L)->jit_base) (lj_err.c). Without the JIT
// it does not ask.
void Deriver::error()
{
	auto f = follow("lua_error");
	if (!f || !glref_)
		return;
	for (const CallSite &c : f->trace.calls) {
		if (c.args.empty() || !c.args[0].is(0, {}) || !c.target)
			continue;
		auto run = follow_call(*f, c);
		if (!run)
			return;
		if (const MemoryAccess *a = first_access(*run, [&](const MemoryAccess &a) {
			    return !a.store && a.object.is(0, {*glref_}) && a.width == ptrsize_;
		    }))
			return add("g_jit_base", uint32_t(a->offset), run->at(a->addr));
		return unshown("g_jit_base", "lj_err_run reads no pointer of global_State "
					     "(a build without the JIT)");
	}
	problem("g_jit_base", "lua_error calls nothing with L");
}

// lua_createtable(L, narray, nrec) starts with lj_gc_check(L), which calls
// lj_gc_step(L) once the heap has grown past its threshold (lj_api.c,
// lj_gc.h); that first sets g->vmstate = ~LJ_VMST_GC (lj_gc.c, lj_obj.h
// setvmstate). Every fork lists GC, EXIT, RECORD, OPT and ASM last among
// the VM states (Tarantool's has LFUNC, FFUNC and CFUNC where the others
// have C), so there are LJ_VMST_GC + 5 of them. Runs after resume(),
// which shows g->vmstate, and createtable().
void Deriver::vmstates()
{
	const DerivedField *vmstate = out_.field("g_vmstate");
	if (!createtable_ || !glref_ || !vmstate)
		return;
	// vmstate is an int32_t: x86 prints the immediate unsigned.
	auto gc_state = [&](const MemoryAccess &a) {
		const TrackedValue &v = a.value;
		return a.store && a.width == 4 && a.object.is(0, {*glref_}) &&
		       a.offset == vmstate->value && v.kind == TrackedValue::constant &&
		       int32_t(v.k) < 0 && int32_t(v.k) >= -16;
	};
	// lj_gc_step is on the branch taken when the heap has grown: its
	// path is recorded after the fall-through's, which calls
	// lj_tab_new_ah with L too, and before those of later branches,
	// which may call that again.
	const auto &calls = createtable_->trace.calls;
	std::vector<uint64_t> tried;
	for (auto c = calls.rbegin(); c != calls.rend() && tried.size() < 3; ++c) {
		if (c->args.empty() || !c->args[0].is(0, {}) || !c->target ||
		    std::find(tried.begin(), tried.end(), c->target) != tried.end())
			continue;
		tried.push_back(c->target);
		auto step = follow_call(*createtable_, *c, 96);
		if (const MemoryAccess *a = step ? first_access(*step, gc_state) : nullptr)
			return add("vmstates", uint32_t(~int32_t(a->value.k) + 5),
				   step->at(a->addr));
	}
	problem("vmstates", "lua_createtable calls no lj_gc_step that sets g->vmstate");
}

} // namespace ljcore
