#include "analyzer/locate/frame_check.h"

#include "analyzer/lua/function.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/model/lua_text.h"
#include "analyzer/stack/lua_stack.h"

namespace ljcore {

namespace {

// Enough frames to see a misplaced field, few enough to cost nothing
// beside the walk the analysis makes anyway.
constexpr size_t frames_checked = 16;
// When no frame shows a Lua function (a crash inside a trace leaves
// L->base stale, a VM idle in C has none), the first Lua functions on
// g->gc.root stand in: within this many objects, this many functions.
constexpr size_t root_objects_checked = 256, root_functions_checked = 4;

// Why the Lua function fn does not read under vm's layout, if it does
// not; false when it is no Lua function or memory does not tell.
std::optional<std::string> function_misread(const Vm &vm, uint64_t fn, bool &checked)
{
	auto ffid = Function(vm, fn).ffid();
	if (!ffid || *ffid != LJ_FF_LUA)
		return std::nullopt;
	// funcproto() in lj_obj.h: the GCproto header ends where the
	// function's bytecode starts.
	const lj_layout &ly = vm.layout();
	auto pc = vm.ref(fn + ly.fn_pc);
	if (!pc)
		return std::nullopt;
	uint64_t pt = *pc - ly.pt_size;
	auto gct = vm.gct(pt);
	if (!gct)
		return std::nullopt;
	checked = true;
	if (*gct != LJ_TPROTO)
		return "the object at " + luajit_pointer(pt) + " is not a GCproto";
	auto chunkname = vm.ref(pt + ly.pt_chunkname);
	if (!chunkname)
		return std::nullopt;
	auto name_gct = vm.gct(*chunkname);
	if (name_gct && *name_gct != LJ_TSTR)
		return "the chunk name of the GCproto at " + luajit_pointer(pt) + ", " +
		       luajit_pointer(*chunkname) + ", is not a string";
	return std::nullopt;
}

} // namespace

std::optional<std::string> frames_misread(const Vm &vm)
{
	const GlobalState g(vm);
	uint64_t L = g.cur_L().value_or(0);
	if (!L)
		L = g.mainthread().value_or(0);
	if (!L)
		return std::nullopt;
	// From L->base: the registers of the interpreter may be newer, but
	// the frames below them are the same.
	LuaStack stack = walk_lua_stack(vm, WalkStart{L, 0, 0}, nullptr, frames_checked);
	// Only what a layout decides: a damaged prototype (a huge sizebc, a
	// lost line table) is the VM's, and memory a core lacks is the
	// core's; their frames still show the rest.
	bool checked = false;
	for (const LuaFrame &f : stack.frames)
		if (auto why = function_misread(vm, f.function, checked))
			return "Lua frame " + std::to_string(f.level) + ": " + *why;
	if (checked)
		return std::nullopt;
	size_t functions = 0;
	uint64_t obj = g.gc_root().value_or(0);
	for (size_t i = 0; obj && i < root_objects_checked && functions < root_functions_checked;
	     i++, obj = vm.nextgc(obj).value_or(0)) {
		auto gct = vm.gct(obj);
		if (!gct || *gct != LJ_TFUNC)
			continue;
		checked = false;
		if (auto why = function_misread(vm, obj, checked))
			return "the function at " + luajit_pointer(obj) + " on g->gc.root: " + *why;
		functions += checked;
	}
	return std::nullopt;
}

} // namespace ljcore
