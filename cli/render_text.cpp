// The human-readable report.
#include <algorithm>
#include <cstring>
#include <map>
#include <string.h>
#include <unordered_map>

#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_values.h"

namespace ljcore {

std::string hex_address(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)v);
	return buf;
}

std::string signal_name(int signo)
{
	const char *abbrev = sigabbrev_np(signo);
	return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signo);
}

namespace {

std::string lua_frame_text(const LuaFrame &f)
{
	std::string s = f.what == "C" ? "[C] " : "[Lua] ";
	if (f.what == "C") {
		if (!f.namewhat.empty())
			s += f.namewhat + " '" + f.name + "'";
		else if (f.ffid > 1)
			s += "builtin#" + std::to_string(f.ffid);
		else
			s += "function";
		if (!f.c_symbol.empty())
			s += " (" + f.c_symbol + ")";
		else if (f.c_function)
			s += " at " + hex_address(f.c_function);
		return s;
	}
	s += f.short_src;
	if (f.current_line > 0)
		s += ":" + std::to_string(f.current_line);
	if (!f.namewhat.empty())
		s += " in " + f.namewhat + " '" + f.name + "'";
	else if (f.what == "main")
		s += " in main chunk";
	else
		s += " in function <" + f.short_src + ":" + std::to_string(f.line_defined) + ">";
	if (f.trace)
		s += "  [compiled: trace " + std::to_string(f.trace) +
		     (f.inlined ? ", inlined]" : "]");
	return s;
}

void lua_frames(std::ostream &out, const LuaStack &s, const char *indent)
{
	for (auto &f : s.frames) {
		out << indent << printable(lua_frame_text(f));
		if (!f.problem.empty())
			out << "  (" << printable(f.problem) << ")";
		out << "\n";
		render_frame_variables(out, f.variables, std::string(indent) + "    ");
	}
	if (!s.complete)
		out << indent << "(stack incomplete: " << printable(s.stop_reason) << ")\n";
}

bool has_runs_of(const ThreadResult &t, size_t vm)
{
	for (auto &run : t.lua_runs)
		if (run.vm == vm)
			return true;
	return false;
}

// A VM's stacks by their lua_State: the running one, then every coroutine,
// then the states entered from C. Built once, not searched per run: a core
// can hold hundreds of thousands of coroutines, and as many runs.
using StacksByL = std::unordered_map<uint64_t, const LuaStack *>;

StacksByL stacks_by_L(const VmResult &vm)
{
	StacksByL by_L;
	by_L.try_emplace(vm.stack.L, &vm.stack);
	for (auto &co : vm.coroutines)
		by_L.try_emplace(co.L, &co.stack);
	for (auto &s : vm.entered)
		by_L.try_emplace(s.L, &s);
	return by_L;
}

// The frames of one run, under the native frame of its VM entry; a
// coroutine other than the current one says which it is.
void lua_run_frames(std::ostream &out, const VmResult &vm, const StacksByL &stacks,
		    const LuaRun &run)
{
	auto found = stacks.find(run.L);
	if (found == stacks.end())
		return;
	const LuaStack *s = found->second;
	if (run.L != vm.stack.L)
		out << "        (coroutine " << hex_address(run.L)
		    << (run.L == vm.main_thread ? ", the main thread" : "") << ")\n";
	for (auto &f : s->frames) {
		if (f.level < run.first_level || f.level >= run.first_level + run.count)
			continue;
		out << "        " << printable(lua_frame_text(f));
		if (!f.problem.empty())
			out << "  (" << printable(f.problem) << ")";
		out << "\n";
		render_frame_variables(out, f.variables, "            ");
	}
	bool last = !s->frames.empty() && s->frames.back().level < run.first_level + run.count;
	if (last && !s->complete)
		out << "        (stack incomplete: " << printable(s->stop_reason) << ")\n";
}

// "main 0x.. -> 0x.. -> 0x.. (running)": who resumed whom, from the main
// thread to the running coroutine.
std::string resume_chain(const VmResult &vm)
{
	std::unordered_map<uint64_t, const Coroutine *> by_L;
	for (auto &c : vm.coroutines)
		by_L[c.L] = &c;
	std::string chain;
	uint64_t at = vm.main_thread;
	for (size_t hops = 0; at && hops <= vm.coroutines.size(); hops++) {
		auto found = by_L.find(at);
		if (found == by_L.end())
			break;
		const Coroutine *co = found->second;
		chain += (chain.empty() ? "main " : " -> ") + hex_address(at);
		if (co->status == "running")
			return chain + " (running)";
		at = co->resumed;
	}
	return chain;
}

// "9 (1 running, 3 normal, 5 suspended)"
std::string coroutine_counts(const VmResult &vm)
{
	std::map<std::string, int> by_status;
	for (auto &c : vm.coroutines)
		by_status[c.status]++;
	std::string s = std::to_string(vm.coroutines.size()) + " (";
	bool first = true;
	for (auto &[status, n] : by_status) {
		s += (first ? "" : ", ") + std::to_string(n) + " " + status;
		first = false;
	}
	return s + ")";
}

void vm_header(std::ostream &out, const VmResult &vm)
{
	out << "VM " << hex_address(vm.global_state) << "  found by: " << printable(vm.found_by)
	    << "\n"
	    << "  layout: " << printable(vm.layout) << " (" << printable(vm.layout_source)
	    << ")\n  checks:";
	for (size_t i = 0; i < vm.checks.size(); i++)
		out << (i ? ", " : " ") << printable(vm.checks[i]);
	if (!vm.threads.empty()) {
		out << "\n  thread: " << vm.threads[0];
		for (size_t i = 1; i < vm.threads.size(); i++)
			out << (i == 1 ? " (also held by " : ", ") << vm.threads[i];
		out << (vm.threads.size() > 1 ? ")" : "");
	}
	out << "\n  state: " << printable(vm.vmstate_text) << ", GC heap " << vm.gc_total
	    << " bytes, current coroutine " << hex_address(vm.stack.L) << "\n";
	if (!vm.coroutines.empty()) {
		out << "  coroutines: " << coroutine_counts(vm)
		    << " (`ljcore bt --all` shows each)\n";
		std::string chain = resume_chain(vm);
		if (chain.find(" -> ") != std::string::npos)
			out << "  resume chain: " << chain << "\n";
	} else {
		out << "  coroutines: not listed (`--all` walks the GC heap for them)\n";
	}
	for (auto &r : vm.requests)
		out << "  nginx request " << hex_address(r.request) << " of coroutine "
		    << hex_address(r.L) << " (" << r.found_by << "): " << printable(r.method) << " "
		    << printable(r.uri) << ", Host: " << printable(r.host)
		    << ", client: " << printable(r.client) << "\n";
}

// --explain: each offset of a VM's layout and where it came from.
void layout_fields(std::ostream &out, const VmResult &vm)
{
	out << "\nlayout of VM " << hex_address(vm.global_state) << ": " << printable(vm.layout)
	    << " (" << printable(vm.layout_origin) << ")\n";
	for (auto &f : vm.layout_fields) {
		std::string name = f.name;
		name.resize(std::max<size_t>(name.size(), 16), ' ');
		std::string value = std::to_string(f.value);
		value.insert(0, value.size() < 6 ? 6 - value.size() : 0, ' ');
		out << "  " << name << value << "  " << printable(f.source) << "\n";
	}
}

// "process 123 (luajit app.lua), SIGSEGV at 0x..., x86_64"
void process_line(std::ostream &out, const Analysis &a)
{
	out << "process " << a.pid << " ("
	    << printable(a.process_args.empty() ? a.process_name : a.process_args) << "), ";
	if (a.live) {
		out << "live, stopped for " << a.paused_us / 1000.0 << " ms";
	} else if (a.signal) {
		out << signal_name(a.signal);
		if (a.has_fault_addr)
			out << " at " << hex_address(a.fault_addr);
	} else {
		out << "no signal";
	}
	out << ", " << printable(a.arch) << "\n";
}

// One native frame of a thread, then the Lua frames it runs.
void native_frame(std::ostream &out, const Analysis &a, const std::vector<StacksByL> &stacks,
		  const ThreadResult &t, size_t i)
{
	auto &f = t.frames[i];
	char num[32];
	snprintf(num, sizeof num, "  #%-3zu", i);
	out << num << hex_address(f.pc) << " ";
	if (!f.function.empty()) {
		out << printable(f.function);
		if (f.offset)
			out << "+0x" << std::hex << f.offset << std::dec;
	} else {
		out << "??";
	}
	if (!f.module.empty())
		out << "  " << printable(f.module);
	out << "\n";
	for (auto &run : t.lua_runs)
		if (run.native_frame == i)
			lua_run_frames(out, a.vms[run.vm], stacks[run.vm], run);
	if (t.vm_frame == i && t.vm_index && !has_runs_of(t, *t.vm_index))
		lua_frames(out, a.vms[*t.vm_index].stack, "        ");
}

void thread_text(std::ostream &out, const Analysis &a, const std::vector<StacksByL> &stacks,
		 const ThreadResult &t, const RenderOptions &o)
{
	out << "\nthread " << t.tid;
	if (t.crashed)
		out << " (crashed)";
	if (t.signal)
		out << " " << signal_name(t.signal);
	out << "\n";
	if (!o.native)
		return;
	for (size_t i = 0; i < t.frames.size(); i++)
		native_frame(out, a, stacks, t, i);
	if (!t.stop_reason.empty())
		out << "  (unwinding stopped: " << printable(t.stop_reason) << ")\n";
	for (auto &run : t.lua_runs) {
		if (run.native_frame)
			continue;
		if (run.cframe)
			out << "  Lua frames of C frame " << hex_address(run.cframe)
			    << ", which no native frame has as its stack pointer:\n";
		else
			out << "  Lua frames below the end of the C-frame chain:\n";
		lua_run_frames(out, a.vms[run.vm], stacks[run.vm], run);
	}
}

} // namespace

