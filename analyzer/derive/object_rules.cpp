// The rules that read the GC objects' layouts (GCudata, GCfunc, GCproto,
// GCstr, GCtab, light userdata) from the API functions that make or read
// them.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_newuserdata(L, size) calls lj_udata_new(L, size, env), which
// allocates sizeof(GCudata) + size and stores ud->len = size
// (lj_udata.c). lj_gc_check before it may call the collector with L
// and the size still in place: the callee taken is the one that
// allocates.
void Deriver::userdata()
{
	auto f = follow("lua_newuserdata");
	if (!f || udata_new(*f)) // inlined, as in Debian's -O2
		return;
	size_t tried = 0;
	for (const CallSite &c : f->trace.calls) {
		if (c.args.size() < 2 || !c.args[0].is(0, {}) || !c.args[1].is(1, {}) ||
		    !c.target || ++tried > 3)
			continue;
		auto callee = follow_call(*f, c);
		if (callee && udata_new(*callee))
			return;
	}
	problem("ud_size", "lua_newuserdata calls nothing that allocates size + a constant");
}

bool Deriver::udata_new(const Traced &t)
{
	// lj_mem_newgco(L, size) or lj_mem_realloc(L, NULL, 0, size).
	auto size_plus = [](const TrackedValue &v) {
		return v.kind == TrackedValue::pointer && v.arg == 1 && v.path.empty() && v.k > 0 &&
		       v.k <= 128;
	};
	for (const CallSite &alloc : t.trace.calls) {
		auto size = std::find_if(alloc.args.begin(), alloc.args.end(), size_plus);
		if (alloc.args.empty() || !alloc.args[0].is(0, {}) || size == alloc.args.end())
			continue;
		add("ud_size", uint32_t(size->k), t.at(alloc.addr));
		unsigned ud = TrackedValue::call_result + unsigned(&alloc - t.trace.calls.data());
		if (const MemoryAccess *a = first_access(t, [&](const MemoryAccess &a) {
			    return a.store && a.object.is(ud, {}) && a.width == 4 &&
				   a.value.is(1, {});
		    }))
			add("ud_len", uint32_t(a->offset), t.at(a->addr));
		else
			problem("ud_len", "lj_udata_new stores no size");
		return true;
	}
	return false;
}

// lua_pushcclosure(L, f, n): fn = lj_func_newC(L, n, env), then
// fn->c.f = f (lj_api.c); lj_func_newC stores fn->c.nupvalues = n
// and fn->c.pc = &G(L)->bc_cfunc_ext into what it allocated
// (lj_func.c).
void Deriver::cclosure()
{
	auto f = follow("lua_pushcclosure");
	if (!f)
		return;
	const MemoryAccess *store_f = first_access(*f, [](const MemoryAccess &a) {
		return a.store && a.object.kind == TrackedValue::pointer &&
		       a.object.arg >= TrackedValue::call_result && a.object.path.empty() &&
		       a.width == 8 && a.value.is(1, {});
	});
	if (!store_f)
		return problem("fn_f", "lua_pushcclosure stores f into nothing it called for");
	add("fn_f", uint32_t(store_f->offset), f->at(store_f->addr));
	const CallSite *newC = &f->trace.calls[store_f->object.arg - TrackedValue::call_result];
	// lj_func_newC inlined (Debian's -O2), what it allocates is
	// what f is stored into, and n the third argument; or called.
	auto scan = [&](const Traced &t, unsigned fn, unsigned n) {
		for (const MemoryAccess &a : t.trace.accesses) {
			if (!a.store || !a.object.is(fn, {}))
				continue;
			if (a.width == 1 && a.value.is(n, {}))
				add("fn_nupvalues", uint32_t(a.offset), t.at(a.addr));
			if (a.width == ptrsize_ && glref_ &&
			    a.value.kind == TrackedValue::pointer && a.value.arg == 0 &&
			    a.value.path == std::vector<int64_t>{*glref_})
				add("fn_pc", uint32_t(a.offset), t.at(a.addr));
		}
		return out_.field("fn_pc") != nullptr;
	};
	if (!scan(*f, TrackedValue::call_result + unsigned(newC - f->trace.calls.data()), 2))
		if (auto callee = follow_call(*f, *newC))
			for (const CallSite &alloc : callee->trace.calls)
				if (scan(*callee,
					 TrackedValue::call_result +
						 unsigned(&alloc - callee->trace.calls.data()),
					 1))
					break;
	for (const char *name : {"fn_nupvalues", "fn_pc"})
		if (!out_.field(name))
			problem(name, "lj_func_newC does not show it");
}

