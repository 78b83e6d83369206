#include "analyzer/locate/dwarf_layout.h"

#include <cstring>
#include <dwarf.h>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analyzer/locate/layout_fields.h"
#include "analyzer/lua/luajit_arch.h"

namespace ljcore {

namespace {

// The value of enumerator `name` if enumeration e defines it.
std::optional<int64_t> enumerator_in(Dwarf_Die e, const char *name)
{
	if (dwarf_child(&e, &e) != 0)
		return std::nullopt;
	do {
		const char *n = dwarf_diename(&e);
		Dwarf_Attribute attr;
		Dwarf_Sword v;
		if (n && strcmp(n, name) == 0 && dwarf_attr(&e, DW_AT_const_value, &attr) &&
		    dwarf_formsdata(&attr, &v) == 0)
			return v;
	} while (dwarf_siblingof(&e, &e) == 0);
	return std::nullopt;
}

// Named structure definitions (not declarations) of the CUs, by name:
// `struct X {...}` and `typedef struct {...} X` alike. Only the names asked
// for are kept; the walk stops once all are found.
class StructIndex {
public:
	StructIndex(Dwarf *dw, std::initializer_list<std::span<const char *const>> wanted,
		    Dwarf_Addr gc_code = 0)
	    : dw_(dw)
	{
		for (auto names : wanted)
			for (const char *w : names)
				structs_[w];
		size_t found = 0;
		auto visit = [&](Dwarf_Die die) {
			if (dwarf_tag(&die) == DW_TAG_enumeration_type)
				enums_.push_back(die);
			else
				found += add(die);
		};
		// lj_gc.c includes the headers of every struct asked for (its
		// collector touches them all, GG_State and CTState included):
		// walked first, it usually suffices. Otherwise the CUs in order;
		// lj_obj.h is included by almost every CU, lj_ctype.h by fewer.
		if ((preferred_ = cu_at(gc_code)) || (preferred_ = cu_named("lj_gc.c")))
			walk_cu(*preferred_, visit);
		while (found < structs_.size() && walk_next_cu(visit))
			;
	}

	// The value of enumerator `name` in the first top-level enumeration
	// that has it, in CU order. The enumerations the walk for the structs
	// passed are looked at first, without walking those CUs again:
	// LuaJIT's enums come in the headers that define its structs.
	std::optional<int64_t> enumerator(const char *name)
	{
		for (const Dwarf_Die &e : enums_)
			if (auto v = enumerator_in(e, name))
				return v;
		// The enumerations passed are kept too: the next name asked for
		// may be in one of them, and the walk does not come back.
		std::optional<int64_t> v;
		while (!v && walk_next_cu([&](Dwarf_Die die) {
			if (dwarf_tag(&die) != DW_TAG_enumeration_type)
				return;
			enums_.push_back(die);
			if (!v)
				v = enumerator_in(die, name);
		}))
			;
		return v;
	}

	// The definition of struct `name`, if the DWARF has one.
	Dwarf_Die *get(const char *name)
	{
		auto it = structs_.find(name);
		return it != structs_.end() && it->second ? &*it->second : nullptr;
	}

private:
	// The offset of the CU whose code holds addr, through .debug_aranges.
	// Much cheaper than cu_named: GCC numbers a CU DIE's abbreviation
	// last, so reading a CU's name parses its whole abbreviation table.
	// (Should the CU found not be lj_gc.c's, as in an LTO build, the walk
	// goes on through the others: slower, not wrong.)
	std::optional<Dwarf_Off> cu_at(Dwarf_Addr addr)
	{
		Dwarf_Die cu;
		if (addr == 0 || !dwarf_addrdie(dw_, addr, &cu))
			return std::nullopt;
		return dwarf_dieoffset(&cu) - dwarf_cuoffset(&cu);
	}

	// The offset of the CU of source file `name` (its base name).
	std::optional<Dwarf_Off> cu_named(std::string_view name)
	{
		Dwarf_Off off = 0, next;
		size_t hsize;
		for (; dwarf_nextcu(dw_, off, &next, &hsize, nullptr, nullptr, nullptr) == 0;
		     off = next) {
			Dwarf_Die cu;
			const char *path =
				dwarf_offdie(dw_, off + hsize, &cu) ? dwarf_diename(&cu) : nullptr;
			std::string_view p = path ? path : "";
			if (p == name || p.ends_with("/" + std::string(name)))
				return off;
		}
		return std::nullopt;
	}

