#include "analyzer/locate/layout_candidates.h"

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/version_hint.h"

namespace ljcore {

void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch, LayoutSet &set,
		       Diagnostics &diag)
{
	std::vector<const lj_layout *> builtin = builtin_layouts(arch);
	// LuaJIT's own module: where its version string is, and the only one
	// worth its DWARF (loading a libc's, from libc6-dbg, compressed, would
	// cost most of our run time). luaJIT_setmode is exported by every
	// LuaJIT, executable or library.
	auto sym = native.symbol_by_name("luaJIT_setmode");
	set.version = version_hint(mem, native, sym, builtin, diag);
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	uint64_t bias;
	Dwarf *dw = mod ? native.module_dwarf(mod, &bias) : nullptr;
	if (dw) {
		// Where lj_gc.c's code is tells which CU to read the structs from.
		auto gc_step = native.symbols_of(mod).named("lj_gc_step");
		Dwarf_Addr gc_code = gc_step ? gc_step->value - bias : 0;
		auto [ly, jit] = layouts_from_dwarf(dw, arch, gc_code);
		if (!ly) {
			diag.evidence("DWARF of " + sym->module +
				      " unusable: " + ly.error().message);
		} else {
			std::string name = "from DWARF";
			set.dwarf_source = "DWARF of " + sym->module;
			const lj_layout *closest = nullptr;
			size_t closest_count = 0;
			for (auto *b : builtin) {
				size_t count = layout_difference_count(*ly, *b);
				if (!closest || count < closest_count)
					closest = b, closest_count = count;
			}
			if (closest && closest_count == 0) {
				// Tried once: the table's name, DWARF as the source.
				name = closest->name;
				set.dwarf_is_table = true;
				std::erase(builtin, closest);
			} else if (closest) {
				std::string d;
				for (auto &x : layout_differences(*ly, *closest))
					d += (d.empty() ? "" : ", ") + x;
				diag.evidence("DWARF layout of " + sym->module +
					      " matches no built-in table; closest is " +
					      closest->name + ", differing in " + d);
			}
			// Traces need the JIT's layout of the same DWARF; a
			// build without the JIT has none.
			ly->jit = nullptr;
			if (jit) {
				set.jit_from_dwarf.push_back(*jit);
				ly->jit = &set.jit_from_dwarf.back();
			}
			set.names.push_back(name);
			ly->name = set.names.back().c_str();
			set.from_dwarf.push_back(*ly);
			set.order.push_back(&set.from_dwarf.back());
			set.dwarf = set.order.back();
		}
	}
	set.order.insert(set.order.end(), builtin.begin(), builtin.end());
}

} // namespace ljcore
