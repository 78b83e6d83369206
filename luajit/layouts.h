/*
 * Built-in LuaJIT layouts, one per build flavour we know. They serve
 * stripped binaries, which carry no DWARF to read the offsets from; the
 * analyzer validates a table against the memory before trusting it, and a
 * test checks each table against the DWARF of the builds we make.
 *
 * Sources: lj_obj.h (lua_State, global_State, GCproto, GCfunc, GCstr,
 * GCtab, GCudata, GCcdata, GCupval), lj_jit.h (jit_State, GCtrace),
 * lj_ctype.h (CTState, CType),
 * lj_dispatch.h (GG_State), lj_frame.h (CFRAME_OFS_* per architecture).
 */
#ifndef LJCORE_LUAJIT_LAYOUTS_H
#define LJCORE_LUAJIT_LAYOUTS_H

#include "layout.h"
#include "trace_layouts.h"

/* Offsets grouped by the structure they belong to. */
/* clang-format off */
/* Fields that do not move between the two 2.1 forks on x86_64 GC64. */
#define LJ_LAYOUT_GC64_COMMON                                              \
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7,                        \
	.L_status = 11, .L_glref = 16, .L_base = 32, .L_top = 40,          \
	.L_maxstack = 48, .L_stack = 56, .L_cframe = 80,                   \
	.L_stacksize = 88, .L_openupval = 64, .L_env = 72,                 \
	.g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,           \
	.g_cur_L = 368, .g_jit_base = 376, .g_gc_total = 16,               \
	.g_gc_root = 40, .g_gc_mmudata = 80, .g_gc_lightudnum = 35,        \
	.g_gc_lightudseg = 112, .g_str_tab = 152, .g_str_mask = 160,       \
	.g_str_num = 164, .g_tmpbuf = 200, .g_ctype_state = 384,           \
	.g_registrytv = 272,                                               \
	.fn_ffid = 10, .fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40,        \
	.fn_uvptr = 40, .fnc_size = 56, .fnl_size = 48,                    \
	.pt_size = 104, .pt_numparams = 10, .pt_framesize = 11,            \
	.pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48, .pt_sizeuv = 60,    \
	.pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,            \
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88,              \
	.pt_varinfo = 96, .pt_sizept = 56,                                 \
	.str_len = 20, .str_size = 24,                                     \
	.tab_colo = 11, .tab_array = 16, .tab_metatable = 32,              \
	.tab_node = 40, .tab_asize = 48, .tab_hmask = 52, .tab_size = 64,  \
	.node_size = 24,                                                   \
	.ud_len = 24, .ud_size = 48, .cd_ctypeid = 10, .cd_size = 16,      \
	.uv_size = 48, .uv_v = 32,                                         \
	.ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12

/* The end of CTState: luajit2's CCallback holds more (lj_ctype.h). */
#define LJ_CTS_UPSTREAM .cts_cb_sizeid = 200, .cts_size = 472
#define LJ_CTS_LUAJIT2 .cts_cb_sizeid = 248, .cts_size = 520

/* CFRAME_OFS_* for x86_64 (not Windows) with GC64. */
#define LJ_CFRAME_X64_GC64 .cf_nres = 8, .cf_prev = 32, .cf_l = 16, .cf_pc = 24

/* LuaJIT 2.1 as Debian's "luajit" package ships it (2.1.0-beta3+git). */
static const struct lj_layout lj_layout_upstream_gc64_x64 = {
	.name = "upstream LuaJIT 2.1, GC64, x86_64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_UPSTREAM,
	.gg_g = 0x60, /* after the 96-byte main lua_State */
	.gg_dispatch = 0xfe0,
	.gg_size = 0x1860, .L_size = 96,
	LJ_CFRAME_X64_GC64,
	.jit = &lj_trace_layout_upstream_gc64_x64,
};

/* Built with -DLUAJIT_DISABLE_JIT: GG_State has no jit_State, so the
 * dispatch table follows global_State directly (lj_dispatch.h). */
static const struct lj_layout lj_layout_upstream_gc64_nojit_x64 = {
	.name = "upstream LuaJIT 2.1, GC64, JIT disabled, x86_64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_UPSTREAM,
	.gg_g = 0x60,
	.gg_dispatch = 0x338,
	.gg_size = 0xbb8, .L_size = 96,
	LJ_CFRAME_X64_GC64,
	.jit = 0, /* no jit_State */
};

