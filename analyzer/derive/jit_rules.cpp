// The rules that read jit_State: where GG_State keeps it and where it keeps
// its trace array, from luaJIT_setmode's flush of one trace.
#include <cstdint>

#include "analyzer/derive/deriver.h"

namespace ljcore {

namespace {

// J->sizetrace and J->trace as lj_trace_flush reads them: the bound it
// checks idx against, then the array it indexes (lj_trace.c). Of t's loads
// through the object arg loaded along path, at offset J or more from it
// and before the instruction at before, the last of each width: GCRef
// *trace is a native pointer in every build, MSize sizetrace 32 bits.
struct TraceArray {
	const MemoryAccess *sizetrace = nullptr, *trace = nullptr;
};

TraceArray trace_array(const Traced &t, unsigned arg, const std::vector<int64_t> &path, int64_t J,
		       uint64_t before)
{
	TraceArray r;
	for (const MemoryAccess &a : t.trace.accesses) {
		if (a.store || !a.object.is(arg, path) || a.offset < J || a.addr >= before)
			continue;
		if (a.width == 4 && (!r.sizetrace || a.addr > r.sizetrace->addr))
			r.sizetrace = &a;
		if (a.width == 8 && (!r.trace || a.addr > r.trace->addr))
			r.trace = &a;
	}
	if (!r.sizetrace || !r.trace || r.sizetrace->addr > r.trace->addr)
		return {};
	return r;
}

} // namespace

// luaJIT_setmode(L, idx, LUAJIT_MODE_TRACE | LUAJIT_MODE_FLUSH) calls
// lj_trace_flush(G2J(g), idx) (lj_dispatch.c): its one call with g plus a
// constant, G2J(g) being &G2GG(g)->J (lj_dispatch.h). Where the compiler
// inlined lj_trace_flush (Debian's amalgamated build), the call is the
// trace_flushroot(J, T) it ends with, and its reads of J are made through
// g before it. The GCtrace lj_trace_flush reads from the array is loaded
// through an index, which the tracker does not follow: GCtrace's fields
// come from the table, and memory checks them (traces/). A build without
// the JIT flushes no trace. Runs after error(), whose g_jit_base tells a
// build with the JIT.
void Deriver::jit_state()
{
	auto f = follow("luaJIT_setmode");
	const DerivedField *gg_g = out_.field("gg_g");
	if (!f || !glref_ || !gg_g)
		return;
	std::vector<int64_t> g = {*glref_};
	for (const CallSite &c : f->trace.calls) {
		if (c.args.empty())
			continue;
		const TrackedValue &J = c.args[0];
		if (J.kind != TrackedValue::pointer || J.arg != 0 || J.path != g || J.k <= 0 ||
		    J.k > 0x10000 || !c.target)
			continue;
		add("gg_J", uint32_t(gg_g->value + J.k), f->at(c.addr));
		std::optional<Traced> flush = follow_call(*f, c);
		TraceArray in_flush, inlined = trace_array(*f, 0, g, J.k, c.addr);
		if (flush)
			in_flush = trace_array(*flush, 0, {}, 0, UINT64_MAX);
		const Traced &t = in_flush.trace ? *flush : *f;
		TraceArray r = in_flush.trace ? in_flush : inlined;
		int64_t from_J = in_flush.trace ? 0 : J.k;
		if (!r.trace)
			return problem("J_trace", "lj_trace_flush reads no bound and array of J");
		add("J_sizetrace", uint32_t(r.sizetrace->offset - from_J), t.at(r.sizetrace->addr));
		add("J_trace", uint32_t(r.trace->offset - from_J), t.at(r.trace->addr));
		return;
	}
	// lj_err_run's read of g->jit_base tells a build with the JIT.
	out_.field("g_jit_base")
		? problem("gg_J", "luaJIT_setmode calls nothing with G2J(g)")
		: unshown("gg_J", "luaJIT_setmode flushes no trace (a build without the JIT)");
}

} // namespace ljcore
