// A lua_State (lj_obj.h): one coroutine, its stack and where it stands.
// Each field is read on its own: a thread whose stack is unreadable still
// says its status.
#pragma once

#include <cstdint>
#include <optional>

#include "analyzer/lua/vm.h"

namespace ljcore {

// lua_State.status: LUA_OK, LUA_YIELD, else the error it died of.
constexpr uint8_t lua_ok = 0, lua_yield = 1;

// OpenResty's luajit2 appends exdata and exdata2 (two native pointers) to
// lua_State, after stacksize: a lua_State that much larger than upstream's
// has them. Where exdata is; nullopt for a build without.
inline std::optional<uint64_t> exdata_offset(const lj_layout &ly)
{
	uint64_t upstream_size = (ly.L_stacksize + 4 + 7) & ~uint64_t(7);
	if (ly.L_size < upstream_size + 16)
		return std::nullopt;
	return upstream_size;
}

class LuaState {
public:
	LuaState(const Vm &vm, uint64_t L) : vm_(vm), L_(L) {}

	uint64_t addr() const { return L_; }
	Read<uint8_t> status() const { return vm_.value<uint8_t>(L_ + ly().L_status); }
	// G(L): the global_State it belongs to.
	Read<uint64_t> glref() const { return vm_.ref(L_ + ly().L_glref); }
	// base and top are TValue *: native pointers whatever the GC ref size.
	Read<uint64_t> base() const { return vm_.value<uint64_t>(L_ + ly().L_base); }
	Read<uint64_t> top() const { return vm_.value<uint64_t>(L_ + ly().L_top); }
	// The stack's bottom slot (an MRef).
	Read<uint64_t> stack() const { return vm_.ref(L_ + ly().L_stack); }
	// The C frame of the innermost VM entry, flags in its low bits
	// (cframe_raw() in frame.h clears them); a native pointer.
	Read<uint64_t> cframe() const { return vm_.value<uint64_t>(cframe_addr()); }
	// Where L->cframe is: a sampler copies the word there with the stack.
	uint64_t cframe_addr() const { return L_ + ly().L_cframe; }
	// How many slots its stack has.
	Read<uint32_t> stacksize() const { return vm_.value<uint32_t>(L_ + ly().L_stacksize); }
	// The first of its open upvalues, a list through nextgc (lj_func.c).
	Read<uint64_t> openupval() const { return vm_.ref(L_ + ly().L_openupval); }
	// The table of its globals.
	Read<uint64_t> env() const { return vm_.ref(L_ + ly().L_env); }

	// luajit2's L->exdata (exdata_offset); nullopt for a build without.
	std::optional<Read<uint64_t>> exdata() const
	{
		if (auto at = exdata_offset(ly()))
			return vm_.value<uint64_t>(L_ + *at);
		return std::nullopt;
	}

private:
	const lj_layout &ly() const { return vm_.layout(); }

	const Vm &vm_;
	uint64_t L_;
};

} // namespace ljcore
