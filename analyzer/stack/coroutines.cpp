#include "analyzer/stack/coroutines.h"

#include <unordered_set>

#include "analyzer/lua/function.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/tvalue.h"

namespace ljcore {

namespace {

// Upper bound on objects followed on the GC list: a heap of 64 GB of the
// smallest objects; beyond that the list must be cyclic or garbage.
constexpr uint64_t max_gc_objects = uint64_t(1) << 32;

// A TValue holding a thread: the lua_State, else 0 (tvisthread()).
uint64_t thread_of(const Vm &vm, uint64_t tv)
{
	auto raw = vm.value<uint64_t>(tv);
	return raw ? tvalue::gc_object_of(vm.layout(), *raw, LJ_TTHREAD) : 0;
}

} // namespace

ThreadList list_threads(const Vm &mem)
{
	GlobalState g(mem);
	ThreadList out;
	uint64_t main_thread = g.mainthread().value_or(0);
	if (main_thread)
		out.threads.push_back(main_thread);
	auto obj = g.gc_root();
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
		auto next = mem.nextgc(o);
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
	if (L == current)
		return "running";
	LuaState state(mem, L);
	auto status = state.status();
	auto base = state.base();
	auto top = state.top();
	auto stack = state.stack();
	if (!status || !base || !top || !stack)
		return "unreadable";
	if (*status == lua_yield)
		return "suspended";
	if (*status != lua_ok)
		return "dead";
	// sizeof(TValue) is 8 in every build.
	if (*base > *stack + 8 * (1 + mem.layout().fr2))
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
	Function fn(mem, func);
	auto nup = fn.nupvalues();
	if (nup && *nup >= 1)
		return thread_of(mem, fn.c_upvalue_at(0));
	return 0;
}

} // namespace ljcore
