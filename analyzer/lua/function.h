// A GCfunc (lj_obj.h): a Lua closure (GCfuncL) over a prototype, whose
// upvalues are GCupval objects, or a C function (GCfuncC), fast functions
// included, whose upvalues are TValues of its own. The prototype of a Lua
// closure: function_proto() in lua_debug.h.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"

namespace ljcore {

class Function {
public:
	Function(const Vm &vm, uint64_t fn) : vm_(vm), fn_(fn) {}

	uint64_t addr() const { return fn_; }
	// LJ_FF_LUA, LJ_FF_C, or the id of a fast function.
	Read<uint8_t> ffid() const { return vm_.value<uint8_t>(fn_ + ly().fn_ffid); }
	Read<uint8_t> nupvalues() const { return vm_.value<uint8_t>(fn_ + ly().fn_nupvalues); }
	// GCfuncC.f: the lua_CFunction, a native pointer whatever the GC
	// ref size.
	Read<uint64_t> c_function() const { return vm_.value<uint64_t>(fn_ + ly().fn_f); }
	// Where GCfuncC.upvalue[k], a TValue, is: right after f.
	uint64_t c_upvalue_at(uint32_t k) const { return fn_ + ly().fn_f + 8 + 8 * uint64_t(k); }
	// Where GCfuncL.uvptr[k], the GCRef to its k-th GCupval, is.
	uint64_t uvptr_at(uint32_t k) const
	{
		return fn_ + ly().fn_uvptr + uint64_t(k) * ly().ptrsize;
	}
	// The GCupval of upvalue k of a Lua closure.
	Read<uint64_t> upvalue(uint32_t k) const { return vm_.ref(uvptr_at(k)); }

private:
	const lj_layout &ly() const { return vm_.layout(); }

	const Vm &vm_;
	uint64_t fn_;
};

// Where GCupval.v is: the MRef to the upvalue's value, which is inside
// the GCupval once closed and a stack slot while open.
inline uint64_t upval_v_at(const Vm &vm, uint64_t uv)
{
	return uv + vm.layout().uv_v;
}

// The address of the TValue upvalue uv stands for.
inline Read<uint64_t> upval_value(const Vm &vm, uint64_t uv)
{
	return vm.ref(upval_v_at(vm, uv));
}

} // namespace ljcore
