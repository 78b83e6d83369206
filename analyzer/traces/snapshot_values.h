// What LuaJIT would write into the Lua stack on an exit through a snapshot
// (lj_snap.c snap_restoreval()): each restored slot's TValue, taken from
// the IR constant, the spill slot or the register that holds it. A crash in
// compiled code is read as such an exit, so the frames a trace rebuilds
// show the values they hold there, not the stale stack.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analyzer/lua/vm.h"
#include "analyzer/model/trace_model.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

struct SnapshotSlot {
	uint64_t raw = 0;    // the TValue, a raw word (analyzer/lua/tvalue.h)
	std::string missing; // why there is none: the value is not guessed
};

// Stack slot address -> what the snapshot restores there. Slots it does
// not list keep what the stack holds.
using SnapshotValues = std::map<uint64_t, SnapshotSlot>;

// The values of snapshot snapno of trace t, whose frames start at base
// (g->jit_base), for a thread at native frame f in the trace's code. Its
// vector registers (vector_regs) are known only when that is the thread's
// innermost frame: they are caller-saved, lost to a call out of the trace.
SnapshotValues snapshot_values(const Vm &mem, const Trace &t, uint32_t snapno, uint64_t base,
			       const NativeFrame &f, const ThreadRegs *vector_regs, Arch arch);

} // namespace ljcore
