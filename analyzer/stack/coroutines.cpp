#include "analyzer/stack/coroutines.h"

#include <unordered_set>

namespace ljcore {

namespace {

// Upper bound on objects followed on the GC list: a heap of 64 GB of the
// smallest objects; beyond that the list must be cyclic or garbage.
constexpr uint64_t max_gc_objects = uint64_t(1) << 32;

// g->gc.root, from the GCState layout (lj_obj.h): total and threshold
// (GCSize), four bytes of state, sweepstr (MSize), then root.
uint64_t gc_root_field(const lj_layout &ly)
{
	return ly.g_gc_total + (ly.gc64 ? 8 + 8 + 4 + 4 : 4 + 4 + 4 + 4);
}

// The 47-bit GC pointer inside a GC64 TValue (LJ_GCVMASK in lj_obj.h).
constexpr uint64_t gcvmask = (uint64_t(1) << 47) - 1;

// A TValue holding a thread: the lua_State, else 0 (lj_obj.h tvisthread).
uint64_t thread_of(const Vm &mem, uint64_t tv)
{
	if (mem.layout().gc64) {
		auto v = mem.value<uint64_t>(tv);
		// itype ~LJ_TTHREAD in the top 17 bits.
		if (!v || (*v >> 47) != (0x1ffffu & ~6u))
			return 0;
		return *v & gcvmask;
	}
	auto gcr = mem.value<uint32_t>(tv);
	auto it = mem.value<uint32_t>(tv + 4);
	return gcr && it && *it == ~6u ? *gcr : 0;
}

} // namespace

ThreadList list_threads(const Vm &mem, uint64_t g)
{
	const lj_layout &ly = mem.layout();
	ThreadList out;
	uint64_t main_thread = mem.ref(g + ly.g_mainthref).value_or(0);
	if (main_thread)
		out.threads.push_back(main_thread);
	auto obj = mem.ref(g + gc_root_field(ly));
	if (!obj) {
		out.problem = "g->gc.root unreadable: " + obj.error().reason;
		return out;
	}
	std::unordered_set<uint64_t> listed;
	// Brent's cycle detection: a corrupt list must not keep us here.
	uint64_t o = *obj, mark = o, power = 1, steps = 0;
	while (o) {
		auto gct = mem.gct(o);
		if (!gct) {
			out.problem = "GC object list broken: " + gct.error().reason;
			break;
		}
		// The main thread is on the list too (lj_state_newstate). A
		// cyclic list passes a thread many times before the cycle
		// shows: it is listed once.
		if (*gct == LJ_TTHREAD && o != main_thread && listed.insert(o).second)
			out.threads.push_back(o);
		out.objects_seen++;
		auto next = mem.ref(o);
		if (!next) {
			out.problem = "GC object list broken: " + next.error().reason;
			break;
		}
		o = *next;
		if (o == mark) {
			out.problem = "GC object list is cyclic";
			break;
		}
		if (++steps == power) {
			mark = o;
			power *= 2;
			steps = 0;
		}
		if (out.objects_seen >= max_gc_objects) {
			out.problem = "GC object list longer than any heap could be";
			break;
		}
	}
	return out;
}

std::string coroutine_status(const Vm &mem, uint64_t L, uint64_t current)
{
	const lj_layout &ly = mem.layout();
	if (L == current)
		return "running";
	auto status = mem.value<uint8_t>(L + ly.L_status);
	auto base = mem.value<uint64_t>(L + ly.L_base);
	auto top = mem.value<uint64_t>(L + ly.L_top);
	auto stack = mem.ref(L + ly.L_stack);
	if (!status || !base || !top || !stack)
		return "unreadable";
	if (*status == 1) // LUA_YIELD
		return "suspended";
	if (*status != 0)
		return "dead";
	// sizeof(TValue) is 8 in every build.
	if (*base > *stack + 8 * (1 + ly.fr2))
		return "normal";
	return *top == *base ? "dead" : "suspended";
}

uint64_t resumed_thread(const Vm &mem, uint64_t frame_slot, uint64_t func)
{
	// Arguments start at the frame's base, one slot above its link.
	if (uint64_t co = thread_of(mem, frame_slot + 8))
		return co;
	// coroutine.wrap's function is a C closure whose upvalue is the
	// thread; the upvalues follow the lua_CFunction pointer.
	auto nup = mem.value<uint8_t>(func + mem.layout().fn_nupvalues);
	if (nup && *nup >= 1)
		return thread_of(mem, func + mem.layout().fn_f + 8);
	return 0;
}

} // namespace ljcore
