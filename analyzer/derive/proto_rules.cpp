// The rules that read GCproto's debug fields (chunkname, firstline,
// numline, lineinfo, uvinfo) and the sizes checked beside them (sizebc,
// sizeuv) from lua_getinfo and lua_getupvalue: what the walker reads to
// name frames and upvalues. They take sizeof(GCproto) and fn->l.pc from
// lua_dump, varinfo from lua_getlocal (object_rules.cpp).
#include <map>
#include <set>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_getinfo(L, what, ar) is lj_debug_getinfo(L, what, ar, 0)
// (lj_debug.c), which switches on each letter of what through a jump
// table the tracker does not follow. Among the functions it calls is
// lj_debug_line(pt, pc), found by what it reads whichever case calls it:
// its callees are tried in address order, lj_debug_getinfo's code decoded
// only up to the call that is, as nothing else of it is read.
void Deriver::getinfo()
{
	auto f = follow("lua_getinfo");
	if (!f)
		return;
	if (!out_.field("pt_size") || !out_.field("pt_varinfo") || !out_.field("fn_pc") ||
	    !ptrsize_)
		return problem("pt_lineinfo", "funcproto() or GCproto's varinfo is unknown");
	// lj_debug_getinfo called (a tail call, in gcc's code) or inlined.
	std::optional<FunctionCode> called;
	for (const CallSite &c : f->trace.calls) {
		if (c.args.size() < 3 || !c.args[0].is(0, {}) || !c.args[1].is(1, {}) ||
		    !c.args[2].is(2, {}) || !c.target)
			continue;
		// Larger than follow_call's window: its cases come after
		// the first 512 bytes.
		if (auto fn = code_.code_at(c.target, 2048)) {
			fn->name = "(" + f->at(c.addr) + ")";
			called = std::move(*fn);
		}
		break;
	}
	const FunctionCode &getinfo = called ? *called : f->code;
	size_t tried = 0;
	bool found = false;
	direct_calls(getinfo, called ? LazyOperations::Decoded{} : f->decoded,
		     [&](const CallSite &c) {
			     if (++tried > 24)
				     return true;
			     if (auto fn = code_.code_at(c.target, 256)) {
				     fn->name = "(" + getinfo.at(c.addr) + ")";
				     found = debug_line(follow(std::move(*fn)));
			     }
			     return found;
		     });
	if (found)
		return;
	// Tarantool's gcc keeps fn across the call to debug_framepc in a
	// register the calling convention lets a callee change: the
	// tracker forgets it there.
	unshown("pt_lineinfo, pt_sizebc, pt_firstline, pt_numline and pt_chunkname",
		"lj_debug_getinfo calls no lj_debug_line whose prototype is followed");
}

// lj_debug_line(pt, pc) reads proto_lineinfo(pt), pt->sizebc,
// pt->firstline and pt->numline, and writes nothing (lj_debug.c); some
// builds inline it into lj_debug_frameline(L, fn, nextframe), where pt is
// funcproto(fn), fn->l.pc less sizeof(GCproto). GCproto has them in this
// order, with firstline and numline side by side and lineinfo, uvinfo,
// varinfo the last three MRefs; chunkname right before firstline
// (lj_obj.h).
bool Deriver::debug_line(const Traced &t)
{
	int64_t varinfo = out_.field("pt_varinfo")->value, pt_size = out_.field("pt_size")->value,
		fn_pc = out_.field("fn_pc")->value;
	// The loads from each object that may be a prototype, by offset
	// from the prototype.
	using Object = std::pair<unsigned, LoadPath>;
	std::map<Object, std::map<int64_t, const MemoryAccess *>> protos;
	std::set<Object> written; // no prototype lj_debug_line reads
	for (const MemoryAccess &a : t.trace.accesses) {
		const TrackedValue &o = a.object;
		bool pt = o.is(0, {}), fn_pc_less = o.kind == TrackedValue::pointer &&
						    !o.path.empty() && o.path.back() == fn_pc;
		if (!pt && !fn_pc_less)
			continue;
		if (a.store)
			written.insert({o.arg, o.path});
		else
			protos[{o.arg, o.path}].emplace(a.offset + (pt ? 0 : pt_size), &a);
	}
	for (auto &[object, loads] : protos) {
		if (loads.size() != 4 || written.count(object))
			continue;
		auto at = loads.begin();
		const MemoryAccess *sizebc = at->second, *firstline = (++at)->second,
				   *numline = (++at)->second, *lineinfo = (++at)->second;
		int64_t base = object.second.empty() ? 0 : pt_size;
		auto offset = [&](const MemoryAccess *a) { return a->offset + base; };
		if (sizebc->width != 4 || firstline->width != 4 || numline->width != 4 ||
		    lineinfo->width != ptrsize_ || offset(sizebc) <= 0 ||
		    offset(numline) != offset(firstline) + 4 ||
		    offset(lineinfo) < offset(numline) + 4 ||
		    offset(lineinfo) + 2 * ptrsize_ != varinfo || varinfo + ptrsize_ > pt_size ||
		    offset(firstline) - ptrsize_ <= offset(sizebc))
			continue;
		add("pt_sizebc", uint32_t(offset(sizebc)), t.at(sizebc->addr));
		add("pt_firstline", uint32_t(offset(firstline)), t.at(firstline->addr));
		add("pt_numline", uint32_t(offset(numline)), t.at(numline->addr));
		add("pt_lineinfo", uint32_t(offset(lineinfo)), t.at(lineinfo->addr));
		add("pt_chunkname", uint32_t(offset(firstline) - ptrsize_),
		    t.at(firstline->addr) + ", before firstline");
		return true;
	}
	return false;
}

