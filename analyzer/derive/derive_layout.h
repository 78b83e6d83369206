// LuaJIT's offsets read from the machine code of the Lua C API functions a
// build exports (lua_close, lua_gettop, lua_newstate, lua_pushcclosure...):
// each function reads or writes known fields of LuaJIT's objects through
// its arguments or what it called returned, and where it does so gives the
// offset, whatever the compiler made of the rest. The rules, one a function,
// are in *_rules.cpp (deriver.h); the fields the code does not show come
// from the built-in table that agrees with the derived ones best, and
// memory decides, as for any layout, whether it fits.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <libelf.h>

#include "luajit/layout.h"
#include "luajit/trace_layout.h"
#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

// How to read and set one member of lj_layout or of its JIT layout
// (derive_layout.cpp).
struct LayoutMember;
// The member named name ("L_base"), nullptr if with_derived sets none of
// that name.
const LayoutMember *layout_member(std::string_view name);

struct DerivedField {
	std::string name;   // the lj_layout member: "L_base", "g_cur_L"
	uint32_t value = 0; // its offset (or, for ptrsize, its size)
	std::string source; // the instruction it was read from: "lua_close+0x31"
	// name's member, looked up once: every table is compared with every
	// field, and with_derived sets them all once per table.
	const LayoutMember *member = nullptr;
};

struct DerivedLayout {
	Arch arch = Arch::x86_64;
	// A deque: the rules keep pointers to fields found earlier
	// (field()) while they add more, which a vector would move.
	std::deque<DerivedField> fields;
	// "could not derive L_stack: lua_close is not exported", one a field
	// or function that failed; the fields read elsewhere still stand.
	std::vector<std::string> problems;
	// "str_len: lua_tolstring reads its string through an indexed slot",
	// one a field this build's code does not show where others' does (a
	// helper the compiler inlined, say): the table's value stands.
	std::vector<std::string> unshown;

	const DerivedField *field(const std::string &name) const;
};

// Reads the fields from the exported functions of elf. Fails, with the
// reason, when not even lua_State's link to global_State could be read.
Expected<DerivedLayout> derive_layout(Elf *elf);

// The tables of the derived pointer size, those that agree with the most
// derived fields first (in their order among equals); with nearest_only,
// only those that agree with the most. Fields the code does not show
// (GG_State with or without the JIT, say) can leave several as near, and
// a table's fields the code does not show may be wrong for the build even
// when it agrees best: memory decides among them all.
std::vector<const lj_layout *> nearest_tables(const std::vector<const lj_layout *> &tables,
					      const DerivedLayout &derived,
					      bool nearest_only = false);

// base with every derived field set, and the names of those that differ
// from base ("L_base 32 -> 48"). Some members the code does not show
// (g->tmpbuf, J->sizesnap...) move with the shown member nearest before
// them in base ("g_tmpbuf 120 -> 136 (as g_mainthref)"). The JIT's fields (gg_J, J_trace...) go
// into jit, the caller's copy of base's JIT layout, which the result
// points to; a base without the JIT's layout (a table of a build without
// the JIT) gives a result without one, and jit is left alone.
lj_layout with_derived(const lj_layout &base, const DerivedLayout &derived, lj_trace_layout &jit,
		       std::vector<std::string> *changed = nullptr);

// The value of field name in ly (the JIT's fields in ly.jit), for printing
// and comparing; nullopt for a name with_derived does not set, or a JIT
// field of a layout without the JIT's.
std::optional<uint32_t> layout_field(const lj_layout &ly, const std::string &name);

// The members with_derived moves when the code does not show them.
std::span<const char *const> moved_fields();

} // namespace ljcore
