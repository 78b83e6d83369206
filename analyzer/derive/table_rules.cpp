// The rules that read what GCtab's reader needs besides the fields
// lua_rawgeti shows (object_rules.cpp): sizeof(GCtab) and colo, from the
// table lua_createtable makes.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_createtable(L, narray, nrec) calls lj_tab_new_ah(L, narray, nrec),
// which calls lj_tab_new(L, asize, hbits), which calls newtab(L, asize,
// hbits) (lj_api.c, lj_tab.c): each the first call with L of the one
// before it, when not inlined. newtab colocates a small array part:
// t = lj_mem_newgco(L, sizetabcolo(asize)), t->colo = (int8_t)asize, and
// t->array = (char *)t + sizeof(GCtab).
void Deriver::createtable()
{
	createtable_ = follow("lua_createtable");
	const auto &f = createtable_;
	if (!f)
		return;
	std::optional<Traced> callee;
	const Traced *t = &*f;
	for (int depth = 0; depth < 4; depth++) {
		if (new_table(*t))
			return;
		auto next = std::find_if(
			t->trace.calls.begin(), t->trace.calls.end(), [](const CallSite &c) {
				return !c.args.empty() && c.args[0].is(0, {}) && c.target;
			});
		if (next == t->trace.calls.end())
			break;
		callee = follow_call(*t, *next, 192);
		if (!callee)
			return;
		t = &*callee;
	}
	unshown("tab_size and tab_colo", "lua_createtable colocates no array part");
}

// In t, whose second argument is asize: a store into what a call with L
// returned of that result plus a constant, the one pointer of a new table
// into itself (at GCtab's array, where lua_rawgeti showed it), and of
// asize's low byte.
bool Deriver::new_table(const Traced &t)
{
	const DerivedField *array = out_.field("tab_array");
	const MemoryAccess *colocated = first_access(t, [&](const MemoryAccess &a) {
		const TrackedValue &o = a.object, &v = a.value;
		return a.store && (!array || a.offset == array->value) && a.width == ptrsize_ &&
		       o.kind == TrackedValue::pointer && o.arg >= TrackedValue::call_result &&
		       o.path.empty() && v.kind == TrackedValue::pointer && v.arg == o.arg &&
		       v.path.empty() && v.k > 0 && v.k <= 256;
	});
	if (!colocated)
		return false;
	const MemoryAccess *colo = first_access(t, [&](const MemoryAccess &a) {
		return a.store && a.width == 1 && a.object.is(colocated->object.arg, {}) &&
		       a.value.is(1, {});
	});
	add("tab_array", uint32_t(colocated->offset), t.at(colocated->addr));
	add("tab_size", uint32_t(colocated->value.k), t.at(colocated->addr));
	if (colo)
		add("tab_colo", uint32_t(colo->offset), t.at(colo->addr));
	else
		unshown("tab_colo", t.code.name + " stores no byte of the array's size");
	return true;
}

} // namespace ljcore
