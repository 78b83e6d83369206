// The result model as JSON. Addresses are "0x..." strings: JSON numbers
// lose precision above 2^53.
#include <nlohmann/json.hpp>

#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_values.h"

namespace ljcore {

namespace {

using nlohmann::json;

json lua_stack_json(const LuaStack &s)
{
	json frames = json::array();
	for (auto &f : s.frames) {
		json j = {
			{"level", f.level},
			{"what", f.what},
			{"source", f.source},
			{"short_src", f.short_src},
			{"current_line", f.current_line},
			{"line_defined", f.line_defined},
			{"namewhat", f.namewhat},
			{"name", f.name},
			{"ffid", f.ffid},
			{"slot", hex(f.slot)},
			{"function", hex(f.function)},
			{"pc", hex(f.pc)},
			{"frame_type", f.frame_type},
		};
		if (f.c_function)
			j["c_function"] = hex(f.c_function);
		if (!f.c_symbol.empty())
			j["c_symbol"] = f.c_symbol;
		if (!f.problem.empty())
			j["problem"] = f.problem;
		if (f.trace)
			j["trace"] = f.trace;
		if (f.inlined)
			j["inlined"] = true;
		add_frame_variables_json(j, f.variables);
		frames.push_back(std::move(j));
	}
	json j = {{"L", hex(s.L)}, {"complete", s.complete}, {"frames", frames}};
	if (!s.complete)
		j["stop_reason"] = s.stop_reason;
	return j;
}

json signal_json(const Analysis &a)
{
	json sig = {{"number", a.signal}, {"name", signal_name(a.signal)}, {"code", a.signal_code}};
	if (a.has_fault_addr)
		sig["fault_address"] = hex(a.fault_addr);
	return sig;
}

json coroutine_json(const Coroutine &co)
{
	json c = {{"L", hex(co.L)},
		  {"status", co.status},
		  {"stack", lua_stack_json(co.stack)}};
	if (co.resumed)
		c["resumed"] = hex(co.resumed);
	return c;
}

json vm_json(const VmResult &vm)
{
	json coroutines = json::array();
	for (auto &co : vm.coroutines)
		coroutines.push_back(coroutine_json(co));
	json v = {{"global_state", hex(vm.global_state)},
		  {"found_by", vm.found_by},
		  {"threads", vm.threads},
		  {"checks", vm.checks},
		  {"layout", vm.layout},
		  {"layout_source", vm.layout_source},
		  {"vmstate", vm.vmstate},
		  {"vmstate_text", vm.vmstate_text},
		  {"gc_total", vm.gc_total},
		  {"main_thread", hex(vm.main_thread)},
		  {"current_thread", hex(vm.current_thread)},
		  {"stack", lua_stack_json(vm.stack)},
		  {"coroutines", coroutines}};
	if (vm.layout_matches_version)
		v["layout_matches_version"] = *vm.layout_matches_version;
	// Only when there are some: the other states depend on the native
	// stacks, which regression fixtures leave out.
	for (auto &s : vm.entered)
		v["entered"].push_back(lua_stack_json(s));
	// Only in an nginx worker's VM.
	for (auto &r : vm.requests)
		v["requests"].push_back({{"L", hex(r.L)},
					 {"request", hex(r.request)},
					 {"found_by", r.found_by},
					 {"method", r.method},
					 {"uri", r.uri},
					 {"host", r.host},
					 {"client", r.client}});
	return v;
}

json version_string_json(const VersionString &vs)
{
	return {{"text", vs.text},
		{"address", hex(vs.addr)},
		{"module", vs.module},
		{"layouts", vs.layouts}};
}

// The native frames of a thread, and where its Lua frames stand among them.
json thread_json(const ThreadResult &t)
{
	json frames = json::array();
	for (auto &f : t.frames)
		frames.push_back({{"pc", hex(f.pc)},
				  {"function", f.function},
				  {"offset", f.offset},
				  {"module", f.module},
				  {"activation", f.activation}});
	json runs = json::array();
	for (auto &run : t.lua_runs) {
		json r = {{"vm", run.vm},
			  {"L", hex(run.L)},
			  {"cframe", hex(run.cframe)},
			  {"first_level", run.first_level},
			  {"count", run.count}};
		if (run.native_frame)
			r["native_frame"] = *run.native_frame;
		runs.push_back(std::move(r));
	}
	json j = {{"tid", t.tid},
		  {"crashed", t.crashed},
		  {"signal", t.signal},
		  {"frames", frames},
		  {"lua_runs", runs}};
	if (t.vm_frame) {
		j["lua_below_frame"] = *t.vm_frame;
		j["vm"] = *t.vm_index;
	}
	if (!t.stop_reason.empty())
		j["stop_reason"] = t.stop_reason;
	return j;
}

} // namespace

nlohmann::json analysis_json(const Analysis &a)
{
	json doc;
	doc["schema_version"] = Analysis::schema_version;
	doc["source"] = a.source;
	if (a.live)
		doc["paused_us"] = a.paused_us;
	doc["arch"] = a.arch;
	doc["process"] = {{"pid", a.pid}, {"name", a.process_name}, {"args", a.process_args}};
	if (a.signal)
		doc["signal"] = signal_json(a);
	json vms = json::array();
	for (auto &vm : a.vms)
		vms.push_back(vm_json(vm));
	// Only when found: what a core alone holds rarely has it.
	if (a.version_string)
		doc["version_string"] = version_string_json(*a.version_string);
	doc["vms"] = vms;
	json threads = json::array();
	for (auto &t : a.threads)
		threads.push_back(thread_json(t));
	doc["threads"] = threads;
	doc["problems"] = a.diagnostics.problems();
	doc["evidence"] = a.diagnostics.evidence();
	return doc;
}

void render_json(std::ostream &out, const Analysis &a)
{
	print_json(out, analysis_json(a));
}

} // namespace ljcore
