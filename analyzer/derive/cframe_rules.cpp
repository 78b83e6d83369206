// The rule that reads the C frame the interpreter links into L->cframe
// (CFRAME_OFS_* of lj_frame.h, the offsets the frame walker follows from
// one C frame to the one before), from the interpreter's lj_vm_cpcall,
// which lua_cpcall calls. They are macros, in no DWARF: the VM's assembly
// has them as displacements from the stack pointer.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_cpcall(L, func, ud) is lj_vm_cpcall(L, func, ud, cpcall) (lj_api.c).
// That builds its C frame on the stack and, before calling cpcall, stores
// L into the frame's L slot, then into its PC slot (any value outside the
// bytecode will do), -savestack(L, L->top), the stack less the top, into
// its 32-bit nres slot, L->cframe into its link to the previous frame, and
// last the stack pointer, the frame itself, into L->cframe (vm_x64.dasc,
// vm_x86.dasc, vm_arm64.dasc vm_cpcall). Of the functions the rules read, it
// alone is followed with the stack pointer tracked (track_values).
void Deriver::cframe()
{
	const char *fields = "cf_l, cf_pc, cf_nres and cf_prev";
	auto f = follow("lua_cpcall");
	if (!f)
		return;
	const DerivedField *L_cframe = out_.field("L_cframe"), *L_stack = out_.field("L_stack"),
			   *L_top = out_.field("L_top");
	if (!L_cframe || !L_stack || !L_top)
		return problem(fields, "L->cframe, L->stack or L->top is unknown");
	auto vm_cpcall =
		std::find_if(f->trace.calls.begin(), f->trace.calls.end(), [](const CallSite &c) {
			return c.args.size() > 2 && c.args[0].is(0, {}) && c.args[1].is(1, {}) &&
			       c.args[2].is(2, {}) && c.target;
		});
	if (vm_cpcall == f->trace.calls.end())
		return problem(fields, "lua_cpcall passes L, func and ud to nothing");
	auto code = code_.code_at(vm_cpcall->target, 256);
	if (!code)
		return problem(fields, "could not follow the call at " + f->at(vm_cpcall->addr) +
					       ": " + code.error().message);
	code->name = "(" + f->at(vm_cpcall->addr) + ")";
	LazyOperations ops(dis_, code->bytes, code->addr, code_.arch());
	FunctionTrace trace = track_values(ops, code_.arch(), {.stack = true});
	const Traced vm{std::move(*code), std::move(trace), ops.take()};
	const MemoryAccess *link = first_access(vm, [&](const MemoryAccess &a) {
		const TrackedValue &v = a.value;
		return a.store && a.object.is(0, {}) && a.offset == L_cframe->value &&
		       v.kind == TrackedValue::pointer && v.arg == TrackedValue::stack &&
		       v.path.empty();
	});
	if (!link)
		return problem(fields, vm.code.name + " links no C frame into L->cframe");
	// The stores into the frame before it, by their offset from it.
	int64_t frame = link->value.k;
	std::vector<const MemoryAccess *> L, nres, prev;
	for (const MemoryAccess &a : vm.trace.accesses) {
		if (!a.store || a.addr >= link->addr || !a.object.is(TrackedValue::stack, {}) ||
		    a.offset < frame)
			continue;
		if (a.value.is(0, {}))
			L.push_back(&a);
		else if (a.value.is(0, {L_cframe->value}))
			prev.push_back(&a);
		else if (a.width == 4 && a.value.kind == TrackedValue::unknown)
			nres.push_back(&a);
	}
	// What nres holds is the difference the tracker does not follow:
	// that it subtracts L->top from L->stack tells the frame has one.
	bool savestack = std::any_of(vm.trace.subtractions.begin(), vm.trace.subtractions.end(),
				     [&](const Subtraction &s) {
					     return s.addr < link->addr &&
						    s.minuend.is(0, {L_stack->value}) &&
						    s.subtrahend.is(0, {L_top->value});
				     });
	if (L.size() != 2 || prev.size() != 1 || nres.size() != 1 || !savestack)
		return problem(fields, vm.code.name + " does not store L twice, L->cframe "
						      "and -savestack(L, L->top) into its frame");
	add("cf_l", uint32_t(L[0]->offset - frame), vm.at(L[0]->addr));
	add("cf_pc", uint32_t(L[1]->offset - frame), vm.at(L[1]->addr));
	add("cf_nres", uint32_t(nres[0]->offset - frame), vm.at(nres[0]->addr));
	add("cf_prev", uint32_t(prev[0]->offset - frame), vm.at(prev[0]->addr));
}

} // namespace ljcore
