#include "cli/gc_diff.h"

#include <cinttypes>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "analyzer/gc/gc_diff.h"
#include "cli/exit_codes.h"
#include "cli/render.h"
#include "cli/render_bytes.h"

namespace ljcore {

namespace {

using nlohmann::json;

// Prefixes listed: the most grown ones, and those that shrank the most.
constexpr size_t listed_prefixes = 15;

std::string signed_bytes(int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%+" PRId64, v);
	return buf;
}

void diff_text(std::ostream &out, const GcDiff &d)
{
	out << "  g->gc.total " << d.total_before << " -> " << d.total_after << " ("
	    << signed_bytes(int64_t(d.total_after) - int64_t(d.total_before)) << " bytes)\n";
	char buf[128];
	snprintf(buf, sizeof buf, "  %-14s %12s %14s\n", "type", "count", "bytes");
	out << buf;
	for (size_t i = 0; i < gc_type_count; i++) {
		if (!d.types[i].count && !d.types[i].bytes)
			continue;
		snprintf(buf, sizeof buf, "  %-14s %12s %14s\n", gc_type_name(GcType(i)),
			 signed_bytes(d.types[i].count).c_str(),
			 signed_bytes(d.types[i].bytes).c_str());
		out << buf;
	}
	out << "growth by path (bytes first reached through each root and first key):\n";
	for (size_t i = 0; i < d.prefixes.size() && i < listed_prefixes; i++) {
		const GcPrefixGrowth &p = d.prefixes[i];
		if (!p.growth())
			break;
		snprintf(buf, sizeof buf, "  %14s  ", signed_bytes(p.growth()).c_str());
		out << buf << printable(p.prefix) << "  (" << p.before << " -> " << p.after
		    << ")\n";
	}
	if (!d.retained.empty())
		out << "growth of retained size by path (bytes only the object at each root and "
		       "first key keeps alive):\n";
	for (size_t i = 0; i < d.retained.size() && i < listed_prefixes; i++) {
		const GcPrefixGrowth &p = d.retained[i];
		if (!p.growth())
			break;
		snprintf(buf, sizeof buf, "  %14s  ", signed_bytes(p.growth()).c_str());
		out << buf << printable(p.prefix) << "  (" << p.before << " -> " << p.after
		    << ")\n";
	}
	if (!d.new_largest.empty())
		out << "largest objects whose path was not among the largest before:\n";
	for (auto &o : d.new_largest)
		out << "  " << gc_type_name(o.type) << " " << hex_address(o.addr) << " " << o.bytes
		    << " bytes  " << printable(o.path) << "\n";
}

json diff_json(const GcDiff &d)
{
	json types = json::object();
	for (size_t i = 0; i < gc_type_count; i++)
		types[gc_type_name(GcType(i))] = {{"count", d.types[i].count},
						  {"bytes", d.types[i].bytes}};
	auto growth_json = [](const std::vector<GcPrefixGrowth> &list) {
		json out = json::array();
		for (auto &p : list)
			out.push_back({{"prefix", p.prefix},
				       {"before", p.before},
				       {"after", p.after},
				       {"growth", p.growth()}});
		return out;
	};
	json fresh = json::array();
	for (auto &o : d.new_largest)
		fresh.push_back(
			{{"type", gc_type_name(o.type)}, {"bytes", o.bytes}, {"path", o.path}});
	return {{"gc_total_before", d.total_before},
		{"gc_total_after", d.total_after},
		{"types", types},
		{"prefixes", growth_json(d.prefixes)},
		{"retained", growth_json(d.retained)},
		{"new_largest", fresh}};
}

} // namespace

int gc_diff_command(const std::string &before, const std::string &after,
		    const AnalyzeOptions &options, bool json_out)
{
	auto a = analyze_core(before, options);
	auto b = a ? analyze_core(after, options) : a;
	if (!a || !b) {
		std::cerr << "ljcore: " << printable((a ? b : a).error().message) << "\n";
		return exit_unreadable;
	}
	std::vector<std::string> problems = a->diagnostics.problems();
	for (auto &p : b->diagnostics.problems())
		problems.push_back(p);
	if (a->vms.size() != b->vms.size())
		problems.push_back("the cores hold " + std::to_string(a->vms.size()) + " and " +
				   std::to_string(b->vms.size()) + " VMs: compared in order");
	json vms = json::array();
	for (size_t i = 0; i < a->vms.size() && i < b->vms.size(); i++) {
		if (!a->vms[i].gc || !b->vms[i].gc)
			continue;
		GcDiff d = gc_diff(*a->vms[i].gc, *b->vms[i].gc);
		if (json_out) {
			vms.push_back(diff_json(d));
		} else {
			std::cout << "VM " << i + 1 << ": " << hex_address(a->vms[i].global_state)
				  << " -> " << hex_address(b->vms[i].global_state) << "\n";
			diff_text(std::cout, d);
		}
	}
	if (json_out)
		print_json(std::cout, {{"schema_version", Analysis::schema_version},
				       {"before", before},
				       {"after", after},
				       {"vms", vms},
				       {"problems", problems}});
	else
		for (auto &p : problems)
			std::cerr << "ljcore: " << printable(p) << "\n";
	if (a->vms.empty() || b->vms.empty())
		return exit_no_vm;
	return problems.empty() ? exit_ok : exit_partial;
}

} // namespace ljcore
