// Renderers: each prints an Analysis one way and decides nothing else.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "analyzer/model/analysis.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

struct RenderOptions {
	bool native = true;   // show native frames (text)
	int level = 0;        // first Lua level (--format=luajit)
	bool explain = false; // how the VMs were found (text)
	bool all = false;     // every coroutine, not just the running one
};

// Human-readable report: process, VMs, threads with mixed frames.
void render_text(std::ostream &out, const Analysis &a, const RenderOptions &o);
// Lua frames only, one block per VM.
void render_lua_text(std::ostream &out, const Analysis &a, const RenderOptions &o);
// Exactly what LuaJIT's debug.traceback("", level) prints after the
// message line, for each VM's current coroutine.
void render_luajit(std::ostream &out, const Analysis &a, const RenderOptions &o);
// The whole model as JSON (schema_version in the document), written as it
// is produced.
void render_json(std::ostream &out, const Analysis &a);
// One traceback in debug.traceback's format, from first_level on.
void luajit_traceback(std::ostream &out, const LuaStack &stack, int first_level);

// ljcore gc: each VM's heap census (text, JSON).
void render_gc(std::ostream &out, const Analysis &a);
void render_gc_json(std::ostream &out, const Analysis &a);
// gc --retained (render_gc_retained.cpp): text, and vms[].retained[].
void render_gc_retained(std::ostream &out, const GcRetained &r);
nlohmann::json gc_retained_json(const GcRetained &r);

std::string signal_name(int signo);
std::string hex_address(uint64_t v); // 0x and 16 digits, for text

} // namespace ljcore
