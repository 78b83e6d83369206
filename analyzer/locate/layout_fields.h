// Every field of lj_layout and lj_trace_layout by name, in declaration
// order (luajit/layout.h, luajit/trace_layout.h): one list for comparing
// layouts, printing them as C and telling where each field came from.
#pragma once

#include <cstdint>
#include <vector>

#include "luajit/layout.h"
#include "luajit/trace_layout.h"

// clang-format off
#define LJ_LAYOUT_FIELDS(X)                                                    \
	X(gc64) X(fr2) X(ptrsize) X(vmstates)                                  \
	X(L_status) X(L_glref) X(L_base) X(L_top) X(L_maxstack) X(L_stack)     \
	X(L_cframe) X(L_stacksize) X(L_openupval) X(L_env)                     \
	X(g_strempty) X(g_vmstate) X(g_mainthref) X(g_cur_L) X(g_jit_base)     \
	X(g_gc_total) X(g_gc_root) X(g_gc_mmudata) X(g_gc_lightudnum)          \
	X(g_gc_lightudseg) X(g_str_tab) X(g_str_mask) X(g_str_num)             \
	X(g_tmpbuf) X(g_ctype_state) X(g_registrytv)                           \
	X(fn_ffid) X(fn_nupvalues) X(fn_pc) X(fn_f) X(fn_uvptr) X(fnc_size)    \
	X(fnl_size)                                                            \
	X(pt_size) X(pt_numparams) X(pt_framesize) X(pt_sizebc) X(pt_k)        \
	X(pt_sizekgc) X(pt_sizeuv) X(pt_flags) X(pt_chunkname)                 \
	X(pt_firstline) X(pt_numline) X(pt_lineinfo) X(pt_uvinfo)              \
	X(pt_varinfo) X(pt_sizept)                                             \
	X(str_len) X(str_size)                                                 \
	X(tab_colo) X(tab_array) X(tab_metatable) X(tab_node) X(tab_asize)     \
	X(tab_hmask) X(tab_size) X(node_size)                                  \
	X(ud_len) X(ud_size) X(cd_ctypeid) X(cd_size) X(uv_size) X(uv_v)       \
	X(ctype_size) X(cts_tab) X(cts_sizetab) X(cts_cb_sizeid) X(cts_size)   \
	X(gg_g) X(gg_dispatch) X(gg_size) X(L_size)                            \
	X(cf_nres) X(cf_prev) X(cf_l) X(cf_pc)
#define LJ_TRACE_LAYOUT_FIELDS(X)                                              \
	X(fork) X(gg_J) X(J_trace) X(J_sizetrace) X(J_exitstubgroup)           \
	X(J_irtoplim) X(J_irbotlim) X(J_sizesnap) X(J_sizesnapmap)             \
	X(T_size) X(T_nsnap) X(T_nins) X(T_ir) X(T_nk) X(T_nsnapmap)           \
	X(T_snap) X(T_snapmap) X(T_startpt) X(T_startpc) X(T_szmcode)          \
	X(T_mcode) X(T_mcloop) X(T_nchild) X(T_spadjust) X(T_traceno)          \
	X(T_link) X(T_root) X(T_nextroot) X(T_nextside) X(T_linktype)
// clang-format on

namespace ljcore {

struct NamedField {
	const char *name; // the member: "L_base", "J_trace"
	uint64_t value;
};

// The fields of ly, then those of its JIT layout when it has one.
std::vector<NamedField> named_fields(const lj_layout &ly);

} // namespace ljcore
