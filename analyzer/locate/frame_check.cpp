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
	const lj_layout &ly = vm.layout();
	for (const LuaFrame &f : stack.frames) {
		auto ffid = Function(vm, f.function).ffid();
		if (!ffid || *ffid != LJ_FF_LUA)
			continue;
		std::string at = "Lua frame " + std::to_string(f.level) + ": ";
		// funcproto() in lj_obj.h: the GCproto header ends where the
		// function's bytecode starts.
		auto pc = vm.ref(f.function + ly.fn_pc);
		if (!pc)
			continue;
		uint64_t pt = *pc - ly.pt_size;
		auto gct = vm.gct(pt);
		if (!gct)
			continue;
		if (*gct != LJ_TPROTO)
			return at + "the object at " + luajit_pointer(pt) + " is not a GCproto";
		auto chunkname = vm.ref(pt + ly.pt_chunkname);
		if (!chunkname)
			continue;
		auto name_gct = vm.gct(*chunkname);
		if (name_gct && *name_gct != LJ_TSTR)
			return at + "the chunk name of the GCproto at " + luajit_pointer(pt) +
			       ", " + luajit_pointer(*chunkname) + ", is not a string";
	}
	return std::nullopt;
}

} // namespace ljcore
