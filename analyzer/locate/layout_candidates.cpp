#include "analyzer/locate/layout_candidates.h"

#include <elfutils/libdwfl.h>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/derived_once.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/layout_fields.h"
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

bool same_jit(const lj_trace_layout *a, const lj_trace_layout *b)
{
	return a == b || (a && b && trace_layout_differences(*a, *b).empty());
}

// Whether a and b have every field alike, their JIT layouts' too.
bool same_layout(const lj_layout &a, const lj_layout &b)
{
	return layout_difference_count(a, b) == 0 && same_jit(a.jit, b.jit);
}

// with_derived's "g_tmpbuf 120 -> 136 (as g_mainthref)": the member that
// moved and the shown one it moved with, for the members the code does
// not show.
std::vector<std::pair<std::string, std::string>>
moved_members(const std::vector<std::string> &changed)
{
	std::vector<std::pair<std::string, std::string>> out;
	for (const std::string &c : changed) {
		size_t as = c.find(" (as ");
		if (as != std::string::npos && c.ends_with(")"))
			out.emplace_back(c.substr(0, c.find(' ')),
					 c.substr(as + 5, c.size() - as - 6));
	}
	return out;
}

// Adds to set the layouts derived from the code of LuaJIT's module (the
// one sym, luaJIT_setmode, is in), one per table of tables the code agrees
// with best (those equal to one another once: the code decides what it
// shows), the nearest first; a table equal to one of them is taken out of
// tables, to be tried once. Why none could be derived is a problem when
// alone (--layout derived), else evidence.
void add_derived(const NativeSession &native, const std::optional<SymbolInfo> &sym, Arch arch,
		 bool alone, std::vector<const lj_layout *> &tables, LayoutSet &set,
		 Diagnostics &diag)
{
	auto problem = [&](const std::string &why) {
		alone ? diag.problem("no derived layout: " + why) : diag.evidence(why);
	};
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : nullptr;
	if (!elf)
		return problem("could not derive: no module exporting luaJIT_setmode has its ELF "
			       "file at hand");
	const std::string &module = sym->module;
	bool read_before = false;
	auto derived = derived_once(mod, elf, &read_before);
	if (read_before)
		diag.evidence("the code of " + module + " was read earlier in this run");
	if (!derived)
		return problem(module + ": " + derived.error().message);
	if (derived->arch != arch)
		return problem("could not derive: " + module + " is not for " + arch_name(arch));
	for (const std::string &p : derived->problems)
		diag.evidence(module + ": " + p);
	std::vector<const lj_layout *> bases = nearest_tables(tables, *derived);
	if (bases.empty())
		return problem("could not derive: no built-in table has the pointer size of " +
			       module);
	std::string fields;
	for (const DerivedField &f : derived->fields)
		fields += (fields.empty() ? "" : ", ") + f.name + " " + std::to_string(f.value) +
			  " (" + f.source + ")";
	diag.evidence("derived from the code of " + module + ": " + fields);
	// The fields the code does not show are the tables', and memory picks.
	for (const lj_layout *base : bases) {
		CodeLayout &d = set.from_code.emplace_back();
		std::vector<std::string> changed;
		d.layout = with_derived(*base, *derived, d.jit, &changed);
		bool seen = false;
		for (size_t i = 0; i + 1 < set.from_code.size(); i++)
			seen |= same_layout(set.from_code[i].layout, d.layout);
		if (seen) {
			set.from_code.pop_back();
			continue;
		}
		d.base = base;
		d.equals_base = changed.empty();
		d.moved_with = moved_members(changed);
		if (d.equals_base) {
			d.name = base->name;
			d.source = "code of " + module + ", as the table " + d.name;
		} else {
			std::string diff;
			for (auto &c : changed)
				diff += (diff.empty() ? "" : ", ") + c;
			diag.evidence("the code of " + module + " differs from the table " +
				      base->name + ": " + diff);
			d.name = "derived from code, otherwise " + std::string(base->name);
			d.source = "code of " + module + ", the rest from the table " +
				   std::string(base->name);
		}
		d.layout.name = d.name.c_str();
		set.order.push_back(&d.layout);
		std::erase_if(tables,
			      [&](const lj_layout *t) { return same_layout(*t, d.layout); });
	}
	set.derived = std::move(*derived);
}

} // namespace

const char *origin_name(LayoutOrigin origin)
{
	switch (origin) {
	case LayoutOrigin::dwarf:
		return "dwarf";
	case LayoutOrigin::derived:
		return "derived";
	case LayoutOrigin::table:
		break;
	}
	return "table";
}

const CodeLayout *LayoutSet::code_layout(const lj_layout *ly) const
{
	for (const CodeLayout &d : from_code)
		if (ly == &d.layout)
			return &d;
	return nullptr;
}

LayoutOrigin LayoutSet::origin_of(const lj_layout *ly) const
{
	if (ly == dwarf)
		return LayoutOrigin::dwarf;
	return code_layout(ly) ? LayoutOrigin::derived : LayoutOrigin::table;
}

std::string LayoutSet::source_of(const lj_layout *ly) const
{
	if (ly == dwarf)
		return dwarf_source;
	if (const CodeLayout *d = code_layout(ly))
		return d->source;
	return "built-in table";
}

bool LayoutSet::is_table(const lj_layout *ly) const
{
	if (ly == dwarf)
		return dwarf_is_table;
	const CodeLayout *d = code_layout(ly);
	return !d || d->equals_base;
}

std::vector<LayoutField> LayoutSet::fields_of(const lj_layout *ly) const
{
	std::vector<LayoutField> out;
	const CodeLayout *d = code_layout(ly);
	const std::string table = "table " + std::string(d ? d->base->name : ly->name);
	for (auto [name, value] : named_fields(*ly)) {
		std::string field = name, source = table;
		if (ly == dwarf) {
			// CFRAME_OFS_* are macros: no DWARF holds them.
			source = field.starts_with("cf_") ? "lj_frame.h" : "DWARF";
		} else if (d) {
			const DerivedField *shown = derived ? derived->field(field) : nullptr;
			for (auto &[member, neighbour] : d->moved_with)
				if (member == field)
					source = "moved with " + neighbour;
			if (shown)
				source = shown->source;
		}
		out.push_back({std::move(field), value, std::move(source)});
	}
	return out;
}

void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch,
		       LayoutChoice choice, LayoutSet &set, Diagnostics &diag)
{
	std::vector<const lj_layout *> builtin = builtin_layouts(arch);
	// LuaJIT's own module: where its version string is, its code, and the
	// only one worth its DWARF (loading a libc's, from libc6-dbg,
	// compressed, would cost most of our run time). luaJIT_setmode is
	// exported by every LuaJIT, executable or library.
	auto sym = native.symbol_by_name("luaJIT_setmode");
	if (choice == LayoutChoice::derived) {
		add_derived(native, sym, arch, true, builtin, set, diag);
		return;
	}
	set.version = version_hint(mem, native, sym, builtin, diag);
	Dwfl_Module *mod = sym ? native.module_at(sym->addr) : nullptr;
	add_dwarf(native, mod, sym ? sym->module : "", arch, builtin, set, diag);
	// DWARF says every member; without it, what the code shows comes
	// before what a table says.
	if (!set.dwarf && choice != LayoutChoice::tables)
		add_derived(native, sym, arch, false, builtin, set, diag);
	set.order.insert(set.order.end(), builtin.begin(), builtin.end());
}

} // namespace ljcore
