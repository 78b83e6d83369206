// The result model as JSON, streamed (json_writer.h): nothing of the
// document is held but the path to what is being written. Addresses are
// "0x..." strings: JSON numbers lose precision above 2^53. Members are
// written in the byte order of their names, as the writer needs.
#include "cli/json_writer.h"
#include "cli/render.h"
#include "cli/render_values.h"

namespace ljcore {

namespace {

void lua_frame_json(JsonWriter &w, const LuaFrame &f)
{
	w.begin_object();
	if (f.c_function)
		w.key("c_function").value(hex(f.c_function));
	if (!f.c_symbol.empty())
		w.key("c_symbol").value(f.c_symbol);
	w.key("current_line").value(f.current_line);
	w.key("ffid").value(f.ffid);
	w.key("frame_type").value(f.frame_type);
	w.key("function").value(hex(f.function));
	if (f.inlined)
		w.key("inlined").value(true);
	w.key("level").value(f.level);
	w.key("line_defined").value(f.line_defined);
	write_frame_locals_json(w, f.variables);
	w.key("name").value(f.name);
	w.key("namewhat").value(f.namewhat);
	w.key("pc").value(hex(f.pc));
	if (!f.problem.empty())
		w.key("problem").value(f.problem);
	w.key("short_src").value(f.short_src);
	w.key("slot").value(hex(f.slot));
	w.key("source").value(f.source);
	if (f.trace)
		w.key("trace").value(f.trace);
	write_frame_upvalues_json(w, f.variables);
	w.key("what").value(f.what);
	w.end_object();
}

void lua_stack_json(JsonWriter &w, const LuaStack &s)
{
	w.begin_object();
	w.key("L").value(hex(s.L));
	w.key("complete").value(s.complete);
	w.key("frames").begin_array();
	for (auto &f : s.frames)
		lua_frame_json(w, f);
	w.end_array();
	if (!s.complete)
		w.key("stop_reason").value(s.stop_reason);
	w.end_object();
}

void signal_json(JsonWriter &w, const Analysis &a)
{
	w.begin_object();
	w.key("code").value(a.signal_code);
	if (a.has_fault_addr)
		w.key("fault_address").value(hex(a.fault_addr));
	w.key("name").value(signal_name(a.signal));
	w.key("number").value(a.signal);
	w.end_object();
}

void coroutine_json(JsonWriter &w, const Coroutine &co)
{
	w.begin_object();
	w.key("L").value(hex(co.L));
	if (co.resumed)
		w.key("resumed").value(hex(co.resumed));
	w.key("stack");
	lua_stack_json(w, co.stack);
	w.key("status").value(co.status);
	w.end_object();
}

void request_json(JsonWriter &w, const NginxRequest &r)
{
	w.begin_object();
	w.key("L").value(hex(r.L));
	w.key("client").value(r.client);
	w.key("found_by").value(r.found_by);
	w.key("host").value(r.host);
	w.key("method").value(r.method);
	w.key("request").value(hex(r.request));
	w.key("uri").value(r.uri);
	w.end_object();
}

void vm_json(JsonWriter &w, const VmResult &vm)
{
	w.begin_object();
	w.key("checks").value(vm.checks);
	w.key("coroutines").begin_array();
	for (auto &co : vm.coroutines)
		coroutine_json(w, co);
	w.end_array();
	w.key("current_thread").value(hex(vm.current_thread));
	// Only when there are some: the other states depend on the native
	// stacks, which regression fixtures leave out.
	if (!vm.entered.empty()) {
		w.key("entered").begin_array();
		for (auto &s : vm.entered)
			lua_stack_json(w, s);
		w.end_array();
	}
	w.key("found_by").value(vm.found_by);
	w.key("gc_total").value(vm.gc_total);
	w.key("global_state").value(hex(vm.global_state));
	w.key("layout").value(vm.layout);
	if (vm.layout_matches_version)
		w.key("layout_matches_version").value(*vm.layout_matches_version);
	w.key("layout_origin").value(vm.layout_origin);
	w.key("layout_source").value(vm.layout_source);
	w.key("main_thread").value(hex(vm.main_thread));
	// Only in an nginx worker's VM.
	if (!vm.requests.empty()) {
		w.key("requests").begin_array();
		for (auto &r : vm.requests)
			request_json(w, r);
		w.end_array();
	}
	w.key("stack");
	lua_stack_json(w, vm.stack);
	w.key("threads").begin_array();
	for (int32_t tid : vm.threads)
		w.value(tid);
	w.end_array();
	w.key("vmstate").value(vm.vmstate);
	w.key("vmstate_text").value(vm.vmstate_text);
	w.end_object();
}

void version_string_json(JsonWriter &w, const VersionString &vs)
{
	w.begin_object();
	w.key("address").value(hex(vs.addr));
	w.key("layouts").value(vs.layouts);
	w.key("module").value(vs.module);
	w.key("text").value(vs.text);
	w.end_object();
}

void lua_run_json(JsonWriter &w, const LuaRun &run)
{
	w.begin_object();
	w.key("L").value(hex(run.L));
	w.key("cframe").value(hex(run.cframe));
	w.key("count").value(run.count);
	w.key("first_level").value(run.first_level);
	if (run.native_frame)
		w.key("native_frame").value(*run.native_frame);
	w.key("vm").value(run.vm);
	w.end_object();
}

// The native frames of a thread, and where its Lua frames stand among them.
void thread_json(JsonWriter &w, const ThreadResult &t)
{
	w.begin_object();
	w.key("crashed").value(t.crashed);
	w.key("frames").begin_array();
	for (auto &f : t.frames) {
		w.begin_object();
		w.key("activation").value(f.activation);
		w.key("function").value(f.function);
		w.key("module").value(f.module);
		w.key("offset").value(f.offset);
		w.key("pc").value(hex(f.pc));
		w.end_object();
	}
	w.end_array();
	if (t.vm_frame)
		w.key("lua_below_frame").value(*t.vm_frame);
	w.key("lua_runs").begin_array();
	for (auto &run : t.lua_runs)
		lua_run_json(w, run);
	w.end_array();
	w.key("signal").value(t.signal);
	if (!t.stop_reason.empty())
		w.key("stop_reason").value(t.stop_reason);
	w.key("tid").value(t.tid);
	if (t.vm_frame)
		w.key("vm").value(*t.vm_index);
	w.end_object();
}

} // namespace

void render_json(std::ostream &out, const Analysis &a)
{
	JsonWriter w(out);
	w.begin_object();
	w.key("arch").value(a.arch);
	w.key("evidence").value(a.diagnostics.evidence());
	if (a.live)
		w.key("paused_us").value(a.paused_us);
	w.key("problems").value(a.diagnostics.problems());
	w.key("process").begin_object();
	w.key("args").value(a.process_args);
	w.key("name").value(a.process_name);
	w.key("pid").value(a.pid);
	w.end_object();
	w.key("schema_version").value(Analysis::schema_version);
	if (a.signal) {
		w.key("signal");
		signal_json(w, a);
	}
	w.key("source").value(a.source);
	w.key("threads").begin_array();
	for (auto &t : a.threads)
		thread_json(w, t);
	w.end_array();
	// Only when found: what a core alone holds rarely has it.
	if (a.version_string) {
		w.key("version_string");
		version_string_json(w, *a.version_string);
	}
	w.key("vms").begin_array();
	for (auto &vm : a.vms)
		vm_json(w, vm);
	w.end_array();
	w.end_object();
	w.finish();
}

} // namespace ljcore
