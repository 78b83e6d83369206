#include "analyzer/analyze.h"

#include "analyzer/analyze_vm.h"
#include "analyzer/locate/locate.h"
#include "analyzer/stack/lua_runs.h"

namespace ljcore {

namespace {

// The process as the target describes it: name, arguments, signal.
void describe_process(const Target &target, Analysis &a)
{
	a.arch = arch_name(target.arch());
	a.pid = target.process().pid;
	a.process_name = target.process().name;
	a.process_args = target.process().args;
	a.diagnostics.merge(target.diagnostics());
	if (auto &sig = target.signal()) {
		a.signal = sig->signo;
		a.signal_code = sig->code;
		a.fault_addr = sig->addr;
		// si_addr is the faulting address only for these signals
		// (and only when the kernel, not kill(), sent them: code > 0).
		a.has_fault_addr = sig->code > 0 && (sig->signo == 11 || sig->signo == 7 ||
						     sig->signo == 4 || sig->signo == 8);
	}
}

} // namespace

Analysis analyze_target(const Target &target, const NativeSession &native,
			const AnalyzeOptions &options)
{
	Analysis a;
	describe_process(target, a);
	std::vector<NativeStack> stacks;
	for (size_t i = 0; i < target.threads().size(); i++) {
		const ThreadInfo &t = target.threads()[i];
		stacks.push_back(native.unwind(t.tid));
		// A core's first thread is the one that crashed.
		bool crashed = target.signal().has_value() && i == 0;
		a.threads.push_back(thread_result(t, stacks.back(), crashed));
	}

	LocatedVms located =
		locate_vms(target, native, stacks, options.scan, a.diagnostics, options.layout);
	a.version_string = located.layouts.version;
	// symbol_at() remembers its answers: every coroutine's stack names the
	// same few C functions (100 000 coroutines took minutes without).
	CodeSymbolizer symbolize = [&native](uint64_t addr) { return native.function_at(addr); };
	const NginxLayout *nginx = nginx_layout_of(native.modules(), a.diagnostics);
	TargetAnalysis ta{target, native, options,   symbolize,
			  nginx,  stacks, a.threads, a.diagnostics};
	for (const VmCandidate &c : located.vms) {
		VmResult v = describe_vm(target, c, located.layouts, a.diagnostics);
		analyze_vm(ta, c, a.vms.size(), v);
		a.vms.push_back(std::move(v));
	}
	order_lua_runs(a.threads);
	for (auto &f : target.file_statuses())
		if (f.check == BuildIdCheck::mismatched || !f.detail.empty())
			a.diagnostics.problem(f.detail);
	return a;
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

Expected<Analysis> analyze_pid(int32_t pid, const AnalyzeOptions &options)
{
	auto live = open_live(pid, options.layout);
	if (!live)
		return std::unexpected(live.error());
	Analysis a = analyze_target(*live->process, *live->native, options);
	a.paused_us = uint64_t(live->process->resume().count());
	a.source = "process " + std::to_string(pid);
	a.live = true;
	return a;
}

} // namespace ljcore