	// Calls visit on each top-level DIE of the CU at off.
	template <typename Visit> void walk_cu(Dwarf_Off off, Visit visit)
	{
		Dwarf_Off next;
		size_t hsize;
		Dwarf_Die cu, child;
		if (dwarf_nextcu(dw_, off, &next, &hsize, nullptr, nullptr, nullptr) == 0 &&
		    dwarf_offdie(dw_, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do
				visit(child);
			while (dwarf_siblingof(&child, &child) == 0);
		}
	}

	// Calls visit on each top-level DIE of the next CU in order not walked
	// yet; false when there is none.
	template <typename Visit> bool walk_next_cu(Visit visit)
	{
		Dwarf_Off next;
		size_t hsize;
		if (dwarf_nextcu(dw_, cu_, &next, &hsize, nullptr, nullptr, nullptr) != 0)
			return false;
		if (cu_ != preferred_)
			walk_cu(cu_, visit);
		cu_ = next;
		return true;
	}

	// Returns 1 when die defines a wanted struct not seen before.
	int add(Dwarf_Die die)
	{
		int tag = dwarf_tag(&die);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_typedef)
			return 0;
		const char *name = dwarf_diename(&die);
		auto it = name ? structs_.find(name) : structs_.end();
		if (it == structs_.end() || it->second)
			return 0;
		Dwarf_Die def = die;
		if (tag == DW_TAG_typedef && !strip_typedefs(&def))
			return 0;
		if (dwarf_tag(&def) != DW_TAG_structure_type ||
		    dwarf_hasattr(&def, DW_AT_declaration))
			return 0;
		it->second = def;
		return 1;
	}

	Dwarf *dw_;
	Dwarf_Off cu_ = 0;                   // the next CU to walk
	std::optional<Dwarf_Off> preferred_; // walked first, then skipped
	std::map<std::string, std::optional<Dwarf_Die>, std::less<>> structs_;
	std::vector<Dwarf_Die> enums_; // top-level enumerations of the CUs walked

public:
	// Follows typedefs and qualifiers to the type they name; false when
	// the chain breaks (a declaration only, or no type).
	static bool strip_typedefs(Dwarf_Die *type)
	{
		for (;;) {
			int tag = dwarf_tag(type);
			if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
			    tag != DW_TAG_volatile_type)
				return true;
			Dwarf_Attribute attr;
			if (!dwarf_attr_integrate(type, DW_AT_type, &attr) ||
			    !dwarf_formref_die(&attr, type))
				return false;
		}
	}
};

// Where a member sits and what it is.
struct Member {
	uint64_t offset;
	Dwarf_Die type; // typedefs stripped
};

// Reads member offsets and struct sizes, collecting what the DWARF lacks,
// so that one message names every missing member.
//
// A member is asked for by its paths in the versions we know, best first,
// separated by '|': "str.tab|strhash" is g->str.tab in LuaJIT 2.1 since its
// string interning rework and g->strhash before it (and in Tarantool's
// fork). No path relies on the name of a helper struct such as GCState or
// StrInternState: only the top-level structs are looked up by name.
class Members {
public:
	explicit Members(StructIndex &structs) : structs_(structs) {}

	// A member by its path from st, "gc.total" for st->gc.total: whichever
	// struct holds it on the way, by name or not.
	std::optional<Member> find_path(Dwarf_Die *st, std::string_view path)
	{
		Member at{0, *st};
		while (!path.empty()) {
			size_t dot = path.find('.');
			auto m = find_member(&at.type, path.substr(0, dot));
			if (!m)
				return std::nullopt;
			at = Member{at.offset + m->offset, m->type};
			path = dot == path.npos ? std::string_view() : path.substr(dot + 1);
		}
		return at;
	}

