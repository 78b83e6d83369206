#include "analyzer/profile/profiler.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <unordered_map>

#include "analyzer/analyze.h"
#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/vm_locator.h"
#include "analyzer/profile/bpf_sampler.h"
#include "analyzer/profile/native_frames.h"
#include "analyzer/profile/user_sampler.h"
#include "analyzer/stack/lua_stack.h"
#include "analyzer/stack/lua_symbolize.h"
#include "analyzer/traces/trace_frames.h"
#include "analyzer/traces/trace_mcode.h"
#include "analyzer/traces/traces.h"
#include "luajit/frame.h"

namespace ljcore {

namespace {

// enum lj_walk_status of luajit/walker.h (which needs LJ_READ to include).
constexpr int32_t walk_ok = 0, walk_end = 1;

std::string walk_failure(int32_t status)
{
	switch (status) {
	case -1:
		return "failed: a read of the stack failed (it changed under the walk?)";
	case -2:
		return "failed: the frame chain does not go down the stack";
	case -3:
		return "failed: a frame slot holds no function";
	default:
		return "failed: walk status " + std::to_string(status);
	}
}

// What the VM was doing, as a word the summary counts samples under.
std::string activity(const std::string &vmstate)
{
	if (vmstate == "interpreter" || vmstate == "Lua function" || vmstate == "fast function")
		return "Lua";
	if (vmstate == "C" || vmstate == "C function")
		return "C";
	if (vmstate == "GC")
		return "GC";
	if (vmstate.starts_with("trace "))
		return vmstate == "trace exit" ? "JIT compiler" : "compiled trace";
	if (vmstate == "trace")
		return "compiled trace";
	return "JIT compiler";
}

ProfileFrame profile_frame(const LuaFrame &f)
{
	ProfileFrame p;
	if (f.what == "C") {
		p.kind = ProfileFrameKind::c;
		p.name = !f.name.empty() ? f.name : f.c_symbol;
		return p;
	}
	p.name = f.name;
	p.file = f.short_src;
	p.line = f.current_line;
	p.line_defined = f.what == "main" ? 0 : f.line_defined;
	return p;
}

struct FunctionIdentity {
	uint64_t func = 0, proto = 0, header = 0, shape = 0;
	friend auto operator<=>(const FunctionIdentity &, const FunctionIdentity &) = default;
};

struct FrameKey {
	FunctionIdentity function;
	uint64_t pc = 0;
	FunctionIdentity caller; // when the caller names it
	uint64_t caller_pc = 0;
	friend auto operator<=>(const FrameKey &, const FrameKey &) = default;
};

// Named frames remembered; the cache starts over past this many.
constexpr size_t max_cached_names = 1 << 16;

// The samples of every process profiled, counted together.
struct Tally {
	uint64_t samples = 0;
	std::map<std::string, std::pair<uint64_t, bool>> outcomes; // count, failure
	std::map<std::vector<ProfileFrame>, uint64_t> stacks;
	// --native: samples left with their Lua frames only, by why.
	std::map<std::string, uint64_t> without_native;

	void count(const std::string &outcome, bool failure, uint64_t n = 1)
	{
		auto [it, added] = outcomes.try_emplace(outcome, 0, failure);
		it->second.first += n;
		samples += n;
	}
	// The samples and their outcomes so far, for a progress line.
	Profile progress() const
	{
		Profile p;
		p.samples = samples;
		for (auto &[outcome, n] : outcomes)
			p.outcomes.push_back({outcome, n.first, n.second});
		return p;
	}
};

// Names the samples of one process's VM.
class Collector {
public:
	// native: the process's unwinder, for --native; nullptr without.
	Collector(Tally &tally, const LuaMemory &mem, uint64_t g, unsigned vmstates,
		  CodeSymbolizer symbolize, const NativeSession *native)
	    : tally_(tally), mem_(mem), g_(g), vmstates_(vmstates),
	      symbolize_(std::move(symbolize)), native_(native)
	{
	}

	void add(const lj_profile_sample &s);

private:
	void count(const std::string &outcome, bool failure) { tally_.count(outcome, failure); }

	// The frames a sample at ip in a trace runs, as the crash path
	// rebuilds them: the snapshot covering ip gives the frames the trace
	// inlined and the pc of the frame it started in.
	std::optional<TraceFrames> trace_frames(uint64_t ip);
	FunctionIdentity identity(uint64_t func);
	// Appends the frames of a walk, named, root first.
	void name(const std::vector<WalkedFrame> &raw, std::vector<ProfileFrame> &out);

