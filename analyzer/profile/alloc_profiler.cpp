#include "analyzer/profile/alloc_profiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <unordered_map>

#include <signal.h>

#include "analyzer/lua/global_state.h"
#include "analyzer/profile/alloc_sampler.h"
#include "analyzer/profile/profiled_process.h"
#include "analyzer/profile/sample_namer.h"
#include "analyzer/profile/tally.h"

namespace ljcore {

namespace {

using Clock = std::chrono::steady_clock;
using Stacks = std::map<std::vector<ProfileFrame>, double>;

// What a sampled allocation of size bytes stands for: it was taken with
// probability 1 - exp(-size/mean), so its bytes count over that.
double scaled(uint64_t bytes, uint64_t size, uint64_t mean)
{
	double p = -std::expm1(-double(size) / double(mean));
	return p > 0 ? double(bytes) / p : double(bytes);
}

std::string kib(uint64_t bytes)
{
	return std::to_string(bytes / 1024) + " KiB";
}

// "+12 KiB" or "-3 KiB": how far a total went from from to to.
std::string kib_change(uint64_t from, uint64_t to)
{
	return to >= from ? "+" + kib(to - from) : "-" + kib(from - to);
}

std::unexpected<ProfileError> sampler_failed(const Error &e)
{
	return std::unexpected(ProfileError{ProfileFailure::no_sampler, e.message});
}

// Waits for a sweep that starts after the end. The collector frees, in its
// sweep, what was unreachable when its atomic phase ran; an object that
// was garbage at the end is freed by the first sweep whose atomic phase
// comes after the end, so a sweep already running at the end does not
// count. Polled: a sweep shorter than the poll is seen in a later cycle.
struct CycleWatch {
	enum { want_marking, want_sweep, want_sweep_over, done, exited } step = want_marking;

	void see(uint8_t state)
	{
		bool sweeping = state >= LJ_GCS_SWEEPSTRING;
		if (step == want_marking && !sweeping)
			step = want_sweep;
		else if (step == want_sweep && sweeping)
			step = want_sweep_over;
		else if (step == want_sweep_over && !sweeping)
			step = done;
	}
};

struct AllocProcess {
	std::unique_ptr<ProfiledProcess> proc;
	std::unique_ptr<SampleNamer> namer;
	uint64_t allocf = 0, allocd = 0;
	std::optional<uint64_t> total_at_start;
	CycleWatch cycle;

	std::optional<uint64_t> gc_total() const
	{
		auto v = GlobalState(*proc->mem).gc_total();
		return v ? std::optional(*v) : std::nullopt;
	}
	std::optional<uint8_t> gc_state() const
	{
		auto v = GlobalState(*proc->mem).gc_state();
		return v ? std::optional(*v) : std::nullopt;
	}
};

// A sampled allocation: its stack (a key of the allocated stacks) and the
// bytes of its block it stands for.
struct SampledBlock {
	const std::vector<ProfileFrame> *stack = nullptr;
	double bytes = 0;
	uint32_t pid = 0;
	uint64_t addr = 0; // where the allocator placed it
};

// What the sampler has handed over: the stacks that allocated, and each
// sampled block until it is placed (then live until freed) or given up.
struct AllocRecord {
	explicit AllocRecord(uint64_t sample_bytes) : sample_bytes(sample_bytes) {}
	// The handlers point back at this record.
	AllocRecord(const AllocRecord &) = delete;
	AllocRecord &operator=(const AllocRecord &) = delete;

	uint64_t sample_bytes;
	std::unordered_map<uint32_t, AllocProcess *> by_pid;
	Tally tally;
	Stacks allocated;
	std::unordered_map<uint64_t, SampledBlock> blocks; // by sample number
	std::unordered_map<uint64_t, SampledBlock> live;   // placed, not freed
	uint64_t untracked = 0, freed_after_end = 0;
	bool ended = false; // the profile's end has passed
	const AllocSampler::Handlers handlers{
		[this](const lj_alloc_sample &a) { sampled(a); },
		[this](const lj_alloc_note &n) { noted(n); },
	};

	void sampled(const lj_alloc_sample &a)
	{
		auto ap = by_pid.find(a.pid);
		if (ap == by_pid.end())
			return tally.count("failed: no VM for the process", true);
		NamedSample named = ap->second->namer->name(a.s, true);
		tally.count(named.outcome, named.failure);
		if (named.failure)
			return;
		// Allocated bytes as g->gc.total counts them: a realloc adds
		// what it grows by. The block holds all of its new size.
		uint64_t grown = a.size > a.osize ? a.size - a.osize : 0;
		auto it = allocated.try_emplace(std::move(named.frames), 0).first;
		it->second += scaled(grown, a.size, sample_bytes);
		blocks[a.seq] = {&it->first, scaled(a.size, a.size, sample_bytes), a.pid};
	}

