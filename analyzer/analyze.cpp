#include "analyzer/analyze.h"

#include <deque>
#include <memory>

#include "analyzer/gc/gc_paths.h"
#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/version_hint.h"
#include "analyzer/locate/vm_locator.h"
#include "analyzer/locate/vm_scan.h"
#include "analyzer/nginx/nginx_request.h"
#include "analyzer/stack/coroutines.h"
#include "analyzer/stack/lua_runs.h"
#include "analyzer/stack/lua_stack.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/luajit_arch.h"
#include "analyzer/traces/trace_frames.h"
#include "analyzer/traces/trace_mcode.h"
#include "analyzer/traces/traces.h"
#include "readers/elf_core.h"
#include "readers/native_stack.h"

namespace ljcore {

namespace {

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

// Layouts to try, best first: what the DWARF of LuaJIT's module says
// (checked against the built-in tables), then the built-in tables.
struct LayoutSet {
	std::vector<const lj_layout *> order;
	std::deque<lj_layout> from_dwarf;
	std::deque<lj_trace_layout> jit_from_dwarf;
	std::deque<std::string> names;
	const lj_layout *dwarf = nullptr; // the one from DWARF, if any
	std::string dwarf_source;         // "DWARF of luajit"
	bool dwarf_is_table = false;      // equal to a built-in table
	std::optional<VersionString> version;
};

void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch, LayoutSet &set,
		       std::vector<std::string> &notes)
{
	std::vector<const lj_layout *> builtin = builtin_layouts(arch);
	// LuaJIT's own module: where its version string is, and the only one
	// worth its DWARF (loading a libc's, from libc6-dbg, compressed, would
	// cost most of our run time). luaJIT_setmode is exported by every
	// LuaJIT, executable or library.
	auto sym = native.symbol_by_name("luaJIT_setmode");
	set.version = version_hint(mem, native, sym, builtin, notes);
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	uint64_t bias;
	Dwarf *dw = mod ? native.module_dwarf(mod, &bias) : nullptr;
	if (dw) {
		// Where lj_gc.c's code is tells which CU to read the structs from.
		auto gc_step = native.symbols_of(mod).named("lj_gc_step");
		Dwarf_Addr gc_code = gc_step ? gc_step->value - bias : 0;
		auto [ly, jit] = layouts_from_dwarf(dw, arch, gc_code);
		if (!ly) {
			notes.push_back("DWARF of " + sym->module +
					" unusable: " + ly.error().message);
		} else {
			std::string name = "from DWARF";
			set.dwarf_source = "DWARF of " + sym->module;
			const lj_layout *closest = nullptr;
			size_t closest_count = 0;
			for (auto *b : builtin) {
				size_t count = layout_difference_count(*ly, *b);
				if (!closest || count < closest_count)
					closest = b, closest_count = count;
			}
			if (closest && closest_count == 0) {
				// Tried once: the table's name, DWARF as the source.
				name = closest->name;
				set.dwarf_is_table = true;
				std::erase(builtin, closest);
			} else if (closest) {
				std::string d;
				for (auto &x : layout_differences(*ly, *closest))
					d += (d.empty() ? "" : ", ") + x;
				notes.push_back("DWARF layout of " + sym->module +
						" matches no built-in table; closest is " +
						closest->name + ", differing in " + d);
			}
			// Traces need the JIT's layout of the same DWARF; a
			// build without the JIT has none.
			ly->jit = nullptr;
			if (jit) {
				set.jit_from_dwarf.push_back(*jit);
				ly->jit = &set.jit_from_dwarf.back();
			}
			set.names.push_back(name);
			ly->name = set.names.back().c_str();
			set.from_dwarf.push_back(*ly);
			set.order.push_back(&set.from_dwarf.back());
			set.dwarf = set.order.back();
		}
	}
	set.order.insert(set.order.end(), builtin.begin(), builtin.end());
}

// Every coroutine of the VM with its state, stack, and the one it resumed.
void add_coroutines(const Vm &mem, VmResult &v, const CodeSymbolizer &symbolize,
		    std::vector<std::string> &problems)
{
	ThreadList list = list_threads(mem, v.global_state);
	v.gc_objects = list.objects_seen;
	if (!list.problem.empty())
		problems.push_back("coroutines of VM " + luajit_pointer(v.global_state) +
				   " may be missing: " + list.problem);
	for (uint64_t L : list.threads) {
		Coroutine co;
		co.L = L;
		co.status = coroutine_status(mem, L, v.stack.L);
		if (L == v.stack.L) {
			co.stack = v.stack; // walked from the VM registers
		} else {
			co.stack = walk_lua_stack(mem, WalkStart{L, 0, 0}, symbolize);
			if (co.status == "normal" && !co.stack.frames.empty()) {
				const LuaFrame &top = co.stack.frames.front();
				co.resumed = resumed_thread(mem, top.slot, top.function);
			}
		}
		v.coroutines.push_back(std::move(co));
	}
}

// The JIT's traces, when the flavour has a JIT we know the layout of.
TraceSet vm_traces(const Vm &mem, uint64_t g, Arch arch, bool mcode,
		   std::vector<std::string> &problems)
{
	const lj_trace_layout *tl = builtin_trace_layout(mem.layout());
	TraceSet set;
	if (!tl)
		set.problem = std::string("no JIT layout for ") + mem.layout().name +
			      " (built without the JIT?)";
	else
		set = read_traces(mem, *tl, g, mcode);
	if (mcode && set.problem.empty()) {
		auto dis = Disassembler::create(arch);
		if (dis)
			annotate_mcode(mem, set, arch, **dis);
		else
			problems.push_back("machine code not disassembled: " + dis.error().message);
	}
	if (!set.problem.empty())
		problems.push_back("traces of VM " + luajit_pointer(g) + ": " + set.problem);
	for (auto &t : set.traces)
		if (!t.problem.empty())
			problems.push_back("trace " + std::to_string(t.number) + ": " + t.problem);
	return set;
}

// A crash inside compiled code: g->vmstate names the trace (0 on arm64,
// whose traces do not store their number: then the trace is the one whose
// machine code a thread is in, as lj_trace.c trace_exit_find() finds it).
// The frames it inlined live only in registers; they are rebuilt from the
// snapshot covering the machine code a thread is in: its innermost pc, or
// a return address when the trace called out (an FFI call that crashed).
struct CompiledCrash {
	TraceFrames frames;
	size_t thread = 0;       // the thread in the trace's machine code
	size_t native_frame = 0; // its frame there
};

std::optional<CompiledCrash> compiled_frames(const Vm &mem, uint64_t g, int32_t traceno,
					     const std::vector<NativeStack> &stacks,
					     const std::vector<ThreadInfo> &threads, Arch arch,
					     std::vector<std::string> &problems)
{
	auto what = [](uint32_t n) {
		return "frames compiled in trace" + (n ? " " + std::to_string(n) : std::string());
	};
	const lj_trace_layout *tl = builtin_trace_layout(mem.layout());
	if (!tl) {
		problems.push_back(what(traceno) + ": no JIT layout for " + mem.layout().name);
		return std::nullopt;
	}
	TraceSet set = read_traces(mem, *tl, g, false, uint32_t(traceno));
	if (!set.problem.empty()) {
		problems.push_back(what(traceno) + ": " + set.problem);
		return std::nullopt;
	}
	auto jit_base = mem.ref(g + mem.layout().g_jit_base);
	if (!jit_base || *jit_base == 0) {
		problems.push_back(what(traceno) + ": g->jit_base is not set");
		return std::nullopt;
	}
	set.mcode_unit = mcode_unit(arch);
	for (const Trace &t : set.traces) {
		if (!t.problem.empty())
			continue;
		for (size_t ti = 0; ti < stacks.size(); ti++)
			for (size_t fi = 0; fi < stacks[ti].frames.size(); fi++) {
				uint64_t pc = stacks[ti].frames[fi].lookup_pc();
				if (pc < t.mcode || pc >= t.mcode + t.szmcode)
					continue;
				int32_t snap = snapshot_at(set, t, pc - t.mcode);
				auto restored =
					snap >= 0 ? restore_trace_frames(mem, t, uint32_t(snap),
									 *jit_base)
						  : fail("no snapshot covers the pc");
				if (!restored) {
					problems.push_back(what(t.number) + ": " +
							   restored.error().message);
					return std::nullopt;
				}
				const ThreadRegs *vector_regs = fi == 0 && ti < threads.size()
									? &threads[ti].regs
									: nullptr;
				restored->values =
					snapshot_values(mem, t, uint32_t(snap), *jit_base,
							stacks[ti].frames[fi], vector_regs, arch);
				return CompiledCrash{*restored, ti, fi};
			}
	}
	if (traceno && !set.traces.empty() && !set.traces[0].problem.empty())
		problems.push_back(what(traceno) + ": " + set.traces[0].problem);
	else
		problems.push_back(what(traceno) + ": no thread is in its machine code");
	return std::nullopt;
}

// Native unwinding stops in a trace's machine code: it has no CFI. The
// trace runs on the C frame of the interpreter that entered it, so
// unwinding goes on from there, at the interpreter's JLOOP handler
// (dispatch[BC_JLOOP] in GG_State), whose CFI covers the frame like any
// other point of the interpreter does. L->cframe is that frame's stack
// pointer. The CFI computes the frame from it on x86_64; on arm64 from the
// frame pointer x29, which the interpreter keeps at sp + SAVE_FP_LR_ (192
// in both forks' vm_arm64.dasc).
void unwind_below_trace(const Vm &mem, uint64_t g, uint64_t L, Arch arch,
			const NativeSession &native, NativeStack &stack, size_t trace_frame,
			std::vector<std::string> &problems)
{
	const lj_layout &ly = mem.layout();
	auto cframe = mem.value<uint64_t>(L + ly.L_cframe);
	auto handler = jloop_handler(mem, g);
	if (!cframe || !handler) {
		problems.push_back("native frames below trace code: cannot read L->cframe or the "
				   "dispatch table");
		return;
	}
	uint64_t sp = *cframe & ~uint64_t(3);
	const ArchInfo &machine = arch_info(arch);
	std::vector<std::pair<unsigned, uint64_t>> regs;
	if (int fp_at = luajit_arch(arch).cframe_fp_offset; fp_at >= 0)
		regs.emplace_back(unsigned(machine.fp), sp + uint64_t(fp_at));
	regs.emplace_back(unsigned(machine.sp), sp);
	NativeStack below = native.unwind_from(stack.tid, *handler, regs);
	stack.frames.resize(trace_frame + 1);
	for (auto &f : below.frames)
		if (stack.frames.size() < NativeSession::max_frames)
			stack.frames.push_back(std::move(f));
	stack.stop_reason = below.stop_reason;
}

} // namespace

