// Lua frames of a crash inside compiled code. A trace keeps the frames it
// inlined only in registers; what LuaJIT itself would rebuild on an exit
// from that point is in the snapshot that covers the machine code there
// (lj_trace.c lj_trace_unwind() picks it, lj_snap.c lj_snap_restore()
// rebuilds the frames from it). This does the same, reading, not writing.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/traces/snapshot_values.h"
#include "readers/error.h"

namespace ljcore {

// A frame the trace inlined: where its link slot would be, its function
// and the pc it is at (the interpreter's convention: one past the
// instruction it runs).
struct InlinedFrame {
	uint64_t slot = 0;
	uint64_t function = 0;
	uint64_t pc = 0;
};

struct TraceFrames {
	uint32_t trace = 0;
	uint32_t snapshot = 0;
	uint64_t base = 0;                 // g->jit_base: the frame the trace started in
	uint64_t base_pc = 0;              // the pc of that frame
	std::vector<InlinedFrame> inlined; // innermost first
	// What the snapshot restores into the stack slots of these frames
	// (filled by the caller, which knows the thread's registers).
	SnapshotValues values;
};

// Rebuilds the frames of snapshot snapno of trace t, which runs on the
// stack at jit_base. memory_current: the memory is as the trace left it (a
// core, a stopped process), so a function the trace loaded, rather than
// held as a constant, can be read again where it loaded it from.
Expected<TraceFrames> restore_trace_frames(const Vm &mem, const Trace &t, uint32_t snapno,
					   uint64_t jit_base, bool memory_current = true);

} // namespace ljcore
