#include "analyzer/locate/vm_locator.h"

#include <algorithm>
#include <array>

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/luajit_arch.h"

namespace ljcore {

namespace {

// Names of VM states in LJ_VMST_* order (lj_obj.h); vmstate holds their
// complement. Tarantool's fork splits upstream's C state in three (a Lua,
// a fast and a C function) for its profilers.
const char *const vmstate_names[] = {
	"interpreter",     "C", "GC", "trace exit", "trace recorder", "trace optimizer",
	"trace assembler",
};
const char *const vmstate_names_tarantool[] = {
	"interpreter", "Lua function",   "fast function",   "C function",      "GC",
	"trace exit",  "trace recorder", "trace optimizer", "trace assembler",
};

// A frame whose symbol says it is LuaJIT's interpreter or one of its
// fast functions, for the message that tells how G was found.
bool is_vm_symbol(const std::string &name)
{
	return name.starts_with("lj_vm_") || name.starts_with("lj_BC_") ||
	       name.starts_with("lj_ff_") || name.starts_with("lj_fff_") ||
	       name.starts_with("lj_cont_");
}

} // namespace

std::string vmstate_text(int32_t vmstate, unsigned vmstates)
{
	// arm64 traces do not store their number (vm_arm64.dasc BC_JLOOP).
	if (vmstate == 0)
		return "trace";
	if (vmstate > 0)
		return "trace " + std::to_string(vmstate);
	uint32_t index = ~uint32_t(vmstate);
	if (vmstates == std::size(vmstate_names_tarantool) &&
	    index < std::size(vmstate_names_tarantool))
		return vmstate_names_tarantool[index];
	if (vmstates != std::size(vmstate_names_tarantool) && index < std::size(vmstate_names))
		return vmstate_names[index];
	return "unknown (" + std::to_string(vmstate) + ")";
}

int vm_register(Arch arch)
{
	return luajit_arch(arch).vm_reg;
}

namespace {

// The interpreter's dispatch table (GG_State.dispatch, lj_dispatch.h) holds
// the address of each bytecode's handler, all in the VM's machine code.
// It follows g directly without a JIT and after jit_State with one, which
// is what tells those builds apart when no DWARF says which one ran:
// under the wrong layout the table's place holds heap data, not code
// addresses (GC headers, lengths, nulls). Checked: every handler of the
// first bytecodes (all versions have more) is set, all within a span no
// VM's code exceeds, and the word before the table is none of them (it
// is the hot counters with a JIT, the end of global_State without): a
// layout of another epoch that puts the table a few entries on, inside
// it, is told so. A preference, not a condition: a VM whose table was
// overwritten still has stacks to show.
bool dispatch_table_fits(const GlobalState &g)
{
	constexpr uint64_t handlers = 64;
	constexpr uint64_t code_span = 1 << 20;
	std::array<uint64_t, handlers + 1> words; // the one before, then the table
	if (!g.vm().memory().read(g.dispatch_table() - sizeof(uint64_t),
				  std::as_writable_bytes(std::span(words))))
		return false;
	auto [low, high] = std::minmax_element(words.begin() + 1, words.end());
	// The handlers of the first bytecodes come first in the VM's code: one
	// just before the table read sits a little below the lowest read, by
	// less than a handler's length. Hot counters (four 16-bit counts) and
	// GC references (the heap lies above the code, or far from it) do not.
	constexpr uint64_t handler_reach = 1 << 16;
	bool before_is_handler = words[0] <= *high && words[0] + handler_reach >= *low;
	return *low != 0 && *high - *low < code_span && !before_is_handler;
}

// LuaJIT allocates GG_State, which holds g, in one piece
// (lj_state.c, lua_newstate), from its own allocator (lj_alloc.c, after
// dlmalloc) or the system's (glibc's malloc): both put the chunk's size
// in the word before it, with flags in the low three bits. A chunk is the
// size asked for plus that word, rounded up to 8 bytes (lj_alloc.c) or 16
// (glibc), and up to a minimum chunk (32 bytes) more when the rest of a
// free chunk was too small to split off.
VmCandidate::ChunkFit gg_chunk_fit(const Vm &mem, uint64_t gg)
{
	using enum VmCandidate::ChunkFit;
	constexpr uint64_t word = 8, slack = 16 + 32;
	// Every table's GG_State is 2.7 to 6.4 KB: a word that names no chunk
	// of 1 to 64 KB is not its header (jemalloc keeps none there).
	constexpr uint64_t least_chunk = 1 << 10, most_chunk = 64 << 10;
	const uint64_t gg_size = mem.layout().gg_size;
	auto head = mem.memory().read_value<uint64_t>(gg - word);
	const uint64_t chunk = head ? *head & ~uint64_t(7) : 0;
	if (gg_size == 0 || chunk < least_chunk || chunk > most_chunk)
		return unknown;
	const uint64_t least = gg_size + word;
	return chunk >= least && chunk - least < slack ? fits : differs;
}

} // namespace

void note_rejection(std::optional<Rejection> &closest, Rejection r)
{
	if (!closest || r.passed.size() > closest->passed.size())
		closest = std::move(r);
}

Expected<VmCandidate> check_global_state(const Vm &mem, std::string found_by,
					 std::optional<Rejection> *closest)
{
	const uint64_t g = mem.g();
	const lj_layout &ly = mem.layout();
	std::vector<std::string> checks;
	// What refuses g; a refusal past the first check is worth keeping.
	auto refuse = [&](std::string why) -> Expected<VmCandidate> {
		if (closest && !checks.empty())
			note_rejection(*closest,
				       Rejection{g, ly.name ? ly.name : "", found_by, checks, why});
		return fail(why);
	};
	const GlobalState gs(mem);
	auto main = gs.mainthread();
	if (!main)
		return refuse("g->mainthref unreadable: " + main.error().reason);
	if (*main != g - ly.gg_g)
		return refuse("g->mainthref " + hex(*main) + " is not the lua_State in front of g");
	// Not one of the checks a VM lists: a scan for VMs looks only where
	// it holds.
	checks.push_back("mainthref is the lua_State in front of g");
	auto main_g = LuaState(mem, *main).glref();
	if (!main_g || *main_g != g)
		return refuse("G(mainthread) != g");
	checks.push_back("G(mainthread) == g");
	auto gct = mem.gct(gs.strempty());
	auto len = mem.str_len(gs.strempty());
	if (!gct || *gct != LJ_TSTR || !len || *len != 0)
		return refuse("g->strempty is not an empty string");
	checks.push_back("strempty is an empty GCstr");
	auto main_gct = mem.gct(*main);
	if (!main_gct || *main_gct != LJ_TTHREAD)
		return refuse("mainthread is not a thread object");
	checks.push_back("mainthread is a thread");
	auto cur = gs.cur_L();
	if (!cur)
		return refuse("g->cur_L unreadable: " + cur.error().reason);
	if (*cur) {
		auto cur_g = LuaState(mem, *cur).glref();
		if (!cur_g || *cur_g != g)
			return refuse("G(g->cur_L) != g");
		checks.push_back("G(cur_L) == g");
	}
	checks.erase(checks.begin()); // the scan's own condition, not listed
	VmCandidate c;
	c.g = g;
	c.layout = &ly;
	c.found_by = std::move(found_by);
	c.checks = std::move(checks);
	c.cur_l_ok = *cur != 0;
	c.dispatch_ok = dispatch_table_fits(gs);
	if (c.dispatch_ok)
		c.checks.push_back("dispatch table points into code");
	c.gg_chunk = gg_chunk_fit(mem, gs.gg());
	if (c.gg_chunk == VmCandidate::ChunkFit::fits)
		c.checks.push_back("GG_State's allocation is sizeof(GG_State)");
	return c;
}

namespace {

// How much of the VM at g a candidate's layout explains: the dispatch
// table where the layout puts it first, then a live g->cur_L, then the
// size of GG_State's allocation. Of the layouts that fit one g, the one
// that explains most is kept.
int fit(const VmCandidate &c)
{
	return 4 * c.dispatch_ok + 2 * c.cur_l_ok + (c.gg_chunk == VmCandidate::ChunkFit::fits);
}

// No other layout can explain that g better: the dispatch table, a live
// cur_L, and a GG_State chunk that fits, or that no layout could ask.
bool fits_fully(const VmCandidate &c)
{
	return c.dispatch_ok && c.cur_l_ok && c.gg_chunk != VmCandidate::ChunkFit::differs;
}

} // namespace

bool add_candidate(std::vector<VmCandidate> &found, VmCandidate c)
{
	for (auto &f : found) {
		if (f.g != c.g)
			continue;
		if (fit(c) <= fit(f))
			return false;
		f = std::move(c);
		return true;
	}
	found.push_back(std::move(c));
	return true;
}

bool settled(const std::vector<VmCandidate> &found, uint64_t g)
{
	for (auto &c : found)
		if (c.g == g)
			return fits_fully(c);
	return false;
}

std::vector<VmCandidate> vms_from_registers_and_symbols(const Memory &memory, Arch arch, const NativeSession &native,
				  const std::vector<NativeStack> &stacks,
				  const std::vector<const lj_layout *> &layouts,
				  Diagnostics &diag,
				  std::optional<Rejection> &closest)
{
	std::vector<VmCandidate> found;
	std::vector<uint64_t> explained; // register values a layout fully fits
	const int reg = vm_register(arch);
	const LuaJitArch &lj = luajit_arch(arch);
	const char *reg_name = lj.vm_reg_name;

	// (a) The VM register, at the innermost frame inside the VM first:
	// that frame is where Lua code runs; outer ones only carry the value.
	for (size_t t = 0; t < stacks.size(); t++) {
		const auto &frames = stacks[t].frames;
		for (int pass = 0; pass < 2; pass++) {
			for (size_t i = 0; i < frames.size(); i++) {
				const NativeFrame &f = frames[i];
				if (!f.has_reg(reg) || (pass == 0) != is_vm_symbol(f.function))
					continue;
				const uint64_t v = f.regs.dwarf[size_t(reg)];
				if (std::ranges::find(explained, v) != explained.end())
					continue;
				const std::string where = " at frame #" + std::to_string(i);
				const std::string thread =
					" of thread " + std::to_string(stacks[t].tid);
				const std::string found_by =
					std::string("VM register ") + reg_name + where +
					(f.function.empty() ? "" : " " + f.function) + thread;
				for (const lj_layout *ly : layouts) {
					uint64_t g = lj.g_from_vm_reg(v, *ly);
					if (settled(found, g))
						continue;
					auto c = check_global_state(Vm(memory, *ly, g), found_by,
								    &closest);
					if (!c) {
						// Frames outside the VM only pass the
						// register on: their misses are noise.
						if (pass == 0 || i == 0)
							diag.evidence(
								reg_name + where + thread +
								", layout " + ly->name + ": g " +
								hex(g) +
								" rejected: " + c.error().message);
						continue;
					}
					c->thread = t;
					c->frame = i;
					bool full = fits_fully(*c);
					add_candidate(found, std::move(*c));
					// No other layout can explain this value better:
					// another g from it would be a second reading of
					// the same bytes, not another VM.
					if (full) {
						explained.push_back(v);
						break;
					}
				}
			}
		}
	}

	// (b) luajit.c keeps its main lua_State in the static `globalL`.
	auto sym = native.symbol_by_name("globalL");
	if (!sym)
		diag.evidence("symbol globalL: not in any module's symbol table");
	if (sym) {
		for (const lj_layout *ly : layouts) {
			auto L = memory.read_value<uint64_t>(sym->addr);
			if (!L || !*L) {
				diag.evidence("symbol globalL: " +
						   (L ? std::string("NULL") : L.error().reason));
				break;
			}
			auto g = read_ref(memory, *ly, *L + ly->L_glref);
			if (!g)
				continue;
			if (settled(found, *g)) {
				for (auto &c : found)
					if (c.g == *g)
						c.checks.push_back("also found by symbol globalL");
				break;
			}
			auto c = check_global_state(Vm(memory, *ly, *g),
						    "symbol globalL in " + sym->module, &closest);
			if (!c) {
				diag.evidence("symbol globalL, layout " +
						   std::string(ly->name) + ": g " + hex(*g) +
						   " rejected: " + c.error().message);
				continue;
			}
			add_candidate(found, std::move(*c));
		}
	}
	return found;
}

} // namespace ljcore