void render_text(std::ostream &out, const Analysis &a, const RenderOptions &o)
{
	process_line(out, a);
	std::vector<StacksByL> stacks;
	for (auto &vm : a.vms) {
		vm_header(out, vm);
		stacks.push_back(stacks_by_L(vm));
	}
	for (auto &t : a.threads)
		thread_text(out, a, stacks, t, o);
	// VMs no native frame leads to still show their Lua stack.
	for (size_t v = 0; v < a.vms.size(); v++) {
		bool shown = false;
		for (auto &t : a.threads)
			shown |= o.native && (t.vm_index == v || has_runs_of(t, v));
		if (!shown) {
			out << "\nLua stack of VM " << hex_address(a.vms[v].global_state) << "\n";
			lua_frames(out, a.vms[v].stack, "  ");
		}
	}
	if (o.explain) {
		for (auto &vm : a.vms)
			layout_fields(out, vm);
		out << "\nhow the VMs were looked for:\n";
		for (auto &e : a.diagnostics.evidence())
			out << "  " << printable(e) << "\n";
	}
	if (a.diagnostics.has_problems()) {
		out << "\nproblems:\n";
		for (auto &p : a.diagnostics.problems())
			out << "  " << printable(p) << "\n";
	}
}

void render_lua_text(std::ostream &out, const Analysis &a, const RenderOptions &o)
{
	for (auto &vm : a.vms) {
		out << "VM " << hex_address(vm.global_state) << " (" << printable(vm.vmstate_text)
		    << ")";
		if (!o.all) {
			out << ", coroutine " << hex_address(vm.stack.L) << "\n";
			lua_frames(out, vm.stack, "  ");
			continue;
		}
		out << ", coroutines " << coroutine_counts(vm) << "\n";
		std::string chain = resume_chain(vm);
		if (chain.find(" -> ") != std::string::npos)
			out << "resume chain: " << chain << "\n";
		for (auto &co : vm.coroutines) {
			out << "\ncoroutine " << hex_address(co.L) << " (" << printable(co.status);
			if (co.L == vm.main_thread)
				out << ", main thread";
			if (co.resumed)
				out << ", resumed " << hex_address(co.resumed);
			out << ")\n";
			lua_frames(out, co.stack, "  ");
		}
	}
}

} // namespace ljcore
