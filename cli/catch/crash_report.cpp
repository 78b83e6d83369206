#include "cli/catch/crash_report.h"

#include <iostream>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/snapshot.h"
#include "cli/catch/files.h"
#include "cli/catch/redact.h"
#include "cli/render.h"
#include "cli/run_analysis.h"

namespace ljcore::catching {

namespace {

// The innermost Lua frame of the VM's running coroutine, as
// debug.traceback writes it ("x.lua:5: in function 'f'"), or "".
std::string innermost_lua_frame(const Analysis &a)
{
	for (const VmResult &vm : a.vms)
		for (const LuaFrame &f : vm.stack.frames) {
			if (f.what == "C")
				continue;
			LuaStack one;
			one.frames.push_back(f);
			std::ostringstream text;
			luajit_traceback(text, one, 0);
			std::string line = text.str();
			auto tab = line.find('\t');
			line = tab == std::string::npos ? line : line.substr(tab + 1);
			while (!line.empty() && line.back() == '\n')
				line.pop_back();
			return line;
		}
	return "";
}

std::string crash_text(const CrashFacts &facts, const Analysis &a, const std::string &left_out)
{
	struct tm tm;
	gmtime_r(&facts.time, &tm);
	char when[32];
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	std::ostringstream out;
	out << "time: " << when << "\n"
	    << "comm: " << facts.comm << "\n"
	    << "exe: " << facts.exe << "\n"
	    << "pid: " << facts.host_pid << "\n"
	    << "namespace pid: " << facts.ns_pid << "\n"
	    << "signal: " << signal_name(a.signal ? a.signal : facts.signal) << "\n"
	    << "lua: " << innermost_lua_frame(a) << "\n";
	if (!left_out.empty())
		out << "left out: " << left_out << "\n";
	return out.str();
}

} // namespace

int write_crash_report(const CrashFacts &facts, const std::string &head_path,
		       const std::string &sysroot, const Memory &memory, int out_dir,
		       const Settings &settings)
{
	InputOptions in;
	in.sysroot = sysroot;
	LocalsFlags locals;
	locals.locals = "on";
	if (settings.redact)
		locals.limits.max_string = 0; // strings as their lengths
	AnalyzeOptions options = stack_options(in, true, locals);
	auto session = open_core_head(head_path, options.lookup, memory);
	if (!session) {
		std::cerr << "ljcore catch: " << session.error().message << "\n";
		return report_unreadable;
	}
	Analysis a = analyze_target(*session->core, *session->native, options);
	if (a.vms.empty())
		return report_no_vm;
	a.source = "process " + std::to_string(facts.host_pid) + " (" + facts.comm + ")";
	Redaction redaction;
	if (settings.redact)
		redaction = redact(a, memory);
	// The snapshot's bytes, with what --redact keeps out written as zeros.
	auto image_of = [&](const AnalyzeOptions &o) {
		CoreContents contents = snapshot_contents(*session, o);
		if (settings.redact)
			scrub(contents.memory, redaction);
		return core_image(contents);
	};

	std::ostringstream text, json;
	render_text(text, a, {.explain = false, .all = true});
	render_json(json, a);
	// The cap holds the report first, then the snapshot: the text is what
	// someone reads first, the snapshot what they open next.
	uint64_t budget = settings.size_cap;
	std::string left_out;
	auto write_capped = [&](const std::string &name, std::span<const std::byte> bytes) {
		if (bytes.size() > budget) {
			left_out += (left_out.empty() ? "" : ", ") + name + " (" +
				    std::to_string(bytes.size()) + " bytes, over the size cap)";
			return true;
		}
		budget -= bytes.size();
		if (auto r = write_new_file(out_dir, name, bytes); !r) {
			std::cerr << "ljcore catch: " << r.error().message << "\n";
			return false;
		}
		return true;
	};
	auto as_bytes = [](const std::string &s) { return std::as_bytes(std::span(s)); };
	if (!write_capped("report.txt", as_bytes(text.str())) ||
	    !write_capped("report.json", as_bytes(json.str())))
		return report_not_written;
	// Every coroutine's stack keeps a page of every object the heap walk
	// read: over the cap, the running coroutine's alone. A heap larger
	// than the cap is not even tried (its walk would keep most of it).
	uint64_t heap = 0;
	for (const VmResult &vm : a.vms)
		heap += vm.gc_total;
	Expected<std::vector<std::byte>> image = fail("not made");
	if (heap <= budget)
		image = image_of(options);
	if (heap > budget || (image && image->size() > budget)) {
		left_out +=
			(left_out.empty() ? "" : ", ") +
			std::string("from snapshot.core: the stacks of coroutines not running (") +
			(heap > budget ? "a heap of " + std::to_string(heap) + " bytes"
				       : std::to_string(image->size()) + " bytes with them") +
			", over the size cap)";
		AnalyzeOptions running = options;
		running.all_coroutines = false;
		image = image_of(running);
	}
	if (redaction.not_searched)
		left_out += (left_out.empty() ? "" : ", ") + std::string("copies of ") +
			    std::to_string(redaction.not_searched) +
			    " redacted strings not searched for (too long or unreadable)";
	if (!image)
		left_out += (left_out.empty() ? "" : ", ") + std::string("snapshot.core (") +
			    image.error().message + ")";
	else if (!write_capped("snapshot.core", *image))
		return report_not_written;
	if (auto r = write_new_file(out_dir, crash_file, crash_text(facts, a, left_out)); !r) {
		std::cerr << "ljcore catch: " << r.error().message << "\n";
		return report_not_written;
	}
	return report_written;
}

} // namespace ljcore::catching
