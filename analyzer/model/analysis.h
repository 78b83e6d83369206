// The result of an analysis: plain data that renderers print. Every part
// says how it was obtained and what could not be read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/gc_model.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/model/value_model.h"
#include "luajit/layout.h"
#include "readers/diagnostics.h"

namespace ljcore {

// One Lua call frame, named the way lua_getinfo("Snl") would name it.
struct LuaFrame {
	uint32_t level = 0;    // as lua_getstack() counts
	uint64_t slot = 0;     // address of the frame link slot
	uint64_t next_slot = 0; // the frame above's link slot (lua_getstack's
				// nextframe), 0 for the innermost frame
	uint64_t function = 0; // GCfunc *
	uint64_t pc = 0;       // bytecode pc, 0 if unknown
	uint32_t frame_type = 0;

	std::string what;      // "Lua", "main" or "C"
	std::string source;    // chunk name as stored ("@file.lua", "=stdin")
	std::string short_src; // as LuaJIT shortens it
	int current_line = -1; // -1: no line (C function or unknown pc)
	int line_defined = -1;
	std::string namewhat; // "global", "local", "method", "field",
			      // "upvalue", "metamethod", "for iterator", ""
	std::string name;
	int ffid = 0;            // fast function id, 0 Lua, 1 plain C
	uint64_t c_function = 0; // lua_CFunction of a C function
	std::string c_symbol;    // its symbol, if known
	std::string problem;     // what could not be read for this frame
	uint32_t trace = 0;      // running compiled in this trace, 0: interpreted
	bool inlined = false;    // inlined by the trace: on no stack, only in its snapshot
	FrameVariables variables; // with --locals
};

struct LuaStack {
	uint64_t L = 0;
	std::vector<LuaFrame> frames;
	bool complete = true;
	std::string stop_reason; // why the walk ended early
};

struct Coroutine {
	uint64_t L = 0;
	std::string status;   // running, suspended, normal, dead
	uint64_t resumed = 0; // the coroutine this one resumed (normal ones)
	LuaStack stack;
};

// The nginx request an OpenResty coroutine serves, as nginx holds it.
struct NginxRequest {
	uint64_t L = 0;       // the coroutine
	uint64_t request = 0; // ngx_http_request_t *
	std::string found_by; // "L->exdata" or "__ngx_req global"
	std::string method;   // bytes, as the client sent them
	std::string uri;      // with its args (unparsed_uri)
	std::string host;     // the Host header, empty without one
	std::string client;   // the client's address (addr_text)
};

struct NativeFrameInfo {
	uint64_t pc = 0;
	std::string function;
	uint64_t offset = 0;
	std::string module;
	bool activation = false;
};

// Lua frames of one coroutine that one entry into the VM runs (lua_call,
// lua_pcall, lua_cpcall, coroutine.resume): they belong right below the
// native frame of that entry, whose stack pointer is the C frame.
struct LuaRun {
	size_t vm = 0;                      // into Analysis::vms
	uint64_t L = 0;                     // the coroutine whose stack holds them
	uint64_t cframe = 0;                // the VM entry's C frame (L->cframe chain)
	uint32_t first_level = 0;           // levels [first_level, first_level + count)
	uint32_t count = 0;                 //   of that coroutine's stack
	std::optional<size_t> native_frame; // the VM entry's native frame, if found
};

struct ThreadResult {
	int32_t tid = 0;
	bool crashed = false;
	int signal = 0;
	std::vector<NativeFrameInfo> frames;
	std::string stop_reason;
	// The native frame below which the VM's Lua frames run, if any.
	std::optional<size_t> vm_frame;
	std::optional<size_t> vm_index; // into Analysis::vms
	// The Lua frames of VMs this thread runs, innermost first, each run
	// at its native frame; empty when no C frame could be matched (then
	// the whole stack hangs under vm_frame).
	std::vector<LuaRun> lua_runs;
};

// One offset of a VM's layout and its source: "DWARF", the instruction
// the code showed it at ("lua_close+0x31"), "moved with g_mainthref" or
// "table <name>".
struct LayoutField {
	std::string name; // the lj_layout member: "L_base"
	uint64_t value = 0;
	std::string source;
};

struct VmResult {
	uint64_t global_state = 0; // global_State *
	uint64_t main_thread = 0;
	uint64_t current_thread = 0;     // g->cur_L, 0 if none
	std::string found_by;            // how G was found
	std::vector<std::string> checks; // consistency checks it passed
	std::string layout;              // the layout's name (a built-in table's, or "from DWARF")
	std::string layout_source;       // "built-in table", "DWARF of <module>", "code of ..."
	std::string layout_origin;       // "dwarf", "derived" or "table"
	// Each field of the layout with where it came from (--explain).
	std::vector<LayoutField> layout_fields;
	// Whether the layout is one the version string names, when it names
	// any (Analysis::version_string): a hint only, memory decided.
	std::optional<bool> layout_matches_version;
	int32_t vmstate = 0;
	std::string vmstate_text; // "interpreter", "C", "trace 12", ...
	uint64_t gc_total = 0;    // g->gc.total: bytes the GC manages
	LuaStack stack;           // of the current coroutine
	// Every coroutine, main thread first (filled for bt --all).
	std::vector<Coroutine> coroutines;
	// Stacks of other lua_States that a VM entry on a native stack runs
	// (resumers of the current coroutine, states a C host entered), when
	// coroutines does not hold them.
	std::vector<LuaStack> entered;
	// The nginx requests its coroutines serve (an nginx worker's VM), the
	// current coroutine's first.
	std::vector<NginxRequest> requests;
	uint64_t gc_objects = 0;    // objects on the GC list when it was walked
	std::optional<GcCensus> gc; // the heap census, when asked for (ljcore gc)
	// The JIT's traces, when they were asked for (ljcore traces, trace).
	std::optional<TraceSet> traces;
	// The value of ljcore print's expression in this VM.
	std::optional<PrintedValue> printed;
	// The offsets of that layout (its name pointer cleared), for the
	// profiler's BPF walker; and the VM's thread (threads' first), 0 if
	// none was found (by symbol or scan only).
	lj_layout layout_offsets{};                          // jit: null
	std::optional<lj_trace_layout> trace_layout_offsets; // name: null
	int32_t tid = 0;
	// Every thread running the VM or holding one of its lua_States, the
	// one it belongs to first (VmCandidate::holders).
	std::vector<int32_t> threads;
};

// The version string found in LuaJIT's module (LUAJIT_VERSION): a hint at
// which built-in layout fits, never proof.
struct VersionString {
	std::string text; // "LuaJIT 2.1.1744317938"
	uint64_t addr = 0;
	std::string module;
	std::vector<std::string> layouts; // built-in tables whose builds carry it
};

struct Analysis {
	// Of every JSON output; bumped when a field changes meaning or goes
	// away. 2: `traces --json` names what it read `source`, as the others
	// do, no longer `core`. 3: strings that are not UTF-8 are written
	// escaped, with their bytes in a "<name>_hex" sibling (cli/render_bytes.h).
	// 4: vms[].requests, the nginx requests an OpenResty worker serves.
	static constexpr int schema_version = 4;

	std::string source; // the core's path, or "process PID"
	bool live = false;
	uint64_t paused_us = 0; // how long a live process was stopped
	std::string arch;
	int32_t pid = 0;
	std::string process_name;
	std::string process_args;
	int signal = 0;
	int signal_code = 0;
	uint64_t fault_addr = 0;
	bool has_fault_addr = false;

	std::vector<ThreadResult> threads;
	std::optional<VersionString> version_string;
	std::vector<VmResult> vms;
	// What could not be read, and why (problems); how the VMs were
	// looked for: layouts tried, candidates rejected and why (evidence,
	// printed by --explain).
	Diagnostics diagnostics;
};

} // namespace ljcore
