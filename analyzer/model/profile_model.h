// A profile of a live process: stacks with counts, and an account of every
// sample taken. Plain data; cli/render_profile*.cpp print it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "readers/diagnostics.h"

namespace ljcore {

enum class ProfileFrameKind {
	lua,       // a Lua function, named as debug.traceback names it
	c,         // a C function called from Lua (lua_CFunction, fast function)
	native,    // a native frame around the Lua frames (--native)
	state,     // the VM was not running Lua: GC, compiler, C, idle
	truncated, // the stack was deeper than the sampler walks
	request,   // --by-request's root: the nginx request served, "GET /path"
};

struct ProfileFrame {
	ProfileFrameKind kind = ProfileFrameKind::lua;
	std::string name;      // "foo", "pcall", a native symbol, a state;
			       // empty for an anonymous Lua function
	std::string file;      // short_src of a Lua frame, module of a native one
	int line = -1;         // current line, -1 if none
	int line_defined = -1; // where a Lua function starts (0: main chunk)

	friend bool operator==(const ProfileFrame &, const ProfileFrame &) = default;
	friend auto operator<=>(const ProfileFrame &, const ProfileFrame &) = default;
};

// What the VM was doing at a sample: LuaJIT's own states (g->vmstate, as
// jit/p.lua's 'v' mode tells them apart), with a trace exit apart from the
// compiler. A label of the stack, not one of its frames.
enum class VmActivity {
	unknown,      // no state read (a profile of bytes, a failed walk)
	interpreted,  // the interpreter, fast functions included
	compiled,     // a trace's machine code, or a helper it called
	c_function,   // a lua_CFunction (or a Tarantool fast function)
	gc,           // the garbage collector
	jit_compiler, // recording, optimizing or assembling a trace
	trace_exit,   // leaving a trace: restoring its snapshot
};

// The nginx request a sample's coroutine served (lua-nginx-module's
// L->exdata), as read at sample time.
struct ProfileRequest {
	enum class Status {
		none,       // in no live request (or not nginx)
		served,     // method, path, host below
		unreadable, // a live request whose strings could not be read
	} status = Status::none;
	std::string method; // "GET"
	std::string path;   // the URI as sent, without its query string
	std::string host;   // the Host header, empty without one

	friend auto operator<=>(const ProfileRequest &, const ProfileRequest &) = default;
};

// The labels of a sample, apart from its frames: flame graphs merge what
// they do not show, pprof and speedscope keep them.
struct ProfileLabels {
	VmActivity activity = VmActivity::unknown;
	uint32_t trace = 0; // the trace whose code ran (or called out), 0: none
	ProfileRequest request;

	friend auto operator<=>(const ProfileLabels &, const ProfileLabels &) = default;
};

// "interpreted", "compiled", "C function", "GC", "JIT compiler", "trace
// exit"; "" for unknown.
const char *activity_name(VmActivity a);

struct ProfileStack {
	std::vector<ProfileFrame> frames; // root first, innermost last
	uint64_t value = 0;               // samples, or bytes (Profile::unit)
	ProfileLabels labels;
};

// How many samples ended one way: "lua" (a Lua stack), "c", "gc",
// "compiler", "idle", or a failure reason ("stack read failed", ...).
struct ProfileOutcome {
	std::string outcome;
	uint64_t samples = 0;
	bool failure = false;
};

struct Profile {
	int32_t pid = 0;           // the process asked for
	std::vector<int32_t> pids; // those sampled: pid, or its workers
	std::string backend;       // "bpf", "userspace", "userspace, blocking"
	// What the summary should say, in the order it was said: notes (a
	// backend refused, a child without a VM...) and problems (a VM whose
	// allocator could not be read).
	Diagnostics diagnostics;
	std::string unit = "samples";
	uint32_t rate_hz = 0;
	uint64_t sample_bytes = 0; // allocations: the mean bytes between samples
	double duration_s = 0;
	uint64_t paused_us = 0; // how long the process was stopped to find its VM
	uint64_t samples = 0;   // taken; equals the sum of outcomes
	std::vector<ProfileOutcome> outcomes;
	std::vector<ProfileStack> stacks;
};

} // namespace ljcore
