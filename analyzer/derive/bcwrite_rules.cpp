// The rules that read GCproto's header (numparams, framesize, flags, k,
// sizekgc, sizept), what the census and the values read of a prototype
// besides its debug fields, from the bytecode writer lua_dump runs: every
// one of them goes into a dumped prototype (lj_bcwrite.c). They take the
// call of lj_bcwrite from lua_dump (object_rules.cpp) and check what they
// read against sizebc, sizeuv and lineinfo where lua_getinfo and
// lua_getupvalue showed them (proto_rules.cpp).
#include <map>
#include <set>

#include "analyzer/derive/deriver.h"

namespace ljcore {

namespace {

// A byte, 32 bits or a native pointer loaded from the prototype, the
// second argument of the function being read.
bool load_from_pt(const MemoryAccess &a, uint8_t width)
{
	return !a.store && a.width == width && a.object.is(1, {});
}

// A value loaded from a field of the prototype.
std::optional<int64_t> pt_field(const TrackedValue &v, uint8_t width)
{
	if (v.kind != TrackedValue::pointer || v.arg != 1 || v.path.size() != 1 || v.k != 0 ||
	    v.width != width)
		return std::nullopt;
	return v.path[0];
}

} // namespace

// lua_dump(L, writer, data) calls lj_bcwrite(L, pt, writer, data, 0),
// which runs lj_vm_cpcall(L, NULL, &ctx, cpwriter): the one call it
// passes the address of code. cpwriter(L, dummy, ud) writes the chunk's
// header, then bcwrite_proto(ctx, ctx->pt) writes the prototype: the
// call with ud and a pointer loaded from it (lj_bcwrite.c).
void Deriver::proto_header()
{
	// Small functions, each read only as far as the calls it makes.
	const std::optional<Traced> &f = dump_;
	const CallSite *c = f ? prototype_call(*f) : nullptr;
	if (!c)
		return; // dump() said why
	auto bcwrite = follow_call(*f, *c, 192);
	if (!bcwrite)
		return;
	std::optional<Traced> writer;
	// The call with code's address as its fourth argument (the
	// tracker's constant from "lea rcx, [rip + d]", or arm64's "adrp"
	// and "add").
	for (const CallSite &call : bcwrite->trace.calls) {
		if (call.args.size() < 4 || call.args[3].kind != TrackedValue::constant)
			continue;
		auto fn = code_.code_at(uint64_t(call.args[3].k), 256);
		if (!fn)
			continue;
		fn->name = "(" + bcwrite->at(call.addr) + ")";
		writer = follow(std::move(*fn));
		break;
	}
	if (!writer)
		return problem("pt_numparams", "lj_bcwrite passes lj_vm_cpcall no writer");
	for (const CallSite &call : writer->trace.calls) {
		if (call.args.size() < 2 || !call.target || !call.args[0].is(2, {}))
			continue;
		const TrackedValue &pt = call.args[1];
		if (pt.kind != TrackedValue::pointer || pt.arg != 2 || pt.path.size() != 1 ||
		    pt.k != 0)
			continue;
		if (auto proto = follow_call(*writer, call, 384))
			bcwrite_proto(*proto);
		return;
	}
	problem("pt_numparams", "cpwriter calls no bcwrite_proto(ctx, ctx->pt)");
}

// bcwrite_proto(ctx, pt) (lj_bcwrite.c): when pt->flags has PROTO_CHILD,
// it first walks the pt->sizekgc GC constants below mref(pt->k), from
// k[-1] down; then writes the header bytes flags & 7, numparams,
// framesize, sizeuv in turn, then sizekgc, sizekn and sizebc - 1, and,
// unless stripping, the debug info's size pt->sizept - (lineinfo - pt).
void Deriver::bcwrite_proto(const Traced &t)
{
	// numparams, framesize, sizeuv: three bytes of pt stored side by
	// side into the buffer (flags goes before them masked, no longer a
	// load).
	const MemoryAccess *header[3] = {};
	for (const MemoryAccess &a : t.trace.accesses) {
		if (!a.store || a.width != 1 || !pt_field(a.value, 1))
			continue;
		auto next = [&](int64_t by) {
			return first_access(t, [&](const MemoryAccess &b) {
				return b.store && b.width == 1 &&
				       b.object.is(a.object.arg, a.object.path) &&
				       b.offset == a.offset + by && pt_field(b.value, 1);
			});
		};
		if (next(1) && next(2) && !next(-1)) {
			header[0] = &a, header[1] = next(1), header[2] = next(2);
			break;
		}
	}
	if (!header[0])
		return unshown(
			"pt_numparams, pt_framesize, pt_flags, pt_k, pt_sizekgc and pt_sizept",
			t.code.name + " stores no three bytes of the prototype");
	int64_t numparams = *pt_field(header[0]->value, 1),
		framesize = *pt_field(header[1]->value, 1), sizeuv = *pt_field(header[2]->value, 1);
	const DerivedField *known_sizeuv = out_.field("pt_sizeuv");
	if (known_sizeuv && known_sizeuv->value != sizeuv)
		return unshown("pt_numparams, pt_framesize, pt_flags, pt_k, pt_sizekgc and "
			       "pt_sizept",
			       t.code.name + " writes sizeuv from another offset");
	add("pt_numparams", uint32_t(numparams), t.at(header[0]->addr));
	add("pt_framesize", uint32_t(framesize), t.at(header[1]->addr));
	add("pt_sizeuv", uint32_t(sizeuv), t.at(header[2]->addr));

	// flags: the one other byte of pt it reads (PROTO_CHILD, the
	// header's bits, PROTO_ILOOP).
	std::map<int64_t, const MemoryAccess *> bytes;
	for (const MemoryAccess &a : t.trace.accesses)
		if (load_from_pt(a, 1) && a.offset != numparams && a.offset != framesize &&
		    a.offset != sizeuv)
			bytes.emplace(a.offset, &a);
	if (bytes.size() == 1)
		add("pt_flags", uint32_t(bytes.begin()->first), t.at(bytes.begin()->second->addr));
	else
		unshown("pt_flags", t.code.name + " reads " + std::to_string(bytes.size()) +
					    " other bytes of the prototype");

	// k: the pointer of pt through which k[-1], the last GC constant,
	// is read.
	if (const MemoryAccess *kgc = first_access(t, [&](const MemoryAccess &a) {
		    const TrackedValue &o = a.object;
		    return !a.store && a.offset == -int64_t(ptrsize_) &&
			   o.kind == TrackedValue::pointer && o.arg == 1 && o.path.size() == 1;
	    }))
		add("pt_k", uint32_t(kgc->object.path[0]), t.at(kgc->addr));
	else
		unshown("pt_k",
			t.code.name + " reads no constant below a pointer of the prototype");

	// sizekgc, sizekn, sizebc: the first three 32-bit loads from pt after
	// the header bytes, in the order they are written.
	std::set<std::pair<uint64_t, int64_t>> after; // (address, offset)
	for (const MemoryAccess &a : t.trace.accesses)
		if (load_from_pt(a, 4) && a.addr > header[2]->addr)
			after.emplace(a.addr, a.offset);
	std::vector<std::pair<uint64_t, int64_t>> sizes(after.begin(), after.end());
	const DerivedField *sizebc = out_.field("pt_sizebc");
	if (sizes.size() >= 3 && sizes[0].second != sizes[2].second &&
	    sizes[1].second != sizes[2].second && (!sizebc || sizebc->value == sizes[2].second))
		add("pt_sizekgc", uint32_t(sizes[0].second), t.at(sizes[0].first));
	else
		unshown("pt_sizekgc", t.code.name + " writes no three sizes of the prototype");

	// sizept: the 32-bit field of pt it subtracts from, after it
	// subtracted pt from its lineinfo.
	const DerivedField *lineinfo = out_.field("pt_lineinfo");
	const Subtraction *debug = nullptr;
	for (const Subtraction &s : t.trace.subtractions)
		if (pt_field(s.minuend, ptrsize_) && s.subtrahend.is(1, {}) &&
		    (!lineinfo || lineinfo->value == s.minuend.path[0])) {
			debug = &s;
			break;
		}
	for (const Subtraction &s : t.trace.subtractions)
		if (debug && pt_field(s.minuend, 4) && s.addr > debug->addr) {
			add("pt_sizept", uint32_t(s.minuend.path[0]), t.at(s.addr));
			return;
		}
	unshown("pt_sizept", t.code.name + " subtracts from no size of the prototype");
}

} // namespace ljcore
