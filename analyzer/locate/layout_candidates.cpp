#include "analyzer/locate/layout_candidates.h"

#include <algorithm>

#include <elfutils/libdwfl.h>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/version_hint.h"

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

// The layout derived from mod's code: the fields its exported functions
// show, over the built-in table that agrees with them best.
void add_derived(Dwfl_Module *mod, const std::string &module,
		 std::vector<const lj_layout *> &builtin, bool alone, LayoutSet &set,
		 Diagnostics &diag)
{
	auto problem = [&](const std::string &why) {
		alone ? diag.problem("no derived layout: " + why) : diag.evidence(why);
	};
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : nullptr;
	if (!elf)
		return problem("could not derive: LuaJIT's module (the one exporting "
			       "luaJIT_setmode) has no ELF file at hand");
	auto derived = derive_layout(elf);
	if (!derived)
		return problem(module + ": " + derived.error().message);
	for (const std::string &p : derived->problems)
		diag.evidence(module + ": " + p);
	std::vector<const lj_layout *> bases = nearest_tables(builtin, *derived);
	if (bases.empty())
		return problem("could not derive: no built-in table has the pointer size of " +
			       module);
	std::string fields;
	for (const DerivedField &f : derived->fields)
		fields += (fields.empty() ? "" : ", ") + f.name + " " + std::to_string(f.value) +
			  " (" + f.source + ")";
	diag.evidence("derived from the code of " + module + ": " + fields);
	std::vector<std::string> changed;
	with_derived(*bases.front(), *derived, &changed);
	if (changed.empty() && !alone) {
		// Tables have the offsets the code shows: they are tried as
		// before, memory deciding, but those that contradict the code
		// last.
		std::stable_partition(builtin.begin(), builtin.end(), [&](const lj_layout *t) {
			return std::find(bases.begin(), bases.end(), t) != bases.end();
		});
		diag.evidence("the code of " + module + " agrees with the table " +
			      bases.front()->name);
		return;
	}
	// One layout per table as near: the fields the code does not show
	// are theirs, and memory picks.
	for (const lj_layout *base : bases) {
		changed.clear();
		lj_layout ly = with_derived(*base, *derived, &changed);
		std::string name = base->name;
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
	}
	set.derived = std::move(*derived);
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
	std::vector<const lj_layout *> builtin = builtin_layouts(arch);
	// LuaJIT's own module: where its version string is, and the only one
	// worth its DWARF (loading a libc's, from libc6-dbg, compressed, would
	// cost most of our run time) and its code. luaJIT_setmode is exported
	// by every LuaJIT, executable or library.
	auto sym = native.symbol_by_name("luaJIT_setmode");
	set.version = version_hint(mem, native, sym, builtin, diag);
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	std::string module = sym ? sym->module : "LuaJIT's module";
	bool alone = choice == LayoutChoice::derived;
	if (!alone)
		add_dwarf(native, mod, module, arch, builtin, set, diag);
	// DWARF names every member: the code is read only without it.
	if (!set.dwarf)
		add_derived(mod, module, builtin, alone, set, diag);
	if (!alone)
		set.order.insert(set.order.end(), builtin.begin(), builtin.end());
}

} // namespace ljcore
