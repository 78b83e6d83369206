#include "analyzer/profile/sample_namer.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "analyzer/locate/vm_locator.h"
#include "analyzer/lua/function.h"
#include "analyzer/profile/native_frames.h"
#include "analyzer/profile/profiled_arch.h"
#include "analyzer/stack/lua_stack.h"
#include "analyzer/traces/trace_mcode.h"
#include "luajit/frame.h"

namespace ljcore {

namespace {

// enum lj_walk_status of luajit/walker.h (which needs LJ_READ to include).
constexpr int32_t walk_ok = 0, walk_end = 1;

// Named frames remembered; the cache starts over past this many.
constexpr size_t max_cached_names = 1 << 16;

// Samples in no trace's code that may pass before the traces are read
// again (a read costs all the traces' IR and snapshots).
constexpr uint64_t samples_between_reads = 128;

// Snapshots tried before the one covering the pc, when it cannot be
// restored.
constexpr uint32_t max_snapshots_back = 8;

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

// The VM state label of a sample, from vmstate_text()'s name of it.
VmActivity activity_label(const std::string &vmstate)
{
	if (vmstate == "interpreter" || vmstate == "Lua function" || vmstate == "fast function")
		return VmActivity::interpreted;
	if (vmstate == "C" || vmstate == "C function")
		return VmActivity::c_function;
	if (vmstate == "GC")
		return VmActivity::gc;
	if (vmstate == "trace exit")
		return VmActivity::trace_exit;
	if (vmstate == "trace" ||
	    (vmstate.starts_with("trace ") && vmstate[6] >= '0' && vmstate[6] <= '9'))
		return VmActivity::compiled;
	if (vmstate.starts_with("trace "))
		return VmActivity::jit_compiler;
	return VmActivity::unknown;
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

// Where a sample in a trace may have left it: the pc, the word at sp (a
// leaf helper the trace called: lj_vm_modi, lj_vm_floor...), and the words
// of the stack copy: a helper with frames of its own (the GC, lj_str_new(),
// an FFI call, the allocator) has the trace's return address a few frames
// up. Nothing but the helpers' frames lies between sp and that address,
// and none of them holds an address in a trace's code but it.
std::vector<uint64_t> trace_pc_candidates(const lj_profile_sample &s)
{
	std::vector<uint64_t> ips{s.ip, s.ret};
	uint32_t len = std::min<uint32_t>(s.stack_len, LJ_PROFILE_STACK_BYTES);
	for (uint32_t at = 8; at + 8 <= len; at += 8) {
		uint64_t word;
		memcpy(&word, s.stack + at, 8);
		ips.push_back(word);
	}
	return ips;
}

// Whether two snapshots' inlined frames are of the same functions.
bool same_functions(const std::vector<InlinedFrame> &a, const std::vector<InlinedFrame> &b)
{
	return std::equal(a.begin(), a.end(), b.begin(), b.end(),
			  [](const InlinedFrame &x, const InlinedFrame &y) {
				  return x.function == y.function;
			  });
}

} // namespace

// Read once per sample for each function on it: a prototype freed and its
// memory reused for another changes it, so the cache never names a frame
// from a dead one.
FunctionIdentity SampleNamer::identity(uint64_t func)
{
	FunctionIdentity id{func, 0, 0, 0};
	const Function fn(mem_, func);
	auto ffid = fn.ffid();
	if (!ffid)
		return id;
	if (*ffid != LJ_FF_LUA) {
		id.proto = fn.c_function().value_or(0);
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

void SampleNamer::name_walk(const std::vector<WalkedFrame> &raw, std::vector<ProfileFrame> &out)
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

const Trace *SampleNamer::trace_at(uint64_t ip) const
{
	// g->vmstate names the trace entered; a side trace it jumped to runs
	// under the same number. The pc says whose code it is.
	for (const Trace &t : traces_.traces)
		if (t.problem.empty() && ip - t.mcode < t.szmcode)
			return &t;
	return nullptr;
}

SampleNamer::TracePc SampleNamer::trace_pc(const std::vector<uint64_t> &ips, int32_t vmstate)
{
	auto first_in_trace = [&]() -> TracePc {
		for (size_t i = 0; i < ips.size(); i++)
			if (const Trace *t = ips[i] ? trace_at(ips[i]) : nullptr)
				return {t, i ? ips[i] - 1 : ips[i], i > 0};
		return {};
	};
	auto found = first_in_trace();
	since_read_++;
	// A trace number the set does not have is news; a pc in no trace
	// (an exit stub, a helper deeper than the stack copy) most often not.
	bool unknown_number =
		vmstate > 0 &&
		std::none_of(traces_.traces.begin(), traces_.traces.end(),
			     [&](const Trace &t) { return t.number == uint32_t(vmstate); });
	if (!found.trace && (unknown_number || since_read_ > samples_between_reads)) {
		traces_ = read_traces(mem_, *mem_.layout().jit, false, 0);
		traces_.mcode_unit = mcode_unit(profiled_arch);
		since_read_ = 0;
		found = first_in_trace();
	}
	return found;
}

std::optional<TraceFrames> SampleNamer::trace_frames(const std::vector<uint64_t> &ips,
						     uint64_t jit_base, int32_t vmstate,
						     bool in_call)
{
	if (!mem_.layout().jit)
		return std::nullopt;
	auto [t, ip, returned] = trace_pc(ips, vmstate);
	if (!t)
		return std::nullopt;
	// A sample off the CPU whose pc is in the trace's code (preempted
	// there, waiting to run) is not in a call.
	in_call = in_call && returned;
	int32_t snap = snapshot_at(traces_, *t, ip - t->mcode);
	// A call before the first snapshot's code runs in the frames the trace
	// was entered with: snapshot 0's.
	if (snap < 0 && in_call && !t->snapshots.empty())
		snap = 0;
	if (snap < 0)
		return std::nullopt;
	auto frames = restore_trace_frames(mem_, *t, uint32_t(snap), jit_base, false);
	// One that cannot be restored (a continuation frame, a function the
	// trace loaded rather than held) leaves the line to the nearest
	// before it that can: the same code, a few instructions earlier.
	for (uint32_t back = 1;
	     !frames && !in_call && back <= max_snapshots_back && uint32_t(snap) >= back;
	     back++)
		frames = restore_trace_frames(mem_, *t, uint32_t(snap) - back, jit_base, false);
	// A call sits between two snapshots, and code the trace inlined often
	// has no guard before it calls (the loop hoisted them): the snapshot
	// after the call may have the calling frame that the one before does
	// not, being taken before the trace entered it (a deeper frame, or
	// another function at the same depth). When both show the same
	// functions, the one before has the line: the call has not returned
	// (the one after is often the loop's exit, on the line after the
	// loop). The one after has fewer frames when the caller returned
	// before the next guard. Either serves when the other cannot be
	// restored.
	if (in_call && size_t(snap) + 1 < t->snapshots.size()) {
		auto next = restore_trace_frames(mem_, *t, uint32_t(snap) + 1, jit_base, false);
		if (next && (!frames || next->inlined.size() > frames->inlined.size() ||
			     (next->inlined.size() == frames->inlined.size() &&
			      !same_functions(next->inlined, frames->inlined))))
			return std::move(*next);
	}
	return frames ? std::optional(std::move(*frames)) : std::nullopt;
}

NamedSample SampleNamer::name(const lj_profile_sample &s, bool in_call)
{
	NamedSample named;
	auto failed = [&](std::string why) {
		named.outcome = std::move(why);
		named.failure = true;
		return named;
	};
	switch (s.source) {
	case LJ_PROFILE_OTHER_THREAD:
		named.outcome = "thread without the VM";
		return named;
	case LJ_PROFILE_NO_STATE:
		return failed("failed: VM state unreadable");
	case LJ_PROFILE_OFF_CPU:
		named.outcome = "idle: the VM's thread was not running";
		return named;
	case LJ_PROFILE_NOT_STOPPED:
		return failed("failed: the thread did not stop in time");
	case LJ_PROFILE_TOO_MANY_STACKS:
		return failed("failed: more distinct stacks than the kernel's table holds");
	case LJ_PROFILE_WALKED:
		break;
	default:
		return failed("failed: no VM for the process");
	}
	std::string state = vmstate_text(s.vmstate, mem_.layout().vmstates);
	named.labels.activity = activity_label(state);
	if (s.vmstate > 0)
		named.labels.trace = uint32_t(s.vmstate);
	if (s.status != walk_end && !(s.status == walk_ok && s.truncated))
		return failed(walk_failure(s.status));
	std::vector<WalkedFrame> raw;
	uint32_t n = std::min<uint32_t>(s.nframes, LJ_PROFILE_MAX_FRAMES);
	for (uint32_t i = 0; i < n; i++) {
		const lj_profile_frame &f = s.frames[i];
		raw.push_back(
			{f.slot, i ? s.frames[i - 1].slot : 0, f.prevslot, f.func, f.pc, 0, i});
	}
	// In compiled code the walk started at g->jit_base as sampled, the
	// frame the trace started in (its link slot is right below the base);
	// in the GC a trace ran, at L->base, which lj_gc_step_jit() set to it.
	// The snapshot adds what the trace inlined above it, and the line.
	std::optional<TraceFrames> compiled;
	bool from_trace =
		s.vmstate > 0 || (s.jit_base && (named.labels.activity == VmActivity::gc ||
						 named.labels.activity == VmActivity::compiled));
	if (from_trace && !raw.empty())
		compiled = trace_frames(trace_pc_candidates(s), raw[0].slot + 8, s.vmstate,
					in_call);
	size_t ninlined = compiled ? compiled->inlined.size() : 0;
	if (compiled) {
		// A side trace runs under its root's number: the code says whose.
		named.labels.trace = compiled->trace;
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
	std::vector<ProfileFrame> &frames = named.frames;
	name_walk(raw, frames);
	if (native_) {
		// frames[] is root first; the mix takes the Lua frames innermost first.
		std::vector<ProfileFrame> lua(frames.rbegin(), frames.rend());
		std::vector<ProfileFrame> mixed;
		if (mix_native_frames(*native_, mem_, s, raw, ninlined, lua, mixed,
				      named.without_native))
			frames = std::move(mixed);
	}
	if (s.truncated)
		frames.insert(frames.begin(), {ProfileFrameKind::truncated, "", "", -1, -1});
	std::string what = activity(state);
	// In the interpreter without its registers (a sample in the kernel, or
	// the userspace sampler not stopping the thread), the walk started at
	// L->base: the frames as of the VM's last exit to C, not the pc's.
	if (s.vmstate == -1 && s.start == LJ_PROFILE_FROM_STATE && !in_call)
		what = "Lua, from L->base (no registers)";
	// In compiled code no snapshot placed (an exit stub, a trace being
	// replaced), the frames below the trace's start are right and its
	// first frame is at the pc the trace was entered at (the C frame's);
	// what the trace inlined above is unknown. The trace is a label.
	if (what == "GC" || what == "JIT compiler")
		frames.push_back({ProfileFrameKind::state, what, "", -1, -1});
	else if (frames.empty())
		// Native code that no Lua function called (an event loop
		// between requests): a stack of its own, not an empty one.
		frames.push_back({ProfileFrameKind::state, "no Lua frames", "", -1, -1});
	named.outcome = what;
	return named;
}

} // namespace ljcore