	uint32_t off(const char *st, std::string_view paths)
	{
		auto m = find(st, paths);
		return m ? uint32_t(m->offset) : 0;
	}
	// sizeof the member's type, e.g. 8 for a GCRef with GC64.
	uint32_t member_size(const char *st, std::string_view paths)
	{
		auto m = find(st, paths);
		return m ? uint32_t(dwarf_bytesize(&m->type)) : 0;
	}
	uint32_t size(const char *st)
	{
		Dwarf_Die *die = structs_.get(st);
		if (!die) {
			note_missing(std::string("struct ") + st);
			return 0;
		}
		return uint32_t(dwarf_bytesize(die));
	}
	bool has(const char *st) { return structs_.get(st) != nullptr; }
	const std::string &missing() const { return missing_; }

private:
	// A member of a struct or union as its DIE says, decoded once.
	struct Field {
		const char *name; // nullptr: an unnamed struct or union member
		uint64_t offset;
		std::optional<Dwarf_Die> type; // typedefs stripped; none if unknown
	};

	// The members of struct or union st, read on first use: a layout asks
	// for dozens of global_State's members, each a walk over all of them.
	const std::vector<Field> &fields_of(Dwarf_Die *st)
	{
		auto [it, added] = fields_.try_emplace(dwarf_dieoffset(st));
		if (!added)
			return it->second;
		Dwarf_Die m;
		if (dwarf_child(st, &m) != 0)
			return it->second;
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			// Union members have no location: they all start at 0.
			Dwarf_Word offset = 0;
			Dwarf_Attribute attr;
			if (dwarf_attr(&m, DW_AT_data_member_location, &attr) &&
			    dwarf_formudata(&attr, &offset) != 0)
				continue; // a location expression: not in LuaJIT's structs
			Field f{dwarf_diename(&m), offset, std::nullopt};
			Dwarf_Die type;
			if (dwarf_attr_integrate(&m, DW_AT_type, &attr) &&
			    dwarf_formref_die(&attr, &type) && StructIndex::strip_typedefs(&type))
				f.type = type;
			it->second.push_back(f);
		} while (dwarf_siblingof(&m, &m) == 0);
		return it->second;
	}

	// The member `name` of struct or union st, looking into unnamed struct
	// and union members too (their fields belong to st as far as C is
	// concerned).
	std::optional<Member> find_member(Dwarf_Die *st, std::string_view name)
	{
		for (const Field &f : fields_of(st)) {
			if (f.name && name == f.name) {
				if (!f.type)
					return std::nullopt;
				return Member{f.offset, *f.type};
			}
			if (f.name || !f.type)
				continue;
			Dwarf_Die type = *f.type;
			if (dwarf_tag(&type) == DW_TAG_structure_type ||
			    dwarf_tag(&type) == DW_TAG_union_type)
				if (auto inner = find_member(&type, name))
					return Member{f.offset + inner->offset, inner->type};
		}
		return std::nullopt;
	}

	std::optional<Member> find(const char *st, std::string_view paths)
	{
		Dwarf_Die *die = structs_.get(st);
		if (!die) {
			note_missing(std::string("struct ") + st);
			return std::nullopt;
		}
		for (std::string_view rest = paths; !rest.empty();) {
			size_t bar = rest.find('|');
			if (auto m = find_path(die, rest.substr(0, bar)))
				return m;
			rest = bar == rest.npos ? std::string_view() : rest.substr(bar + 1);
		}
		std::string name = std::string(st) + "." + std::string(paths);
		for (size_t bar; (bar = name.find('|')) != name.npos;)
			name.replace(bar, 1, " or ");
		note_missing(name);
		return std::nullopt;
	}
	void note_missing(const std::string &what)
	{
		// A missing struct is named once, not once per member.
		if (missing_.find(what) != std::string::npos)
			return;
		missing_ += (missing_.empty() ? "" : ", ") + what;
	}

	StructIndex &structs_;
	std::map<Dwarf_Off, std::vector<Field>> fields_;
	std::string missing_;
};

// Appends "name x != y" to out when the two differ.
void differ(std::vector<std::string> &out, const char *name, uint64_t x, uint64_t y)
{
	if (x != y)
		out.push_back(std::string(name) + " " + std::to_string(x) +
			      " != " + std::to_string(y));
}

} // namespace