/* OpenResty's luajit2 (2.1-2023xxxx): lua_State grows by exdata, exdata2. */
static const struct lj_layout lj_layout_luajit2_gc64_x64 = {
	.name = "OpenResty luajit2 2.1, GC64, x86_64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_LUAJIT2,
	.gg_g = 0x70, /* after the 112-byte main lua_State */
	.gg_dispatch = 0x1018,
	.gg_size = 0x1898, .L_size = 112,
	LJ_CFRAME_X64_GC64,
	.jit = &lj_trace_layout_luajit2_gc64_x64,
};

static const struct lj_layout lj_layout_luajit2_gc64_nojit_x64 = {
	.name = "OpenResty luajit2 2.1, GC64, JIT disabled, x86_64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_LUAJIT2,
	.gg_g = 0x70,
	.gg_dispatch = 0x350,
	.gg_size = 0xbd0, .L_size = 112,
	LJ_CFRAME_X64_GC64,
	.jit = 0, /* no jit_State */
};

/* CFRAME_OFS_* for arm64 (always GC64 here). */
#define LJ_CFRAME_ARM64 .cf_nres = 40, .cf_prev = 0, .cf_l = 16, .cf_pc = 8

/* On arm64 the objects lay out as on x86_64; the dispatch table moves
 * because jit_State differs per target. GLREG (x22) holds g itself. */
static const struct lj_layout lj_layout_upstream_gc64_arm64 = {
	.name = "upstream LuaJIT 2.1, GC64, arm64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_UPSTREAM,
	.gg_g = 0x60,
	.gg_dispatch = 0xfc8,
	.gg_size = 0x1848, .L_size = 96,
	LJ_CFRAME_ARM64,
	.jit = &lj_trace_layout_upstream_gc64_arm64,
};

static const struct lj_layout lj_layout_luajit2_gc64_arm64 = {
	.name = "OpenResty luajit2 2.1, GC64, arm64",
	LJ_LAYOUT_GC64_COMMON,
	LJ_CTS_LUAJIT2,
	.gg_g = 0x70,
	.gg_dispatch = 0x1000,
	.gg_size = 0x1880, .L_size = 112,
	LJ_CFRAME_ARM64,
	.jit = &lj_trace_layout_luajit2_gc64_arm64,
};

/* Fields shared by both forks with 32-bit GC refs (-DLUAJIT_DISABLE_GC64)
 * on x86_64, where objects live in the low 2 GB. */
#define LJ_LAYOUT_GC32_COMMON                                              \
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7,                        \
	.L_status = 7, .L_glref = 8, .L_base = 16, .L_top = 24,            \
	.L_maxstack = 32, .L_stack = 36, .L_cframe = 48,                   \
	.L_stacksize = 56, .L_openupval = 40, .L_env = 44,                 \
	.g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,            \
	.g_cur_L = 288, .g_jit_base = 292, .g_gc_total = 16,               \
	.g_gc_root = 32, .g_gc_mmudata = 52, .g_gc_lightudnum = 27,        \
	.g_gc_lightudseg = 72, .g_str_tab = 104, .g_str_mask = 112,        \
	.g_str_num = 116, .g_tmpbuf = 144, .g_ctype_state = 296,           \
	.g_registrytv = 216,                                               \
	.fn_ffid = 6, .fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24,          \
	.fn_uvptr = 20, .fnc_size = 40, .fnl_size = 24,                    \
	.pt_size = 64, .pt_numparams = 6, .pt_framesize = 7,               \
	.pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24, .pt_sizeuv = 36,     \
	.pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,            \
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56,              \
	.pt_varinfo = 60, .pt_sizept = 32,                                 \
	.str_len = 16, .str_size = 20,                                     \
	.tab_colo = 7, .tab_array = 8, .tab_metatable = 16,                \
	.tab_node = 20, .tab_asize = 24, .tab_hmask = 28, .tab_size = 32,  \
	.node_size = 24,                                                   \
	.ud_len = 12, .ud_size = 24, .cd_ctypeid = 6, .cd_size = 8,        \
	.uv_size = 24, .uv_v = 16,                                         \
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12

/* CFRAME_OFS_* for x86_64 (not Windows) without GC64. */
#define LJ_CFRAME_X64_GC32 .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28

static const struct lj_layout lj_layout_upstream_gc32_x64 = {
	.name = "upstream LuaJIT 2.1, 32-bit GC refs, x86_64",
	LJ_LAYOUT_GC32_COMMON,
	LJ_CTS_UPSTREAM,
	.gg_g = 0x40, /* after the 64-byte main lua_State */
	.gg_dispatch = 0xca8,
	.gg_size = 0x1528, .L_size = 64,
	LJ_CFRAME_X64_GC32,
	.jit = &lj_trace_layout_upstream_gc32_x64,
};

