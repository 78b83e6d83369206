#include "analyzer/derive/derive_layout.h"

#include <algorithm>
#include <optional>

#include "analyzer/derive/deriver.h"

namespace ljcore {

namespace {

// The lj_layout members the rules derive, for setting and reading them by
// name.
// clang-format off
#define LJ_DERIVED_FIELDS(X)                                                   \
	X(ptrsize) X(gc64) X(fr2)                                              \
	X(L_glref) X(L_status) X(L_base) X(L_top) X(L_stack) X(L_cframe)       \
	X(L_maxstack) X(L_env) X(L_size)                                       \
	X(gg_g) X(gg_size) X(gg_dispatch)                                      \
	X(g_mainthref) X(g_cur_L) X(g_jit_base) X(g_vmstate) X(g_strempty)     \
	X(g_registrytv)                                                        \
	X(g_gc_total) X(g_gc_root) X(g_gc_mmudata) X(g_gc_lightudseg)          \
	X(g_str_tab) X(g_str_mask) X(g_str_num)                                \
	X(fn_ffid) X(fn_nupvalues) X(fn_pc) X(fn_f)                            \
	X(pt_size) X(pt_varinfo) X(pt_sizebc) X(pt_sizeuv) X(pt_chunkname)    \
	X(pt_firstline) X(pt_numline) X(pt_lineinfo) X(pt_uvinfo)              \
	X(str_len) X(str_size)                                                 \
	X(tab_array) X(tab_node) X(tab_asize) X(tab_hmask)                     \
	X(ud_len) X(ud_size)                                                   \
	X(ctype_size) X(cts_tab) X(cts_cb_sizeid) X(cts_size)
// clang-format on

} // namespace

const DerivedField *DerivedLayout::field(const std::string &name) const
{
	auto it = std::find_if(fields.begin(), fields.end(),
			       [&](const DerivedField &f) { return f.name == name; });
	return it == fields.end() ? nullptr : &*it;
}

Expected<DerivedLayout> derive_layout(Elf *elf)
{
	auto code = ExportedCode::open(elf);
	if (!code)
		return fail("could not derive: " + code.error().message);
	auto dis = Disassembler::create(code->arch());
	if (!dis)
		return fail("could not derive: " + dis.error().message);
	DerivedLayout out;
	out.arch = code->arch();
	Deriver d(*code, **dis, out);
	// lua_getallocf first: its one load from L is G(L), which the others
	// follow.
	d.allocf();
	d.close();
	d.gettop();
	d.status();
	d.newthread();
	d.gg_size();
	d.userdata();
	d.cclosure();
	d.dump();
	d.getlocal();
	d.getinfo();
	d.getupvalue();
	d.resume();
	d.error();
	d.tolstring();
	d.rawgeti();
	d.topointer();
	d.ctype_state();
	if (!out.field("L_glref")) {
		std::string why = out.problems.empty() ? "no rule applied" : out.problems.front();
		return fail("could not derive: " + why);
	}
	return out;
}

std::optional<uint32_t> layout_field(const lj_layout &ly, const std::string &name)
{
#define LJ_GET(f)                                                                                  \
	if (name == #f)                                                                            \
		return uint32_t(ly.f);
	LJ_DERIVED_FIELDS(LJ_GET)
#undef LJ_GET
	return std::nullopt;
}

std::vector<const lj_layout *> nearest_tables(const std::vector<const lj_layout *> &tables,
					      const DerivedLayout &derived, bool nearest_only)
{
	std::vector<std::pair<size_t, const lj_layout *>> scored;
	const DerivedField *ptrsize = derived.field("ptrsize");
	for (const lj_layout *t : tables) {
		if (ptrsize && t->ptrsize != ptrsize->value)
			continue;
		size_t agree = 0;
		for (const DerivedField &f : derived.fields)
			agree += layout_field(*t, f.name) == f.value;
		scored.emplace_back(agree, t);
	}
	std::stable_sort(scored.begin(), scored.end(),
			 [](auto &a, auto &b) { return a.first > b.first; });
	std::vector<const lj_layout *> out;
	for (auto &[agree, t] : scored)
		if (!nearest_only || agree == scored.front().first)
			out.push_back(t);
	return out;
}

lj_layout with_derived(const lj_layout &base, const DerivedLayout &derived,
		       std::vector<std::string> *changed)
{
	lj_layout ly = base;
	for (const DerivedField &f : derived.fields) {
		auto old = layout_field(ly, f.name);
		if (changed && old && *old != f.value)
			changed->push_back(f.name + " " + std::to_string(*old) + " -> " +
					   std::to_string(f.value));
#define LJ_SET(m)                                                                                  \
	if (f.name == #m)                                                                          \
		ly.m = decltype(ly.m)(f.value);
		LJ_DERIVED_FIELDS(LJ_SET)
#undef LJ_SET
	}
	return ly;
}

} // namespace ljcore
