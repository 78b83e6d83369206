// The layouts a VM may be read with, best first: the DWARF of LuaJIT's
// module, member by member, when it has any; else the layouts derived
// from its code (analyzer/derive/), one per built-in table nearest to the
// fields the code shows; then the built-in tables, those the version
// string names before the others. Memory decides among them (locate.h);
// where each field of each layout came from is kept, for --explain.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "luajit/layout.h"
#include "luajit/trace_layout.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"

namespace ljcore {

// Which source a layout came from, as the JSON's vms[].layout_origin
// says it.
enum class LayoutOrigin { dwarf, derived, table };
const char *origin_name(LayoutOrigin origin); // "dwarf", "derived", "table"

// A layout derived from LuaJIT's code: the fields the code shows, a few
// moved with them, the rest the table base's (with_derived).
struct CodeLayout {
	lj_layout layout;
	lj_trace_layout jit; // layout.jit points here, when base has a JIT layout
	std::string name;    // base's, or "derived from code, otherwise <base>"
	std::string source;  // "code of luajit, the rest from the table X"
	const lj_layout *base = nullptr;
	bool equals_base = false; // the code agrees with base wherever it shows
	// The members the code does not show that moved with a shown
	// neighbour: {"g_tmpbuf", "g_mainthref"}.
	std::vector<std::pair<std::string, std::string>> moved_with;
};

// The candidates, and what tells where each came from. order, dwarf and
// the names and JIT layouts the layouts point to are in the deques: a
// LayoutSet moves (a deque's elements stay where they are) but never
// copies.
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
	const lj_layout *dwarf = nullptr;     // the one from DWARF, if any
	std::string dwarf_source;             // "DWARF of luajit"
	bool dwarf_is_table = false;          // equal to a built-in table
	std::deque<CodeLayout> from_code;     // derived from LuaJIT's code, one per near table
	std::optional<DerivedLayout> derived; // the fields the code showed
	std::optional<VersionString> version;

	// The derived layout ly is, if it is one.
	const CodeLayout *code_layout(const lj_layout *ly) const;
	LayoutOrigin origin_of(const lj_layout *ly) const;
	// Where layout ly (one of order) came from, as describe_vm reports it.
	std::string source_of(const lj_layout *ly) const;
	// Whether ly is a built-in table's layout, whatever told it: the
	// version string names tables.
	bool is_table(const lj_layout *ly) const;
	// Each field of ly with its source: "DWARF", the instruction the code
	// showed it at ("lua_close+0x31"), "moved with g_mainthref" or
	// "table <name>".
	std::vector<LayoutField> fields_of(const lj_layout *ly) const;
};

// Fills set from the DWARF and version string of LuaJIT's module (the one
// that exports luaJIT_setmode), its code when it has no DWARF, and the
// built-in tables; what it found and what it could not use goes to diag
// as evidence. With choice derived, the layouts derived from the module's
// code alone, why none could be a problem. Reading code costs loading
// LLVM's module and disassembling (tools/bench/derive.sh): it is done
// only without DWARF, and once per module file in a process.
void candidate_layouts(const Memory &mem, const NativeSession &native, Arch arch,
		       LayoutChoice choice, LayoutSet &set, Diagnostics &diag);

} // namespace ljcore