// lua_dump(L, writer, data): the function fn at L->top - 1, and
// lj_bcwrite(L, funcproto(fn), ...), where funcproto(fn) is
// mref(fn->l.pc) - sizeof(GCproto): the bytecode follows the
// prototype (lj_api.c, lj_obj.h).
void Deriver::dump()
{
	dump_ = follow("lua_dump");
	const auto &f = dump_;
	if (!f)
		return;
	const DerivedField *top = out_.field("L_top");
	if (!top)
		return problem("pt_size", "L->top is unknown");
	const CallSite *c = prototype_call(*f);
	if (!c)
		return problem("pt_size", "lua_dump passes no prototype below fn->l.pc");
	const TrackedValue &pt = c->args[1];
	add("fn_pc", uint32_t(pt.path[2]), f->at(c->addr));
	add("pt_size", uint32_t(-pt.k), f->at(c->addr));
	// isluafunc(fn) before it: fn->c.ffid, a byte.
	if (const MemoryAccess *a = first_access(*f, [&](const MemoryAccess &a) {
		    return !a.store && a.width == 1 && a.object.is(0, {top->value, -8});
	    }))
		return add("fn_ffid", uint32_t(a->offset), f->at(a->addr));
	problem("fn_ffid", "lua_dump reads no byte of the function");
}

// lua_dump's call of lj_bcwrite(L, funcproto(fn), ...): its second
// argument is loaded from the function at L->top - 1, less a constant.
const CallSite *Deriver::prototype_call(const Traced &dump)
{
	const DerivedField *top = out_.field("L_top");
	for (const CallSite &c : dump.trace.calls) {
		const TrackedValue *pt = c.args.size() > 1 ? &c.args[1] : nullptr;
		if (top && pt && pt->kind == TrackedValue::pointer && pt->arg == 0 &&
		    pt->path.size() == 3 && pt->path[0] == top->value && pt->path[1] == -8 &&
		    pt->k < 0 && pt->k >= -1024)
			return &c;
	}
	return nullptr;
}

// lua_getlocal(L, NULL, n) names the parameters of the function at
// L->top - 1: debug_varname(funcproto(fn), 0, n - 1), which reads
// proto_varinfo(pt) (lj_debug.c). gcc passes that pointer itself, or
// the prototype, whose first native pointer read is it.
void Deriver::getlocal()
{
	auto f = follow("lua_getlocal");
	const DerivedField *top = out_.field("L_top"), *fn_pc = out_.field("fn_pc"),
			   *pt_size = out_.field("pt_size");
	if (!f)
		return;
	if (!top || !fn_pc || !pt_size)
		return problem("pt_varinfo", "funcproto() is unknown");
	std::vector<int64_t> pc = {top->value, -8, fn_pc->value};
	for (const CallSite &c : f->trace.calls) {
		const TrackedValue *v = c.args.empty() ? nullptr : &c.args[0];
		if (!v || v->kind != TrackedValue::pointer || v->arg != 0)
			continue;
		if (v->path.size() == 4 && std::equal(pc.begin(), pc.end(), v->path.begin()) &&
		    v->k == 0 && v->path[3] < 0) {
			add("pt_varinfo", uint32_t(pt_size->value + v->path[3]), f->at(c.addr));
			return;
		}
		if (v->path != pc || v->k != -int64_t(pt_size->value))
			continue;
		auto callee = follow_call(*f, c);
		if (!callee)
			return;
		if (const MemoryAccess *a = first_access(*callee, [&](const MemoryAccess &a) {
			    return !a.store && a.object.is(0, {}) && a.width == ptrsize_;
		    }))
			return add("pt_varinfo", uint32_t(a->offset), callee->at(a->addr));
	}
	problem("pt_varinfo", "lua_getlocal passes debug_varname no prototype");
}