namespace {

// CFRAME_OFS_* are macros (lj_frame.h), not in DWARF: by architecture,
// GC64, and fork (Tarantool's x86_64 C frame saves two more registers,
// which moves the link to the previous frame).
void set_cframe(lj_layout &ly, Arch arch, bool tarantool)
{
	const LuaJitArch &lj = luajit_arch(arch);
	const CframeOffsets &cf = ly.gc64 ? lj.cframe_gc64 : lj.cframe_gc32;
	ly.cf_nres = cf.nres, ly.cf_prev = tarantool ? cf.prev_tarantool : cf.prev;
	ly.cf_l = cf.l, ly.cf_pc = cf.pc;
}

// The structs each layout reads.
constexpr const char *vm_structs[] = {
	"lua_State", "global_State", "GG_State", "GCfuncC", "GCfuncL", "GCproto", "GCstr",
	"GCtab",     "Node",         "GCudata",  "GCcdata", "GCupval", "CTState", "CType",
};
constexpr const char *jit_structs[] = {
	"GG_State", "jit_State", "GCtrace", "SnapShot", "lua_State", "global_State",
};

Expected<lj_layout> read_layout(StructIndex &structs, Arch arch)
{
	Members m(structs);
	auto off = [&](const char *st, const char *path) { return uint16_t(m.off(st, path)); };
	auto size = [&](const char *st) { return uint16_t(m.size(st)); };

	lj_layout ly{};
	ly.name = luajit_arch(arch).dwarf_layout_name;
	ly.ptrsize = uint8_t(m.member_size("global_State", "mainthref"));
	ly.gc64 = ly.ptrsize == 8;
	ly.fr2 = ly.gc64; // LJ_FR2 comes with GC64 on x86_64 and arm64
	// LJ_VMST__MAX: 7 upstream, 9 in Tarantool's fork.
	ly.vmstates = uint8_t(structs.enumerator("LJ_VMST__MAX").value_or(7));
	ly.L_status = off("lua_State", "status");
	ly.L_glref = off("lua_State", "glref");
	ly.L_base = off("lua_State", "base");
	ly.L_top = off("lua_State", "top");
	ly.L_maxstack = off("lua_State", "maxstack");
	ly.L_stack = off("lua_State", "stack");
	ly.L_cframe = off("lua_State", "cframe");
	ly.L_stacksize = off("lua_State", "stacksize");
	ly.L_openupval = off("lua_State", "openupval");
	ly.L_env = off("lua_State", "env");
	ly.L_size = size("lua_State");
	ly.g_strempty = off("global_State", "strempty");
	ly.g_vmstate = off("global_State", "vmstate");
	ly.g_mainthref = off("global_State", "mainthref");
	ly.g_cur_L = off("global_State", "cur_L");
	ly.g_jit_base = off("global_State", "jit_base");
	ly.g_gc_total = off("global_State", "gc.total");
	ly.g_gc_root = off("global_State", "gc.root");
	ly.g_gc_mmudata = off("global_State", "gc.mmudata");
	// Every 64-bit target has them, with or without GC64.
	ly.g_gc_lightudnum = off("global_State", "gc.lightudnum");
	ly.g_gc_lightudseg = off("global_State", "gc.lightudseg");
	ly.g_str_tab = off("global_State", "str.tab|strhash");
	ly.g_str_mask = off("global_State", "str.mask|strmask");
	ly.g_str_num = off("global_State", "str.num|strnum");
	ly.g_tmpbuf = off("global_State", "tmpbuf");
	ly.g_ctype_state = off("global_State", "ctype_state");
	ly.g_registrytv = off("global_State", "registrytv");
	ly.fn_ffid = off("GCfuncC", "ffid");
	ly.fn_nupvalues = off("GCfuncC", "nupvalues");
	ly.fn_pc = off("GCfuncC", "pc");
	ly.fn_f = off("GCfuncC", "f");
	ly.fn_uvptr = off("GCfuncL", "uvptr");
	ly.fnc_size = size("GCfuncC");
	ly.fnl_size = size("GCfuncL");
	ly.pt_size = size("GCproto");
	ly.pt_numparams = off("GCproto", "numparams");
	ly.pt_framesize = off("GCproto", "framesize");
	ly.pt_sizebc = off("GCproto", "sizebc");
	ly.pt_k = off("GCproto", "k");
	ly.pt_sizekgc = off("GCproto", "sizekgc");
	ly.pt_sizeuv = off("GCproto", "sizeuv");
	ly.pt_flags = off("GCproto", "flags");
	ly.pt_chunkname = off("GCproto", "chunkname");
	ly.pt_firstline = off("GCproto", "firstline");
	ly.pt_numline = off("GCproto", "numline");
	ly.pt_lineinfo = off("GCproto", "lineinfo");
	ly.pt_uvinfo = off("GCproto", "uvinfo");
	ly.pt_varinfo = off("GCproto", "varinfo");
	ly.pt_sizept = off("GCproto", "sizept");
	ly.str_len = off("GCstr", "len");
	ly.str_size = size("GCstr");
	ly.tab_colo = off("GCtab", "colo");
	ly.tab_array = off("GCtab", "array");
	ly.tab_metatable = off("GCtab", "metatable");
	ly.tab_node = off("GCtab", "node");
	ly.tab_asize = off("GCtab", "asize");
	ly.tab_hmask = off("GCtab", "hmask");
	ly.tab_size = size("GCtab");
	ly.node_size = size("Node");
	ly.ud_len = off("GCudata", "len");
	ly.ud_size = size("GCudata");
	ly.cd_ctypeid = off("GCcdata", "ctypeid");
	ly.cd_size = size("GCcdata");
	ly.uv_size = size("GCupval");
	ly.uv_v = off("GCupval", "v");
	// A build without the FFI has no CTState: its fields stay 0, as
	// g->ctype_state does at run time.
	if (structs.get("CTState")) {
		ly.cts_tab = off("CTState", "tab");
		ly.cts_sizetab = off("CTState", "sizetab");
		ly.cts_cb_sizeid = off("CTState", "cb.sizeid");
		ly.cts_size = size("CTState");
		ly.ctype_size = size("CType");
	}
	ly.gg_g = m.off("GG_State", "g");
	ly.gg_dispatch = m.off("GG_State", "dispatch");
	ly.gg_size = m.size("GG_State");
	if (!m.missing().empty())
		return fail("DWARF lacks " + m.missing());
	set_cframe(ly, arch, LJ_LAYOUT_TARANTOOL(&ly));
	return ly;
}

Expected<lj_trace_layout> read_trace_layout(StructIndex &structs)
{
	if (!structs.get("jit_State"))
		return fail("DWARF has no definition of struct jit_State (a build without the "
			    "JIT?)");
	Members m(structs);
	auto off = [&](const char *st, const char *path) { return uint16_t(m.off(st, path)); };
	lj_trace_layout t{};
	t.name = "from DWARF";
	// OpenResty's lua_State carries exdata for its extensions, Tarantool's
	// global_State a mem_L; the IR field and call names differ with them.
	Dwarf_Die *L = structs.get("lua_State"), *g = structs.get("global_State");
	t.fork = L && m.find_path(L, "exdata")  ? LJ_FORK_LUAJIT2
		 : g && m.find_path(g, "mem_L") ? LJ_FORK_TARANTOOL
						: LJ_FORK_UPSTREAM;
	t.gg_J = m.off("GG_State", "J");
	t.J_trace = off("jit_State", "trace");
	t.J_sizetrace = off("jit_State", "sizetrace");
	t.J_exitstubgroup = off("jit_State", "exitstubgroup");
	t.J_irtoplim = off("jit_State", "irtoplim");
	t.J_irbotlim = off("jit_State", "irbotlim");
	t.J_sizesnap = off("jit_State", "sizesnap");
	t.J_sizesnapmap = off("jit_State", "sizesnapmap");
	t.T_size = uint16_t(m.size("GCtrace"));
	t.T_nsnap = off("GCtrace", "nsnap");
	t.T_nins = off("GCtrace", "nins");
	t.T_ir = off("GCtrace", "ir");
	t.T_nk = off("GCtrace", "nk");
	t.T_nsnapmap = off("GCtrace", "nsnapmap");
	t.T_snap = off("GCtrace", "snap");
	t.T_snapmap = off("GCtrace", "snapmap");
	t.T_startpt = off("GCtrace", "startpt");
	t.T_startpc = off("GCtrace", "startpc");
	t.T_szmcode = off("GCtrace", "szmcode");
	t.T_mcode = off("GCtrace", "mcode");
	t.T_mcloop = off("GCtrace", "mcloop");
	t.T_nchild = off("GCtrace", "nchild");
	t.T_spadjust = off("GCtrace", "spadjust");
	t.T_traceno = off("GCtrace", "traceno");
	t.T_link = off("GCtrace", "link");
	t.T_root = off("GCtrace", "root");
	t.T_nextroot = off("GCtrace", "nextroot");
	t.T_nextside = off("GCtrace", "nextside");
	t.T_linktype = off("GCtrace", "linktype");
	uint32_t snap_size = m.size("SnapShot");
	if (!m.missing().empty())
		return fail("DWARF lacks " + m.missing());
	// The snapshot layout is fixed in trace_layout.h, not a table field.
	if (snap_size != LJ_SNAP_SIZE)
		return fail("DWARF has sizeof(SnapShot) " + std::to_string(snap_size) + ", not " +
			    std::to_string(LJ_SNAP_SIZE));
	return t;
}

} // namespace

