// ljcore gc: the heap census of each VM, as text or JSON.
#include <cinttypes>
#include <cstdio>

#include "cli/json_writer.h"
#include "cli/render.h"
#include "cli/render_bytes.h"

namespace ljcore {

namespace {

using nlohmann::json;

// What part1/part2 of GcTypeStats mean for a type, or nullptr.
const char *part_name(GcType t, int part)
{
	switch (t) {
	case GcType::table:
		return part == 1 ? "array" : "hash";
	case GcType::thread:
		return part == 1 ? "stacks" : nullptr;
	case GcType::trace:
		return part == 1 ? "IR" : "snapshots";
	default:
		return nullptr;
	}
}

std::string line(const char *fmt, auto... args)
{
	char buf[256];
	snprintf(buf, sizeof buf, fmt, args...);
	return buf;
}

void census_text(std::ostream &out, const GcCensus &c)
{
	out << line("  %-14s %12s %32s\n", "type", "count", "bytes");
	for (size_t i = 0; i < gc_type_count; i++) {
		const GcTypeStats &s = c.types[i];
		GcType t = GcType(i);
		out << line("  %-14s %12" PRIu64 " %32" PRIu64, gc_type_name(t), s.count, s.bytes);
		std::string parts;
		for (int p = 1; p <= 2; p++)
			if (const char *name = part_name(t, p))
				parts += std::string(parts.empty() ? "" : ", ") + name + " " +
					 std::to_string(p == 1 ? s.part1 : s.part2);
		if (t == GcType::trace && s.count)
			parts += ", machine code " + std::to_string(s.outside) +
				 " outside the GC total";
		if (!parts.empty() && s.count)
			out << "  (" << parts << ")";
		out << "\n";
	}
	out << line("  %-14s %12" PRIu64 " %32" PRIu64 "\n", "objects", c.object_count(),
		    c.object_bytes());
	for (auto &o : c.overheads)
		out << line("  + %-56s %14" PRIu64 "\n", printable(o.what).c_str(), o.bytes);
	out << line("  = %-56s %14" PRIu64 "\n", "accounted for",
		    c.object_bytes() + c.overhead_bytes());
	out << line("  %-58s %14" PRIu64 "\n", "g->gc.total", c.gc_total);
	if (c.unexplained())
		out << "  unexplained: " << c.unexplained()
		    << " bytes (memory the census does not know: string buffers of "
		       "the buffer library, parser state, a GC in progress)\n";
}

void strings_text(std::ostream &out, const GcStringTable &st)
{
	out << "string table: " << st.strings << " strings (g->str.num " << st.num << "), "
	    << st.bytes << " bytes, " << st.buckets << " buckets, " << st.used << " used, load "
	    << line("%.2f", st.buckets ? double(st.num) / double(st.buckets) : 0.0)
	    << ", longest chain " << st.longest << "\n";
	for (auto &s : st.largest) {
		out << "  " << hex_address(s.addr) << " " << s.bytes << " bytes  "
		    << printable(s.detail) << "\n";
		if (!s.path.empty())
			out << "      " << printable(s.path) << "\n";
	}
}

void top_text(std::ostream &out, const GcCensus &c)
{
	out << "largest objects:\n";
	size_t i = 1;
	for (auto &o : c.top) {
		out << line("  %2zu. %-12s %s %12" PRIu64 " bytes", i++, gc_type_name(o.type),
			    hex_address(o.addr).c_str(), o.bytes);
		if (!o.detail.empty())
			out << "  " << printable(o.detail);
		out << "\n";
		if (!o.path.empty())
			out << "      " << printable(o.path) << "\n";
	}
	if (!c.paths_complete)
		out << "  (paths: the search stopped at its bound; objects without a path "
		       "may still be reachable)\n";
}

json object_json(const GcObject &o)
{
	json j = {{"address", hex(o.addr)},
		  {"type", gc_type_name(o.type)},
		  {"bytes", o.bytes},
		  {"detail", o.detail}};
	if (!o.path.empty())
		j["path"] = o.path;
	return j;
}

json gc_census_json(const GcCensus &c)
{
	json types = json::object();
	for (size_t i = 0; i < gc_type_count; i++) {
		const GcTypeStats &s = c.types[i];
		GcType t = GcType(i);
		json j = {{"count", s.count}, {"bytes", s.bytes}};
		for (int p = 1; p <= 2; p++)
			if (const char *name = part_name(t, p))
				j[std::string(name) + "_bytes"] = p == 1 ? s.part1 : s.part2;
		if (t == GcType::trace)
			j["mcode_bytes"] = s.outside;
		types[gc_type_name(t)] = j;
	}
	json overheads = json::array();
	for (auto &o : c.overheads)
		overheads.push_back({{"what", o.what}, {"bytes", o.bytes}});
	json strings = {{"buckets", c.strings.buckets}, {"num", c.strings.num},
			{"used", c.strings.used},       {"longest_chain", c.strings.longest},
			{"strings", c.strings.strings}, {"bytes", c.strings.bytes},
			{"largest", json::array()}};
	for (auto &s : c.strings.largest)
		strings["largest"].push_back(object_json(s));
	json top = json::array();
	for (auto &o : c.top)
		top.push_back(object_json(o));
	json j = {{"gc_total", c.gc_total},
		  {"objects", c.object_count()},
		  {"object_bytes", c.object_bytes()},
		  {"overhead_bytes", c.overhead_bytes()},
		  {"unexplained_bytes", c.unexplained()},
		  {"types", types},
		  {"overheads", overheads},
		  {"strings", strings},
		  {"top", top},
		  {"complete", c.complete},
		  {"problems", c.diagnostics.problems()}};
	if (!c.by_prefix.empty()) {
		j["by_path_prefix"] = c.by_prefix;
		j["paths_complete"] = c.paths_complete;
	}
	return j;
}

} // namespace

void render_gc(std::ostream &out, const Analysis &a)
{
	for (auto &vm : a.vms) {
		out << "VM " << hex_address(vm.global_state) << "  " << printable(vm.layout)
		    << "\n";
		if (!vm.gc) {
			out << "  (no census)\n";
			continue;
		}
		census_text(out, *vm.gc);
		strings_text(out, vm.gc->strings);
		top_text(out, *vm.gc);
		if (vm.gc->retained)
			render_gc_retained(out, *vm.gc->retained);
	}
}

void render_gc_json(std::ostream &out, const Analysis &a)
{
	// Streamed, VM by VM; members in name order, as the writer needs.
	JsonWriter w(out);
	w.begin_object();
	w.key("problems").value(a.diagnostics.problems());
	w.key("schema_version").value(Analysis::schema_version);
	w.key("source").value(a.source);
	w.key("vms").begin_array();
	for (auto &vm : a.vms) {
		w.begin_object();
		// A census is as big as its top lists, whatever the heap's size.
		if (vm.gc) {
			json census = gc_census_json(*vm.gc);
			if (vm.gc->retained) {
				const GcRetained &r = *vm.gc->retained;
				census["retained"] = {{"objects", r.objects},
						      {"objects_listed", r.objects_listed},
						      {"reachable_bytes", r.reachable_bytes},
						      {"complete", r.complete}};
			}
			w.key("gc").value(std::move(census));
		}
		w.key("global_state").value(hex(vm.global_state));
		w.key("layout").value(vm.layout);
		// "retained" sorts after "layout".
		if (vm.gc && vm.gc->retained)
			w.key("retained").value(gc_retained_json(*vm.gc->retained));
		w.end_object();
	}
	w.end_array();
	w.end_object();
	w.finish();
}

} // namespace ljcore