static const struct lj_layout lj_layout_upstream_gc32_nojit_x64 = {
	.name = "upstream LuaJIT 2.1, 32-bit GC refs, JIT disabled, x86_64",
	LJ_LAYOUT_GC32_COMMON,
	LJ_CTS_UPSTREAM,
	.gg_g = 0x40,
	.gg_dispatch = 0x228,
	.gg_size = 0xaa8, .L_size = 64,
	LJ_CFRAME_X64_GC32,
	.jit = 0, /* no jit_State */
};

static const struct lj_layout lj_layout_luajit2_gc32_x64 = {
	.name = "OpenResty luajit2 2.1, 32-bit GC refs, x86_64",
	LJ_LAYOUT_GC32_COMMON,
	LJ_CTS_LUAJIT2,
	.gg_g = 0x50, /* lua_State with exdata, exdata2 */
	.gg_dispatch = 0xce0,
	.gg_size = 0x1560, .L_size = 80,
	LJ_CFRAME_X64_GC32,
	.jit = &lj_trace_layout_luajit2_gc32_x64,
};

static const struct lj_layout lj_layout_luajit2_gc32_nojit_x64 = {
	.name = "OpenResty luajit2 2.1, 32-bit GC refs, JIT disabled, x86_64",
	LJ_LAYOUT_GC32_COMMON,
	LJ_CTS_LUAJIT2,
	.gg_g = 0x50,
	.gg_dispatch = 0x240,
	.gg_size = 0xac0, .L_size = 80,
	LJ_CFRAME_X64_GC32,
	.jit = 0, /* no jit_State */
};
/* clang-format on */

/* Generated tables: the output of
 *   gen-layouts --new-only NAME:REVISION:BINARY...
 * (tools/gen-layouts.cpp, built as build/cmake/tests/layout/gen-layouts) on
 * debug builds of the revisions listed, each made outside this repository
 * from the public git history of LuaJIT/LuaJIT and tarantool/luajit. The
 * epochs the tables above already cover are named, not repeated.
 * Revisions built: each upstream commit from 2023-12 to 2026-08 that
 * changed global_State, GG_State, jit_State or CTState (git log --
 * src/lj_obj.h src/lj_jit.h src/lj_dispatch.h src/lj_ctype.h) and the
 * head; an epoch runs from its first revision listed to the next epoch's
 * first; each of them also with -DLUAJIT_DISABLE_GC64 (the 32-bit refs
 * tables). Not built: 54dc2fa5 (2025-03-09, FFI int128 types), which may
 * yet differ from the epochs around it; f80b349d and faaf6633 lie inside
 * an epoch whose two ends were built.
 * clang-format off */
/* Covers:
 *   LuaJIT/LuaJIT v2.1 c525bcb9 (2023-12-23, Ubuntu 24.04's 2.1.0+git20231117.c525bcb)
 * as the built-in table "upstream LuaJIT 2.1, GC64, x86_64" does.
 */
