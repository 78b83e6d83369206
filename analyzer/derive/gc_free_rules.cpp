// The rules that read how the collector frees each kind of object: on
// lua_close, lj_gc_freeall(g) sweeps every object, calling its type's free
// function through the table gc_freefunc, indexed by gct less ~LJ_TSTR
// (lj_gc.c). Those functions free what they were given, with the object's
// size (lj_func.c, lj_tab.c, lj_trace.c), which no exported function
// shows: sizeof(GCupval), the sizes of the two GCfuncs, sizeof(Node),
// the counts a GCtrace is freed with, and GCcdata's size and ctypeid.
#include <algorithm>
#include <cstdint>
#include <map>

#include "analyzer/derive/deriver.h"

namespace ljcore {

namespace {

// gct of the objects whose sizes are read (lj_obj.h: ~LJ_TUPVAL...).
constexpr int gct_upval = 5, gct_func = 8, gct_trace = 9, gct_cdata = 10, gct_tab = 11;

// lj_mem_free(g, p, osize) is g->allocf(g->allocd, p, osize, 0)
// (lj_gc.h): the frees of t's object, argument 1 (or what was loaded from
// it at member, for a table's node array), in the order they were recorded.
std::vector<const CallSite *> frees_of(const Traced &t, std::optional<int64_t> member = {})
{
	std::vector<const CallSite *> out;
	for (const CallSite &c : t.trace.calls) {
		if (!c.callee.member_of(0, {}) || c.args.size() < 4 ||
		    c.args[3].kind != TrackedValue::constant || c.args[3].k != 0)
			continue;
		bool object = member ? c.args[1].member_of(1, {}) == member : c.args[1].is(1, {});
		if (object)
			out.push_back(&c);
	}
	return out;
}

// A size freed as count * scale + k, count loaded from t's object at
// member: the size of such an object with n of what it counts is
// k + n * scale.
struct Counted {
	int64_t scale, k;
};
std::optional<Counted> counted(const TrackedValue &size, int64_t member)
{
	// Bounded: what hostile code computed is added up below.
	if (size.kind != TrackedValue::count || size.arg != 1 || size.path.size() != 1 ||
	    size.path[0] != member || size.scale <= 1 || size.scale > 256 || size.k < 0 ||
	    size.k > 4096)
		return std::nullopt;
	return Counted{size.scale, size.k};
}

// An object's size as the rules read it, as a field's value.
bool plausible_size(int64_t size)
{
	return size > 0 && size <= 4096;
}

} // namespace

// close_state(L) calls lj_gc_freeall(g) first of its calls with g (after
// lj_func_closeuv(L, ...)), which sweeps with gc_sweep(g, &root, ~0), its
// first call with g; either may be inlined. The call through gc_freefunc
// is in the first of these that makes one, g at path from argument 0 of t.
void Deriver::object_frees(const Traced &t, const std::vector<int64_t> &g)
{
	const char *fields = "uv_size, fnc_size, fnl_size, node_size, T_nins, T_nk, T_nsnap, "
			     "T_nsnapmap, cd_ctypeid and cd_size";
	// The index is gct, the byte after the header's reference (lj_obj.h),
	// less the first type's, times 8: the entries are functions, 8 bytes
	// on both targets, with or without GC64. The compiler may scale the
	// index itself (a count) or in the call's operand.
	constexpr int64_t entry_size = 8;
	const int64_t gct_at = ptrsize_ + 1;
	auto freefunc_call = [&](const CallSite &c) {
		const TrackedValue &i = c.entry.index;
		return c.entry.table != 0 &&
		       (i.kind == TrackedValue::pointer || i.kind == TrackedValue::count) &&
		       !i.path.empty() && i.path.back() == gct_at && i.scale > 0 &&
		       i.scale <= entry_size && c.entry.scale * i.scale == entry_size &&
		       i.k % i.scale == 0 && i.k / i.scale >= -16 && i.k / i.scale <= 16;
	};
	auto table_call = [&](const Traced &s) {
		auto c = std::find_if(s.trace.calls.begin(), s.trace.calls.end(), freefunc_call);
		return c == s.trace.calls.end() ? nullptr : &*c;
	};
	std::optional<Traced> callee[2];
	const Traced *with_table = &t;
	const CallSite *call = table_call(t);
	std::vector<int64_t> g_path = g;
	for (auto &next : callee) {
		if (call)
			break;
		auto c = std::find_if(with_table->trace.calls.begin(),
				      with_table->trace.calls.end(), [&](const CallSite &c) {
					      return c.target && !c.args.empty() &&
						     c.args[0].is(0, g_path);
				      });
		if (c == with_table->trace.calls.end() || !(next = follow_call(*with_table, *c)))
			break;
		with_table = &*next, g_path = {};
		call = table_call(*next);
	}
	if (!call)
		return unshown(fields, "lj_gc_freeall calls no free function through a table "
				       "indexed by the object's type");
	auto entry = [&](int gct, const std::string &shows) -> std::optional<Traced> {
		const TrackedValue &index = call->entry.index;
		int64_t i = gct + index.k / index.scale;
		std::string name = "gc_freefunc[" + std::to_string(i) + "]";
		auto fn = code_.word_at(call->entry.table + uint64_t(i * entry_size), entry_size);
		if (fn && *fn == 0) // no JIT, no FFI
			fn = fail("it is 0 in the file, and no relocation sets it");
		auto code = fn ? code_.code_at(*fn, 512)
			       : Expected<FunctionCode>(std::unexpected(fn.error()));
		if (!code) {
			unshown(shows, name + ": " + code.error().message);
			return std::nullopt;
		}
		code->name = "(" + with_table->at(call->addr) + ": " + name + ")";
		// Small functions whose branches end in one free.
		return follow(std::move(*code), {.every_way = true});
	};
	if (auto uv = entry(gct_upval, "uv_size")) {
		auto frees = frees_of(*uv);
		if (!frees.empty() && frees[0]->args[2].kind == TrackedValue::constant &&
		    plausible_size(frees[0]->args[2].k))
			add("uv_size", uint32_t(frees[0]->args[2].k), uv->at(frees[0]->addr));
		else
			unshown("uv_size", "lj_func_freeuv frees no upvalue of a constant size");
	}
	// lj_func_free: sizeCfunc(n) or sizeLfunc(n), n = fn->c.nupvalues;
	// the C closure's is the larger, its upvalues TValues, the Lua
	// closure's GCRefs, after more of its own.
	const DerivedField *nupvalues = out_.field("fn_nupvalues");
	if (!nupvalues)
		unshown("fnc_size and fnl_size", "fn_nupvalues is unknown");
	else if (auto fn = entry(gct_func, "fnc_size and fnl_size")) {
		// Each size, with one upvalue, its upvalues' size, and its free.
		std::map<int64_t, std::pair<int64_t, uint64_t>> sizes;
		for (const CallSite *c : frees_of(*fn))
			if (auto n = counted(c->args[2], nupvalues->value))
				sizes.emplace(n->k + n->scale, std::pair(n->scale, c->addr));
		auto l = sizes.begin();
		auto c = sizes.rbegin();
		if (sizes.size() == 2 && l->second.first <= c->second.first) {
			add("fnl_size", uint32_t(l->first), fn->at(l->second.second));
			add("fnc_size", uint32_t(c->first), fn->at(c->second.second));
		} else
			unshown("fnc_size and fnl_size",
				"lj_func_free frees no two closures sized by their upvalues");
	}
	// lj_tab_free: the node array t->node, t->hmask + 1 of them.
	const DerivedField *hmask = out_.field("tab_hmask"), *node = out_.field("tab_node");
	if (!hmask || !node)
		unshown("node_size", "tab_hmask or tab_node is unknown");
	else if (auto tab = entry(gct_tab, "node_size")) {
		auto frees = frees_of(*tab, node->value);
		auto n = frees.empty() ? std::nullopt : counted(frees[0]->args[2], hmask->value);
		if (n && n->k == n->scale)
			add("node_size", uint32_t(n->scale), tab->at(frees[0]->addr));
		else
			unshown("node_size", "lj_tab_free frees no node array of hmask + 1");
	}
	if (auto trace = entry(gct_trace, "T_nins, T_nk, T_nsnap and T_nsnapmap"))
		trace_free(*trace);
	if (auto cdata = entry(gct_cdata, "cd_ctypeid and cd_size"))
		cdata_free(*cdata);
}

// lj_cdata_free(g, cd) frees a cdata of fixed size with sizeof(GCcdata)
// plus the size of its CType, read from cts->tab indexed by cd->ctypeid
// (lj_cdata.c): the free whose size is a value loaded through an index
// plus a constant, that index loaded from cd.
void Deriver::cdata_free(const Traced &t)
{
	for (const CallSite *c : frees_of(t)) {
		const TrackedValue &size = c->args[2];
		if (size.kind != TrackedValue::pointer || size.arg < TrackedValue::element ||
		    size.arg >= TrackedValue::call_result || !size.path.empty() ||
		    !plausible_size(size.k) ||
		    size.arg - TrackedValue::element >= t.trace.indexed.size())
			continue;
		const IndexedAccess &ct = t.trace.indexed[size.arg - TrackedValue::element];
		const TrackedValue &id = ct.index;
		if ((id.kind != TrackedValue::pointer && id.kind != TrackedValue::count) ||
		    id.arg != 1 || id.path.size() != 1)
			continue;
		// CTypeID1, cd's one 16-bit member read.
		const MemoryAccess *ctypeid = first_access(t, [&](const MemoryAccess &a) {
			return !a.store && a.width == 2 && a.object.is(1, {}) &&
			       a.offset == id.path[0];
		});
		if (!ctypeid)
			continue;
		add("cd_ctypeid", uint32_t(ctypeid->offset), t.at(ctypeid->addr));
		add("cd_size", uint32_t(size.k), t.at(c->addr));
		return;
	}
	unshown("cd_ctypeid and cd_size",
		"lj_cdata_free frees no cdata sized by the CType its ctypeid names");
}

// lj_trace_free(g, T) frees T with T->nins - T->nk IR instructions,
// T->nsnap snapshots and T->nsnapmap map entries (lj_trace.c): the one
// subtraction of two 32-bit members, and the other two counts, 16 and 32
// bits, besides the trace number it tests first.
void Deriver::trace_free(const Traced &t)
{
	const DerivedField *traceno = out_.field("T_traceno");
	auto counts = std::find_if(
		t.trace.subtractions.begin(), t.trace.subtractions.end(), [](const Subtraction &s) {
			return s.minuend.member_of(1, {}) && s.subtrahend.member_of(1, {}) &&
			       s.minuend.width == 4 && s.subtrahend.width == 4;
		});
	if (counts == t.trace.subtractions.end())
		return unshown("T_nins, T_nk, T_nsnap and T_nsnapmap",
			       "lj_trace_free subtracts no two counts of the trace");
	int64_t nins = *counts->minuend.member_of(1, {}), nk = *counts->subtrahend.member_of(1, {});
	std::string at = t.at(counts->addr);
	add("T_nins", uint32_t(nins), at);
	add("T_nk", uint32_t(nk), at);
	if (!traceno)
		return unshown(
			"T_nsnap and T_nsnapmap",
			"T_traceno, the other 16-bit member lj_trace_free reads, is unknown");
	const MemoryAccess *nsnap = first_access(t, [&](const MemoryAccess &a) {
		return !a.store && a.width == 2 && a.object.is(1, {}) &&
		       a.offset != int64_t(traceno->value);
	});
	const MemoryAccess *nsnapmap = first_access(t, [&](const MemoryAccess &a) {
		return !a.store && a.width == 4 && a.object.is(1, {}) && a.offset != nins &&
		       a.offset != nk;
	});
	if (nsnap && nsnapmap) {
		add("T_nsnap", uint32_t(nsnap->offset), t.at(nsnap->addr));
		add("T_nsnapmap", uint32_t(nsnapmap->offset), t.at(nsnapmap->addr));
	} else
		unshown("T_nsnap and T_nsnapmap", "lj_trace_free reads no other two counts");
}

} // namespace ljcore
