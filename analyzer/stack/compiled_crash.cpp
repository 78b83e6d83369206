#include "analyzer/stack/compiled_crash.h"

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/luajit_arch.h"
#include "analyzer/stack/lua_runs.h"
#include "analyzer/traces/trace_mcode.h"
#include "analyzer/traces/traces.h"

namespace ljcore {

std::optional<CompiledCrash> compiled_frames(const Vm &mem, int32_t traceno,
					     const std::vector<NativeStack> &stacks,
					     const std::vector<ThreadInfo> &threads, Arch arch,
					     Diagnostics &diag)
{
	auto what = [](uint32_t n) {
		return "frames compiled in trace" + (n ? " " + std::to_string(n) : std::string());
	};
	const lj_trace_layout *tl = mem.layout().jit;
	if (!tl) {
		diag.problem(what(traceno) + ": no JIT layout for " + mem.layout().name);
		return std::nullopt;
	}
	TraceSet set = read_traces(mem, *tl, false, uint32_t(traceno));
	if (!set.problem.empty()) {
		diag.problem(what(traceno) + ": " + set.problem);
		return std::nullopt;
	}
	auto jit_base = GlobalState(mem).jit_base();
	if (!jit_base || *jit_base == 0) {
		diag.problem(what(traceno) + ": g->jit_base is not set");
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
					diag.problem(what(t.number) + ": " +
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
		diag.problem(what(traceno) + ": " + set.traces[0].problem);
	else
		diag.problem(what(traceno) + ": no thread is in its machine code");
	return std::nullopt;
}

void unwind_below_trace(const Vm &mem, uint64_t L, Arch arch, const NativeSession &native,
			NativeStack &stack, size_t trace_frame, Diagnostics &diag)
{
	auto cframe = LuaState(mem, L).cframe();
	auto handler = jloop_handler(mem);
	if (!cframe || !handler) {
		diag.problem("native frames below trace code: cannot read L->cframe or the "
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

} // namespace ljcore
