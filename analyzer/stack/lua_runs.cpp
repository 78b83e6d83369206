#include "analyzer/stack/lua_runs.h"

#include <algorithm>
#include <string_view>

#include "analyzer/lua/lua_debug.h"
#include "luajit/bytecode.h"

namespace ljcore {

namespace {

// Frame link facts (lj_frame.h): the type sits in the low bits of the
// link; a Lua link is a bytecode pc, the others a byte delta down.
constexpr int64_t frame_type_mask = 3, frame_typep_mask = 7;
constexpr int64_t frame_lua = 0, frame_c = 1, frame_cont = 2;

// cframe_raw(): the low bits of a C frame pointer are flags.
constexpr uint64_t cframe_raw_mask = ~uint64_t(3);

// Bound on the C frames of lua_cpcall skipped at one position: nesting
// deeper than LUAI_MAXCCALLS (200) C calls is an error in LuaJIT.
constexpr int max_cframe_skips = 256;

struct FrameLink {
	int64_t ftsz = 0;
	uint64_t prev = 0;
};

// frame_ftsz() and frame_prev() of the frame link at slot f.
std::optional<FrameLink> frame_link(const Vm &mem, uint64_t f)
{
	const lj_layout &ly = mem.layout();
	FrameLink link;
	if (ly.fr2) {
		auto v = mem.value<uint64_t>(f);
		if (!v)
			return std::nullopt;
		link.ftsz = int64_t(*v);
	} else {
		auto v = mem.value<uint32_t>(f + 4);
		if (!v)
			return std::nullopt;
		link.ftsz = int32_t(*v);
	}
	if ((link.ftsz & frame_type_mask) == frame_lua) {
		// frame_prevl(): the A operand of the call instruction.
		uint64_t pc = ly.fr2 ? uint64_t(link.ftsz) : uint32_t(link.ftsz);
		auto ins = mem.value<uint32_t>(pc - 4);
		if (!ins)
			return std::nullopt;
		link.prev = f - 8 * (1 + ly.fr2 + ((*ins >> 8) & 0xff));
	} else {
		link.prev = f - uint64_t(link.ftsz & ~frame_typep_mask);
	}
	return link;
}

// Does leaving the frame with this link leave its C frame too? A C link
// (lua_call, lua_pcall, lua_cpcall) does, and so does the continuation of
// an FFI callback (frame_iscont_fficb(): its contv slot holds 1).
std::optional<bool> owns_cframe(const Vm &mem, uint64_t f, int64_t ftsz)
{
	const lj_layout &ly = mem.layout();
	if ((ftsz & frame_type_mask) == frame_c)
		return true;
	if ((ftsz & frame_typep_mask) != frame_cont)
		return false;
	auto contv = mem.value<uint64_t>(f - 8 * (ly.fr2 ? 3 : 1));
	if (!contv)
		return std::nullopt;
	return (ly.fr2 ? *contv : uint32_t(*contv)) == 1;
}

// The stack pointer's DWARF register number.
int sp_register(Arch arch)
{
	return arch_info(arch).sp;
}

} // namespace

std::optional<uint64_t> jloop_handler(const Vm &mem, uint64_t g)
{
	const lj_layout &ly = mem.layout();
	uint32_t jloop = 0;
	while (jloop < LJ_BC_COUNT && std::string_view(lj_bcdefs[jloop].name) != "JLOOP")
		jloop++;
	auto handler = mem.value<uint64_t>(g - ly.gg_g + ly.gg_dispatch + 8 * jloop);
	return handler ? std::optional(*handler) : std::nullopt;
}

// The same walk as debug_framepc() in lj_debug.c: down the frames from the
// top, leaving a C frame whenever a frame owned one, and skipping C frames
// of lua_cpcall that hold no Lua frame (negative nres: they record how
// much stack was in use when they were entered).
FrameCframes frame_cframes(const Vm &mem, const LuaStack &stack)
{
	const lj_layout &ly = mem.layout();
	FrameCframes out;
	out.cframe.assign(stack.frames.size(), 0);
	if (stack.frames.empty())
		return out;
	auto raw_cf = mem.value<uint64_t>(stack.L + ly.L_cframe);
	auto stack_bottom = mem.ref(stack.L + ly.L_stack);
	if (!raw_cf || !stack_bottom) {
		out.problem = "cannot read L->cframe or L->stack";
		return out;
	}
	uint64_t cf = *raw_cf & cframe_raw_mask;
	uint64_t f = stack.frames[0].slot;
	size_t next = 0;
	// Every step goes down the stack, and at most two pseudo frames sit
	// between two frames the walker reported.
	for (size_t steps = 0; next < stack.frames.size() && steps < 3 * stack.frames.size() + 3;
	     steps++) {
		for (int i = 0; cf && i < max_cframe_skips; i++) {
			auto nres = mem.value<int32_t>(cf + ly.cf_nres);
			if (!nres) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			if (*nres >= 0 || f >= *stack_bottom + uint64_t(-int64_t(*nres)))
				break;
			auto prev = mem.value<uint64_t>(cf + ly.cf_prev);
			if (!prev) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			cf = *prev & cframe_raw_mask;
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
		auto owns = link ? owns_cframe(mem, f, link->ftsz) : std::nullopt;
		if (!owns) {
			out.problem = "cannot read the frame link at " + luajit_pointer(f);
			return out;
		}
		if (*owns && cf) {
			auto prev = mem.value<uint64_t>(cf + ly.cf_prev);
			if (!prev) {
				out.problem = "cannot read C frame " + luajit_pointer(cf);
				return out;
			}
			cf = *prev & cframe_raw_mask;
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

std::vector<uint64_t> entered_states(const Vm &mem, uint64_t g,
				     const std::vector<NativeStack> &stacks, Arch arch,
				     const std::vector<uint64_t> &known)
{
	const lj_layout &ly = mem.layout();
	const int sp = sp_register(arch);
	std::vector<uint64_t> found;
	auto seen = [&](uint64_t L) {
		return std::ranges::find(known, L) != known.end() ||
		       std::ranges::find(found, L) != found.end();
	};
	// Is cf on the C-frame chain of L?
	auto on_chain = [&](uint64_t L, uint64_t cf) {
		auto head = mem.value<uint64_t>(L + ly.L_cframe);
		uint64_t at = head ? *head & cframe_raw_mask : 0;
		for (int i = 0; at && i < max_cframe_skips; i++) {
			if (at == cf)
				return true;
			auto prev = mem.value<uint64_t>(at + ly.cf_prev);
			at = prev ? *prev & cframe_raw_mask : 0;
		}
		return false;
	};
	for (const auto &stack : stacks) {
		for (const auto &f : stack.frames) {
			if (!f.has_reg(sp))
				continue;
			uint64_t cf = f.regs.dwarf[size_t(sp)];
			auto L = mem.ref(cf + ly.cf_l);
			if (!L || !*L || seen(*L))
				continue;
			auto gct = mem.gct(*L);
			auto Lg = mem.ref(*L + ly.L_glref);
			if (gct && *gct == LJ_TTHREAD && Lg && *Lg == g && on_chain(*L, cf))
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
