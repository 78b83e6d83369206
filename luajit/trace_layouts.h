/*
 * Built-in JIT layouts, one per flavour of luajit/layouts.h that has a JIT
 * (builds with -DLUAJIT_DISABLE_JIT have no jit_State and no traces). A
 * test checks each against the DWARF of the builds we make.
 *
 * Sources: lj_jit.h (GCtrace, jit_State), lj_dispatch.h (GG_State).
 */
#ifndef LJCORE_LUAJIT_TRACE_LAYOUTS_H
#define LJCORE_LUAJIT_TRACE_LAYOUTS_H

#include "trace_layout.h"

/* clang-format off */
/* GCtrace with GC64: GCRef and MRef are 64 bits, nins is followed by a
 * padding word. The same in both forks and on both architectures. */
#define LJ_GCTRACE_GC64                                                    \
	.T_size = 120, .T_nsnap = 10, .T_nins = 12, .T_ir = 32, .T_nk = 40,               \
	.T_nsnapmap = 44, .T_snap = 48, .T_snapmap = 56, .T_startpt = 64,  \
	.T_startpc = 72, .T_szmcode = 84, .T_mcode = 88, .T_mcloop = 96,   \
	.T_nchild = 100, .T_spadjust = 102, .T_traceno = 104,              \
	.T_link = 106, .T_root = 108, .T_nextroot = 110,                   \
	.T_nextside = 112, .T_linktype = 116

/* GCtrace with 32-bit GC refs: the pointers to IR, snapshots and machine
 * code stay native (64 bits on x86_64). */
#define LJ_GCTRACE_GC32                                                    \
	.T_size = 96, .T_nsnap = 6, .T_nins = 8, .T_ir = 16, .T_nk = 24,                 \
	.T_nsnapmap = 28, .T_snap = 32, .T_snapmap = 40, .T_startpt = 48,  \
	.T_startpc = 52, .T_szmcode = 60, .T_mcode = 64, .T_mcloop = 72,   \
	.T_nchild = 76, .T_spadjust = 78, .T_traceno = 80, .T_link = 82,   \
	.T_root = 84, .T_nextroot = 86, .T_nextside = 88, .T_linktype = 92

/* jit_State: the trace array sits after the per-target fields, so its
 * offset depends on the architecture (and on GC64 through GCRef sizes). */
#define LJ_JIT_STATE_X64_GC64 .J_trace = 384, .J_sizetrace = 396, .J_exitstubgroup = 1696, \
	.J_irtoplim = 336, .J_irbotlim = 340, .J_sizesnap = 348, .J_sizesnapmap = 368
#define LJ_JIT_STATE_X64_GC32 .J_trace = 360, .J_sizetrace = 372, .J_exitstubgroup = 1664, \
	.J_irtoplim = 312, .J_irbotlim = 316, .J_sizesnap = 324, .J_sizesnapmap = 344
#define LJ_JIT_STATE_ARM64 .J_trace = 360, .J_sizetrace = 372, .J_exitstubgroup = 1672, \
	.J_irtoplim = 312, .J_irbotlim = 316, .J_sizesnap = 324, .J_sizesnapmap = 344

/* GG_State.J follows global_State, which is larger in luajit2. */
static const struct lj_trace_layout lj_trace_layout_upstream_gc64_x64 = {
	.name = "upstream GC64 x86_64", .fork = LJ_FORK_UPSTREAM, .gg_J = 824,
	LJ_JIT_STATE_X64_GC64, LJ_GCTRACE_GC64,
};

static const struct lj_trace_layout lj_trace_layout_luajit2_gc64_x64 = {
	.name = "luajit2 GC64 x86_64", .fork = LJ_FORK_LUAJIT2, .gg_J = 848,
	LJ_JIT_STATE_X64_GC64, LJ_GCTRACE_GC64,
};

static const struct lj_trace_layout lj_trace_layout_upstream_gc32_x64 = {
	.name = "upstream 32-bit GC refs x86_64", .fork = LJ_FORK_UPSTREAM, .gg_J = 552,
	LJ_JIT_STATE_X64_GC32, LJ_GCTRACE_GC32,
};

static const struct lj_trace_layout lj_trace_layout_luajit2_gc32_x64 = {
	.name = "luajit2 32-bit GC refs x86_64", .fork = LJ_FORK_LUAJIT2, .gg_J = 576,
	LJ_JIT_STATE_X64_GC32, LJ_GCTRACE_GC32,
};

static const struct lj_trace_layout lj_trace_layout_upstream_gc64_arm64 = {
	.name = "upstream GC64 arm64", .fork = LJ_FORK_UPSTREAM, .gg_J = 824,
	LJ_JIT_STATE_ARM64, LJ_GCTRACE_GC64,
};

static const struct lj_trace_layout lj_trace_layout_luajit2_gc64_arm64 = {
	.name = "luajit2 GC64 arm64", .fork = LJ_FORK_LUAJIT2, .gg_J = 848,
	LJ_JIT_STATE_ARM64, LJ_GCTRACE_GC64,
};
/* clang-format on */

#endif