Analysis analyze_target(const Target &target, const NativeSession &native,
			const AnalyzeOptions &options)
{
	Analysis a;
	a.arch = arch_name(target.arch());
	a.pid = target.process().pid;
	a.process_name = target.process().name;
	a.process_args = target.process().args;
	for (auto &w : target.warnings())
		a.problems.push_back(w);
	if (auto &sig = target.signal()) {
		a.signal = sig->signo;
		a.signal_code = sig->code;
		a.fault_addr = sig->addr;
		// si_addr is the faulting address only for these signals
		// (and only when the kernel, not kill(), sent them: code > 0).
		a.has_fault_addr = sig->code > 0 && (sig->signo == 11 || sig->signo == 7 ||
						     sig->signo == 4 || sig->signo == 8);
	}

	std::vector<NativeStack> stacks;
	for (size_t i = 0; i < target.threads().size(); i++) {
		const ThreadInfo &t = target.threads()[i];
		stacks.push_back(native.unwind(t.tid));
		// A core's first thread is the one that crashed.
		bool crashed = target.signal().has_value() && i == 0;
		a.threads.push_back(thread_result(t, stacks.back(), crashed));
	}

	LayoutSet layout_set;
	candidate_layouts(target, native, target.arch(), layout_set, a.evidence);
	a.version_string = layout_set.version;
	const auto &layouts = layout_set.order;
	for (auto *ly : layouts)
		a.evidence.push_back(std::string("layout candidate: ") + ly->name);
	std::optional<Rejection> closest;
	auto vms = find_vms(target, target.arch(), native, stacks, layouts, a.evidence, closest);
	if (options.scan == ScanMode::always ||
	    (options.scan == ScanMode::automatic && vms.empty())) {
		size_t before = vms.size();
		for (auto &c : scan_for_vms(target, layouts, closest)) {
			uint64_t g = c.g;
			if (!add_candidate(vms, std::move(c)))
				for (auto &v : vms)
					if (v.g == g)
						v.checks.push_back("also found by the memory scan");
		}
		a.evidence.push_back("memory scan: " + std::to_string(vms.size() - before) +
				     " more VM(s)");
	}
	if (vms.empty()) {
		// The candidate that got furthest says what to look at: a
		// layout that is nearly right, or a VM a crash damaged.
		std::string nearest;
		if (closest) {
			nearest = "; the closest candidate, g " + luajit_pointer(closest->g) +
				  " (" + closest->layout + "), failed: " + closest->failed;
			std::string passed;
			for (auto &c : closest->passed)
				passed += (passed.empty() ? "" : ", ") + c;
			a.evidence.push_back("closest candidate: g " + luajit_pointer(closest->g) +
					     ", " + closest->found_by + ", layout " +
					     closest->layout + ": passed " + passed +
					     "; failed: " + closest->failed);
		}
		a.problems.push_back("no LuaJIT VM found: tried the VM register at every "
				     "native frame, the symbol globalL" +
				     std::string(options.scan == ScanMode::never
							 ? ""
							 : " and a scan of writable memory") +
				     ", with " + std::to_string(layouts.size()) + " layouts" +
				     nearest + " (--explain tells more)");
	}

	// symbol_at() remembers its answers: every coroutine's stack names the
	// same few C functions (100 000 coroutines took minutes without).
	CodeSymbolizer symbolize = [&native](uint64_t addr) { return native.function_at(addr); };
	const NginxLayout *nginx = nginx_layout_of(native.modules(), a.evidence);
	for (auto &c : vms) {
		Vm mem(target, *c.layout, c.g);
		const lj_layout &ly = *c.layout;
		VmResult v;
		v.global_state = c.g;
		v.found_by = c.found_by;
		v.checks = c.checks;
		v.layout = ly.name;
		v.layout_offsets = ly;
		v.layout_offsets.name = nullptr;
		v.layout_offsets.jit = nullptr;
		if (ly.jit) {
			v.trace_layout_offsets = *ly.jit;
			v.trace_layout_offsets->name = nullptr;
		}
		if (c.thread)
			v.tid = target.threads()[*c.thread].tid;
		v.layout_source =
			c.layout == layout_set.dwarf ? layout_set.dwarf_source : "built-in table";
		// A layout of DWARF that no table equals has no version to match.
		if (c.layout != layout_set.dwarf || layout_set.dwarf_is_table)
			compare_with_hint(layout_set.version, v, a.evidence);
		v.main_thread = mem.ref(c.g + ly.g_mainthref).value_or(0);
		v.current_thread = mem.ref(c.g + ly.g_cur_L).value_or(0);
		v.vmstate = mem.value<int32_t>(c.g + ly.g_vmstate).value_or(0);
		v.vmstate_text = vmstate_text(v.vmstate, ly.vmstates);
		v.gc_total = mem.ref(c.g + ly.g_gc_total).value_or(0);

		WalkStart start;
		start.L = v.current_thread ? v.current_thread : v.main_thread;
		// In the interpreter itself L->base is stale: BASE and PC are
		// live in registers of the innermost VM frame (vm_x64.dasc).
		const LuaJitArch &lj = luajit_arch(target.arch());
		if (c.thread && c.frame && *c.frame == 0 && v.vmstate == ~0 && lj.base_reg >= 0) {
			const NativeFrame &f = stacks[*c.thread].frames[0];
			start.base = f.regs.dwarf[size_t(lj.base_reg)];
			start.top_pc = f.regs.dwarf[size_t(lj.pc_reg)];
		}
		std::optional<CompiledCrash> compiled;
		if (v.vmstate >= 0)
			compiled = compiled_frames(mem, c.g, v.vmstate, stacks, target.threads(),
						   target.arch(), a.problems);
		if (compiled) {
			start.base = compiled->frames.base;
			start.top_pc = compiled->frames.base_pc;
			start.compiled = &compiled->frames;
			v.vmstate_text = "trace " + std::to_string(compiled->frames.trace);
			NativeStack &s = stacks[compiled->thread];
			unwind_below_trace(mem, c.g, start.L, target.arch(), native, s,
					   compiled->native_frame, a.problems);
			bool crashed = a.threads[compiled->thread].crashed;
			a.threads[compiled->thread] =
				thread_result(target.threads()[compiled->thread], s, crashed);
		}
		v.stack = walk_lua_stack(mem, start, symbolize);
		if (!v.stack.complete)
			a.problems.push_back("Lua stack of " + luajit_pointer(start.L) +
					     " is incomplete: " + v.stack.stop_reason);
		for (auto &f : v.stack.frames)
			if (!f.problem.empty())
				a.problems.push_back("Lua frame " + std::to_string(f.level) + ": " +
						     f.problem);
		if (options.all_coroutines)
			add_coroutines(mem, v, symbolize, a.problems);
		if (options.traces) {
			v.traces = vm_traces(mem, c.g, target.arch(), options.mcode, a.problems);
			// arm64 traces do not set g->vmstate: the trace a thread was
			// found running in is the one executing.
			if (compiled && !v.traces->executing)
				v.traces->executing = int32_t(compiled->frames.trace);
		}
		if (options.gc) {
			v.gc = options.gc->paths ? gc_census_with_paths(mem, c.g, *options.gc,
									GcPathOptions{})
						 : gc_census(mem, c.g, *options.gc);
			for (auto &p : v.gc->problems)
				a.problems.push_back("GC heap of VM " + luajit_pointer(c.g) + ": " +
						     p);
		}
		size_t index = a.vms.size();
		if (c.thread && c.frame) {
			a.threads[*c.thread].vm_frame = *c.frame;
			a.threads[*c.thread].vm_index = index;
		}
		// The running coroutine, those waiting in coroutine.resume for
		// it, and any other state a VM entry on a native stack runs:
		// their Lua frames interleave with native ones.
		std::vector<const LuaStack *> active{&v.stack};
		for (auto &co : v.coroutines)
			if (co.status == "normal")
				active.push_back(&co.stack);
		std::vector<uint64_t> known;
		for (const LuaStack *s : active)
			known.push_back(s->L);
		for (uint64_t L : entered_states(mem, c.g, stacks, target.arch(), known))
			v.entered.push_back(walk_lua_stack(mem, WalkStart{L, 0, 0}, symbolize));
		for (const LuaStack &s : v.entered)
			active.push_back(&s);
		if (nginx) {
			std::vector<uint64_t> Ls{v.stack.L};
			for (auto &co : v.coroutines)
				if (co.L != v.stack.L)
					Ls.push_back(co.L);
			for (auto &s : v.entered)
				Ls.push_back(s.L);
			v.requests = served_requests(mem, c.g, *nginx, Ls, a.evidence);
		}
		if (options.locals) {
			auto read = [&](LuaStack &s) {
				read_frame_variables(mem, c.g, v.current_thread, s, *options.locals,
						     symbolize);
			};
			read_frame_variables(mem, c.g, v.current_thread, v.stack, *options.locals,
					     symbolize,
					     compiled ? &compiled->frames.values : nullptr);
			for (auto &co : v.coroutines)
				read(co.stack);
			for (auto &s : v.entered)
				read(s);
		}
		if (options.print)
			v.printed = print_value(mem, v, *options.print, symbolize);
		for (const LuaStack *s : active) {
			FrameCframes cframes = frame_cframes(mem, *s);
			if (!cframes.problem.empty())
				a.problems.push_back("Lua stack of " + luajit_pointer(s->L) + ": " +
						     cframes.problem);
			place_lua_runs(a.threads, stacks, target.arch(), index, *s, cframes,
				       c.thread);
		}
		a.vms.push_back(std::move(v));
	}
	order_lua_runs(a.threads);
	for (auto &f : target.file_statuses())
		if (f.check == BuildIdCheck::mismatched || !f.detail.empty())
			a.problems.push_back(f.detail);
	return a;
}

