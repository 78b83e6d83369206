// A trace's machine code as a listing: each instruction with the exit it
// guards, the trace it branches to, the loop, and where each snapshot's
// code begins. Also finds the parent and exit of each side trace, from the
// parent's exit that LuaJIT patched to jump to it (lj_asm_patchexit).
#pragma once

#include "analyzer/lua/vm.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/traces/disasm.h"

namespace ljcore {

// Needs the traces read with their machine code.
void annotate_mcode(const Vm &mem, TraceSet &set, Arch arch, Disassembler &dis);

// The snapshot whose code covers byte offset ofs of a trace's machine code
// (the last one starting at or before it, as lj_trace.c lj_trace_unwind
// finds it), or -1.
int32_t snapshot_at(const TraceSet &set, const Trace &t, uint64_t ofs);

// Bytes per MCode unit of an architecture.
uint32_t mcode_unit(Arch arch);

} // namespace ljcore
