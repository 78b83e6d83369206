#include "analyzer/heap_watch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include "analyzer/gc/gc_census.h"
#include "analyzer/gc/gc_paths.h"
#include "analyzer/gc/retained.h"
#include "analyzer/lua/global_state.h"
#include "readers/small_file.h"

namespace ljcore {

namespace {

using Clock = std::chrono::steady_clock;

// Whether longer names a path under path: path, then a step of its own.
bool is_under(const std::string &longer, const std::string &path)
{
	return longer.size() > path.size() && longer.starts_with(path) &&
	       std::string_view(".[<?").find(longer[path.size()]) != std::string_view::npos;
}

// Copies of a torn heap taken before the last one is kept (freeze_heap).
constexpr uint32_t max_stops = 4;

// The nanoseconds thread tid of pid has spent on a CPU (the first field of
// /proc/PID/task/TID/schedstat), where the kernel keeps the count.
std::optional<uint64_t> cpu_time_ns(int32_t pid, uint32_t tid)
{
	auto text = read_small_file("/proc/" + std::to_string(pid) + "/task/" +
				    std::to_string(tid) + "/schedstat");
	if (!text)
		return std::nullopt;
	char *end = nullptr;
	const uint64_t ns = strtoull(text->c_str(), &end, 10);
	return end != text->c_str() ? std::optional(ns) : std::nullopt;
}

// Until the thread has run past ran_ns (out of the update a stop caught it
// in), a tenth of a second at most: on a loaded machine a resumed thread
// may wait for a CPU longer than it takes to stop it again.
void wait_until_ran(int32_t pid, uint32_t tid, std::optional<uint64_t> ran_ns)
{
	for (int polls = 0; ran_ns && polls < 100; polls++) {
		const auto now = cpu_time_ns(pid, tid);
		if (!now || *now > *ran_ns)
			return;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
}

// One stop: the process's writable memory copied, the process resumed.
Expected<FrozenHeap> freeze_once(const ProfiledProcess &proc)
{
	auto live = LiveProcess::attach(proc.pid);
	if (!live)
		return std::unexpected(live.error());
	FrozenHeap f;
	f.process = std::move(*live);
	f.memory = std::make_unique<FrozenMemory>(*f.process, max_copy_bytes);
	f.paused_us = uint64_t(f.process->resume().count());
	f.vm = std::make_unique<Vm>(*f.memory, proc.layout, proc.config.g);
	return f;
}

HeapSnapshot take_snapshot(const ProfiledProcess &proc, const HeapWatchOptions &o, double at_s,
			   Diagnostics &d)
{
	HeapSnapshot s;
	s.at_s = at_s;
	auto frozen = freeze_heap(proc, d);
	if (!frozen) {
		d.problem("process " + std::to_string(proc.pid) + ": " + frozen.error().message);
		s.complete = false;
		return s;
	}
	s.paused_us = frozen->paused_us;
	s.copied_bytes = frozen->memory->copied_bytes();
	if (uint64_t skipped = frozen->memory->skipped_bytes()) {
		d.problem("process " + std::to_string(proc.pid) + ": " + std::to_string(skipped) +
			  " bytes of writable memory past the " +
			  std::to_string(max_copy_bytes >> 20) + " MiB copied were read live");
		s.complete = false;
	}
	s.gc_total = GlobalState(*frozen->vm).gc_total().value_or(0);
	s.bytes_by_path = retained_by_path(*frozen, o.depth, s.complete, d);
	return s;
}

// Sleeps until when, waking to poll stop; false if stopped.
bool wait_until(Clock::time_point when, const std::function<bool()> &stop)
{
	while (Clock::now() < when) {
		if (stop && stop())
			return false;
		std::this_thread::sleep_for(std::min<Clock::duration>(
			when - Clock::now(), std::chrono::milliseconds(50)));
	}
	return !(stop && stop());
}

} // namespace

Expected<FrozenHeap> freeze_heap(const ProfiledProcess &proc, Diagnostics &diagnostics)
{
	uint64_t paused_us = 0;
	for (uint32_t stop = 1;; stop++) {
		auto f = freeze_once(proc);
		if (!f)
			return f;
		paused_us += f->paused_us;
		const auto ran_ns = cpu_time_ns(proc.pid, proc.config.tid);
		const GcCensus census =
			gc_census(*f->vm, GcCensusOptions{.top = 0, .top_strings = 0}, &f->objects);
		f->objects_complete = census.complete;
		// One string more than g->str.num is the one gc_sweepstr is
		// freeing at the head of its chain: harmless, as it is garbage.
		// A chain that ends early (a freed string's first bytes are the
		// allocator's) is not. Only these pass with the next stop; what
		// else the census could not read is the heap's, said once.
		const GcStringTable &st = census.strings;
		const bool torn = st.strings < st.num || !st.chains_whole;
		if (torn && stop < max_stops) {
			wait_until_ran(proc.pid, proc.config.tid, ran_ns);
			continue;
		}
		f->paused_us = paused_us;
		const std::string process = "process " + std::to_string(proc.pid) + ": ";
		if (torn) {
			diagnostics.problem(
				process + "the heap copied at each of " + std::to_string(stop) +
				" stops could not be walked whole: " + std::to_string(st.strings) +
				" strings on the string table's chains of the " +
				std::to_string(st.num) + " in g->str.num");
			diagnostics.merge(census.diagnostics);
		} else if (stop > 1) {
			diagnostics.note(process + "heap copied " + std::to_string(stop) +
					 " times: the earlier stops landed while LuaJIT was moving "
					 "strings between the chains of its string table");
		}
		return f;
	}
}

std::map<std::string, uint64_t> retained_by_path(FrozenHeap &frozen, uint32_t depth, bool &complete,
						 Diagnostics &diagnostics)
{
	const Vm &vm = *frozen.vm;
	const RetainedHeap heap(vm, std::move(frozen.objects), frozen.objects_complete);
	diagnostics.merge(heap.diagnostics());
	GcPathOptions options;
	options.prefix_depth = depth;
	bool paths_complete = true;
	std::map<std::string, uint64_t> out;
	const auto heads = gc_path_heads(vm, options, paths_complete);
	std::vector<uint64_t> objects;
	for (const auto &[path, object] : heads)
		objects.push_back(object);
	const std::vector<RetainedHeap::Node> nodes = heap.nodes_of(objects);
	size_t k = 0;
	for (const auto &[path, object] : heads)
		if (RetainedHeap::Node n = nodes[k++]; n != RetainedHeap::none)
			out[path] = heap.retained_bytes(n);
	complete = complete && heap.complete() && paths_complete;
	return out;
}

std::vector<GrowingPath> growing_paths(const std::vector<HeapSnapshot> &snapshots)
{
	std::vector<GrowingPath> grew;
	if (snapshots.size() < 2)
		return grew;
	// A path that grew in every interval is in the last snapshot.
	for (const auto &[path, last] : snapshots.back().bytes_by_path) {
		GrowingPath g{path, {}};
		for (const HeapSnapshot &s : snapshots) {
			auto it = s.bytes_by_path.find(path);
			g.bytes.push_back(it == s.bytes_by_path.end() ? 0 : it->second);
		}
		bool every = true;
		for (size_t i = 1; i < g.bytes.size(); i++)
			every = every && g.bytes[i] > g.bytes[i - 1];
		if (every)
			grew.push_back(std::move(g));
	}
	// Sorted by path, the paths that start with a path follow it: keep
	// a path only when none of them is under it.
	std::vector<GrowingPath> deepest;
	for (size_t i = 0; i < grew.size(); i++) {
		bool has_under = false;
		for (size_t j = i + 1; j < grew.size() && grew[j].path.starts_with(grew[i].path);
		     j++)
			has_under = has_under || is_under(grew[j].path, grew[i].path);
		if (!has_under)
			deepest.push_back(grew[i]);
	}
	std::stable_sort(deepest.begin(), deepest.end(),
			 [](auto &a, auto &b) { return a.growth() > b.growth(); });
	return deepest;
}

std::expected<HeapWatch, ProfileError> watch_heap(const HeapWatchOptions &o)
{
	HeapWatch w;
	w.measure = "retained bytes of the object at each path";
	Profile located;
	auto procs = attach_profiled(o.pid, o.children, located);
	if (!procs)
		return std::unexpected(procs.error());
	w.diagnostics.merge(located.diagnostics);
	w.diagnostics.note("stopped " + std::to_string(located.paused_us / 1000) +
			   " ms in all to find the VMs, once");
	for (auto &p : *procs)
		w.vms.push_back({p->pid, p->config.g, {}, {}});
	const auto start = Clock::now();
	for (uint32_t k = 0; k < o.count; k++) {
		if (k && !wait_until(start + std::chrono::duration_cast<Clock::duration>(
						     std::chrono::duration<double>(o.every_s * k)),
				     o.stop)) {
			w.stopped_early = true;
			break;
		}
		for (size_t i = 0; i < procs->size(); i++) {
			double at = std::chrono::duration<double>(Clock::now() - start).count();
			w.vms[i].snapshots.push_back(
				take_snapshot(*(*procs)[i], o, at, w.diagnostics));
			if (o.progress)
				o.progress((*procs)[i]->pid, k + 1);
		}
	}
	for (WatchedVm &vm : w.vms)
		vm.growing = growing_paths(vm.snapshots);
	return w;
}

} // namespace ljcore