// lua_tolstring(L, idx, len): s = strV(index2adr(L, idx)), *len =
// s->len, and it returns strdata(s), the characters right after the
// GCstr (lj_api.c, lj_obj.h).
void Deriver::tolstring()
{
	auto f = follow("lua_tolstring");
	if (!f)
		return;
	const MemoryAccess *len = first_access(*f, [](const MemoryAccess &a) {
		const TrackedValue &v = a.value;
		return a.store && a.object.is(2, {}) && v.kind == TrackedValue::pointer &&
		       v.arg >= TrackedValue::call_result && v.path.size() == 2 && v.path[0] == 0;
	});
	if (len) {
		add("str_len", uint32_t(len->value.path[1]), f->at(len->addr));
		for (const Addition &d : f->trace.additions)
			if (d.result.arg == len->value.arg &&
			    d.result.path == std::vector<int64_t>{0} && d.result.k > 0 &&
			    d.addr > len->addr)
				return add("str_size", uint32_t(d.result.k), f->at(d.addr));
		return problem("str_size", "lua_tolstring returns no strdata()");
	}
	inlined_index2adr(*f, "str_len and str_size", "lua_tolstring stores no length");
}

// index2adr(L, idx) inlined (gcc does without GC64) reads the slot
// through L->base indexed by idx, which the tracker does not follow:
// the rules that take the object from its call show nothing then.
void Deriver::inlined_index2adr(const Traced &f, const std::string &fields, const std::string &why)
{
	// Called, its result is the slot: the TValue loaded from it.
	bool called = std::any_of(
		f.trace.accesses.begin(), f.trace.accesses.end(), [](const MemoryAccess &a) {
			return !a.store && a.offset == 0 &&
			       a.object.kind == TrackedValue::pointer &&
			       a.object.arg >= TrackedValue::call_result && a.object.path.empty();
		});
	called ? problem(fields, why)
	       : unshown(fields, f.code.name + " reads its argument through an indexed slot");
}

// lua_rawgeti(L, idx, n): t = tabV(index2adr(L, idx)), then
// lj_tab_getint(t, n): n < t->asize ? arrayslot(t, n) :
// lj_tab_getinthash(t, n), which reads t->node[hashint(n) &
// t->hmask] (lj_api.c, lj_tab.h, lj_tab.c).
void Deriver::rawgeti()
{
	auto f = follow("lua_rawgeti");
	if (!f)
		return;
	auto of_table = [](const MemoryAccess &a) {
		return !a.store && a.object.kind == TrackedValue::pointer &&
		       a.object.arg >= TrackedValue::call_result &&
		       a.object.path == std::vector<int64_t>{0};
	};
	// The bound is compared first; without GC64 the array's MRef is
	// 32 bits too.
	for (const MemoryAccess &a : f->trace.accesses)
		if (of_table(a) && a.width == 4 && !out_.field("tab_asize"))
			add("tab_asize", uint32_t(a.offset), f->at(a.addr));
		else if (of_table(a) && a.width == ptrsize_)
			add("tab_array", uint32_t(a.offset), f->at(a.addr));
	const DerivedField *asize = out_.field("tab_asize");
	if (!asize || !out_.field("tab_array"))
		return inlined_index2adr(*f, "tab_asize, tab_array, tab_hmask and tab_node",
					 "lua_rawgeti does not show them");
	for (const CallSite &c : f->trace.calls) {
		if (c.args.empty() || c.args[0].kind != TrackedValue::pointer ||
		    c.args[0].arg < TrackedValue::call_result ||
		    c.args[0].path != std::vector<int64_t>{0} || c.args[0].k != 0)
			continue;
		auto hash = follow_call(*f, c);
		if (!hash)
			return;
		// GCtab has node, asize, hmask in this order (lj_obj.h):
		// without GC64 node and hmask are both 32 bits.
		for (const MemoryAccess &a : hash->trace.accesses)
			if (!a.store && a.object.is(0, {}) && a.width == 4 &&
			    a.offset > asize->value)
				add("tab_hmask", uint32_t(a.offset), hash->at(a.addr));
			else if (!a.store && a.object.is(0, {}) && a.width == ptrsize_ &&
				 a.offset < asize->value)
				add("tab_node", uint32_t(a.offset), hash->at(a.addr));
		break;
	}
	for (const char *name : {"tab_hmask", "tab_node"})
		if (!out_.field(name))
			problem(name, "lj_tab_getinthash does not show it");
}