Expected<CoreSession> open_core(const std::string &path, const FileLookup &lookup)
{
	auto core = ElfCore::open(path, lookup);
	if (!core)
		return std::unexpected(core.error());
	auto native = NativeSession::open_core(**core);
	if (!native)
		return std::unexpected(native.error().context(path));
	return CoreSession{std::move(*core), std::move(*native)};
}

Expected<Analysis> analyze_core(const std::string &path, const AnalyzeOptions &options)
{
	auto session = open_core(path, options.lookup);
	if (!session)
		return std::unexpected(session.error());
	Analysis a = analyze_target(*session->core, *session->native, options);
	a.source = path;
	return a;
}

Expected<LiveSession> open_live(int32_t pid)
{
	auto process = LiveProcess::attach(pid);
	if (!process)
		return std::unexpected(process.error());
	auto native = NativeSession::open_live(**process);
	if (!native)
		return std::unexpected(native.error().context("process " + std::to_string(pid)));
	return LiveSession{std::move(*process), std::move(*native)};
}

Expected<Analysis> analyze_pid(int32_t pid, const AnalyzeOptions &options)
{
	auto live = open_live(pid);
	if (!live)
		return std::unexpected(live.error());
	Analysis a = analyze_target(*live->process, *live->native, options);
	a.paused_us = uint64_t(live->process->resume().count());
	a.source = "process " + std::to_string(pid);
	a.live = true;
	return a;
}

} // namespace ljcore
