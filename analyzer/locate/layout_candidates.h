// The layouts a VM may be read with, best first: the DWARF of LuaJIT's
// module, when it has any, then the built-in tables, those the version
// string names before the others; and the layouts derived from its code
// (analyzer/derive/) when those do not fit, or when asked for alone.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "luajit/layout.h"
#include "luajit/trace_layout.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"

namespace ljcore {

// Layouts to try, best first: what the DWARF of LuaJIT's module says
// (checked against the built-in tables), then the built-in tables.
// order, dwarf and a DWARF layout's name and jit point into the deques: a
// LayoutSet moves (a deque's elements stay where they are) but never copies.
struct LayoutSet {
	LayoutSet() = default;
	LayoutSet(LayoutSet &&) = default;
	LayoutSet &operator=(LayoutSet &&) = default;
	LayoutSet(const LayoutSet &) = delete;
	LayoutSet &operator=(const LayoutSet &) = delete;

	std::vector<const lj_layout *> order;
	std::deque<lj_layout> from_dwarf;
	std::deque<lj_trace_layout> jit_from_dwarf;
	std::deque<std::string> names;
	const lj_layout *dwarf = nullptr; // the one from DWARF, if any
	std::string dwarf_source;         // "DWARF of luajit"
	bool dwarf_is_table = false;      // equal to a built-in table
	std::deque<lj_layout> from_code;  // derived from LuaJIT's code, one per near table
	std::deque<lj_trace_layout>
		jit_from_code; // their JIT layouts: the tables' with jit_State's derived fields
	std::deque<std::string> code_sources; // of each: "code of luajit, the rest from table X"
	std::optional<DerivedLayout> derived; // the fields the code showed

	// Where layout ly (one of order) came from, as describe_vm reports it.
	std::string source_of(const lj_layout *ly) const;
	std::optional<VersionString> version;
};

// Fills set from the DWARF and version string of LuaJIT's module (the one
// that exports luaJIT_setmode) and the built-in tables; what it found and
// what it could not use goes to diag as evidence. With choice derived, the
// layouts derived from the module's code instead, alone.
void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch,
		       LayoutChoice choice, LayoutSet &set, Diagnostics &diag);

// Adds to set the layouts derived from the code of LuaJIT's module, one per
// built-in table nearest to the fields it shows (analyzer/derive/), and
// returns them. Unless alone, one equal to a table is left out: that table
// was tried. Why none could be derived is a problem when alone, else
// evidence. Reading code costs loading LLVM's module and disassembling
// (some 4 ms, tools/bench/derive.sh): locate_vms asks only when no table
// fits.
std::vector<const lj_layout *> derive_candidates(const NativeSession &native, Arch arch, bool alone,
						 LayoutSet &set, Diagnostics &diag);

} // namespace ljcore