/* Covers:
 *   LuaJIT/LuaJIT v2.1 f5affaa6 (2024-04-19)
 *   LuaJIT/LuaJIT v2.1 fb22d0f8 (2024-08-19)
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20240419_gc64_x64 = {
	.name = "upstream 20240419 gc64 x64",
	.fork = 0, .gg_J = 832, .J_trace = 384, .J_sizetrace = 396,
	.J_exitstubgroup = 1696, .J_irtoplim = 336, .J_irbotlim = 340,
	.J_sizesnap = 348, .J_sizesnapmap = 368, .T_size = 120, .T_nsnap = 10,
	.T_nins = 12, .T_ir = 32, .T_nk = 40, .T_nsnapmap = 44, .T_snap = 48,
	.T_snapmap = 56, .T_startpt = 64, .T_startpc = 72, .T_szmcode = 84,
	.T_mcode = 88, .T_mcloop = 96, .T_nchild = 100, .T_spadjust = 102,
	.T_traceno = 104, .T_link = 106, .T_root = 108, .T_nextroot = 110,
	.T_nextside = 112, .T_linktype = 116,
};

static const struct lj_layout lj_layout_upstream_20240419_gc64_x64 = {
	.name = "upstream 20240419 gc64 x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 368, .g_jit_base = 376, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 384, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 4072,
	.gg_size = 6248, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = &lj_trace_layout_upstream_20240419_gc64_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 68354f44 (2025-11-06)
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20251106_gc64_x64 = {
	.name = "upstream 20251106 gc64 x64",
	.fork = 0, .gg_J = 832, .J_trace = 384, .J_sizetrace = 396,
	.J_exitstubgroup = 1696, .J_irtoplim = 336, .J_irbotlim = 340,
	.J_sizesnap = 348, .J_sizesnapmap = 368, .T_size = 120, .T_nsnap = 10,
	.T_nins = 12, .T_ir = 32, .T_nk = 40, .T_nsnapmap = 44, .T_snap = 48,
	.T_snapmap = 56, .T_startpt = 64, .T_startpc = 72, .T_szmcode = 84,
	.T_mcode = 88, .T_mcloop = 96, .T_nchild = 100, .T_spadjust = 102,
	.T_traceno = 104, .T_link = 106, .T_root = 108, .T_nextroot = 110,
	.T_nextside = 112, .T_linktype = 116,
};

static const struct lj_layout lj_layout_upstream_20251106_gc64_x64 = {
	.name = "upstream 20251106 gc64 x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 368, .g_jit_base = 376, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 384, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 4088,
	.gg_size = 6264, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = &lj_trace_layout_upstream_20251106_gc64_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 5c647754 (2025-11-10)
 *   LuaJIT/LuaJIT v2.1 75abb0d9 (2026-05-25)
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20251110_gc64_x64 = {
	.name = "upstream 20251110 gc64 x64",
	.fork = 0, .gg_J = 840, .J_trace = 384, .J_sizetrace = 396,
	.J_exitstubgroup = 1696, .J_irtoplim = 336, .J_irbotlim = 340,
	.J_sizesnap = 348, .J_sizesnapmap = 368, .T_size = 120, .T_nsnap = 10,
	.T_nins = 12, .T_ir = 32, .T_nk = 40, .T_nsnapmap = 44, .T_snap = 48,
	.T_snapmap = 56, .T_startpt = 64, .T_startpc = 72, .T_szmcode = 84,
	.T_mcode = 88, .T_mcloop = 96, .T_nchild = 100, .T_spadjust = 102,
	.T_traceno = 104, .T_link = 106, .T_root = 108, .T_nextroot = 110,
	.T_nextside = 112, .T_linktype = 116,
};

static const struct lj_layout lj_layout_upstream_20251110_gc64_x64 = {
	.name = "upstream 20251110 gc64 x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 376, .g_jit_base = 384, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 392, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 4096,
	.gg_size = 6272, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = &lj_trace_layout_upstream_20251110_gc64_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 a2ce8114 (2026-07-20)
 *   LuaJIT/LuaJIT v2.1 1ee778a4 (2026-08-19)
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20260720_gc64_x64 = {
	.name = "upstream 20260720 gc64 x64",
	.fork = 0, .gg_J = 840, .J_trace = 384, .J_sizetrace = 396,
	.J_exitstubgroup = 1696, .J_irtoplim = 336, .J_irbotlim = 340,
	.J_sizesnap = 348, .J_sizesnapmap = 368, .T_size = 120, .T_nsnap = 10,
	.T_nins = 12, .T_ir = 32, .T_nk = 40, .T_nsnapmap = 44, .T_snap = 48,
	.T_snapmap = 56, .T_startpt = 64, .T_startpc = 72, .T_szmcode = 84,
	.T_mcode = 88, .T_mcloop = 96, .T_nchild = 100, .T_spadjust = 102,
	.T_traceno = 104, .T_link = 106, .T_root = 108, .T_nextroot = 110,
	.T_nextside = 112, .T_linktype = 116,
};

static const struct lj_layout lj_layout_upstream_20260720_gc64_x64 = {
	.name = "upstream 20260720 gc64 x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 376, .g_jit_base = 384, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 392, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 4096,
	.gg_size = 6384, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = &lj_trace_layout_upstream_20260720_gc64_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 f5affaa6 (2024-04-19), -DLUAJIT_DISABLE_GC64
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20240419_gc32_x64 = {
	.name = "upstream 20240419 gc32 x64",
	.fork = 0, .gg_J = 560, .J_trace = 360, .J_sizetrace = 372,
	.J_exitstubgroup = 1664, .J_irtoplim = 312, .J_irbotlim = 316,
	.J_sizesnap = 324, .J_sizesnapmap = 344, .T_size = 96, .T_nsnap = 6,
	.T_nins = 8, .T_ir = 16, .T_nk = 24, .T_nsnapmap = 28, .T_snap = 32,
	.T_snapmap = 40, .T_startpt = 48, .T_startpc = 52, .T_szmcode = 60,
	.T_mcode = 64, .T_mcloop = 72, .T_nchild = 76, .T_spadjust = 78,
	.T_traceno = 80, .T_link = 82, .T_root = 84, .T_nextroot = 86,
	.T_nextside = 88, .T_linktype = 92,
};

static const struct lj_layout lj_layout_upstream_20240419_gc32_x64 = {
	.name = "upstream 20240419 gc32 x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 288, .g_jit_base = 292, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 296, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 3248, .gg_size = 5424,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = &lj_trace_layout_upstream_20240419_gc32_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 68354f44 (2025-11-06), -DLUAJIT_DISABLE_GC64
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20251106_gc32_x64 = {
	.name = "upstream 20251106 gc32 x64",
	.fork = 0, .gg_J = 560, .J_trace = 360, .J_sizetrace = 372,
	.J_exitstubgroup = 1664, .J_irtoplim = 312, .J_irbotlim = 316,
	.J_sizesnap = 324, .J_sizesnapmap = 344, .T_size = 96, .T_nsnap = 6,
	.T_nins = 8, .T_ir = 16, .T_nk = 24, .T_nsnapmap = 28, .T_snap = 32,
	.T_snapmap = 40, .T_startpt = 48, .T_startpc = 52, .T_szmcode = 60,
	.T_mcode = 64, .T_mcloop = 72, .T_nchild = 76, .T_spadjust = 78,
	.T_traceno = 80, .T_link = 82, .T_root = 84, .T_nextroot = 86,
	.T_nextside = 88, .T_linktype = 92,
};

static const struct lj_layout lj_layout_upstream_20251106_gc32_x64 = {
	.name = "upstream 20251106 gc32 x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 288, .g_jit_base = 292, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 296, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 3264, .gg_size = 5440,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = &lj_trace_layout_upstream_20251106_gc32_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 5c647754 (2025-11-10), -DLUAJIT_DISABLE_GC64
 */
