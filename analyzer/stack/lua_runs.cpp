#include "analyzer/stack/lua_runs.h"

#include <algorithm>
#include <string_view>

#include "analyzer/lua/frame.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/model/lua_text.h"
#include "luajit/bytecode.h"

namespace ljcore {

namespace {

// Bound on the C frames of lua_cpcall skipped at one position: nesting
// deeper than LUAI_MAXCCALLS (200) C calls is an error in LuaJIT.
constexpr int max_cframe_skips = 256;

// Does leaving the frame with this link leave its C frame too? A C link
// (lua_call, lua_pcall, lua_cpcall) does, and so does the continuation of
// an FFI callback (frame_iscont_fficb(): its contv slot holds 1).
Read<bool> owns_cframe(const Vm &mem, uint64_t f, int64_t ftsz)
{
	if ((ftsz & LJ_FRAME_TYPE) == LJ_FRAME_C)
		return true;
	if ((ftsz & LJ_FRAME_TYPEP) != LJ_FRAME_CONT)
		return false;
	auto contv = frame_contv(mem, f);
	if (!contv)
		return std::unexpected(contv.error());
	return *contv == 1;
}

// The stack pointer's DWARF register number.
int sp_register(Arch arch)
{
	return arch_info(arch).sp;
}

} // namespace

std::optional<uint64_t> jloop_handler(const Vm &mem)
{
	uint32_t jloop = 0;
	while (jloop < LJ_BC_COUNT && std::string_view(lj_bcdefs[jloop].name) != "JLOOP")
		jloop++;
	auto handler = GlobalState(mem).dispatch(jloop);
	return handler ? std::optional(*handler) : std::nullopt;
}

// The same walk as debug_framepc() in lj_debug.c: down the frames from the
// top, leaving a C frame whenever a frame owned one, and skipping C frames
// of lua_cpcall that hold no Lua frame (negative nres: they record how
// much stack was in use when they were entered).
FrameCframes frame_cframes(const Vm &mem, const LuaStack &stack)
{
	FrameCframes out;
	out.cframe.assign(stack.frames.size(), 0);
	if (stack.frames.empty())
		return out;
	LuaState L(mem, stack.L);
	auto raw_cf = L.cframe();
	auto stack_bottom = L.stack();
	if (!raw_cf || !stack_bottom) {
		out.problem = "cannot read L->cframe or L->stack";
		return out;
	}
	uint64_t cf = cframe_raw(*raw_cf);
	uint64_t f = stack.frames[0].slot;
	size_t next = 0;
	// Every step goes down the stack, and at most two pseudo frames sit
	// between two frames the walker reported.
	for (size_t steps = 0; next < stack.frames.size() && steps < 3 * stack.frames.size() + 3;
	     steps++) {
		for (int i = 0; cf && i < max_cframe_skips; i++) {
			auto nres = cframe_nres(mem, cf);
			if (!nres) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			if (*nres >= 0 || f >= *stack_bottom + uint64_t(-int64_t(*nres)))
				break;
			auto prev = cframe_prev(mem, cf);
			if (!prev) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			cf = *prev;
		}
		if (f == stack.frames[next].slot)
			out.cframe[next++] = cf;
		else if (f < stack.frames[next].slot)
			break; // passed a frame the walker saw: links disagree
		// A frame the trace inlined has no link in memory: it is a Lua
		// call, owning no C frame, from the frame right below.
		if (next > 0 && stack.frames[next - 1].inlined) {
			if (next == stack.frames.size())
				break;
			f = stack.frames[next].slot;
			continue;
		}
		auto link = frame_link(mem, f);
		auto owns = link ? owns_cframe(mem, f, link->ftsz) : std::unexpected(link.error());
		if (!owns) {
			out.problem = "cannot read the frame link at " + luajit_pointer(f);
			return out;
		}
		if (*owns && cf) {
			auto prev = cframe_prev(mem, cf);
			if (!prev) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			cf = *prev;
		}
		if (link->prev >= f)
			break;
		f = link->prev;
	}
	if (next < stack.frames.size())
		out.problem = "C frames known for " + std::to_string(next) + " of " +
			      std::to_string(stack.frames.size()) + " Lua frames";
	return out;
}

std::vector<uint64_t> entered_states(const Vm &mem, const std::vector<NativeStack> &stacks,
				     Arch arch, const std::vector<uint64_t> &known)
{
	const int sp = sp_register(arch);
	std::vector<uint64_t> found;
	auto seen = [&](uint64_t L) {
		return std::ranges::find(known, L) != known.end() ||
		       std::ranges::find(found, L) != found.end();
	};
	// Is cf on the C-frame chain of L?
	auto on_chain = [&](uint64_t L, uint64_t cf) {
		auto head = LuaState(mem, L).cframe();
		uint64_t at = head ? cframe_raw(*head) : 0;
		for (int i = 0; at && i < max_cframe_skips; i++) {
			if (at == cf)
				return true;
			at = cframe_prev(mem, at).value_or(0);
		}
		return false;
	};
	for (const auto &stack : stacks) {
		for (const auto &f : stack.frames) {
			if (!f.has_reg(sp))
				continue;
			uint64_t cf = f.regs.dwarf[size_t(sp)];
			auto L = cframe_L(mem, cf);
			if (!L || !*L || seen(*L))
				continue;
			auto gct = mem.gct(*L);
			auto Lg = LuaState(mem, *L).glref();
			if (gct && *gct == LJ_TTHREAD && Lg && *Lg == mem.g() && on_chain(*L, cf))
				found.push_back(*L);
		}
	}
	return found;
}

void place_lua_runs(std::vector<ThreadResult> &threads, const std::vector<NativeStack> &stacks,
		    Arch arch, size_t vm, const LuaStack &stack, const FrameCframes &cframes,
		    std::optional<size_t> home_thread)
{
	struct Placed {
		LuaRun run;
		std::optional<size_t> thread;
	};
	std::vector<Placed> runs;
	for (size_t i = 0; i < stack.frames.size(); i++) {
		uint64_t cf = cframes.cframe[i];
		if (!runs.empty() && runs.back().run.cframe == cf) {
			runs.back().run.count++;
			continue;
		}
		runs.push_back({LuaRun{vm, stack.L, cf, stack.frames[i].level, 1, std::nullopt},
				std::nullopt});
	}
	const int sp = sp_register(arch);
	bool any_placed = false;
	for (auto &p : runs) {
		for (size_t t = 0; t < stacks.size() && p.run.cframe && !p.thread; t++) {
			const auto &frames = stacks[t].frames;
			for (size_t i = 0; i < frames.size(); i++) {
				if (frames[i].has_reg(sp) &&
				    frames[i].regs.dwarf[size_t(sp)] == p.run.cframe) {
					p.thread = t;
					p.run.native_frame = i;
					any_placed = true;
					break;
				}
			}
		}
	}
	if (!any_placed)
		return;
	for (auto &p : runs) {
		std::optional<size_t> t = p.thread ? p.thread : home_thread;
		if (!t)
			continue;
		threads[*t].lua_runs.push_back(p.run);
	}
}

void order_lua_runs(std::vector<ThreadResult> &threads)
{
	// Innermost first, by native frame; the unplaced ones last.
	for (ThreadResult &t : threads)
		std::stable_sort(t.lua_runs.begin(), t.lua_runs.end(),
				 [](const LuaRun &a, const LuaRun &b) {
					 return a.native_frame.value_or(SIZE_MAX) <
						b.native_frame.value_or(SIZE_MAX);
				 });
}

} // namespace ljcore