// lua_getupvalue(L, idx, n) calls lj_debug_uvnamev(index2adr(L, idx),
// n - 1, ...) (lj_api.c): of the Lua function fn in that slot, pt =
// funcproto(fn), n - 1 is checked against pt->sizeuv and the name read
// from proto_uvinfo(pt) (lj_debug.c). Its loads from pt are those at
// fn->l.pc minus a constant.
void Deriver::getupvalue()
{
	auto f = follow("lua_getupvalue");
	if (!f)
		return;
	if (!out_.field("pt_size") || !out_.field("fn_pc") || !ptrsize_)
		return problem("pt_uvinfo", "funcproto() is unknown");
	// index2adr called, its result the slot: lj_debug_uvnamev inlined,
	// or called with it.
	for (size_t i = 0; i < f->trace.calls.size(); i++)
		if (upvalue_name(*f, TrackedValue::call_result + unsigned(i)))
			return;
	size_t tried = 0;
	for (const CallSite &c : f->trace.calls) {
		if (c.args.empty() || c.args[0].kind != TrackedValue::pointer ||
		    c.args[0].arg < TrackedValue::call_result || !c.args[0].path.empty() ||
		    c.args[0].k != 0 || !c.target || ++tried > 3)
			continue;
		auto callee = follow_call(*f, c);
		if (callee && upvalue_name(*callee, 0))
			return;
	}
	// gcc inlines index2adr without GC64 in other functions: the slot
	// is read through L->base indexed, which the tracker does not follow.
	unshown("pt_uvinfo and pt_sizeuv", "lua_getupvalue reads no prototype from a slot");
}

bool Deriver::upvalue_name(const Traced &t, unsigned slot)
{
	int64_t pt_size = out_.field("pt_size")->value;
	std::vector<int64_t> pc = {0, out_.field("fn_pc")->value};
	for (const MemoryAccess &a : t.trace.accesses) {
		if (a.store || !a.object.is(slot, pc) || a.offset >= 0 || a.offset < -pt_size)
			continue;
		uint32_t field = uint32_t(pt_size + a.offset);
		if (a.width == 1)
			add("pt_sizeuv", field, t.at(a.addr));
		else if (a.width == ptrsize_ && out_.field("pt_sizeuv")) {
			add("pt_uvinfo", field, t.at(a.addr));
			upvalue_array(t, slot);
			return true;
		}
	}
	return false;
}

// Past the check of idx against pt->sizeuv, lj_debug_uvnamev reads the
// upvalue uv = gcref(fn->l.uvptr[idx]) and gives uvval(uv), mref(uv->v),
// as where its value is (lj_debug.c): uvptr is the array of native
// pointers fn is indexed at past fn->l.pc (a displacement at or below it
// would be idx - 1 folded in), v the pointer read from the element.
void Deriver::upvalue_array(const Traced &t, unsigned slot)
{
	int64_t fn_pc = out_.field("fn_pc")->value;
	for (size_t n = 0; n < t.trace.indexed.size(); n++) {
		const IndexedAccess &a = t.trace.indexed[n];
		if (a.store || !a.object.is(slot, {0}) || a.width != ptrsize_ || a.offset <= fn_pc)
			continue;
		unsigned uv = TrackedValue::element + unsigned(n);
		const MemoryAccess *v = first_access(t, [&](const MemoryAccess &b) {
			return !b.store && b.object.is(uv, {}) && b.width == ptrsize_ &&
			       b.offset > 0;
		});
		if (!v)
			continue;
		add("fn_uvptr", uint32_t(a.offset), t.at(a.addr));
		add("uv_v", uint32_t(v->offset), t.at(v->addr));
		return;
	}
	unshown("fn_uvptr and uv_v",
		t.code.name + " reads no upvalue from an array of the function");
}

} // namespace ljcore