static const struct lj_trace_layout lj_trace_layout_upstream_20251110_gc32_x64 = {
	.name = "upstream 20251110 gc32 x64",
	.fork = 0, .gg_J = 568, .J_trace = 360, .J_sizetrace = 372,
	.J_exitstubgroup = 1664, .J_irtoplim = 312, .J_irbotlim = 316,
	.J_sizesnap = 324, .J_sizesnapmap = 344, .T_size = 96, .T_nsnap = 6,
	.T_nins = 8, .T_ir = 16, .T_nk = 24, .T_nsnapmap = 28, .T_snap = 32,
	.T_snapmap = 40, .T_startpt = 48, .T_startpc = 52, .T_szmcode = 60,
	.T_mcode = 64, .T_mcloop = 72, .T_nchild = 76, .T_spadjust = 78,
	.T_traceno = 80, .T_link = 82, .T_root = 84, .T_nextroot = 86,
	.T_nextside = 88, .T_linktype = 92,
};

static const struct lj_layout lj_layout_upstream_20251110_gc32_x64 = {
	.name = "upstream 20251110 gc32 x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 296, .g_jit_base = 300, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 304, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 3272, .gg_size = 5448,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = &lj_trace_layout_upstream_20251110_gc32_x64,
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 a2ce8114 (2026-07-20), -DLUAJIT_DISABLE_GC64
 *   LuaJIT/LuaJIT v2.1 1ee778a4 (2026-08-19), -DLUAJIT_DISABLE_GC64
 */
static const struct lj_trace_layout lj_trace_layout_upstream_2026_gc32_x64 = {
	.name = "upstream 2026 gc32 x64",
	.fork = 0, .gg_J = 568, .J_trace = 360, .J_sizetrace = 372,
	.J_exitstubgroup = 1664, .J_irtoplim = 312, .J_irbotlim = 316,
	.J_sizesnap = 324, .J_sizesnapmap = 344, .T_size = 96, .T_nsnap = 6,
	.T_nins = 8, .T_ir = 16, .T_nk = 24, .T_nsnapmap = 28, .T_snap = 32,
	.T_snapmap = 40, .T_startpt = 48, .T_startpc = 52, .T_szmcode = 60,
	.T_mcode = 64, .T_mcloop = 72, .T_nchild = 76, .T_spadjust = 78,
	.T_traceno = 80, .T_link = 82, .T_root = 84, .T_nextroot = 86,
	.T_nextside = 88, .T_linktype = 92,
};

static const struct lj_layout lj_layout_upstream_2026_gc32_x64 = {
	.name = "upstream 2026 gc32 x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 296, .g_jit_base = 300, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 304, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 3272, .gg_size = 5560,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = &lj_trace_layout_upstream_2026_gc32_x64,
};

/* Covers:
 *   tarantool/luajit tarantool/master b52fe979 (2024-10-17)
 */
static const struct lj_trace_layout lj_trace_layout_tarantool_gc32_x64 = {
	.name = "tarantool gc32 x64",
	.fork = 2, .gg_J = 648, .J_trace = 368, .J_sizetrace = 380,
	.J_exitstubgroup = 1664, .J_irtoplim = 320, .J_irbotlim = 324,
	.J_sizesnap = 332, .J_sizesnapmap = 352, .T_size = 96, .T_nsnap = 6,
	.T_nins = 8, .T_ir = 16, .T_nk = 24, .T_nsnapmap = 28, .T_snap = 32,
	.T_snapmap = 40, .T_startpt = 48, .T_startpc = 52, .T_szmcode = 60,
	.T_mcode = 64, .T_mcloop = 72, .T_nchild = 76, .T_spadjust = 78,
	.T_traceno = 80, .T_link = 82, .T_root = 84, .T_nextroot = 86,
	.T_nextside = 88, .T_linktype = 92,
};

static const struct lj_layout lj_layout_tarantool_gc32_x64 = {
	.name = "tarantool gc32 x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 9, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 248, .g_vmstate = 352, .g_mainthref = 272,
	.g_cur_L = 392, .g_jit_base = 400, .g_gc_total = 80, .g_gc_root = 96,
	.g_gc_mmudata = 116, .g_gc_lightudnum = 91, .g_gc_lightudseg = 136,
	.g_str_tab = 0, .g_str_mask = 8, .g_str_num = 12, .g_tmpbuf = 232,
	.g_ctype_state = 404, .g_registrytv = 280, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 12, .str_size = 16, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 3368, .gg_size = 5544,
	.L_size = 64, .cf_nres = 16, .cf_prev = 48, .cf_l = 24, .cf_pc = 28,
	.jit = &lj_trace_layout_tarantool_gc32_x64,
};

/* Covers:
 *   tarantool/luajit tarantool/master b52fe979 (2024-10-17), -DLUAJIT_ENABLE_GC64=ON
 */
static const struct lj_trace_layout lj_trace_layout_tarantool_gc64_x64 = {
	.name = "tarantool gc64 x64",
	.fork = 2, .gg_J = 936, .J_trace = 392, .J_sizetrace = 404,
	.J_exitstubgroup = 1696, .J_irtoplim = 344, .J_irbotlim = 348,
	.J_sizesnap = 356, .J_sizesnapmap = 376, .T_size = 120, .T_nsnap = 10,
	.T_nins = 12, .T_ir = 32, .T_nk = 40, .T_nsnapmap = 44, .T_snap = 48,
	.T_snapmap = 56, .T_startpt = 64, .T_startpc = 72, .T_szmcode = 84,
	.T_mcode = 88, .T_mcloop = 96, .T_nchild = 100, .T_spadjust = 102,
	.T_traceno = 104, .T_link = 106, .T_root = 108, .T_nextroot = 110,
	.T_nextside = 112, .T_linktype = 116,
};

static const struct lj_layout lj_layout_tarantool_gc64_x64 = {
	.name = "tarantool gc64 x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 9, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 304, .g_vmstate = 440, .g_mainthref = 336,
	.g_cur_L = 480, .g_jit_base = 496, .g_gc_total = 80, .g_gc_root = 104,
	.g_gc_mmudata = 144, .g_gc_lightudnum = 99, .g_gc_lightudseg = 176,
	.g_str_tab = 0, .g_str_mask = 8, .g_str_num = 12, .g_tmpbuf = 272,
	.g_ctype_state = 504, .g_registrytv = 344, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 16, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 4208,
	.gg_size = 6384, .L_size = 96, .cf_nres = 8, .cf_prev = 48, .cf_l = 16,
	.cf_pc = 24,
	.jit = &lj_trace_layout_tarantool_gc64_x64,
};

/* JIT disabled (-DLUAJIT_DISABLE_JIT; Tarantool: CMake -DLUAJIT_DISABLE_JIT=ON
 * -DCMAKE_BUILD_TYPE=Debug): GG_State has no jit_State (lj_dispatch.h), so
 * the dispatch table follows global_State directly. Built: the first
 * revision of each upstream epoch and the head, GC64 and with
 * -DLUAJIT_DISABLE_GC64, and Tarantool's b52fe979 with 32-bit refs and
 * GC64. 68354f44 changed only jit_State, so without the JIT it shares
 * 20240419's table.
 */
/* Covers:
 *   LuaJIT/LuaJIT v2.1 f5affaa6 (2024-04-19), -DLUAJIT_DISABLE_JIT
 *   LuaJIT/LuaJIT v2.1 68354f44 (2025-11-06), -DLUAJIT_DISABLE_JIT
 */
static const struct lj_layout lj_layout_upstream_20240419_gc64_nojit_x64 = {
	.name = "upstream 20240419 gc64 nojit x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 368, .g_jit_base = 376, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 384, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 832,
	.gg_size = 3008, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 5c647754 (2025-11-10), -DLUAJIT_DISABLE_JIT
 */
static const struct lj_layout lj_layout_upstream_20251110_gc64_nojit_x64 = {
	.name = "upstream 20251110 gc64 nojit x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 376, .g_jit_base = 384, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 392, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 840,
	.gg_size = 3016, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 a2ce8114 (2026-07-20), -DLUAJIT_DISABLE_JIT
 *   LuaJIT/LuaJIT v2.1 1ee778a4 (2026-08-19), -DLUAJIT_DISABLE_JIT
 */
static const struct lj_layout lj_layout_upstream_20260720_gc64_nojit_x64 = {
	.name = "upstream 20260720 gc64 nojit x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 7, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 120, .g_vmstate = 184, .g_mainthref = 192,
	.g_cur_L = 376, .g_jit_base = 384, .g_gc_total = 16, .g_gc_root = 40,
	.g_gc_mmudata = 80, .g_gc_lightudnum = 35, .g_gc_lightudseg = 112,
	.g_str_tab = 152, .g_str_mask = 160, .g_str_num = 164, .g_tmpbuf = 200,
	.g_ctype_state = 392, .g_registrytv = 272, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 20, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 840,
	.gg_size = 3128, .L_size = 96, .cf_nres = 8, .cf_prev = 32, .cf_l = 16,
	.cf_pc = 24,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 f5affaa6 (2024-04-19), -DLUAJIT_DISABLE_GC64 -DLUAJIT_DISABLE_JIT
 */
static const struct lj_layout lj_layout_upstream_20240419_gc32_nojit_x64 = {
	.name = "upstream 20240419 gc32 nojit x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 288, .g_jit_base = 292, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 296, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 560, .gg_size = 2736,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 5c647754 (2025-11-10), -DLUAJIT_DISABLE_GC64 -DLUAJIT_DISABLE_JIT
 */
static const struct lj_layout lj_layout_upstream_20251110_gc32_nojit_x64 = {
	.name = "upstream 20251110 gc32 nojit x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 296, .g_jit_base = 300, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 304, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 568, .gg_size = 2744,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   LuaJIT/LuaJIT v2.1 a2ce8114 (2026-07-20), -DLUAJIT_DISABLE_GC64 -DLUAJIT_DISABLE_JIT
 *   LuaJIT/LuaJIT v2.1 1ee778a4 (2026-08-19), -DLUAJIT_DISABLE_JIT -DLUAJIT_DISABLE_GC64
 */
static const struct lj_layout lj_layout_upstream_2026_gc32_nojit_x64 = {
	.name = "upstream 2026 gc32 nojit x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 7, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 76, .g_vmstate = 136, .g_mainthref = 140,
	.g_cur_L = 296, .g_jit_base = 300, .g_gc_total = 16, .g_gc_root = 32,
	.g_gc_mmudata = 52, .g_gc_lightudnum = 27, .g_gc_lightudseg = 72,
	.g_str_tab = 104, .g_str_mask = 112, .g_str_num = 116, .g_tmpbuf = 144,
	.g_ctype_state = 304, .g_registrytv = 216, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 16, .str_size = 20, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 568, .gg_size = 2856,
	.L_size = 64, .cf_nres = 16, .cf_prev = 32, .cf_l = 24, .cf_pc = 28,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   tarantool/luajit tarantool/master b52fe979 (2024-10-17), -DLUAJIT_DISABLE_JIT=ON
 */
static const struct lj_layout lj_layout_tarantool_gc32_nojit_x64 = {
	.name = "tarantool gc32 nojit x64",
	.gc64 = 0, .fr2 = 0, .ptrsize = 4, .vmstates = 9, .L_status = 7,
	.L_glref = 8, .L_base = 16, .L_top = 24, .L_maxstack = 32,
	.L_stack = 36, .L_cframe = 48, .L_stacksize = 56, .L_openupval = 40,
	.L_env = 44, .g_strempty = 248, .g_vmstate = 352, .g_mainthref = 272,
	.g_cur_L = 392, .g_jit_base = 400, .g_gc_total = 80, .g_gc_root = 96,
	.g_gc_mmudata = 116, .g_gc_lightudnum = 91, .g_gc_lightudseg = 136,
	.g_str_tab = 0, .g_str_mask = 8, .g_str_num = 12, .g_tmpbuf = 232,
	.g_ctype_state = 404, .g_registrytv = 280, .fn_ffid = 6,
	.fn_nupvalues = 7, .fn_pc = 16, .fn_f = 24, .fn_uvptr = 20,
	.fnc_size = 40, .fnl_size = 24, .pt_size = 64, .pt_numparams = 6,
	.pt_framesize = 7, .pt_sizebc = 8, .pt_k = 16, .pt_sizekgc = 24,
	.pt_sizeuv = 36, .pt_flags = 37, .pt_chunkname = 40, .pt_firstline = 44,
	.pt_numline = 48, .pt_lineinfo = 52, .pt_uvinfo = 56, .pt_varinfo = 60,
	.pt_sizept = 32, .str_len = 12, .str_size = 16, .tab_colo = 7,
	.tab_array = 8, .tab_metatable = 16, .tab_node = 20, .tab_asize = 24,
	.tab_hmask = 28, .tab_size = 32, .node_size = 24, .ud_len = 12,
	.ud_size = 24, .cd_ctypeid = 6, .cd_size = 8, .uv_size = 24, .uv_v = 16,
	.ctype_size = 16, .cts_tab = 0, .cts_sizetab = 12, .cts_cb_sizeid = 192,
	.cts_size = 464, .gg_g = 64, .gg_dispatch = 648, .gg_size = 2824,
	.L_size = 64, .cf_nres = 16, .cf_prev = 48, .cf_l = 24, .cf_pc = 28,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   tarantool/luajit tarantool/master b52fe979 (2024-10-17), -DLUAJIT_DISABLE_JIT=ON -DLUAJIT_ENABLE_GC64=ON
 */
static const struct lj_layout lj_layout_tarantool_gc64_nojit_x64 = {
	.name = "tarantool gc64 nojit x64",
	.gc64 = 1, .fr2 = 1, .ptrsize = 8, .vmstates = 9, .L_status = 11,
	.L_glref = 16, .L_base = 32, .L_top = 40, .L_maxstack = 48,
	.L_stack = 56, .L_cframe = 80, .L_stacksize = 88, .L_openupval = 64,
	.L_env = 72, .g_strempty = 304, .g_vmstate = 440, .g_mainthref = 336,
	.g_cur_L = 480, .g_jit_base = 496, .g_gc_total = 80, .g_gc_root = 104,
	.g_gc_mmudata = 144, .g_gc_lightudnum = 99, .g_gc_lightudseg = 176,
	.g_str_tab = 0, .g_str_mask = 8, .g_str_num = 12, .g_tmpbuf = 272,
	.g_ctype_state = 504, .g_registrytv = 344, .fn_ffid = 10,
	.fn_nupvalues = 11, .fn_pc = 32, .fn_f = 40, .fn_uvptr = 40,
	.fnc_size = 56, .fnl_size = 48, .pt_size = 104, .pt_numparams = 10,
	.pt_framesize = 11, .pt_sizebc = 12, .pt_k = 32, .pt_sizekgc = 48,
	.pt_sizeuv = 60, .pt_flags = 61, .pt_chunkname = 64, .pt_firstline = 72,
	.pt_numline = 76, .pt_lineinfo = 80, .pt_uvinfo = 88, .pt_varinfo = 96,
	.pt_sizept = 56, .str_len = 16, .str_size = 24, .tab_colo = 11,
	.tab_array = 16, .tab_metatable = 32, .tab_node = 40, .tab_asize = 48,
	.tab_hmask = 52, .tab_size = 64, .node_size = 24, .ud_len = 24,
	.ud_size = 48, .cd_ctypeid = 10, .cd_size = 16, .uv_size = 48,
	.uv_v = 32, .ctype_size = 24, .cts_tab = 0, .cts_sizetab = 12,
	.cts_cb_sizeid = 192, .cts_size = 464, .gg_g = 96, .gg_dispatch = 936,
	.gg_size = 3112, .L_size = 96, .cf_nres = 8, .cf_prev = 48, .cf_l = 16,
	.cf_pc = 24,
	.jit = 0, /* no jit_State */
};

/* Covers:
 *   openresty/luajit2 v2.1-20240314
 * as the built-in table "OpenResty luajit2 2.1, GC64, x86_64" does.
 */
/* clang-format on */
/* End of generated tables. */

#endif
