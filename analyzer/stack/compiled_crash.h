// Frames of a crash inside a trace's machine code: those it kept only in
// registers, rebuilt from a snapshot, and the native frames below it.
#pragma once

#include <optional>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/traces/trace_frames.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

// A crash inside compiled code: g->vmstate names the trace (0 on arm64,
// whose traces do not store their number: then the trace is the one whose
// machine code a thread is in, as lj_trace.c trace_exit_find() finds it).
// The frames it inlined live only in registers; they are rebuilt from the
// snapshot covering the machine code a thread is in: its innermost pc, or
// a return address when the trace called out (an FFI call that crashed).
struct CompiledCrash {
	TraceFrames frames;
	size_t thread = 0;       // the thread in the trace's machine code
	size_t native_frame = 0; // its frame there
};

std::optional<CompiledCrash> compiled_frames(const Vm &vm, int32_t traceno,
					     const std::vector<NativeStack> &stacks,
					     const std::vector<ThreadInfo> &threads, Arch arch,
					     Diagnostics &diag);

// Native unwinding stops in a trace's machine code: it has no CFI. The
// trace runs on the C frame of the interpreter that entered it, so
// unwinding goes on from there, at the interpreter's JLOOP handler
// (dispatch[BC_JLOOP] in GG_State), whose CFI covers the frame like any
// other point of the interpreter does. L->cframe is that frame's stack
// pointer. The CFI computes the frame from it on x86_64; on arm64 from the
// frame pointer x29, which the interpreter keeps at sp + SAVE_FP_LR_ (192
// in both forks' vm_arm64.dasc).
void unwind_below_trace(const Vm &vm, uint64_t L, Arch arch, const NativeSession &native,
			NativeStack &stack, size_t trace_frame, Diagnostics &diag);

} // namespace ljcore
