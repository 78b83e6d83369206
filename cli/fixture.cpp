#include "cli/fixture.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analyzer/snapshot.h"
#include "cli/exit_codes.h"
#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_trace.h"

namespace ljcore {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// 2: expected.json also holds each VM's traces and GC heap census.
// 3: a VM's stack only where no coroutine has it already; cores keep only
// the 4-byte words read, and of modules only their ELF headers.
constexpr int fixture_schema = 3;
constexpr const char *core_name = "core.zst";
constexpr const char *expected_name = "expected.json";
constexpr const char *manifest_name = "manifest.json";

// What a fixture reads: every coroutine, the JIT's traces with what the
// trace table takes from their machine code (so the minimized core keeps
// it and `ljcore trace N --mcode` works on it), and a census of the heap.
AnalyzeOptions fixture_options(AnalyzeOptions options)
{
	options.all_coroutines = true;
	options.traces = true;
	options.mcode = true;
	options.gc = GcCensusOptions{.top = 5, .top_strings = 3, .paths = false};
	return options;
}

// What a fixture pins down: the Lua truth of the core (bt --all), each
// VM's traces as `ljcore traces --json` has them less the disassembly
// text, and its GC census as `ljcore gc --json` has it. Left out is what
// depends on the machine that checks it (native frames and symbols come
// from files on disk, paths, how the VM happened to be found first).
template <typename Render> json reread(Render render)
{
	std::stringstream text;
	render(text);
	return json::parse(text, nullptr, false);
}

json fixture_view(const Analysis &a)
{
	json full = reread([&](std::ostream &out) { render_json(out, a); });
	json traces = reread([&](std::ostream &out) { render_traces_json(out, a, false); });
	json gc = reread([&](std::ostream &out) { render_gc_json(out, a); });
	json v;
	v["fixture_schema"] = fixture_schema;
	v["arch"] = full["arch"];
	v["process"] = full["process"];
	if (full.contains("signal"))
		v["signal"] = full["signal"];
	json tids = json::array();
	for (auto &t : full["threads"])
		tids.push_back(t["tid"]);
	v["threads"] = tids;
	v["vms"] = full["vms"];
	for (size_t i = 0; i < v["vms"].size(); i++) {
		json &vm = v["vms"][i];
		for (const char *name :
		     {"found_by", "threads", "checks", "layout_source", "layout_origin"}) {
			vm.erase(name);
			vm.erase(std::string(name) + "_hex");
		}
		auto strip = [](json &stack) {
			for (auto &f : stack["frames"]) {
				f.erase("c_symbol");
				f.erase("c_symbol_hex");
			}
		};
		strip(vm["stack"]);
		for (auto &co : vm["coroutines"])
			strip(co["stack"]);
		// The running coroutine's stack is also in the list: once is enough.
		for (auto &co : vm["coroutines"])
			if (co["stack"] == vm["stack"]) {
				vm.erase("stack");
				break;
			}
		if (i < a.vms.size() && a.vms[i].traces)
			vm["traces"] = traces["vms"][i]["traces"];
		if (i < a.vms.size() && a.vms[i].gc)
			vm["gc"] = gc["vms"][i]["gc"];
	}
	return v;
}

json read_json(const fs::path &p)
{
	std::ifstream in(p);
	return json::parse(in, nullptr, false);
}

Expected<json> analyze_fixture(const fs::path &dir)
{
	// The fixture's core alone, not the files this machine happens to have.
	AnalyzeOptions options = fixture_options({});
	options.lookup.core_only = true;
	auto a = analyze_core((dir / core_name).string(), options);
	if (!a)
		return std::unexpected(a.error());
	return fixture_view(*a);
}

// A fixture of another schema pins other things: remade, not compared.
Expected<json> reanalyze_fixture(const fs::path &dir)
{
	json manifest = read_json(dir / manifest_name);
	const json *field = manifest.is_object() && manifest.contains("fixture_schema")
				    ? &manifest["fixture_schema"]
				    : nullptr;
	int schema = field && field->is_number_integer() ? field->get<int>() : 0;
	if (schema != fixture_schema)
		return fail("fixture_schema " + std::to_string(schema) + ", this ljcore reads " +
			    std::to_string(fixture_schema) +
			    ": remake it (tools/make-fixtures.sh)");
	return analyze_fixture(dir);
}

std::vector<fs::path> find_fixtures(const std::vector<std::string> &roots)
{
	std::vector<fs::path> out;
	for (auto &root : roots) {
		std::error_code ec;
		if (fs::exists(fs::path(root) / manifest_name, ec)) {
			out.push_back(root);
			continue;
		}
		for (auto it = fs::recursive_directory_iterator(root, ec);
		     !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
			if (it->path().filename() == manifest_name)
				out.push_back(it->path().parent_path());
	}
	std::sort(out.begin(), out.end());
	return out;
}

// Encoded strings are UTF-8: replace never acts, but never throws either.
std::string one_line(const json &j)
{
	return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_leaf(const json &j)
{
	if (!j.is_structured())
		return true;
	return std::all_of(j.begin(), j.end(), [](const json &m) { return !m.is_structured(); });
}

// Indented JSON, except that an object or array of plain values (a frame,
// an IR instruction, a census line) stays on one line: a third of the size
// of dump(2), and a change shows as one changed line in a review's diff.
// The top level is always spread out, one member per line.
void write_compact(std::ostream &out, const json &j, int depth)
{
	if (is_leaf(j) && (depth > 0 || j.empty())) {
		out << one_line(j);
		return;
	}
	const std::string indent(size_t(2 * (depth + 1)), ' ');
	const bool object = j.is_object();
	out << (object ? "{\n" : "[\n");
	bool first = true;
	for (auto it = j.begin(); it != j.end(); ++it) {
		out << (first ? "" : ",\n") << indent;
		first = false;
		if (object)
			out << one_line(it.key()) << ": ";
		write_compact(out, *it, depth + 1);
	}
	out << "\n" << std::string(size_t(2 * depth), ' ') << (object ? "}" : "]");
}

void write_json(const fs::path &p, const json &j)
{
	std::ofstream out(p);
	write_compact(out, j, 0);
	out << "\n";
}

// "/vms/0/stack/frames/2/name: expected "f", got "g"" for each change.
void print_changes(const json &expected, const json &actual)
{
	for (auto &op : json::diff(expected, actual)) {
		std::string path = op["path"];
		std::string what = op["op"];
		json before = expected.contains(json::json_pointer(path))
				      ? expected[json::json_pointer(path)]
				      : json();
		if (what == "replace")
			std::cout << "  " << path << ": expected " << one_line(before) << ", got "
				  << one_line(op["value"]) << "\n";
		else if (what == "add")
			std::cout << "  " << path << ": new " << one_line(op["value"]) << "\n";
		else
			std::cout << "  " << path << ": gone (was " << one_line(before) << ")\n";
	}
}

} // namespace

int fixture_new(const FixtureNew &f)
{
	std::error_code ec;
	fs::create_directories(f.dir, ec);
	if (ec) {
		std::cerr << "ljcore: " << f.dir << ": " << ec.message() << "\n";
		return exit_unreadable;
	}
	fs::path dir(f.dir);
	auto snap =
		snapshot_core(f.core, (dir / core_name).string(), fixture_options(f.options), true);
	if (!snap) {
		std::cerr << "ljcore: " << snap.error().message << "\n";
		return exit_unreadable;
	}
	auto view = analyze_fixture(dir);
	if (!view) {
		std::cerr << "ljcore: " << view.error().message << "\n";
		return exit_unreadable;
	}
	write_json(dir / expected_name, *view);
	write_json(dir / manifest_name, {{"fixture_schema", fixture_schema},
					 {"scenario", f.scenario},
					 {"flavour", f.flavour},
					 {"arch", (*view)["arch"]},
					 {"made_by", f.made_by},
					 {"source_core_bytes", snap->source_bytes},
					 {"core_bytes", snap->bytes}});
	std::cout << f.dir << ": " << snap->bytes << " bytes (from " << snap->source_bytes << ")\n";
	return exit_ok;
}

int fixture_check(const std::vector<std::string> &roots)
{
	auto dirs = find_fixtures(roots);
	if (dirs.empty()) {
		std::cerr << "ljcore: no fixtures (" << manifest_name
			  << ") under the given paths\n";
		return exit_usage;
	}
	int changed = 0;
	for (auto &dir : dirs) {
		json expected = read_json(dir / expected_name);
		auto actual = reanalyze_fixture(dir);
		if (!actual) {
			std::cout << "FAIL " << dir.string() << ": " << actual.error().message
				  << "\n";
			changed++;
		} else if (expected.is_discarded()) {
			std::cout << "FAIL " << dir.string() << ": " << expected_name
				  << " unreadable\n";
			changed++;
		} else if (*actual != expected) {
			std::cout << "FAIL " << dir.string() << ":\n";
			print_changes(expected, *actual);
			changed++;
		}
	}
	std::cout << dirs.size() - size_t(changed) << " of " << dirs.size()
		  << " fixtures unchanged\n";
	return changed ? exit_partial : exit_ok;
}

int fixture_update(const std::vector<std::string> &roots)
{
	auto dirs = find_fixtures(roots);
	for (auto &dir : dirs) {
		auto actual = reanalyze_fixture(dir);
		if (!actual) {
			std::cerr << "ljcore: " << dir.string() << ": " << actual.error().message
				  << "\n";
			return exit_unreadable;
		}
		write_json(dir / expected_name, *actual);
		std::cout << "updated " << dir.string() << "\n";
	}
	return dirs.empty() ? exit_usage : exit_ok;
}

} // namespace ljcore
