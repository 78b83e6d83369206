#include "analyzer/stack/lua_stack.h"

#include <vector>

#include "analyzer/lua/function.h"
#include "analyzer/lua/lua_debug.h"

namespace ljcore {

namespace {

// The walker reads through this context, and keeps why a read failed.
struct WalkContext {
	const Memory *memory;
	std::string last_miss;
};

int walker_read(void *ctx, void *dst, uint64_t addr, uint64_t size)
{
	auto *c = static_cast<WalkContext *>(ctx);
	auto r = c->memory->read(addr, std::span(static_cast<std::byte *>(dst), size));
	if (r)
		return 0;
	c->last_miss = r.error().reason;
	return -1;
}

} // namespace

} // namespace ljcore

#define LJ_READ(ctx, dst, addr, size) ljcore::walker_read(ctx, dst, addr, size)
#include "luajit/walker.h"

namespace ljcore {

namespace {

std::string walk_problem(const lj_walk &w, const WalkContext &ctx)
{
	std::string at = luajit_pointer(w.bad_addr);
	switch (w.status) {
	case LJ_WALK_EREAD:
		return "cannot read " + at + " (" + ctx.last_miss + ")";
	case LJ_WALK_ECHAIN:
		if (w.bad_addr < w.bot)
			return "the frame chain runs below the stack's bottom, to " + at +
			       ": a frame link or the call instruction before a saved pc is "
			       "garbage";
		return "frame link at " + at + " does not lead down the stack";
	case LJ_WALK_EFUNC:
		return "frame slot at " + at + " holds no function";
	default:
		return "walk stopped (status " + std::to_string(w.status) + ")";
	}
}

// What lua_getinfo("Sl") says of a frame's own function.
void describe_function(const Vm &mem, const WalkedFrame &raw, LuaFrame &f,
		       const CodeSymbolizer &symbolize)
{
	Function fn(mem, raw.func);
	auto ffid = fn.ffid();
	if (!ffid) {
		f.problem = "cannot read the function at " + luajit_pointer(raw.func);
		return;
	}
	f.ffid = *ffid;
	if (f.ffid != LJ_FF_LUA) {
		f.what = "C";
		f.source = "=[C]";
		f.short_src = "[C]";
		if (auto cf = fn.c_function())
			f.c_function = *cf;
		if (f.c_function && symbolize)
			f.c_symbol = symbolize(f.c_function);
		return;
	}
	auto pt = function_proto(mem, raw.func);
	if (!pt) {
		f.problem = pt.error().message;
		return;
	}
	auto chunk = mem.str(pt->chunkname);
	if (!chunk) {
		f.problem = "chunk name unreadable: " + chunk.error().reason;
	} else {
		f.source = *chunk;
		f.short_src = short_source(*chunk, pt->firstline);
	}
	f.line_defined = pt->firstline;
	f.what = (pt->firstline || !pt->numline) ? "Lua" : "main";
	uint32_t pos = bc_position(*pt, raw.pc);
	if (pos != no_bcpos) {
		auto line = proto_line(mem, *pt, pos);
		if (line)
			f.current_line = *line;
		else
			f.problem = line.error().message;
	}
}

} // namespace

LuaStack walk_lua_stack(const Vm &mem, const WalkStart &start, const CodeSymbolizer &symbolize,
			size_t max_frames)
{
	LuaStack stack;
	stack.L = start.L;
	WalkContext ctx{&mem.memory(), {}};
	const lj_layout *ly = &mem.layout();
	lj_walk w{};
	std::vector<WalkedFrame> raw;
	if (lj_walk_init(&ctx, ly, &w, start.L, start.base, start.top_pc) != 0) {
		stack.complete = false;
		stack.stop_reason = "cannot start at lua_State " + luajit_pointer(start.L) + ": " +
				    walk_problem(w, ctx);
		return stack;
	}
	while (raw.size() < max_frames) {
		lj_frame fr{};
		int st = lj_walk_next(&ctx, ly, &w, &fr);
		if (st == LJ_WALK_END)
			break;
		if (st != LJ_WALK_OK) {
			stack.complete = false;
			stack.stop_reason = walk_problem(w, ctx);
			break;
		}
		raw.push_back(
			{fr.slot, fr.nextslot, fr.prevslot, fr.func, fr.pc, fr.type, fr.level});
	}
	if (raw.size() == max_frames) {
		stack.complete = false;
		stack.stop_reason = "more than " + std::to_string(max_frames) + " frames";
	}
	size_t ncompiled = 0;
	if (start.compiled) {
		ncompiled = start.compiled->inlined.size();
		raw.insert(raw.begin(), ncompiled, WalkedFrame{});
		for (size_t i = 0; i < ncompiled; i++) {
			const InlinedFrame &in = start.compiled->inlined[i];
			raw[i].slot = in.slot;
			raw[i].func = in.function;
			raw[i].pc = in.pc;
			raw[i].type = LJ_FRAME_LUA;
		}
		for (size_t i = 0; i < raw.size(); i++) {
			if (i < ncompiled)
				raw[i].prevslot = i + 1 < raw.size() ? raw[i + 1].slot : 0;
			raw[i].nextslot = i > 0 ? raw[i - 1].slot : 0;
			raw[i].level = uint32_t(i);
		}
	}

	name_frames(mem, raw, start.compiled, ncompiled, symbolize, stack);
	return stack;
}

std::string frame_chain_problem(const Vm &mem, const WalkStart &start)
{
	WalkContext ctx{&mem.memory(), {}};
	const lj_layout *ly = &mem.layout();
	lj_walk w{};
	if (lj_walk_init(&ctx, ly, &w, start.L, start.base, start.top_pc) != 0)
		return walk_problem(w, ctx);
	for (size_t n = 0; n < max_lua_frames; n++) {
		lj_frame fr{};
		int st = lj_walk_next(&ctx, ly, &w, &fr);
		if (st == LJ_WALK_END)
			return {};
		if (st != LJ_WALK_OK)
			return walk_problem(w, ctx);
	}
	return "more than " + std::to_string(max_lua_frames) + " frames";
}

std::optional<uint64_t> returning_to(const Vm &mem, uint64_t base, uint64_t pc, bool linked)
{
	WalkContext ctx{&mem.memory(), {}};
	lj_walk w{};
	uint64_t caller_base = 0;
	if (lj_walk_returning_to(&ctx, &mem.layout(), &w, base, pc, linked, &caller_base) != 0)
		return std::nullopt;
	return caller_base;
}

void name_frames(const Vm &mem, const std::vector<WalkedFrame> &raw, const TraceFrames *compiled,
		 size_t ncompiled, const CodeSymbolizer &symbolize, LuaStack &stack)
{
	for (size_t i = 0; i < raw.size(); i++) {
		LuaFrame f;
		f.level = raw[i].level;
		f.slot = raw[i].slot;
		f.next_slot = raw[i].nextslot;
		f.function = raw[i].func;
		f.pc = raw[i].pc;
		f.frame_type = raw[i].type;
		// The frame at jit_base runs in the trace, as do those it inlined.
		if (compiled && i <= ncompiled) {
			f.trace = compiled->trace;
			f.inlined = i < ncompiled;
		}
		describe_function(mem, raw[i], f, symbolize);
		// lj_debug_funcname(): the caller is the frame right below,
		// when it is the one this frame links to and runs Lua code.
		if (i + 1 < raw.size() && raw[i + 1].slot == raw[i].prevslot &&
		    raw[i + 1].pc != 0) {
			auto caller = function_proto(mem, raw[i + 1].func);
			if (caller) {
				uint32_t pos = bc_position(*caller, raw[i + 1].pc);
				if (pos != no_bcpos) {
					auto name = name_from_caller(mem, *caller, pos);
					if (name) {
						f.namewhat = name->namewhat;
						f.name = name->name;
					} else if (f.problem.empty()) {
						f.problem = name.error().message;
					}
				}
			}
		}
		stack.frames.push_back(std::move(f));
	}
}

} // namespace ljcore
