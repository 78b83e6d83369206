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

// A metatable per base type: ~LJ_TNUMX + 1 slots.
constexpr unsigned basemt_slots = 14;
// More metamethods than any build has (lj_obj.h MMDEF).
constexpr unsigned max_metamethods = 32;

// The candidate g->gcroot at addr: the names as long as they look like
// metamethod names, then the slots after them; no names unless the first
// is "__index".
GcRootArray root_array_at(const Vm &vm, uint64_t addr)
{
	GcRootArray out;
	const unsigned ps = vm.layout().ptrsize;
	for (unsigned i = 0; i < max_metamethods; i++) {
		auto s = vm.ref(addr + uint64_t(i) * ps);
		if (!s || !*s || vm.gct(*s).value_or(0) != LJ_TSTR)
			break;
		std::string name = vm.str(*s, 16).value_or("");
		if (i == 0 ? name != "__index" : name.rfind("__", 0) != 0)
			break;
		out.metamethod_names.push_back(*s);
	}
	if (out.metamethod_names.empty())
		return out;
	uint64_t at = addr + out.metamethod_names.size() * ps;
	auto next = [&] {
		uint64_t v = vm.ref(at).value_or(0);
		at += ps;
		return v;
	};
	for (unsigned i = 0; i < basemt_slots; i++)
		out.base_metatables.push_back(next());
	out.default_files = {next(), next()};
	out.ffi_finalizers = next();
	return out;
}

} // namespace

GcRootArray gc_root_array(const Vm &vm)
{
	const lj_layout &ly = vm.layout();
	const uint64_t ctype_state =
		ly.g_ctype_state ? ly.g_ctype_state : ly.g_jit_base + ly.ptrsize;
	constexpr uint64_t prng_size = 32; // PRNGState: uint64_t u[4]
	const uint64_t after_ctype = vm.g() + ctype_state + ly.ptrsize;
	auto roots = root_array_at(vm, ((after_ctype + 7) & ~uint64_t(7)) + prng_size);
	return roots.metamethod_names.empty() ? root_array_at(vm, after_ctype) : roots;
}

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
