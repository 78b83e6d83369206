#include "cli/fixture.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "analyzer/snapshot.h"
#include "cli/exit_codes.h"
#include "cli/render.h"
#include "cli/render_trace.h"

namespace ljcore {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int fixture_schema = 1;
constexpr const char *core_name = "core.zst";
constexpr const char *expected_name = "expected.json";
constexpr const char *manifest_name = "manifest.json";

// What a fixture pins down: the Lua truth of the core, and with traces
// each VM's JIT traces as `ljcore traces --json` has them (its snapshot
// keeps their machine code, so `ljcore trace N --mcode` works on it too). Left out is
// what depends on the machine that checks it (native frames and symbols
// come from files on disk, paths, how the VM happened to be found first).
json fixture_view(const Analysis &a, bool traces)
{
	json full = analysis_json(a);
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
	for (auto &vm : v["vms"]) {
		vm.erase("found_by");
		vm.erase("checks");
		vm.erase("layout_source");
		auto strip = [](json &stack) {
			for (auto &f : stack["frames"])
				f.erase("c_symbol");
		};
		strip(vm["stack"]);
		for (auto &co : vm["coroutines"])
			strip(co["stack"]);
	}
	if (traces)
		for (size_t i = 0; i < a.vms.size() && i < v["vms"].size(); i++)
			if (a.vms[i].traces)
				v["vms"][i]["traces"] = trace_set_json(*a.vms[i].traces, false);
	return v;
}

json read_json(const fs::path &p)
{
	std::ifstream in(p);
	return json::parse(in, nullptr, false);
}

// Whether the fixture's manifest asks for the traces to be pinned too.
bool pins_traces(const fs::path &dir)
{
	json manifest = read_json(dir / manifest_name);
	return manifest.is_object() && manifest.value("traces", false);
}

Expected<json> analyze_fixture(const fs::path &dir, bool traces)
{
	AnalyzeOptions opts;
	opts.all_coroutines = true;
	opts.traces = traces;
	opts.mcode = traces; // what the trace table reads from the code (exits)
	auto a = analyze_core((dir / core_name).string(), opts);
	if (!a)
		return std::unexpected(a.error());
	return fixture_view(*a, traces);
}

std::vector<fs::path> find_fixtures(const std::vector<std::string> &roots)
{
	std::vector<fs::path> out;
	for (auto &root : roots) {
		std::error_code ec;
		if (fs::exists(fs::path(root) / manifest_name)) {
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

void write_json(const fs::path &p, const json &j)
{
	std::ofstream(p) << j.dump(2) << "\n";
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
			std::cout << "  " << path << ": expected " << before.dump() << ", got "
				  << op["value"].dump() << "\n";
		else if (what == "add")
			std::cout << "  " << path << ": new " << op["value"].dump() << "\n";
		else
			std::cout << "  " << path << ": gone (was " << before.dump() << ")\n";
	}
}

} // namespace

int fixture_new(const FixtureNew &f)
{
	fs::create_directories(f.dir);
	fs::path dir(f.dir);
	AnalyzeOptions options = f.options;
	options.traces = f.traces;
	options.mcode = f.traces;
	auto snap = snapshot_core(f.core, (dir / core_name).string(), options);
	if (!snap) {
		std::cerr << "ljcore: " << snap.error().message << "\n";
		return exit_unreadable;
	}
	auto view = analyze_fixture(dir, f.traces);
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
					 {"traces", f.traces},
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
		auto actual = analyze_fixture(dir, pins_traces(dir));
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
		auto actual = analyze_fixture(dir, pins_traces(dir));
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
