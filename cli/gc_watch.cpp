#include "cli/gc_watch.h"

#include <atomic>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "analyzer/model/analysis.h"
#include "cli/exit_codes.h"
#include "cli/profile_failure.h"
#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

namespace {

using nlohmann::json;

std::atomic<bool> interrupted{false};

void on_interrupt(int)
{
	interrupted = true;
}

// Ctrl-C and SIGTERM end the command after the snapshot under way, whose
// process runs again as it ends (and the kernel resumes a process whose
// tracer dies, should a harder signal come).
std::function<bool()> stop_on_signals()
{
	struct sigaction sa {};
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	return [] { return interrupted.load(); };
}

int status_of(const Diagnostics &d)
{
	for (const Diagnostics::Entry &said : d.entries())
		if (said.kind != Diagnostics::Kind::evidence)
			std::cerr << "ljcore: " << printable(said.text) << "\n";
	return d.problems().empty() ? exit_ok : exit_partial;
}

std::string fixed(double v, int decimals)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%.*f", decimals, v);
	return buf;
}

std::string signed_bytes(int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%+" PRId64, v);
	return buf;
}

void watch_text(std::ostream &out, const HeapWatch &w)
{
	if (w.stopped_early)
		out << "interrupted: the snapshots taken until then\n";
	for (const WatchedVm &vm : w.vms) {
		out << "process " << vm.pid << ", VM " << hex_address(vm.global_state) << ": "
		    << vm.snapshots.size() << " snapshots\n";
		char buf[160];
		snprintf(buf, sizeof buf, "  %8s %8s %12s %14s %14s\n", "snapshot", "at (s)",
			 "paused (ms)", "copied bytes", "g->gc.total");
		out << buf;
		for (size_t i = 0; i < vm.snapshots.size(); i++) {
			const HeapSnapshot &s = vm.snapshots[i];
			snprintf(buf, sizeof buf, "  %8zu %8s %12s %14" PRIu64 " %14" PRIu64 "%s\n",
				 i + 1, fixed(s.at_s, 1).c_str(),
				 fixed(double(s.paused_us) / 1000, 1).c_str(), s.copied_bytes,
				 s.gc_total, s.complete ? "" : "  (incomplete)");
			out << buf;
		}
		if (vm.snapshots.size() < 2) {
			out << "  fewer than two snapshots: no growth to tell\n";
			continue;
		}
		out << "paths that grew in every interval (" << w.measure << "):\n";
		if (vm.growing.empty())
			out << "  none\n";
		for (const GrowingPath &g : vm.growing) {
			snprintf(buf, sizeof buf, "  %14s  ", signed_bytes(g.growth()).c_str());
			out << buf << printable(g.path) << "  (";
			for (size_t i = 0; i < g.bytes.size(); i++)
				out << (i ? " -> " : "") << g.bytes[i];
			out << ")\n";
		}
	}
}

json watch_json(const HeapWatch &w, const HeapWatchOptions &o)
{
	json vms = json::array();
	for (const WatchedVm &vm : w.vms) {
		json snapshots = json::array();
		for (const HeapSnapshot &s : vm.snapshots)
			snapshots.push_back({{"at_s", s.at_s},
					     {"paused_us", s.paused_us},
					     {"copied_bytes", s.copied_bytes},
					     {"gc_total", s.gc_total},
					     {"complete", s.complete}});
		json growing = json::array();
		for (const GrowingPath &g : vm.growing)
			growing.push_back(
				{{"path", g.path}, {"bytes", g.bytes}, {"growth", g.growth()}});
		vms.push_back({{"pid", vm.pid},
			       {"global_state", vm.global_state},
			       {"snapshots", snapshots},
			       {"growing", growing}});
	}
	return {{"schema_version", Analysis::schema_version},
		{"pid", o.pid},
		{"every_s", o.every_s},
		{"count", o.count},
		{"measure", w.measure},
		{"stopped_early", w.stopped_early},
		{"vms", vms},
		{"problems", w.diagnostics.problems()}};
}

std::string stack_text(const std::vector<ProfileFrame> &stack)
{
	// Innermost first, as a traceback reads.
	std::string s;
	for (size_t i = stack.size(); i-- > 0;)
		s += (s.empty() ? "" : " <- ") + profile_frame_label(stack[i]);
	return s.empty() ? "?" : s;
}