std::optional<uint32_t> dwarf_member_offset(Dwarf *dw, const char *st, const char *path)
{
	const char *names[] = {st};
	StructIndex structs(dw, {names});
	Members m(structs);
	uint32_t off = m.off(st, path);
	return m.missing().empty() ? std::optional(off) : std::nullopt;
}

Expected<lj_layout> layout_from_dwarf(Dwarf *dw, Arch arch)
{
	StructIndex structs(dw, {vm_structs});
	return read_layout(structs, arch);
}

Expected<lj_trace_layout> trace_layout_from_dwarf(Dwarf *dw)
{
	StructIndex structs(dw, {jit_structs});
	return read_trace_layout(structs);
}

DwarfLayouts layouts_from_dwarf(Dwarf *dw, Arch arch, Dwarf_Addr gc_code)
{
	StructIndex structs(dw, {vm_structs, jit_structs}, gc_code);
	return {read_layout(structs, arch), read_trace_layout(structs)};
}

std::vector<std::string> layout_differences(const lj_layout &a, const lj_layout &b)
{
	std::vector<std::string> out;
#define LJ_CMP(f) differ(out, #f, a.f, b.f);
	LJ_LAYOUT_FIELDS(LJ_CMP)
	return out;
}

size_t layout_difference_count(const lj_layout &a, const lj_layout &b)
{
	size_t n = 0;
#define LJ_COUNT(f) n += a.f != b.f;
	LJ_LAYOUT_FIELDS(LJ_COUNT)
#undef LJ_COUNT
	return n;
}

