// Names the frames of one process's samples (luajit/bpf/profile_sample.h),
// through the crash path's naming: a prototype-identity cache over
// name_frames(), the snapshot of a trace for what it inlined, and, for
// --native, the native frames around the Lua ones. Used by the CPU
// profile and by the allocation profile alike.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/profile_model.h"
#include "analyzer/stack/lua_stack.h"
#include "analyzer/traces/trace_frames.h"
#include "analyzer/traces/traces.h"
#include "luajit/bpf/profile_sample.h"
#include "readers/native_stack.h"

namespace ljcore {

struct NamedSample {
	std::vector<ProfileFrame> frames; // root first; empty when it failed
	std::string outcome;              // "Lua", "C", "GC", ..., or "failed: ..."
	ProfileLabels labels;
	bool failure = false;
	std::string without_native; // --native: why the native frames are missing
};

// What names a function's frames: its prototype's address, chunk name,
// first line and size (or a C function's address).
struct FunctionIdentity {
	uint64_t func = 0, proto = 0, header = 0, shape = 0;
	friend auto operator<=>(const FunctionIdentity &, const FunctionIdentity &) = default;
};

class SampleNamer {
public:
	// vm: the profiled VM, read as it runs. native: the process's
	// unwinder for --native, nullptr without.
	SampleNamer(const Vm &vm, CodeSymbolizer symbolize, const NativeSession *native)
	    : mem_(vm), symbolize_(std::move(symbolize)), native_(native)
	{
	}

	// in_call: the sample was taken where the VM may be in a call it
	// made, a trace's return address then in the stack copy: at the VM's
	// allocator (where the VM has also stored L->base and the pc, so a
	// walk from memory is exact), or off the CPU (blocked in a call, or
	// preempted anywhere: trace_frames tells by the pc).
	NamedSample name(const lj_profile_sample &s, bool in_call = false);

private:
	struct FrameKey {
		FunctionIdentity function;
		uint64_t pc = 0;
		FunctionIdentity caller; // when the caller names it
		uint64_t caller_pc = 0;
		friend auto operator<=>(const FrameKey &, const FrameKey &) = default;
	};

	// The trace whose machine code holds ip, from the traces last read.
	const Trace *trace_at(uint64_t ip) const;
	// Where a sample left a trace's code: the trace, the pc, and whether
	// that is a return address, taken as the call before it.
	struct TracePc {
		const Trace *trace = nullptr;
		uint64_t pc = 0;
		bool returned = false;
	};
	// The first of ips (the pc, then return addresses) in a trace's
	// code; the traces are read again, now and then, when none is (the
	// JIT compiled more, or flushed and renumbered).
	TracePc trace_pc(const std::vector<uint64_t> &ips, int32_t vmstate);
	// The frames a sample in a trace runs, as the crash path rebuilds
	// them: the snapshot covering the first of ips found in a trace's code
	// gives the frames the trace inlined and the pc of its first frame;
	// where that snapshot cannot be restored, the nearest before it that
	// can. in_call, and the trace left at a call (a return address): the
	// snapshot after the call when it shows more frames or other
	// functions, or when the one covering it cannot be restored; no
	// snapshot further back.
	std::optional<TraceFrames> trace_frames(const std::vector<uint64_t> &ips, uint64_t jit_base,
						int32_t vmstate, bool in_call);
	FunctionIdentity identity(uint64_t func);
	// Appends the frames of a walk, named, root first.
	void name_walk(const std::vector<WalkedFrame> &raw, std::vector<ProfileFrame> &out);

	const Vm &mem_;
	// The traces, read again when a sample's pc is in none of them (the
	// JIT compiled more, or flushed and renumbered).
	TraceSet traces_;
	// Samples named since the traces were last read.
	uint64_t since_read_ = 0;
	std::map<FrameKey, ProfileFrame> names_;
	CodeSymbolizer symbolize_;
	const NativeSession *native_;
};

} // namespace ljcore
