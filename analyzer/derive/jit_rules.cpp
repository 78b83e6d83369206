// The rules that read jit_State: where GG_State keeps it and where it keeps
// its trace array, from luaJIT_setmode's flush of one trace; and the
// fields of the GCtrace that flush unlinks from its prototype.
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
// through an index: trace_fields() reads what it reads of the GCtrace.
// A build without the JIT flushes no trace. Runs after error(), whose g_jit_base tells a
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
		return trace_fields(t, *r.trace);
	}
	// lj_err_run's read of g->jit_base tells a build with the JIT.
	out_.field("g_jit_base")
		? problem("gg_J", "luaJIT_setmode calls nothing with G2J(g)")
		: unshown("gg_J", "luaJIT_setmode flushes no trace (a build without the JIT)");
}

// lj_trace_flush(J, idx) loads T = traceref(J, idx), J->trace[idx],
// and flushes it when T->root is 0: trace_flushroot(J, T) (lj_trace.c),
// called or inlined. array is the load of J->trace in t.
void Deriver::trace_fields(const Traced &t, const MemoryAccess &array)
{
	std::optional<unsigned> T;
	for (size_t n = 0; n < t.trace.indexed.size() && !T; n++) {
		const IndexedAccess &a = t.trace.indexed[n];
		if (!a.store && a.width == ptrsize_ && a.offset == 0 &&
		    a.object.is(array.value.arg, array.value.path) &&
		    TrackedValue::element + n < TrackedValue::call_result)
			T = TrackedValue::element + unsigned(n);
	}
	const MemoryAccess *root =
		T ? first_access(t,
				 [&](const MemoryAccess &a) {
					 return !a.store && a.width == 2 && a.object.is(*T, {});
				 })
		  : nullptr;
	if (!root)
		return unshown("T_root, T_startpt, T_startpc, T_traceno and T_nextroot",
			       t.code.name + " reads no 16 bits of a trace from J->trace");
	add("T_root", uint32_t(root->offset), t.at(root->addr));
	if (flushroot(t, *T))
		return;
	for (const CallSite &c : t.trace.calls)
		if (c.args.size() > 1 && c.args[1].is(*T, {}) && c.target) {
			auto callee = follow_call(t, c, 192);
			if (callee && flushroot(*callee, 1))
				return;
			break;
		}
	unshown("T_startpt, T_startpc, T_traceno and T_nextroot",
		"trace_flushroot does not unlink the trace from its prototype");
}

// trace_flushroot(J, T), T being the object T in t: pt =
// gcref(T->startpt); trace_unpatch(J, T) reads the bytecode at
// mref(T->startpc); then, when pt->trace == T->traceno, pt->trace =
// T->nextroot: a 16-bit store into what one pointer of T points to of
// another 16-bit field of T (lj_trace.c).
bool Deriver::flushroot(const Traced &t, unsigned T)
{
	const MemoryAccess *unlink = first_access(t, [&](const MemoryAccess &a) {
		const TrackedValue &o = a.object, &v = a.value;
		return a.store && a.width == 2 && o.kind == TrackedValue::pointer && o.arg == T &&
		       o.path.size() == 1 && o.k == 0 && v.kind == TrackedValue::pointer &&
		       v.arg == T && v.path.size() == 1 && v.k == 0 && v.width == 2;
	});
	if (!unlink)
		return false;
	int64_t startpt = unlink->object.path[0], nextroot = unlink->value.path[0],
		root = out_.field("T_root")->value;
	add("T_startpt", uint32_t(startpt), t.at(unlink->addr));
	add("T_nextroot", uint32_t(nextroot), t.at(unlink->addr));
	if (const MemoryAccess *traceno = first_access(t, [&](const MemoryAccess &a) {
		    return !a.store && a.width == 2 && a.object.is(T, {}) && a.offset != nextroot &&
			   a.offset != root;
	    }))
		add("T_traceno", uint32_t(traceno->offset), t.at(traceno->addr));
	else
		unshown("T_traceno", t.code.name + " compares no trace number");
	// The instruction at startpc: 32 bits at offset 0 of another pointer.
	if (const MemoryAccess *ins = first_access(t, [&](const MemoryAccess &a) {
		    const TrackedValue &o = a.object;
		    return !a.store && a.width == 4 && a.offset == 0 &&
			   o.kind == TrackedValue::pointer && o.arg == T && o.path.size() == 1 &&
			   o.k == 0 && o.path[0] != startpt;
	    }))
		add("T_startpc", uint32_t(ins->object.path[0]), t.at(ins->addr));
	else
		unshown("T_startpc", t.code.name + " reads no bytecode of the trace");
	return true;
}

// The fork, which names the IR's opcodes (Tarantool's differ), told by
// what only it has: Tarantool's two more VM states (vmstates()) or its
// luaM_metrics (lmisclib.h), OpenResty's luajit2's lua_getexdata (its
// per-thread exdata, lj_api.c). Upstream adds nothing of its own, and an
// older release of a fork may not have these yet: a build with neither
// keeps the nearest table's.
void Deriver::fork()
{
	const DerivedField *vmstates = out_.field("vmstates");
	if (!out_.field("gg_J"))
		return; // no JIT, no IR
	if (vmstates && vmstates->value == 9)
		add("fork", LJ_FORK_TARANTOOL, vmstates->source + ", 9 VM states");
	else if (code_.exports("luaM_metrics"))
		add("fork", LJ_FORK_TARANTOOL, "exports luaM_metrics");
	else if (code_.exports("lua_getexdata"))
		add("fork", LJ_FORK_LUAJIT2, "exports lua_getexdata");
	else
		unshown("fork", "no fork's own export (lua_getexdata, luaM_metrics) or VM states");
}

} // namespace ljcore
