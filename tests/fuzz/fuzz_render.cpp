// Every renderer on the analysis of a core held in memory: the text
// report, the Lua-only text, debug.traceback's format, the JSON of
// analyze, traces and gc, each trace's IR and machine code listing, and
// print's value (text and JSON).
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "cli/render.h"
#include "cli/render_print.h"
#include "cli/render_trace.h"
#include "tests/fuzz/fuzz_options.h"
#include "tests/fuzz/memfd_file.h"

using namespace ljcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::MemfdFile file(data, size);
	auto a = analyze_core(file.path(), fuzz::everything());
	if (!a)
		return 0;
	std::ostringstream out;
	RenderOptions o;
	o.all = true;
	o.explain = true;
	render_text(out, *a, o);
	render_lua_text(out, *a, o);
	render_luajit(out, *a, o);
	render_gc(out, *a);
	render_trace_table(out, *a);
	for (auto &vm : a->vms)
		if (vm.traces)
			for (auto &t : vm.traces->traces)
				render_one_trace(out, *a, t.number, true, 0);
	render_json(out, *a);
	render_gc_json(out, *a);
	render_traces_json(out, *a, true);
	render_printed(out, out, *a);
	render_printed_json(out, *a);
	return 0;
}