	void noted(const lj_alloc_note &n)
	{
		auto b = blocks.find(n.seq);
		switch (n.kind) {
		case LJ_ALLOC_PLACED:
			if (b != blocks.end() && n.addr) {
				live[n.seq] = b->second;
				live[n.seq].addr = n.addr;
			}
			break;
		case LJ_ALLOC_FREED: {
			size_t erased = live.erase(n.seq);
			if (ended)
				freed_after_end += erased;
			break;
		}
		case LJ_ALLOC_UNTRACKED:
			untracked++;
			break;
		}
		if (n.kind != LJ_ALLOC_FREED && b != blocks.end())
			blocks.erase(b);
	}

	bool holds_block_of(int32_t pid) const
	{
		return std::any_of(live.begin(), live.end(),
				   [&](const auto &b) { return b.second.pid == uint32_t(pid); });
	}
};

// The processes whose allocator can be probed, with their VM's g->allocf
// and g->allocd; one whose cannot is named in p.diagnostics. Fails with
// the first reason when none can.
std::expected<std::vector<AllocProcess>, ProfileError> with_allocators(ProfiledProcesses found,
								       Profile &p)
{
	std::vector<AllocProcess> procs;
	std::string first_error;
	for (auto &proc : found) {
		AllocProcess ap;
		ap.proc = std::move(proc);
		const GlobalState g(*ap.proc->mem);
		auto allocf = g.allocf();
		auto allocd = g.allocd();
		if (!allocf || !*allocf || !allocd) {
			std::string why = "process " + std::to_string(ap.proc->pid) +
					  ": g->allocf or g->allocd unreadable";
			if (first_error.empty())
				first_error = why;
			p.diagnostics.problem(why);
			continue;
		}
		ap.allocf = *allocf;
		ap.allocd = *allocd;
		procs.push_back(std::move(ap));
	}
	if (procs.empty())
		return std::unexpected(ProfileError{ProfileFailure::unreadable, first_error});
	return procs;
}

// Probes each process's allocator, its samples named by its own VM and
// recorded in record.
std::expected<std::unique_ptr<AllocSampler>, ProfileError>
start_sampling(std::vector<AllocProcess> &procs, AllocRecord &record, Profile &p)
{
	auto sampler = AllocSampler::open(record.sample_bytes);
	if (!sampler)
		return sampler_failed(sampler.error());
	for (AllocProcess &ap : procs) {
		const NativeSession *native = ap.proc->live.native.get();
		ap.namer = std::make_unique<SampleNamer>(
			*ap.proc->mem,
			[native](uint64_t addr) { return native->function_at(addr); }, nullptr);
		if (auto r = (*sampler)->add(ap.proc->pid, ap.proc->config, ap.allocf, ap.allocd);
		    !r)
			return sampler_failed(r.error());
		ap.total_at_start = ap.gc_total();
		record.by_pid[uint32_t(ap.proc->pid)] = &ap;
		p.pids.push_back(ap.proc->pid);
	}
	return std::move(*sampler);
}

// Samples until the profile's end (or a stop), and takes what was sampled
// in time; from then on only frees are reported.
std::expected<void, ProfileError> record_until_end(AllocSampler &sampler, AllocRecord &record,
						   const ProfileOptions &o, Profile &p)
{
	auto start = Clock::now();
	auto deadline = start + std::chrono::duration<double>(o.duration_s);
	while (Clock::now() < deadline && !(o.stop && o.stop())) {
		if (auto r = sampler.poll(100, record.handlers); !r)
			return sampler_failed(r.error());
		if (o.progress)
			o.progress(record.tally.progress());
	}
	p.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	sampler.stop_sampling();
	(void)sampler.poll(0, record.handlers);
	record.ended = true;
	return {};
}

// --alloc=outstanding: waits, up to o.settle_s, for a sweep of each
// process's GC that starts after the end (CycleWatch), taking the frees
// it reports. A process with no sampled block left (an idle nginx master)
// has nothing to wait for.
void wait_for_sweeps(std::vector<AllocProcess> &procs, AllocSampler &sampler, AllocRecord &record,
		     const ProfileOptions &o)
{
	for (AllocProcess &ap : procs)
		if (!record.holds_block_of(ap.proc->pid))
			ap.cycle.step = CycleWatch::done;
	auto settle_end = Clock::now() + std::chrono::duration<double>(o.settle_s);
	auto all_done = [&] {
		return std::all_of(procs.begin(), procs.end(), [](const AllocProcess &ap) {
			return ap.cycle.step >= CycleWatch::done;
		});
	};
	while (!all_done() && Clock::now() < settle_end && !(o.stop && o.stop())) {
		for (AllocProcess &ap : procs) {
			auto state = ap.gc_state();
			if (state)
				ap.cycle.see(*state);
			else if (kill(ap.proc->pid, 0) != 0)
				ap.cycle.step = CycleWatch::exited;
		}
		if (auto r = sampler.poll(1, record.handlers); !r)
			break;
	}
	(void)sampler.poll(0, record.handlers);
}

// What the wait for the sweeps came to, process by process.
void note_sweeps(const std::vector<AllocProcess> &procs, const AllocRecord &record, double settle_s,
		 Diagnostics &d)
{
	for (const AllocProcess &ap : procs)
		if (ap.cycle.step == CycleWatch::exited)
			d.note("process " + std::to_string(ap.proc->pid) +
			       " exited after the end: its VM freed what it held");
		else if (ap.cycle.step != CycleWatch::done)
			d.note("process " + std::to_string(ap.proc->pid) +
			       ": the GC did not sweep within " + std::to_string(int(settle_s)) +
			       " s after the end, so what was garbage by then still counts");
	d.note(std::to_string(record.freed_after_end) +
	       " sampled blocks freed after the end, by the GC sweep waited for");
}

// How each VM's g->gc.total moved over the profile, a check on its bytes,
// and the sampled blocks the BPF side could not follow.
void note_totals(const std::vector<AllocProcess> &procs, const AllocRecord &record, Diagnostics &d)
{
	for (const AllocProcess &ap : procs) {
		auto end_total = ap.gc_total();
		if (ap.total_at_start && end_total)
			d.note("process " + std::to_string(ap.proc->pid) + ": g->gc.total " +
			       kib(*ap.total_at_start) + " at the start, " + kib(*end_total) +
			       " at the end (" + kib_change(*ap.total_at_start, *end_total) + ")");
	}
	if (record.untracked)
		d.note(std::to_string(record.untracked) +
		       " sampled blocks not tracked (the table of live blocks was full)");
}

// The profile's stacks: every byte allocated, or the bytes of the sampled
// blocks still live; and what came of every sample.
void fill_profile(const AllocRecord &record, const ProfileOptions &o, Profile &p)
{
	Stacks outstanding;
	const bool all = o.alloc == ProfileOptions::Alloc::all;
	if (!all)
		for (auto &[seq, b] : record.live)
			outstanding[*b.stack] += b.bytes;
	for (auto &[frames, bytes] : all ? record.allocated : outstanding)
		if (uint64_t n = uint64_t(std::llround(bytes)))
			p.stacks.push_back({frames, n, {}});
	p.backend = "bpf";
	p.samples = record.tally.samples;
	for (auto &[outcome, n] : record.tally.outcomes)
		p.outcomes.push_back({outcome, n.first, n.second});
}

// Hands each process's outstanding sampled blocks to visit.
void visit_outstanding(const std::vector<AllocProcess> &procs, const AllocRecord &record,
		       const OutstandingVisitor &visit)
{
	for (const AllocProcess &ap : procs) {
		std::vector<OutstandingBlock> blocks;
		for (auto &[seq, b] : record.live)
			if (b.pid == uint32_t(ap.proc->pid))
				blocks.push_back({b.addr, b.bytes, b.stack});
		visit(*ap.proc, blocks);
	}
}

} // namespace

std::expected<Profile, ProfileError> profile_allocations(const ProfileOptions &o,
							 const OutstandingVisitor &visit)
{
	Profile p;
	p.pid = o.pid;
	p.unit = "bytes";
	p.sample_bytes = o.sample_bytes;
	auto found = attach_profiled(o.pid, o.children, p);
	if (!found)
		return std::unexpected(found.error());
	auto procs = with_allocators(std::move(*found), p);
	if (!procs)
		return std::unexpected(procs.error());
	AllocRecord record(o.sample_bytes);
	auto sampler = start_sampling(*procs, record, p);
	if (!sampler)
		return std::unexpected(sampler.error());
	if (auto r = record_until_end(**sampler, record, o, p); !r)
		return std::unexpected(r.error());
	if (!visit && o.alloc == ProfileOptions::Alloc::outstanding) {
		wait_for_sweeps(*procs, **sampler, record, o);
		note_sweeps(*procs, record, o.settle_s, p.diagnostics);
	}
	if (uint64_t dropped = (*sampler)->dropped())
		record.tally.count(
			"failed: ring buffer full (a lost free leaves its block outstanding)", true,
			dropped);
	if (visit) {
		// A heap walk tells garbage from what is held: no sweep to wait
		// for. The probes go first: a stop is delivered as the process
		// returns to user space, and a probe makes each call of the
		// allocator such a return, so that the heap would be copied
		// inside the allocator most of the time, often inside a free of
		// gc_sweepstr's while the chain it sweeps hangs off its stack.
		sampler->reset();
		visit_outstanding(*procs, record, visit);
	}
	note_totals(*procs, record, p.diagnostics);
	fill_profile(record, o, p);
	return p;
}

} // namespace ljcore