// lua_getmetatable(L, idx): of the object o = index2adr(L, idx), mt =
// tabref(tabV(o)->metatable) for a table, tabref(udataV(o)->metatable)
// for a userdata, else the base metatable in g (lj_api.c). The first two
// are the GCRef loads from the object: one offset when both structs have
// it at the same place (every build so far), two when not, the userdata's
// then the one after its len (lj_obj.h GCudata).
void Deriver::getmetatable()
{
	auto f = follow("lua_getmetatable");
	if (!f)
		return;
	const DerivedField *ud_len = out_.field("ud_len");
	std::vector<const MemoryAccess *> loads;
	for (const MemoryAccess &a : f->trace.accesses)
		if (!a.store && a.width == (ptrsize_ == 8 ? 8 : 4) &&
		    a.object.kind == TrackedValue::pointer &&
		    a.object.arg >= TrackedValue::call_result &&
		    a.object.path == std::vector<int64_t>{0} && a.offset > 0 &&
		    std::none_of(loads.begin(), loads.end(),
				 [&](const MemoryAccess *l) { return l->offset == a.offset; }))
			loads.push_back(&a);
	if (loads.empty())
		return inlined_index2adr(*f, "tab_metatable",
					 "lua_getmetatable loads no metatable");
	if (loads.size() == 1)
		return add("tab_metatable", uint32_t(loads[0]->offset), f->at(loads[0]->addr));
	// The userdata's metatable follows its 32-bit len, aligned.
	int64_t ud_mt = ud_len ? (ud_len->value + 4 + ptrsize_ - 1) / ptrsize_ * ptrsize_ : -1;
	auto tab = std::find_if(loads.begin(), loads.end(),
				[&](const MemoryAccess *l) { return l->offset != ud_mt; });
	if (loads.size() != 2 || ud_mt < 0 || tab == loads.end() ||
	    std::count_if(loads.begin(), loads.end(),
			  [&](const MemoryAccess *l) { return l->offset == ud_mt; }) != 1)
		return unshown(
			"tab_metatable",
			"lua_getmetatable loads more than a table's and a userdata's metatable");
	add("tab_metatable", uint32_t((*tab)->offset), f->at((*tab)->addr));
}

// lua_topointer(L, idx) is lj_obj_ptr(G(L), index2adr(L, idx)) (lj_api.c),
// which for a light userdata on a 64-bit build rebuilds the pointer's
// upper bits from mref(g->gc.lightudseg): the one field of g it reads
// (lj_obj.c, lj_obj.h lightudV).
void Deriver::topointer()
{
	auto f = follow("lua_topointer");
	if (!f || !glref_)
		return;
	auto segments = [&](const Traced &t, unsigned arg, const std::vector<int64_t> &g) {
		const MemoryAccess *a = first_access(t, [&](const MemoryAccess &a) {
			return !a.store && a.object.is(arg, g) && a.width == ptrsize_;
		});
		if (a)
			add("g_gc_lightudseg", uint32_t(a->offset), t.at(a->addr));
		return a != nullptr;
	};
	// lj_obj_ptr inlined, or called with G(L).
	if (segments(*f, 0, {*glref_}))
		return;
	// G(L) may be loaded before index2adr is called, into a register
	// the tracker takes a call to change: its slot then tells the call.
	for (const CallSite &c : f->trace.calls) {
		bool slot = c.args.size() > 1 && c.args[1].kind == TrackedValue::pointer &&
			    c.args[1].arg >= TrackedValue::call_result && c.args[1].path.empty() &&
			    c.args[1].k == 0;
		if (!c.args.empty() && !c.args[0].is(0, {*glref_}) && !slot)
			continue;
		auto callee = follow_call(*f, c);
		if (callee && segments(*callee, 0, {}))
			return;
		break;
	}
	unshown("g_gc_lightudseg", "lua_topointer reads no field of global_State");
}

} // namespace ljcore
