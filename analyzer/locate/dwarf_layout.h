// LuaJIT's object layout read from the DWARF of its module (a debug build):
// when it is there, it wins over the built-in tables, and the two are
// compared so that a wrong table shows up.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <elfutils/libdw.h>

#include "luajit/layout.h"
#include "luajit/trace_layout.h"
#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

Expected<lj_layout> layout_from_dwarf(Dwarf *dw, Arch arch);

// The offset of a member of struct st by its path ("gc.state"), if the
// DWARF has both: for checks of what ljcore derives rather than reads.
std::optional<uint32_t> dwarf_member_offset(Dwarf *dw, const char *st, const char *path);

// Fields where two layouts differ: "L_base 32 != 40", empty when equal.
std::vector<std::string> layout_differences(const lj_layout &a, const lj_layout &b);
// How many fields differ, without naming them: for picking the closest of
// many tables, whose differences only that one's are worth spelling out.
size_t layout_difference_count(const lj_layout &a, const lj_layout &b);

// The JIT's layout (jit_State, GCtrace) from the same DWARF; fails on a
// build without the JIT.
Expected<lj_trace_layout> trace_layout_from_dwarf(Dwarf *dw);

// Both, from one walk of the DWARF. gc_code, when known, is an address of
// lj_gc.c's code as the DWARF has it (lj_gc_step's, say): that CU defines
// every struct needed and is read first, found by address rather than by
// name.
struct DwarfLayouts {
	Expected<lj_layout> vm;
	Expected<lj_trace_layout> jit;
};
DwarfLayouts layouts_from_dwarf(Dwarf *dw, Arch arch, Dwarf_Addr gc_code = 0);
std::vector<std::string> trace_layout_differences(const lj_trace_layout &a,
						  const lj_trace_layout &b);

// The table as the body of a C initializer, ".L_base = 32, ..." lines of
// every field, as luajit/layouts.h and luajit/trace_layouts.h hold them.
std::string layout_initializer(const lj_layout &ly);
std::string trace_layout_initializer(const lj_trace_layout &t);

} // namespace ljcore
