#include "analyzer/profile/profiler.h"

#include <chrono>
#include <map>
#include <unordered_map>

#include "analyzer/profile/alloc_profiler.h"
#include "analyzer/profile/bpf_sampler.h"
#include "analyzer/profile/offcpu_sampler.h"
#include "analyzer/profile/profiled_process.h"
#include "analyzer/profile/request_tags.h"
#include "analyzer/profile/sample_namer.h"
#include "analyzer/profile/tally.h"
#include "analyzer/profile/time_weight.h"
#include "analyzer/profile/user_sampler.h"
#include "analyzer/profile/wall_sampler.h"
#include "luajit/bpf/offcpu_event.h"

namespace ljcore {

namespace {

// --off-cpu, --wall: BPF only, userspace cannot see a thread leave the CPU.
std::expected<std::unique_ptr<Sampler>, ProfileError> open_time_sampler(const ProfileOptions &o)
{
	auto refused = [](const Error &e) {
		return std::unexpected(ProfileError{ProfileFailure::no_sampler, e.message});
	};
	auto off = OffCpuSampler::open(o.off_cpu_period_ns);
	if (!off)
		return refused(off.error());
	if (o.time == ProfileOptions::Time::off_cpu)
		return std::unique_ptr<Sampler>(std::move(*off));
	auto on = BpfSampler::open(o.rate_hz);
	if (!on)
		return refused(on.error());
	return std::unique_ptr<Sampler>(
		std::make_unique<WallSampler>(std::move(*on), std::move(*off)));
}

// The BPF sampler where the kernel allows it (and it was not declined),
// else the userspace one; a note says why BPF was not used.
std::expected<std::unique_ptr<Sampler>, ProfileError> open_sampler(const ProfileOptions &o,
								   Profile &p)
{
	using Backend = ProfileOptions::Backend;
	if (o.time != ProfileOptions::Time::cpu)
		return open_time_sampler(o);
	if (o.backend != Backend::userspace && !o.blocking) {
		auto bpf = BpfSampler::open(o.rate_hz);
		if (bpf)
			return std::unique_ptr<Sampler>(std::move(*bpf));
		if (o.backend == Backend::bpf)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, bpf.error().message});
		p.diagnostics.note(bpf.error().message + "; sampling from userspace instead");
	}
	if (o.native && !o.blocking)
		p.diagnostics.note(
			"--native needs the sampled thread's registers: the BPF backend, "
			"or the userspace one with --blocking");
	auto user = UserSampler::open(o.rate_hz, o.blocking);
	if (!user)
		return std::unexpected(
			ProfileError{ProfileFailure::no_sampler, user.error().message});
	return std::unique_ptr<Sampler>(std::move(*user));
}

} // namespace

std::expected<Profile, ProfileError> profile_process(const ProfileOptions &o)
{
	using Clock = std::chrono::steady_clock;
	if (o.alloc != ProfileOptions::Alloc::off)
		return profile_allocations(o);
	Profile p;
	p.pid = o.pid;
	p.rate_hz = o.rate_hz;
	const bool in_time = o.time != ProfileOptions::Time::cpu;
	const uint64_t period_ns = 1000000000 / o.rate_hz;
	if (in_time) {
		p.unit = "nanoseconds";
		p.time = o.time == ProfileOptions::Time::wall ? "wall" : "off-cpu";
	}
	auto procs = attach_profiled(o.pid, o.children, p);
	if (!procs)
		return std::unexpected(procs.error());

	Tally tally;
	auto sampler = open_sampler(o, p);
	if (!sampler)
		return std::unexpected(sampler.error());
	std::unordered_map<uint32_t, std::unique_ptr<SampleNamer>> by_pid;
	for (auto &proc : *procs) {
		const NativeSession *native = proc->live.native.get();
		proc->config.native = o.native;
		by_pid[uint32_t(proc->pid)] = std::make_unique<SampleNamer>(
			*proc->mem, [native](uint64_t addr) { return native->function_at(addr); },
			o.native ? native : nullptr);
		if (auto r = (*sampler)->add(proc->pid, proc->config); !r)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, r.error().message});
		if (proc->nginx)
			if (auto r = (*sampler)->add_nginx(proc->pid, *proc->nginx); !r)
				return std::unexpected(ProfileError{ProfileFailure::no_sampler,
								    r.error().message});
		p.pids.push_back(proc->pid);
	}

	auto start = Clock::now();
	auto deadline = start + std::chrono::duration<double>(o.duration_s);
	// The ring buffer hands over what it holds in one call: a sampler that
	// outruns naming must not keep the profile going past its end.
	// Samples whose walk from the interpreter's registers broke and was
	// started again (lj_profile_retry() in luajit/profile_walk.h).
	uint64_t from_return = 0, from_l_base = 0;
	Sampler::Handler handler = [&](const lj_profile_sample &s) {
		// The off-CPU sampler hands over the switches of a stack
		// together.
		uint64_t n = s.offcpu_switches ? s.offcpu_switches : 1;
		from_return += s.start == LJ_PROFILE_FROM_RETURN ? n : 0;
		from_l_base += s.start == LJ_PROFILE_FROM_L_BASE ? n : 0;
		auto c = by_pid.find(s.pid);
		if (Clock::now() > deadline + std::chrono::seconds(1))
			tally.count("failed: not named before the profile's end", true, n);
		else if (c == by_pid.end())
			tally.count("failed: no VM for the process", true, n);
		else {
			// Off the CPU, the VM is in a call it made, as at the
			// allocator: a trace's return address places it.
			NamedSample named =
				in_time ? c->second->name(s, s.offcpu_state != LJ_OFFCPU_ON_CPU)
					: c->second->name(s);
			// Without Lua frames (nginx's own code), g->cur_L is
			// the coroutine that ran last: its request is not
			// what runs now.
			if (s.nframes)
				named.labels.request = request_label(s.request);
			if (in_time)
				tally.add(named, weigh_in_time(named, s, period_ns), n);
			else
				tally.add(named);
		}
	};
	while (Clock::now() < deadline && !(o.stop && o.stop())) {
		if (auto r = (*sampler)->poll(100, handler); !r)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, r.error().message});
		if (o.progress)
			o.progress(tally.progress());
	}
	// What the ring buffer still holds was sampled in time.
	(void)(*sampler)->poll(0, handler);
	(*sampler)->finish(handler);
	if (uint64_t dropped = (*sampler)->dropped())
		tally.count(std::string("failed: ") + (*sampler)->dropped_reason(), true, dropped);
	p.backend = (*sampler)->backend();
	p.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	p.samples = tally.samples;
	for (auto &[outcome, n] : tally.outcomes)
		p.outcomes.push_back({outcome, n.first, n.second});
	for (auto &[stack, n] : tally.stacks)
		p.stacks.push_back({stack.first, n, stack.second});
	if (from_return + from_l_base)
		p.diagnostics.note(std::to_string(from_return + from_l_base) +
				   " samples caught the interpreter with its BASE register off the "
				   "frame chain (returning, or reused before a call to C): walked "
				   "from the frame being returned to in " +
				   std::to_string(from_return) + ", from L->base in " +
				   std::to_string(from_l_base));
	for (auto &[why, n] : tally.without_native)
		p.diagnostics.note("--native: " + std::to_string(n) +
				   " samples without native frames: " + why);
	return p;
}

} // namespace ljcore
