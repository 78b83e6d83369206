#include "analyzer/lua/gc_roots.h"

#include <span>
#include <string>

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/tvalue.h"

namespace ljcore {

namespace {

// table[name] for a string key, by a walk of the table's hash part; 0 if
// it has none or the table cannot be read.
uint64_t string_field(const Vm &vm, uint64_t table, const char *name)
{
	const lj_layout &ly = vm.layout();
	auto node = vm.ref(table + ly.tab_node);
	auto hmask = vm.value<uint32_t>(table + ly.tab_hmask);
	if (!node || !hmask || *hmask >= (1u << 20))
		return 0;
	for (uint64_t k = 0; k <= *hmask; k++) {
		unsigned char nd[16];
		if (!vm.memory().read(*node + k * ly.node_size,
				      std::as_writable_bytes(std::span(nd))))
			return 0;
		uint64_t key = tvalue::load(nd + 8);
		if (tvalue::itype(ly, key) == ~uint32_t(LJ_TSTR) &&
		    vm.str(tvalue::gc_object(ly, key), 64).value_or("") == name)
			return tvalue::gc_object_or_0(ly, tvalue::load(nd));
	}
	return 0;
}

} // namespace

GcRoots gc_roots(const Vm &vm)
{
	const GlobalState g(vm);
	GcRoots r{};
	r.main_thread = g.mainthread().value_or(0);
	r.registry = tvalue::gc_object_or_0(vm.layout(), g.registry().value_or(0));
	r.globals = r.main_thread ? LuaState(vm, r.main_thread).env().value_or(0) : 0;
	r.loaded = r.registry ? string_field(vm, r.registry, "_LOADED") : 0;
	r.cur_L = g.cur_L().value_or(0);
	return r;
}

} // namespace ljcore