	Tally &tally_;
	const LuaMemory &mem_;
	uint64_t g_;
	unsigned vmstates_;
	// The traces, read again when a sample's pc is in none of them (the
	// JIT compiled more, or flushed and renumbered).
	TraceSet traces_;
	std::map<FrameKey, ProfileFrame> names_;
	CodeSymbolizer symbolize_;
	const NativeSession *native_;
};

// What names a function's frames: its prototype's address, chunk name,
// first line and size (or a C function's address). Read once per sample
// for each function on it: a prototype freed and its memory reused for
// another changes it, so the cache never names a frame from a dead one.
FunctionIdentity Collector::identity(uint64_t func)
{
	const lj_layout &ly = mem_.layout();
	FunctionIdentity id{func, 0, 0, 0};
	auto ffid = mem_.value<uint8_t>(func + ly.fn_ffid);
	if (!ffid)
		return id;
	if (*ffid != LJ_FF_LUA) {
		id.proto = mem_.value<uint64_t>(func + ly.fn_f).value_or(0);
		id.header = *ffid;
		return id;
	}
	auto pt = function_proto(mem_, func);
	if (!pt)
		return id;
	id.proto = pt->addr;
	id.header = pt->chunkname;
	id.shape = uint64_t(uint32_t(pt->firstline)) << 32 | pt->sizebc;
	return id;
}

void Collector::name(const std::vector<WalkedFrame> &raw, std::vector<ProfileFrame> &out)
{
	std::unordered_map<uint64_t, FunctionIdentity> ids;
	auto id_of = [&](uint64_t func) {
		auto [it, added] = ids.try_emplace(func);
		if (added)
			it->second = identity(func);
		return it->second;
	};
	if (names_.size() > max_cached_names)
		names_.clear();
	std::vector<ProfileFrame> named(raw.size());
	for (size_t i = 0; i < raw.size(); i++) {
		// A frame is named by its caller's call instruction when it
		// links to the frame right below (name_frames()).
		bool linked = i + 1 < raw.size() && raw[i + 1].slot == raw[i].prevslot &&
			      raw[i + 1].pc != 0;
		FrameKey key{id_of(raw[i].func), raw[i].pc,
			     linked ? id_of(raw[i + 1].func) : FunctionIdentity{},
			     linked ? raw[i + 1].pc : 0};
		auto [it, added] = names_.try_emplace(key);
		if (added) {
			std::vector<WalkedFrame> pair{raw[i]};
			if (linked)
				pair.push_back(raw[i + 1]);
			LuaStack one;
			name_frames(mem_, pair, nullptr, 0, symbolize_, one);
			it->second = profile_frame(one.frames.front());
		}
		named[i] = it->second;
	}
	out.insert(out.end(), named.rbegin(), named.rend());
}

std::optional<TraceFrames> Collector::trace_frames(uint64_t ip)
{
	const lj_trace_layout *tl = builtin_trace_layout(mem_.layout());
	if (!tl || ip == 0)
		return std::nullopt;
	// g->vmstate names the trace entered; a side trace it jumped to
	// runs under the same number. The pc says whose code it is.
	auto holder = [&]() -> const Trace * {
		for (const Trace &t : traces_.traces)
			if (t.problem.empty() && ip - t.mcode < t.szmcode)
				return &t;
		return nullptr;
	};
	const Trace *t = holder();
	if (!t) {
		traces_ = read_traces(mem_, *tl, g_, false, 0);
		traces_.mcode_unit = mcode_unit(Arch::x86_64);
		t = holder();
		if (!t)
			return std::nullopt;
	}
	int32_t snap = snapshot_at(traces_, *t, ip - t->mcode);
	auto base = mem_.ref(g_ + mem_.layout().g_jit_base);
	if (snap < 0 || !base)
		return std::nullopt;
	auto frames = restore_trace_frames(mem_, *t, uint32_t(snap), *base);
	return frames ? std::optional(std::move(*frames)) : std::nullopt;
}

void Collector::add(const lj_profile_sample &s)
{
	switch (s.source) {
	case LJ_PROFILE_OTHER_THREAD:
		return count("thread without the VM", false);
	case LJ_PROFILE_NO_STATE:
		return count("failed: VM state unreadable", true);
	case LJ_PROFILE_OFF_CPU:
		return count("idle: the VM's thread was not running", false);
	case LJ_PROFILE_NOT_STOPPED:
		return count("failed: the thread did not stop in time", true);
	case LJ_PROFILE_WALKED:
		break;
	default:
		return count("failed: no VM for the process", true);
	}
	std::string state = vmstate_text(s.vmstate, vmstates_);
	if (s.status != walk_end && !(s.status == walk_ok && s.truncated))
		return count(walk_failure(s.status), true);
	std::vector<WalkedFrame> raw;
	uint32_t n = std::min<uint32_t>(s.nframes, LJ_PROFILE_MAX_FRAMES);
	for (uint32_t i = 0; i < n; i++) {
		const lj_profile_frame &f = s.frames[i];
		raw.push_back(
			{f.slot, i ? s.frames[i - 1].slot : 0, f.prevslot, f.func, f.pc, 0, i});
	}
	// In compiled code the walk started at g->jit_base, the frame the
	// trace started in; the snapshot adds what the trace inlined above it.
	// A leaf helper the trace called (lj_vm_modi, lj_vm_floor...) has
	// the return address into the trace on top of its stack.
	std::optional<TraceFrames> compiled;
	if (s.vmstate > 0 && !raw.empty()) {
		compiled = trace_frames(s.ip);
		if (!compiled)
			compiled = trace_frames(s.ret);
	}
	size_t ninlined = compiled ? compiled->inlined.size() : 0;
	if (compiled) {
		raw[0].pc = compiled->base_pc;
		std::vector<WalkedFrame> inlined;
		for (size_t i = 0; i < ninlined; i++) {
			const InlinedFrame &in = compiled->inlined[i];
			uint64_t prev =
				i + 1 < ninlined ? compiled->inlined[i + 1].slot : raw[0].slot;
			inlined.push_back({in.slot, 0, prev, in.function, in.pc, LJ_FRAME_LUA, 0});
		}
		raw.insert(raw.begin(), inlined.begin(), inlined.end());
		for (size_t i = 0; i < raw.size(); i++)
			raw[i].level = uint32_t(i);
	}
	std::vector<ProfileFrame> frames;
	name(raw, frames);
	if (native_) {
		// frames[] is root first; the mix takes the Lua frames innermost first.
		std::vector<ProfileFrame> lua(frames.rbegin(), frames.rend());
		std::string why;
		if (!mix_native_frames(*native_, mem_.memory(), mem_.layout(), g_, s, raw, ninlined,
				       lua, frames, why))
			tally_.without_native[why]++;
	}
	if (s.truncated)
		frames.insert(frames.begin(), {ProfileFrameKind::truncated, "", "", -1, -1, 0});
	std::string what = activity(state);
	// In the interpreter without its registers (a sample in the kernel, or
	// the userspace sampler not stopping the thread), the walk started at
	// L->base: the frames as of the VM's last exit to C, not the pc's.
	if (s.vmstate == -1 && !s.regs_used)
		what = "Lua, from L->base (no registers)";
	if (what == "GC" || what == "JIT compiler")
		frames.push_back({ProfileFrameKind::state, what, "", -1, -1, 0});
	else if (what == "compiled trace" && !compiled)
		// No snapshot covers the pc (an exit stub, a trace being
		// replaced): the frames below are right, the innermost unknown.
		frames.push_back({ProfileFrameKind::trace, "", "", -1, -1,
				  s.vmstate > 0 ? uint32_t(s.vmstate) : 0});
	else if (frames.empty())
		// Native code that no Lua function called (an event loop
		// between requests): a stack of its own, not an empty one.
		frames.push_back({ProfileFrameKind::state, "no Lua frames", "", -1, -1, 0});
	tally_.stacks[std::move(frames)]++;
	count(what, false);
}

// One process being profiled: attached while its VM is found, then read as
// it runs, through a LuaMemory over its /proc/PID/mem.
struct ProfiledProcess {
	int32_t pid = 0;
	LiveSession live;
	lj_profile_vm config{};
	// The layouts, as copies that live as long as the profile (the
	// analysis's own may have come from DWARF it freed).
	lj_layout layout{};
	lj_trace_layout trace_layout{};
	std::unique_ptr<LuaMemory> mem;
	std::unique_ptr<Collector> collect;
};

std::string read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	return std::string(std::istreambuf_iterator<char>(in), {});
}

// nginx names its master "nginx: master process ..." (ngx_setproctitle).
bool is_nginx_master(int32_t pid)
{
	return read_file("/proc/" + std::to_string(pid) + "/cmdline")
		.starts_with("nginx: master process");
}

// The processes whose parent is pid, from each /proc/N/stat's ppid (the
// field after the state, after the parenthesized command name).
std::vector<int32_t> children_of(int32_t pid)
{
	std::vector<int32_t> kids;
	for (const auto &e : std::filesystem::directory_iterator("/proc")) {
		const std::string name = e.path().filename();
		if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
			continue;
		std::string stat = read_file("/proc/" + name + "/stat");
		size_t paren = stat.rfind(')');
		if (paren == std::string::npos || paren + 4 >= stat.size())
			continue;
		if (atoi(stat.c_str() + paren + 4) == pid)
			kids.push_back(int32_t(std::stoi(name)));
	}
	std::sort(kids.begin(), kids.end());
	return kids;
}

// Stops pid only while its VM is found. Sets *no_vm when it has none.
Expected<std::unique_ptr<ProfiledProcess>> find_vm(int32_t pid, uint64_t &paused_us, bool &no_vm)
{
	auto live = open_live(pid);
	if (!live)
		return std::unexpected(live.error());
	auto proc = std::make_unique<ProfiledProcess>();
	proc->pid = pid;
	proc->live = std::move(*live);
	Analysis a = analyze_target(*proc->live.process, *proc->live.native, AnalyzeOptions{});
	paused_us += uint64_t(proc->live.process->resume().count());
	if (a.vms.empty()) {
		no_vm = true;
		return fail("no LuaJIT VM found in process " + std::to_string(pid) +
			    (a.problems.empty() ? "" : ": " + a.problems.front()));
	}
	const VmResult &vm = a.vms.front();
	proc->config.layout = vm.layout_offsets;
	proc->config.g = vm.global_state;
	proc->config.tid = uint32_t(vm.tid);
	proc->layout = vm.layout_offsets;
	if (vm.trace_layout_offsets) {
		proc->trace_layout = *vm.trace_layout_offsets;
		proc->layout.jit = &proc->trace_layout;
	}
	proc->mem = std::make_unique<LuaMemory>(*proc->live.process, proc->layout);
	return proc;
}

// The BPF sampler where the kernel allows it (and it was not declined),
// else the userspace one; a note says why BPF was not used.
std::expected<std::unique_ptr<Sampler>, ProfileError> open_sampler(const ProfileOptions &o,
								   Profile &p)
{
	using Backend = ProfileOptions::Backend;
	if (o.backend != Backend::userspace && !o.blocking) {
		auto bpf = BpfSampler::open(o.rate_hz);
		if (bpf)
			return std::unique_ptr<Sampler>(std::move(*bpf));
		if (o.backend == Backend::bpf)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, bpf.error().message});
		p.notes.push_back(bpf.error().message + "; sampling from userspace instead");
	}
	if (o.native && !o.blocking)
		p.notes.push_back("--native needs the sampled thread's registers: the BPF backend, "
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
	Profile p;
	p.pid = o.pid;
	p.rate_hz = o.rate_hz;
	std::vector<int32_t> pids{o.pid};
	if (o.children || is_nginx_master(o.pid))
		for (int32_t kid : children_of(o.pid))
			pids.push_back(kid);

	Tally tally;
	std::vector<std::unique_ptr<ProfiledProcess>> procs;
	bool only_no_vm = true;
	std::string first_error;
	for (int32_t pid : pids) {
		bool no_vm = false;
		auto proc = find_vm(pid, p.paused_us, no_vm);
		if (!proc) {
			only_no_vm = only_no_vm && no_vm;
			if (first_error.empty())
				first_error = proc.error().message;
			if (pids.size() > 1)
				p.notes.push_back(proc.error().message);
			continue;
		}
		procs.push_back(std::move(*proc));
	}
	if (procs.empty())
		return std::unexpected(ProfileError{only_no_vm ? ProfileFailure::no_vm
							       : ProfileFailure::unreadable,
						    first_error});

	auto sampler = open_sampler(o, p);
	if (!sampler)
		return std::unexpected(sampler.error());
	std::unordered_map<uint32_t, Collector *> by_pid;
	for (auto &proc : procs) {
		const NativeSession *native = proc->live.native.get();
		CodeSymbolizer symbolize = [native](uint64_t addr) {
			return native->function_at(addr);
		};
		proc->config.native = o.native;
		proc->collect = std::make_unique<Collector>(tally, *proc->mem, proc->config.g,
							    proc->layout.vmstates, symbolize,
							    o.native ? native : nullptr);
		by_pid[uint32_t(proc->pid)] = proc->collect.get();
		if (auto r = (*sampler)->add(proc->pid, proc->config); !r)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, r.error().message});
		p.pids.push_back(proc->pid);
	}

	auto start = Clock::now();
	auto deadline = start + std::chrono::duration<double>(o.duration_s);
	// The ring buffer hands over what it holds in one call: a sampler that
	// outruns naming must not keep the profile going past its end.
	Sampler::Handler handler = [&](const lj_profile_sample &s) {
		auto c = by_pid.find(s.pid);
		if (Clock::now() > deadline + std::chrono::seconds(1))
			tally.count("failed: not named before the profile's end", true);
		else if (c == by_pid.end())
			tally.count("failed: no VM for the process", true);
		else
			c->second->add(s);
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
	if (uint64_t dropped = (*sampler)->dropped())
		tally.count(std::string("failed: ") + (*sampler)->dropped_reason(), true, dropped);
	p.backend = (*sampler)->backend();
	p.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	p.samples = tally.samples;
	for (auto &[outcome, n] : tally.outcomes)
		p.outcomes.push_back({outcome, n.first, n.second});
	for (auto &[frames, n] : tally.stacks)
		p.stacks.push_back({frames, n});
	for (auto &[why, n] : tally.without_native)
		p.notes.push_back("--native: " + std::to_string(n) +
				  " samples without native frames: " + why);
	return p;
}

} // namespace ljcore
