// Renderers of JIT traces: the table of all traces, one trace as jit.dump
// lists it, and the trace model as JSON.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/model/analysis.h"

namespace ljcore {

// An IRType's three-letter name as jit.dump prints it ("i8 " padded).
const char *irtype_name(unsigned t);

// One line per trace: number, root, link, start, sizes, machine code.
void render_trace_table(std::ostream &out, const Analysis &a);
// The "---- TRACE n IR" section of jit.dump with "+rs": IR, registers and
// spill slots, snapshots interleaved, registers named as set names them.
void render_trace_ir(std::ostream &out, const TraceSet &set, const Trace &t);
// The machine code listing: address, instruction, and what LuaJIT's layout
// says of it (entry, loop, exit and its snapshot, link to another trace).
void render_trace_mcode(std::ostream &out, const Trace &t);
// Every VM's traces as JSON: schema_version, source, arch, vms[] {global_state,
// layout, traces}; with_listing: each trace's disassembly too.
void render_traces_json(std::ostream &out, const Analysis &a, bool with_listing);
// Trace `number` of the first VM that has it, as render_trace_ir prints it;
// returns the exit status: status, or exit_partial/exit_no_vm when the
// trace is not there.
int render_one_trace(std::ostream &out, const Analysis &a, uint32_t number, bool mcode, int status);

} // namespace ljcore
