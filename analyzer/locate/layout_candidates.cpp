#include "analyzer/locate/layout_candidates.h"

#include <elfutils/libdwfl.h>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/version_hint.h"
#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// The layout of mod's DWARF, first of set.order; a table equal to it is
// taken out of builtin, to be tried once.
void add_dwarf(const NativeSession &native, Dwfl_Module *mod, const std::string &module, Arch arch,
	       std::vector<const lj_layout *> &builtin, LayoutSet &set, Diagnostics &diag)
{
	uint64_t bias;
	Dwarf *dw = mod ? native.module_dwarf(mod, &bias) : nullptr;
	if (!dw)
		return;
	// Where lj_gc.c's code is tells which CU to read the structs from.
	auto gc_step = native.symbols_of(mod).named("lj_gc_step");
	Dwarf_Addr gc_code = gc_step ? gc_step->value - bias : 0;
	auto [ly, jit] = layouts_from_dwarf(dw, arch, gc_code);
	if (!ly) {
		diag.evidence("DWARF of " + module + " unusable: " + ly.error().message);
		return;
	}
	std::string name = "from DWARF";
	set.dwarf_source = "DWARF of " + module;
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
		diag.evidence("DWARF layout of " + module +
			      " matches no built-in table; closest is " + closest->name +
			      ", differing in " + d);
	}
	// Traces need the JIT's layout of the same DWARF; a build without the
	// JIT has none.
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

} // namespace

std::string LayoutSet::source_of(const lj_layout *ly) const
{
	if (ly == dwarf)
		return dwarf_source;
	for (size_t i = 0; i < from_code.size(); i++)
		if (ly == &from_code[i])
			return code_sources[i];
	return "built-in table";
}

void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch,
		       LayoutChoice choice, LayoutSet &set, Diagnostics &diag)
{
	if (choice == LayoutChoice::derived) {
		derive_candidates(native, arch, true, set, diag);
		return;
	}
	std::vector<const lj_layout *> builtin = builtin_layouts(arch);
	// LuaJIT's own module: where its version string is, and the only one
	// worth its DWARF (loading a libc's, from libc6-dbg, compressed, would
	// cost most of our run time). luaJIT_setmode is exported by every
	// LuaJIT, executable or library.
	auto sym = native.symbol_by_name("luaJIT_setmode");
	set.version = version_hint(mem, native, sym, builtin, diag);
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	add_dwarf(native, mod, sym ? sym->module : "", arch, builtin, set, diag);
	set.order.insert(set.order.end(), builtin.begin(), builtin.end());
}

std::vector<const lj_layout *> derive_candidates(const NativeSession &native, Arch arch, bool alone,
						 LayoutSet &set, Diagnostics &diag)
{
	std::vector<const lj_layout *> added;
	auto problem = [&](const std::string &why) {
		alone ? diag.problem("no derived layout: " + why) : diag.evidence(why);
		return added;
	};
	auto sym = native.symbol_by_name("luaJIT_setmode");
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : nullptr;
	if (!elf)
		return problem("could not derive: no module exporting luaJIT_setmode has its ELF "
			       "file at hand");
	const std::string &module = sym->module;
	auto derived = derive_layout(elf);
	if (!derived)
		return problem(module + ": " + derived.error().message);
	if (derived->arch != arch)
		return problem("could not derive: " + module + " is not for " + arch_name(arch));
	for (const std::string &p : derived->problems)
		diag.evidence(module + ": " + p);
	std::vector<const lj_layout *> bases = nearest_tables(builtin_layouts(arch), *derived);
	if (bases.empty())
		return problem("could not derive: no built-in table has the pointer size of " +
			       module);
	std::string fields;
	for (const DerivedField &f : derived->fields)
		fields += (fields.empty() ? "" : ", ") + f.name + " " + std::to_string(f.value) +
			  " (" + f.source + ")";
	diag.evidence("derived from the code of " + module + ": " + fields);
	// One layout per table, the nearest first: the fields the code does
	// not show are theirs, and memory picks.
	for (const lj_layout *base : bases) {
		std::vector<std::string> changed;
		lj_layout ly =
			with_derived(*base, *derived, set.jit_from_code.emplace_back(), &changed);
		std::string name = base->name;
		if (changed.empty() && !alone) {
			// Tried already, and memory refused it.
			diag.evidence("the code of " + module + " agrees with the table " + name);
			set.jit_from_code.pop_back();
			continue;
		}
		if (changed.empty()) {
			set.code_sources.push_back("code of " + module + ", as the table " + name);
		} else {
			std::string d;
			for (auto &c : changed)
				d += (d.empty() ? "" : ", ") + c;
			diag.evidence("the code of " + module + " differs from the table " + name +
				      ": " + d);
			name = "derived from code, otherwise " + name;
			set.code_sources.push_back("code of " + module +
						   ", the rest from the table " +
						   std::string(base->name));
		}
		set.names.push_back(name);
		ly.name = set.names.back().c_str();
		set.from_code.push_back(ly);
		set.order.push_back(&set.from_code.back());
		added.push_back(set.order.back());
	}
	set.derived = std::move(*derived);
	return added;
}

} // namespace ljcore
