#include "analyzer/dwarf_layout.h"

#include <cstring>
#include <dwarf.h>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace ljcore {

namespace {

// The struct definitions we need, by the name LuaJIT gives them
// (lj_obj.h, lj_dispatch.h).
const char *const wanted_structs[] = {
	"lua_State", "global_State",   "GCState", "GG_State", "GCfuncC",   "GCfuncL",
	"GCproto",   "GCstr",          "GCRef",   "GCtab",    "Node",      "GCudata",
	"GCcdata",   "StrInternState", "GCupval", "CTState",  "CCallback", "CType",
};
// The JIT's structures (lj_jit.h, lj_dispatch.h).
const char *const wanted_trace_structs[] = {"GG_State", "jit_State", "GCtrace", "SnapShot",
					    "lua_State"};

// Structure definitions (not declarations) found in the CUs, by name.
std::map<std::string, Dwarf_Die> find_structs(Dwarf *dw, std::span<const char *const> wanted)
{
	std::map<std::string, Dwarf_Die> found;
	Dwarf_Off off = 0, next;
	size_t hsize;
	// lj_obj.h is included by almost every CU: the first ones suffice.
	while (found.size() < wanted.size() &&
	       dwarf_nextcu(dw, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				if (dwarf_tag(&child) != DW_TAG_structure_type ||
				    !dwarf_hasattr(&child, DW_AT_name) ||
				    dwarf_hasattr(&child, DW_AT_declaration))
					continue;
				const char *name = dwarf_diename(&child);
				for (const char *w : wanted)
					if (name && strcmp(name, w) == 0 && !found.count(w))
						found[w] = child;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return found;
}

std::optional<uint64_t> member_offset(Dwarf_Die *st, const char *member)
{
	Dwarf_Die m;
	if (dwarf_child(st, &m) != 0)
		return std::nullopt;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		const char *name = dwarf_diename(&m);
		if (!name || strcmp(name, member) != 0)
			continue;
		Dwarf_Attribute attr;
		Dwarf_Word v;
		if (dwarf_attr(&m, DW_AT_data_member_location, &attr) &&
		    dwarf_formudata(&attr, &v) == 0)
			return v;
	} while (dwarf_siblingof(&m, &m) == 0);
	return std::nullopt;
}

// Reads member offsets and sizes of the structs found, collecting the
// names of the members DWARF lacks, so that one error names them all.
class Members {
public:
	explicit Members(std::map<std::string, Dwarf_Die> &structs) : structs_(structs) {}

	uint32_t off(const char *st, const char *member)
	{
		auto v = member_offset(&structs_[st], member);
		if (!v) {
			missing_ += std::string(missing_.empty() ? "" : ", ") + st + "." + member;
			return 0;
		}
		return uint32_t(*v);
	}
	uint32_t size(const char *st) { return uint32_t(dwarf_bytesize(&structs_[st])); }
	const std::string &missing() const { return missing_; }

private:
	std::map<std::string, Dwarf_Die> &structs_;
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

Expected<lj_layout> layout_from_dwarf(Dwarf *dw, Arch arch)
{
	auto structs = find_structs(dw, wanted_structs);
	for (const char *w : wanted_structs)
		if (!structs.count(w))
			return fail(std::string("DWARF has no definition of struct ") + w);
	Members m(structs);
	auto off = [&](const char *st, const char *member) { return m.off(st, member); };
	auto size = [&](const char *st) { return m.size(st); };

	lj_layout ly{};
	ly.name = arch == Arch::x86_64 ? "from DWARF, x86_64" : "from DWARF, aarch64";
	ly.ptrsize = uint8_t(size("GCRef"));
	ly.gc64 = ly.ptrsize == 8;
	ly.fr2 = ly.gc64; // LJ_FR2 comes with GC64 on x86_64 and arm64
	ly.L_status = uint16_t(off("lua_State", "status"));
	ly.L_glref = uint16_t(off("lua_State", "glref"));
	ly.L_base = uint16_t(off("lua_State", "base"));
	ly.L_top = uint16_t(off("lua_State", "top"));
	ly.L_maxstack = uint16_t(off("lua_State", "maxstack"));
	ly.L_stack = uint16_t(off("lua_State", "stack"));
	ly.L_cframe = uint16_t(off("lua_State", "cframe"));
	ly.L_stacksize = uint16_t(off("lua_State", "stacksize"));
	ly.g_strempty = uint16_t(off("global_State", "strempty"));
	ly.g_vmstate = uint16_t(off("global_State", "vmstate"));
	ly.g_mainthref = uint16_t(off("global_State", "mainthref"));
	ly.g_cur_L = uint16_t(off("global_State", "cur_L"));
	ly.g_jit_base = uint16_t(off("global_State", "jit_base"));
	ly.g_gc_total = uint16_t(off("global_State", "gc") + off("GCState", "total"));
	ly.fn_ffid = uint16_t(off("GCfuncC", "ffid"));
	ly.fn_nupvalues = uint16_t(off("GCfuncC", "nupvalues"));
	ly.fn_pc = uint16_t(off("GCfuncC", "pc"));
	ly.fn_f = uint16_t(off("GCfuncC", "f"));
	ly.pt_size = uint16_t(size("GCproto"));
	ly.pt_numparams = uint16_t(off("GCproto", "numparams"));
	ly.pt_framesize = uint16_t(off("GCproto", "framesize"));
	ly.pt_sizebc = uint16_t(off("GCproto", "sizebc"));
	ly.pt_k = uint16_t(off("GCproto", "k"));
	ly.pt_sizekgc = uint16_t(off("GCproto", "sizekgc"));
	ly.pt_sizeuv = uint16_t(off("GCproto", "sizeuv"));
	ly.pt_flags = uint16_t(off("GCproto", "flags"));
	ly.pt_chunkname = uint16_t(off("GCproto", "chunkname"));
	ly.pt_firstline = uint16_t(off("GCproto", "firstline"));
	ly.pt_numline = uint16_t(off("GCproto", "numline"));
	ly.pt_lineinfo = uint16_t(off("GCproto", "lineinfo"));
	ly.pt_uvinfo = uint16_t(off("GCproto", "uvinfo"));
	ly.pt_varinfo = uint16_t(off("GCproto", "varinfo"));
	ly.str_len = uint16_t(off("GCstr", "len"));
	ly.str_size = uint16_t(size("GCstr"));
	ly.gg_g = off("GG_State", "g");
	ly.gg_dispatch = off("GG_State", "dispatch");
	ly.gg_size = size("GG_State");
	ly.L_openupval = uint16_t(off("lua_State", "openupval"));
	ly.L_env = uint16_t(off("lua_State", "env"));
	ly.L_size = uint16_t(size("lua_State"));
	uint32_t gc = off("global_State", "gc");
	ly.g_gc_root = uint16_t(gc + off("GCState", "root"));
	ly.g_gc_mmudata = uint16_t(gc + off("GCState", "mmudata"));
	ly.g_gc_lightudnum = uint16_t(gc + off("GCState", "lightudnum"));
	ly.g_gc_lightudseg = uint16_t(gc + off("GCState", "lightudseg"));
	uint32_t str = off("global_State", "str");
	ly.g_str_tab = uint16_t(str + off("StrInternState", "tab"));
	ly.g_str_mask = uint16_t(str + off("StrInternState", "mask"));
	ly.g_str_num = uint16_t(str + off("StrInternState", "num"));
	ly.g_tmpbuf = uint16_t(off("global_State", "tmpbuf"));
	ly.g_ctype_state = uint16_t(off("global_State", "ctype_state"));
	ly.g_registrytv = uint16_t(off("global_State", "registrytv"));
	ly.fn_uvptr = uint16_t(off("GCfuncL", "uvptr"));
	ly.fnc_size = uint16_t(size("GCfuncC"));
	ly.fnl_size = uint16_t(size("GCfuncL"));
	ly.pt_sizept = uint16_t(off("GCproto", "sizept"));
	ly.tab_colo = uint16_t(off("GCtab", "colo"));
	ly.tab_array = uint16_t(off("GCtab", "array"));
	ly.tab_metatable = uint16_t(off("GCtab", "metatable"));
	ly.tab_node = uint16_t(off("GCtab", "node"));
	ly.tab_asize = uint16_t(off("GCtab", "asize"));
	ly.tab_hmask = uint16_t(off("GCtab", "hmask"));
	ly.tab_size = uint16_t(size("GCtab"));
	ly.node_size = uint16_t(size("Node"));
	ly.ud_len = uint16_t(off("GCudata", "len"));
	ly.ud_size = uint16_t(size("GCudata"));
	ly.cd_ctypeid = uint16_t(off("GCcdata", "ctypeid"));
	ly.cd_size = uint16_t(size("GCcdata"));
	ly.uv_size = uint16_t(size("GCupval"));
	ly.uv_v = uint16_t(off("GCupval", "v"));
	ly.cts_tab = uint16_t(off("CTState", "tab"));
	ly.cts_sizetab = uint16_t(off("CTState", "sizetab"));
	ly.cts_cb_sizeid = uint16_t(off("CTState", "cb") + off("CCallback", "sizeid"));
	ly.cts_size = uint16_t(size("CTState"));
	ly.ctype_size = uint16_t(size("CType"));
	if (!m.missing().empty())
		return fail("DWARF lacks members " + m.missing());
	// CFRAME_OFS_* are macros (lj_frame.h), not in DWARF.
	if (arch == Arch::x86_64 && ly.gc64) {
		ly.cf_nres = 8, ly.cf_prev = 32, ly.cf_l = 16, ly.cf_pc = 24;
	} else if (arch == Arch::x86_64) {
		ly.cf_nres = 16, ly.cf_prev = 32, ly.cf_l = 24, ly.cf_pc = 28;
	} else {
		ly.cf_nres = 40, ly.cf_prev = 0, ly.cf_l = 16, ly.cf_pc = 8;
	}
	return ly;
}

Expected<lj_trace_layout> trace_layout_from_dwarf(Dwarf *dw)
{
	auto structs = find_structs(dw, wanted_trace_structs);
	for (const char *w : wanted_trace_structs)
		if (!structs.count(w))
			return fail(std::string("DWARF has no definition of struct ") + w +
				    " (a build without the JIT?)");
	Members m(structs);
	auto off = [&](const char *st, const char *member) { return uint16_t(m.off(st, member)); };
	lj_trace_layout t{};
	t.name = "from DWARF";
	// OpenResty's lua_State carries exdata for its extensions; upstream's
	// does not, and the IR names differ along the same line.
	t.fork =
		member_offset(&structs["lua_State"], "exdata") ? LJ_FORK_LUAJIT2 : LJ_FORK_UPSTREAM;
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
	if (!m.missing().empty())
		return fail("DWARF lacks members " + m.missing());
	// The snapshot layout is fixed in trace_layout.h, not a table field.
	if (dwarf_bytesize(&structs["SnapShot"]) != LJ_SNAP_SIZE)
		return fail("DWARF has sizeof(SnapShot) " +
			    std::to_string(dwarf_bytesize(&structs["SnapShot"])) + ", not " +
			    std::to_string(LJ_SNAP_SIZE));
	return t;
}

std::vector<std::string> trace_layout_differences(const lj_trace_layout &a,
						  const lj_trace_layout &b)
{
	std::vector<std::string> out;
#define LJ_CMP(f) differ(out, #f, a.f, b.f)
	LJ_CMP(fork);
	LJ_CMP(gg_J);
	LJ_CMP(J_trace);
	LJ_CMP(J_sizetrace);
	LJ_CMP(J_exitstubgroup);
	LJ_CMP(J_irtoplim);
	LJ_CMP(J_irbotlim);
	LJ_CMP(J_sizesnap);
	LJ_CMP(J_sizesnapmap);
	LJ_CMP(T_size);
	LJ_CMP(T_nsnap);
	LJ_CMP(T_nins);
	LJ_CMP(T_ir);
	LJ_CMP(T_nk);
	LJ_CMP(T_nsnapmap);
	LJ_CMP(T_snap);
	LJ_CMP(T_snapmap);
	LJ_CMP(T_startpt);
	LJ_CMP(T_startpc);
	LJ_CMP(T_szmcode);
	LJ_CMP(T_mcode);
	LJ_CMP(T_mcloop);
	LJ_CMP(T_nchild);
	LJ_CMP(T_spadjust);
	LJ_CMP(T_traceno);
	LJ_CMP(T_link);
	LJ_CMP(T_root);
	LJ_CMP(T_nextroot);
	LJ_CMP(T_nextside);
	LJ_CMP(T_linktype);
#undef LJ_CMP
	return out;
}

std::vector<std::string> layout_differences(const lj_layout &a, const lj_layout &b)
{
	std::vector<std::string> out;
#define LJ_CMP(f) differ(out, #f, a.f, b.f)
	LJ_CMP(gc64);
	LJ_CMP(fr2);
	LJ_CMP(ptrsize);
	LJ_CMP(L_status);
	LJ_CMP(L_glref);
	LJ_CMP(L_base);
	LJ_CMP(L_top);
	LJ_CMP(L_maxstack);
	LJ_CMP(L_stack);
	LJ_CMP(L_cframe);
	LJ_CMP(L_stacksize);
	LJ_CMP(g_strempty);
	LJ_CMP(g_vmstate);
	LJ_CMP(g_mainthref);
	LJ_CMP(g_cur_L);
	LJ_CMP(g_jit_base);
	LJ_CMP(g_gc_total);
	LJ_CMP(fn_ffid);
	LJ_CMP(fn_nupvalues);
	LJ_CMP(fn_pc);
	LJ_CMP(fn_f);
	LJ_CMP(pt_size);
	LJ_CMP(pt_numparams);
	LJ_CMP(pt_framesize);
	LJ_CMP(pt_sizebc);
	LJ_CMP(pt_k);
	LJ_CMP(pt_sizekgc);
	LJ_CMP(pt_sizeuv);
	LJ_CMP(pt_flags);
	LJ_CMP(pt_chunkname);
	LJ_CMP(pt_firstline);
	LJ_CMP(pt_numline);
	LJ_CMP(pt_lineinfo);
	LJ_CMP(pt_uvinfo);
	LJ_CMP(pt_varinfo);
	LJ_CMP(str_len);
	LJ_CMP(str_size);
	LJ_CMP(gg_g);
	LJ_CMP(gg_dispatch);
	LJ_CMP(cf_nres);
	LJ_CMP(cf_prev);
	LJ_CMP(cf_l);
	LJ_CMP(cf_pc);
	LJ_CMP(L_openupval);
	LJ_CMP(L_env);
	LJ_CMP(g_registrytv);
	LJ_CMP(L_size);
	LJ_CMP(g_gc_root);
	LJ_CMP(g_gc_mmudata);
	LJ_CMP(g_gc_lightudnum);
	LJ_CMP(g_gc_lightudseg);
	LJ_CMP(g_str_tab);
	LJ_CMP(g_str_mask);
	LJ_CMP(g_str_num);
	LJ_CMP(g_tmpbuf);
	LJ_CMP(g_ctype_state);
	LJ_CMP(fn_uvptr);
	LJ_CMP(fnc_size);
	LJ_CMP(fnl_size);
	LJ_CMP(pt_sizept);
	LJ_CMP(tab_colo);
	LJ_CMP(tab_array);
	LJ_CMP(tab_metatable);
	LJ_CMP(tab_node);
	LJ_CMP(tab_asize);
	LJ_CMP(tab_hmask);
	LJ_CMP(tab_size);
	LJ_CMP(node_size);
	LJ_CMP(ud_len);
	LJ_CMP(ud_size);
	LJ_CMP(cd_ctypeid);
	LJ_CMP(cd_size);
	LJ_CMP(uv_size);
	LJ_CMP(uv_v);
	LJ_CMP(cts_tab);
	LJ_CMP(cts_sizetab);
	LJ_CMP(cts_cb_sizeid);
	LJ_CMP(cts_size);
	LJ_CMP(ctype_size);
	LJ_CMP(gg_size);
#undef LJ_CMP
	return out;
}

} // namespace ljcore
