#include "analyzer/profile/profiler.h"

#include <chrono>
#include <map>
#include <unordered_map>

#include "analyzer/analyze.h"
#include "analyzer/locate/vm_locator.h"
#include "analyzer/profile/bpf_sampler.h"
#include "analyzer/stack/lua_stack.h"

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

class Collector {
public:
	Collector(const LuaMemory &mem, unsigned vmstates, CodeSymbolizer symbolize)
	    : mem_(mem), vmstates_(vmstates), symbolize_(std::move(symbolize))
	{
	}

	void add(const lj_profile_sample &s);
	Profile &profile() { return profile_; }
	void finish();

private:
	void count(const std::string &outcome, bool failure)
	{
		auto [it, added] = outcomes_.try_emplace(outcome, 0, failure);
		it->second.first++;
		profile_.samples++;
	}

	const LuaMemory &mem_;
	unsigned vmstates_;
	CodeSymbolizer symbolize_;
	Profile profile_;
	std::map<std::string, std::pair<uint64_t, bool>> outcomes_;
	std::map<std::vector<ProfileFrame>, uint64_t> stacks_;
};

void Collector::add(const lj_profile_sample &s)
{
	switch (s.source) {
	case LJ_PROFILE_OTHER_THREAD:
		return count("thread without the VM", false);
	case LJ_PROFILE_NO_STATE:
		return count("failed: VM state unreadable", true);
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
	LuaStack stack;
	name_frames(mem_, raw, nullptr, 0, symbolize_, stack);
	std::vector<ProfileFrame> frames;
	if (s.truncated)
		frames.push_back({ProfileFrameKind::truncated, "", "", -1, -1, 0});
	for (auto f = stack.frames.rbegin(); f != stack.frames.rend(); ++f)
		frames.push_back(profile_frame(*f));
	std::string what = activity(state);
	if (what == "GC" || what == "JIT compiler")
		frames.push_back({ProfileFrameKind::state, what, "", -1, -1, 0});
	else if (what == "compiled trace")
		frames.push_back({ProfileFrameKind::trace, "", "", -1, -1,
				  s.vmstate > 0 ? uint32_t(s.vmstate) : 0});
	stacks_[std::move(frames)]++;
	count(what, false);
}

void Collector::finish()
{
	for (auto &[outcome, n] : outcomes_)
		profile_.outcomes.push_back({outcome, n.first, n.second});
	for (auto &[frames, n] : stacks_)
		profile_.stacks.push_back({frames, n});
}

} // namespace

std::expected<Profile, ProfileError> profile_process(const ProfileOptions &o)
{
	using Clock = std::chrono::steady_clock;
	auto live = open_live(o.pid);
	if (!live)
		return std::unexpected(
			ProfileError{ProfileFailure::unreadable, live.error().message});
	Analysis a = analyze_target(*live->process, *live->native, AnalyzeOptions{});
	live->process->resume();
	if (a.vms.empty())
		return std::unexpected(ProfileError{
			ProfileFailure::no_vm,
			"no LuaJIT VM found in process " + std::to_string(o.pid) +
				(a.problems.empty() ? "" : ": " + a.problems.front())});
	const VmResult &vm = a.vms.front();
	auto sampler = BpfSampler::open(o.rate_hz);
	if (!sampler)
		return std::unexpected(
			ProfileError{ProfileFailure::no_sampler, sampler.error().message});
	lj_profile_vm config{};
	config.layout = vm.layout_offsets;
	config.g = vm.global_state;
	config.tid = uint32_t(vm.tid);
	if (auto r = (*sampler)->add(o.pid, config); !r)
		return std::unexpected(ProfileError{ProfileFailure::no_sampler, r.error().message});

	LuaMemory mem(*live->process, vm.layout_offsets);
	std::unordered_map<uint64_t, std::string> symbols;
	CodeSymbolizer symbolize = [&](uint64_t addr) {
		auto [at, added] = symbols.try_emplace(addr);
		if (added) {
			auto sym = live->native->symbol_at(addr);
			at->second = sym && sym->addr == addr ? sym->name : std::string();
		}
		return at->second;
	};
	Collector collect(mem, vm.layout_offsets.vmstates, symbolize);
	BpfSampler::Handler handler = [&](const lj_profile_sample &s) { collect.add(s); };
	auto start = Clock::now();
	auto deadline = start + std::chrono::duration<double>(o.duration_s);
	while (Clock::now() < deadline && !(o.stop && o.stop())) {
		if (auto r = (*sampler)->poll(100, handler); !r)
			return std::unexpected(
				ProfileError{ProfileFailure::no_sampler, r.error().message});
		if (o.progress)
			o.progress(collect.profile());
	}
	// What the ring buffer still holds was sampled in time.
	(void)(*sampler)->poll(0, handler);
	collect.finish();
	Profile p = std::move(collect.profile());
	p.pid = o.pid;
	p.backend = "bpf";
	p.rate_hz = o.rate_hz;
	p.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	if (uint64_t dropped = (*sampler)->dropped()) {
		p.outcomes.push_back({"failed: ring buffer full", dropped, true});
		p.samples += dropped;
	}
	return p;
}

} // namespace ljcore