std::vector<std::string> trace_layout_differences(const lj_trace_layout &a,
						  const lj_trace_layout &b)
{
	std::vector<std::string> out;
	LJ_TRACE_LAYOUT_FIELDS(LJ_CMP)
#undef LJ_CMP
	return out;
}

namespace {

// ".f = v," for each field, wrapped as clang-format would.
class Initializer {
public:
	void add(const char *field, uint64_t v)
	{
		std::string item = std::string(".") + field + " = " + std::to_string(v) + ",";
		if (line_.size() + item.size() + 1 > 72) {
			text_ += "\t" + line_ + "\n";
			line_.clear();
		}
		line_ += (line_.empty() ? "" : " ") + item;
	}
	std::string finish() { return text_ + (line_.empty() ? "" : "\t" + line_ + "\n"); }

private:
	std::string text_, line_;
};

} // namespace

std::string layout_initializer(const lj_layout &table)
{
	Initializer init;
#define LJ_INIT(f) init.add(#f, table.f);
	LJ_LAYOUT_FIELDS(LJ_INIT)
	return init.finish();
}

std::string trace_layout_initializer(const lj_trace_layout &table)
{
	Initializer init;
	LJ_TRACE_LAYOUT_FIELDS(LJ_INIT)
#undef LJ_INIT
	return init.finish();
}

} // namespace ljcore
