#include "analyzer/analyze_vm.h"

#include <optional>

#include "analyzer/gc/gc_paths.h"
#include "analyzer/gc/retained.h"
#include "analyzer/lua/luajit_arch.h"
#include "analyzer/model/lua_text.h"
#include "analyzer/nginx/nginx_request.h"
#include "analyzer/stack/compiled_crash.h"
#include "analyzer/stack/coroutines.h"
#include "analyzer/stack/interpreter_start.h"
#include "analyzer/stack/lua_runs.h"
#include "analyzer/stack/lua_stack.h"
#include "analyzer/traces/trace_mcode.h"
#include "analyzer/traces/traces.h"
#include "analyzer/values/lua_locals.h"
#include "analyzer/values/lua_print.h"

namespace ljcore {

ThreadResult thread_result(const ThreadInfo &t, const NativeStack &s, bool crashed)
{
	ThreadResult r;
	r.tid = t.tid;
	r.crashed = crashed;
	r.signal = t.cursig;
	r.stop_reason = s.stop_reason;
	for (auto &f : s.frames)
		r.frames.push_back({f.pc, f.function, f.offset, f.module, f.activation});
	return r;
}

namespace {

// The running coroutine's stack, walked from where the VM's state says it
// is: L->base, the interpreter's registers, or the snapshot of the trace
// the crash happened in (which also mends that thread's native stack).
std::optional<CompiledCrash> walk_current(TargetAnalysis &ta, const Vm &vm, const VmCandidate &c,
					  VmResult &v)
{
	const Target &target = ta.target;
	WalkStart start;
	start.L = v.current_thread ? v.current_thread : v.main_thread;
	// In the interpreter itself L->base may be stale: BASE and PC are
	// in registers of the innermost VM frame (vm_x64.dasc), as evidence
	// that the frame chain confirms or not.
	const LuaJitArch &lj = luajit_arch(target.arch());
	if (c.thread && c.frame && *c.frame == 0 && v.vmstate == ~0 && lj.base_reg >= 0) {
		const NativeFrame &f = ta.stacks[*c.thread].frames[0];
		InterpreterRegs regs{f.regs.dwarf[size_t(lj.base_reg)],
				     f.regs.dwarf[size_t(lj.pc_reg)]};
		start = interpreter_start(vm, start.L, regs, ta.diag);
	}
	std::optional<CompiledCrash> compiled;
	if (v.vmstate >= 0)
		compiled = compiled_frames(vm, v.vmstate, ta.stacks, target.threads(),
					   target.arch(), ta.diag);
	if (compiled) {
		start.base = compiled->frames.base;
		start.top_pc = compiled->frames.base_pc;
		start.compiled = &compiled->frames;
		v.vmstate_text = "trace " + std::to_string(compiled->frames.trace);
		const size_t t = compiled->thread;
		NativeStack &s = ta.stacks[t];
		unwind_below_trace(vm, start.L, target.arch(), ta.native, s, compiled->native_frame,
				   ta.diag);
		ta.threads[t] = thread_result(target.threads()[t], s, ta.threads[t].crashed);
	}
	v.stack = walk_lua_stack(vm, start, ta.symbolize);
	if (!v.stack.complete)
		ta.diag.problem("Lua stack of " + luajit_pointer(start.L) +
				" is incomplete: " + v.stack.stop_reason);
	for (auto &f : v.stack.frames)
		if (!f.problem.empty())
			ta.diag.problem("Lua frame " + std::to_string(f.level) + ": " + f.problem);
	return compiled;
}

// Every coroutine of the VM with its state, stack, and the one it resumed.
void add_coroutines(const Vm &vm, VmResult &v, const CodeSymbolizer &symbolize, Diagnostics &diag)
{
	ThreadList list = list_threads(vm);
	v.gc_objects = list.objects_seen;
	if (!list.problem.empty())
		diag.problem("coroutines of VM " + luajit_pointer(v.global_state) +
			     " may be missing: " + list.problem);
	for (uint64_t L : list.threads) {
		Coroutine co;
		co.L = L;
		co.status = coroutine_status(vm, L, v.stack.L);
		if (L == v.stack.L) {
			co.stack = v.stack; // walked from the VM registers
		} else {
			co.stack = walk_lua_stack(vm, WalkStart{L, 0, 0}, symbolize);
			if (co.status == "normal" && !co.stack.frames.empty()) {
				const LuaFrame &top = co.stack.frames.front();
				co.resumed = resumed_thread(vm, top.slot, top.function);
			}
		}
		v.coroutines.push_back(std::move(co));
	}
}

// The JIT's traces, when the flavour has a JIT we know the layout of.
TraceSet vm_traces(const Vm &vm, Arch arch, bool mcode, Diagnostics &diag)
{
	const lj_trace_layout *tl = vm.layout().jit;
	TraceSet set;
	if (!tl)
		set.problem = std::string("no JIT layout for ") + vm.layout().name +
			      " (built without the JIT?)";
	else
		set = read_traces(vm, *tl, mcode);
	if (mcode && set.problem.empty()) {
		auto dis = Disassembler::create(arch);
		if (dis)
			annotate_mcode(vm, set, arch, **dis);
		else
			diag.problem("machine code not disassembled: " + dis.error().message);
	}
	set.register_names = register_names(luajit_arch(arch));
	if (!set.problem.empty())
		diag.problem("traces of VM " + luajit_pointer(vm.g()) + ": " + set.problem);
	for (auto &t : set.traces)
		if (!t.problem.empty())
			diag.problem("trace " + std::to_string(t.number) + ": " + t.problem);
	return set;
}

// The stacks whose Lua frames interleave with native ones: the running
// coroutine, those waiting in coroutine.resume for it, and any other state
// a VM entry on a native stack runs (walked here into v.entered).
std::vector<const LuaStack *> active_stacks(TargetAnalysis &ta, const Vm &vm, VmResult &v)
{
	std::vector<const LuaStack *> active{&v.stack};
	for (auto &co : v.coroutines)
		if (co.status == "normal")
			active.push_back(&co.stack);
	std::vector<uint64_t> known;
	for (const LuaStack *s : active)
		known.push_back(s->L);
	for (uint64_t L : entered_states(vm, ta.stacks, ta.target.arch(), known))
		v.entered.push_back(walk_lua_stack(vm, WalkStart{L, 0, 0}, ta.symbolize));
	for (const LuaStack &s : v.entered)
		active.push_back(&s);
	return active;
}

// The requests an nginx worker's coroutines serve, the current one's first.
void add_requests(TargetAnalysis &ta, const Vm &vm, VmResult &v)
{
	std::vector<uint64_t> Ls{v.stack.L};
	for (auto &co : v.coroutines)
		if (co.L != v.stack.L)
			Ls.push_back(co.L);
	for (auto &s : v.entered)
		Ls.push_back(s.L);
	v.requests = served_requests(vm, *ta.nginx, Ls, ta.diag);
}

// Locals and upvalues of every frame walked; the running stack's innermost
// frames may have their values in a trace's snapshot.
void add_locals(TargetAnalysis &ta, const Vm &vm, VmResult &v,
		const std::optional<CompiledCrash> &compiled)
{
	const LocalsOptions &o = *ta.options.locals;
	read_frame_variables(vm, v.current_thread, v.stack, o, ta.symbolize,
			     compiled ? &compiled->frames.values : nullptr);
	for (auto &co : v.coroutines)
		read_frame_variables(vm, v.current_thread, co.stack, o, ta.symbolize);
	for (auto &s : v.entered)
		read_frame_variables(vm, v.current_thread, s, o, ta.symbolize);
}

} // namespace

void analyze_vm(TargetAnalysis &ta, const VmCandidate &c, size_t index, VmResult &v)
{
	const AnalyzeOptions &options = ta.options;
	Vm vm(ta.target, *c.layout, c.g);
	std::optional<CompiledCrash> compiled = walk_current(ta, vm, c, v);
	if (options.all_coroutines)
		add_coroutines(vm, v, ta.symbolize, ta.diag);
	if (options.traces) {
		v.traces = vm_traces(vm, ta.target.arch(), options.mcode, ta.diag);
		// arm64 traces do not set g->vmstate: the trace a thread was
		// found running in is the one executing.
		if (compiled && !v.traces->executing)
			v.traces->executing = int32_t(compiled->frames.trace);
	}
	if (options.gc) {
		// The census lists the objects for the dominator tree.
		gc::BigArray<uint64_t> objects;
		auto *listed = options.gc->retained ? &objects : nullptr;
		v.gc = options.gc->paths
			       ? gc_census_with_paths(vm, *options.gc, GcPathOptions{}, listed)
			       : gc_census(vm, *options.gc, listed);
		if (options.gc->retained) {
			const RetainedHeap heap(vm, std::move(objects), v.gc->complete);
			v.gc->retained = gc_retained(heap, options.gc->retained_top,
						     options.gc->retained_depth);
			v.gc->diagnostics.merge(heap.diagnostics());
		}
		for (auto &p : v.gc->diagnostics.problems())
			ta.diag.problem("GC heap of VM " + luajit_pointer(c.g) + ": " + p);
	}
	if (c.thread && c.frame) {
		ta.threads[*c.thread].vm_frame = *c.frame;
		ta.threads[*c.thread].vm_index = index;
	}
	std::vector<const LuaStack *> active = active_stacks(ta, vm, v);
	if (ta.nginx)
		add_requests(ta, vm, v);
	if (options.locals)
		add_locals(ta, vm, v, compiled);
	if (options.print)
		v.printed = print_value(vm, v, *options.print, ta.symbolize);
	for (const LuaStack *s : active) {
		FrameCframes cframes = frame_cframes(vm, *s);
		if (!cframes.problem.empty())
			ta.diag.problem("Lua stack of " + luajit_pointer(s->L) + ": " +
					cframes.problem);
		place_lua_runs(ta.threads, ta.stacks, ta.target.arch(), index, *s, cframes,
			       c.thread);
	}
}

} // namespace ljcore
