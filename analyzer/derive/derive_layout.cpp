#include "analyzer/derive/derive_layout.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "analyzer/derive/deriver.h"

namespace ljcore {

namespace {

// The lj_layout members the rules derive, for setting and reading them by
// name.
// clang-format off
#define LJ_DERIVED_FIELDS(X)                                                   \
	X(ptrsize) X(gc64) X(fr2) X(vmstates)                                  \
	X(L_glref) X(L_status) X(L_base) X(L_top) X(L_stack) X(L_cframe)       \
	X(L_maxstack) X(L_env) X(L_size) X(L_stacksize) X(L_openupval)         \
	X(gg_g) X(gg_size) X(gg_dispatch)                                      \
	X(g_mainthref) X(g_cur_L) X(g_jit_base) X(g_vmstate) X(g_strempty)     \
	X(g_registrytv)                                                        \
	X(g_gc_total) X(g_gc_root) X(g_gc_mmudata) X(g_gc_lightudseg)          \
	X(g_str_tab) X(g_str_mask) X(g_str_num)                                \
	X(fn_ffid) X(fn_nupvalues) X(fn_pc) X(fn_f)                            \
	X(pt_size) X(pt_varinfo) X(pt_sizebc) X(pt_sizeuv) X(pt_chunkname)    \
	X(pt_firstline) X(pt_numline) X(pt_lineinfo) X(pt_uvinfo)              \
	X(pt_numparams) X(pt_framesize) X(pt_flags) X(pt_k) X(pt_sizekgc)     \
	X(pt_sizept) X(fn_uvptr) X(uv_v)                                       \
	X(str_len) X(str_size)                                                 \
	X(tab_array) X(tab_node) X(tab_asize) X(tab_hmask) X(tab_metatable)    \
	X(tab_size) X(tab_colo)                                                \
	X(ud_len) X(ud_size)                                                   \
	X(ctype_size) X(cts_tab) X(cts_cb_sizeid) X(cts_size) X(cts_sizetab)   \
	X(uv_size) X(fnc_size) X(fnl_size) X(node_size) X(cd_ctypeid)          \
	X(cd_size)                                                             \
	X(cf_l) X(cf_pc) X(cf_nres) X(cf_prev)
// Those of the JIT's layout (lj_trace_layout), kept apart from lj_layout.
#define LJ_DERIVED_JIT_FIELDS(X)                                               \
	X(gg_J) X(J_trace) X(J_sizetrace)                                      \
	X(T_root) X(T_startpt) X(T_startpc) X(T_traceno) X(T_nextroot)         \
	X(T_nins) X(T_nk) X(T_nsnap) X(T_nsnapmap) X(fork)
// Members of global_State, jit_State and GCtrace the census and the traces
// read that a build's code may not show (state_free_rules.cpp reads most
// of global_State's and jit_State's where lua_close frees them; no
// exported function reads GCtrace's machine code, IR or snapshot arrays):
// those it does not show move with the shown member nearest before them
// (moved()), T_size, as if it were a member at the end, with the last
// shown.
#define LJ_MOVED_FIELDS(X)                                                     \
	X(g_gc_lightudnum) X(g_gc_lightudseg) X(g_tmpbuf) X(g_ctype_state)
#define LJ_MOVED_JIT_FIELDS(X)                                                 \
	X(J_exitstubgroup) X(J_irtoplim) X(J_irbotlim) X(J_sizesnap)           \
	X(J_sizesnapmap) X(T_size) X(T_ir) X(T_snap) X(T_snapmap)             \
	X(T_szmcode) X(T_mcode) X(T_mcloop) X(T_nchild) X(T_spadjust)          \
	X(T_link) X(T_nextside) X(T_linktype)
// clang-format on

} // namespace

// How to read and set one member of lj_layout, or of its JIT layout.
struct LayoutMember {
	std::optional<uint32_t> (*get)(const lj_layout &ly);
	void (*set)(lj_layout &ly, lj_trace_layout &jit, uint32_t value);
};

namespace {

// The members the lists above name, by name. The first of a name listed
// twice (g_gc_lightudseg) is kept, as both are the same member.
const std::unordered_map<std::string_view, LayoutMember> &members()
{
	static const std::unordered_map<std::string_view, LayoutMember> by_name = {
#define LJ_ACCESS(m)                                                                               \
	{#m,                                                                                       \
	 {[](const lj_layout &ly) -> std::optional<uint32_t> { return uint32_t(ly.m); },           \
	  [](lj_layout &ly, lj_trace_layout &, uint32_t v) { ly.m = decltype(ly.m)(v); }}},
		LJ_DERIVED_FIELDS(LJ_ACCESS) LJ_MOVED_FIELDS(LJ_ACCESS)
#undef LJ_ACCESS
#define LJ_ACCESS_JIT(m)                                                                           \
	{#m,                                                                                       \
	 {[](const lj_layout &ly) -> std::optional<uint32_t> {                                     \
		  return ly.jit ? std::optional(uint32_t(ly.jit->m)) : std::nullopt;               \
	  },                                                                                       \
	  [](lj_layout &ly, lj_trace_layout &jit, uint32_t v) {                                    \
		  if (ly.jit)                                                                      \
			  jit.m = decltype(jit.m)(v);                                              \
	  }}},
			LJ_DERIVED_JIT_FIELDS(LJ_ACCESS_JIT) LJ_MOVED_JIT_FIELDS(LJ_ACCESS_JIT)
#undef LJ_ACCESS_JIT
	};
	return by_name;
}

std::optional<uint32_t> value_in(const LayoutMember *m, const lj_layout &ly)
{
	return m ? m->get(ly) : std::nullopt;
}

// A member the code may not show, which moves with the shown one nearest
// before it (moved()).
struct MovedMember {
	std::string_view name;
	const LayoutMember *member;
};

const std::vector<MovedMember> &moved_members()
{
	static const std::vector<MovedMember> list = [] {
		std::vector<MovedMember> out;
		for (const char *name : moved_fields())
			out.push_back({name, layout_member(name)});
		return out;
	}();
	return list;
}

// The struct a member's name says it is in: "g_" of "g_tmpbuf".
std::string_view struct_of(std::string_view name)
{
	return name.substr(0, name.find('_') + 1);
}

// Whether moved members are in the struct named by prefix.
bool has_moved(std::string_view prefix)
{
	static const std::vector<std::string_view> structs = [] {
		std::vector<std::string_view> out;
		for (const MovedMember &m : moved_members())
			if (std::find(out.begin(), out.end(), struct_of(m.name)) == out.end())
				out.push_back(struct_of(m.name));
		return out;
	}();
	return std::find(structs.begin(), structs.end(), prefix) != structs.end();
}

// A derived field of a struct with moved members: what a member the code
// does not show may move with.
struct Anchor {
	std::string_view prefix;         // "g_", "J_": the struct
	std::optional<uint32_t> in_base; // none: base lacks the member
	uint32_t value;
	const DerivedField *field;
};

// Where m, a member the code does not show, is in a build whose shown
// members are derived (anchors, where base has them) and whose other
// ones are base's: where base has it, moved as far as the shown member of
// the same struct nearest before it in base moved, which a member
// inserted before both (a release's, a fork's) moves as well. Memory
// checks the layout as a whole. Nothing when the code shows m itself.
std::optional<uint32_t> moved(const lj_layout &base, const std::vector<Anchor> &anchors,
			      const MovedMember &m, std::string *anchor_name)
{
	auto at = value_in(m.member, base);
	if (!at || *at == 0) // 0: a build without it (no FFI, say)
		return std::nullopt;
	std::string_view prefix = struct_of(m.name);
	const Anchor *anchor = nullptr;
	for (const Anchor &a : anchors) {
		if (a.field->member == m.member)
			return std::nullopt; // the code showed it
		if (a.in_base && *a.in_base <= *at && (!anchor || *a.in_base > *anchor->in_base) &&
		    a.prefix == prefix)
			anchor = &a;
	}
	if (!anchor || anchor->value == *anchor->in_base)
		return std::nullopt;
	*anchor_name = anchor->field->name;
	return *at + anchor->value - *anchor->in_base;
}

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
	d.stacksize();
	d.gg_size();
	d.userdata();
	d.cclosure();
	d.dump();
	d.getlocal();
	d.getinfo();
	d.getupvalue();
	d.proto_header();
	d.openupval();
	d.resume();
	d.error();
	d.tolstring();
	d.rawgeti();
	d.createtable();
	d.vmstates();
	d.getmetatable();
	d.topointer();
	d.ctype_state();
	d.jit_state();
	d.fork();
	d.cframe();
	// After the rules whose fields it starts from: close() (lua_close,
	// g->mainthref), newthread() (gg_g), topointer() (lightudseg),
	// ctype_state() (cb.sizeid), jit_state() (gg_J, J->sizetrace).
	d.state_frees();
	if (!out.field("L_glref")) {
		std::string why = out.problems.empty() ? "no rule applied" : out.problems.front();
		return fail("could not derive: " + why);
	}
	return out;
}

const LayoutMember *layout_member(std::string_view name)
{
	auto it = members().find(name);
	return it == members().end() ? nullptr : &it->second;
}

std::optional<uint32_t> layout_field(const lj_layout &ly, const std::string &name)
{
	return value_in(layout_member(name), ly);
}

std::span<const char *const> moved_fields()
{
#define LJ_NAME(m) #m,
	static constexpr const char *names[] = {LJ_MOVED_FIELDS(LJ_NAME)
							LJ_MOVED_JIT_FIELDS(LJ_NAME)};
#undef LJ_NAME
	return names;
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
			agree += value_in(f.member, *t) == f.value;
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

lj_layout with_derived(const lj_layout &base, const DerivedLayout &derived, lj_trace_layout &jit,
		       std::vector<std::string> *changed)
{
	lj_layout ly = base;
	if (base.jit) {
		jit = *base.jit;
		ly.jit = &jit;
	}
	// Read once, not once per moved member: this runs for every table.
	std::vector<Anchor> anchors;
	for (const DerivedField &f : derived.fields) {
		auto old = value_in(f.member, base);
		if (changed && old && *old != f.value)
			changed->push_back(f.name + " " + std::to_string(*old) + " -> " +
					   std::to_string(f.value));
		if (f.member)
			f.member->set(ly, jit, f.value);
		if (std::string_view prefix = struct_of(f.name); has_moved(prefix))
			anchors.push_back({prefix, old, f.value, &f});
	}
	for (const MovedMember &m : moved_members()) {
		std::string anchor;
		auto to = m.member ? moved(base, anchors, m, &anchor) : std::nullopt;
		auto now = value_in(m.member, ly);
		if (!to || !now)
			continue;
		if (changed)
			changed->push_back(std::string(m.name) + " " + std::to_string(*now) +
					   " -> " + std::to_string(*to) + " (as " + anchor + ")");
		m.member->set(ly, jit, *to);
	}
	return ly;
}

} // namespace ljcore