std::string holder_text(const AllocHolder &h)
{
	switch (h.kind) {
	case AllocHolder::Kind::elsewhere:
		return "elsewhere: reached, but under none of the objects above";
	case AllocHolder::Kind::garbage:
		return "garbage: reached from no root, not swept yet";
	case AllocHolder::Kind::object:
		break;
	}
	return std::string(gc_type_name(h.type)) + " " + hex_address(h.address) + ", retains " +
	       std::to_string(h.retained_bytes) + " bytes: " + printable(h.path);
}

void sites_text(std::ostream &out, const AllocSites &a)
{
	out << "sampled allocations not freed by the end (one sample per " << a.profile.sample_bytes
	    << " bytes), under the objects of the largest retained sizes, by the Lua stack "
	       "that allocated them\n";
	for (const AllocSitesVm &vm : a.vms) {
		out << "process " << vm.pid << ", VM " << hex_address(vm.global_state);
		if (vm.holders.empty()) {
			out << ": no sampled allocation left\n";
			continue;
		}
		out << " (stopped " << fixed(double(vm.paused_us) / 1000, 1)
		    << " ms to copy the heap)\n";
		for (const AllocHolder &h : vm.holders) {
			out << "  " << uint64_t(h.bytes) << " bytes in " << h.blocks
			    << " sampled blocks under " << holder_text(h) << "\n";
			for (const AllocSite &s : h.sites)
				out << "    " << uint64_t(s.bytes) << "  " << stack_text(s.stack)
				    << "\n";
		}
	}
}

json sites_json(const AllocSites &a)
{
	json vms = json::array();
	for (const AllocSitesVm &vm : a.vms) {
		json holders = json::array();
		for (const AllocHolder &h : vm.holders) {
			json sites = json::array();
			for (const AllocSite &s : h.sites) {
				json frames = json::array();
				for (const ProfileFrame &f : s.stack)
					frames.push_back(profile_frame_label(f));
				sites.push_back({{"bytes", uint64_t(s.bytes)},
						 {"blocks", s.blocks},
						 {"stack", frames}});
			}
			json holder = {{"bytes", uint64_t(h.bytes)},
				       {"blocks", h.blocks},
				       {"sites", sites}};
			if (h.kind == AllocHolder::Kind::object) {
				holder["kind"] = "object";
				holder["address"] = h.address;
				holder["type"] = gc_type_name(h.type);
				holder["retained_bytes"] = h.retained_bytes;
				holder["path"] = h.path;
			} else {
				holder["kind"] = h.kind == AllocHolder::Kind::elsewhere
							 ? "elsewhere"
							 : "garbage";
			}
			holders.push_back(holder);
		}
		vms.push_back({{"pid", vm.pid},
			       {"global_state", vm.global_state},
			       {"paused_us", vm.paused_us},
			       {"complete", vm.complete},
			       {"holders", holders}});
	}
	return {{"schema_version", Analysis::schema_version},
		{"pid", a.profile.pid},
		{"duration_s", a.profile.duration_s},
		{"sample_bytes", a.profile.sample_bytes},
		{"vms", vms},
		{"problems", a.profile.diagnostics.problems()}};
}

} // namespace

std::optional<double> parse_duration(const std::string &s)
{
	size_t used = 0;
	double v = 0;
	try {
		v = std::stod(s, &used);
	} catch (const std::exception &) {
		return std::nullopt;
	}
	const std::string unit = s.substr(used);
	double scale = unit.empty() || unit == "s" ? 1
		       : unit == "ms"              ? 0.001
		       : unit == "m"               ? 60
		       : unit == "h"               ? 3600
						   : -1;
	if (scale < 0 || !(v > 0) || v * scale > 1e7)
		return std::nullopt;
	return v * scale;
}

int gc_watch_command(HeapWatchOptions options, bool json_out)
{
	options.stop = stop_on_signals();
	if (isatty(STDERR_FILENO))
		options.progress = [](int32_t pid, size_t n) {
			std::cerr << "\rljcore: process " << pid << ": snapshot " << n
				  << std::flush;
		};
	auto w = watch_heap(options);
	if (isatty(STDERR_FILENO))
		std::cerr << "\r\033[K";
	if (!w)
		return report_profile_failure(w.error());
	if (json_out)
		print_json(std::cout, watch_json(*w, options));
	else
		watch_text(std::cout, *w);
	return status_of(w->diagnostics);
}

int gc_alloc_sites_command(ProfileOptions options, size_t top, bool json_out)
{
	options.stop = stop_on_signals();
	auto a = alloc_sites(options, top);
	if (!a)
		return report_profile_failure(a.error());
	if (json_out)
		print_json(std::cout, sites_json(*a));
	else
		sites_text(std::cout, *a);
	return status_of(a->profile.diagnostics);
}

} // namespace ljcore
