/*
 * The parts of LuaJIT's JIT state a trace dump reads, as a table of offsets
 * per build flavour: where jit_State keeps its trace array (lj_jit.h,
 * jit_State.trace/sizetrace), where jit_State sits in GG_State
 * (lj_dispatch.h), and the fields of GCtrace (lj_jit.h).
 *
 * The IR itself (IRIns, lj_ir.h) and snapshots (SnapShot, SnapEntry,
 * lj_jit.h) have one layout in every 2.1 build; their facts are below.
 *
 * Plain C, no libc, like layout.h.
 */
#ifndef LJCORE_LUAJIT_TRACE_LAYOUT_H
#define LJCORE_LUAJIT_TRACE_LAYOUT_H

#include "types.h"

/* Which LuaJIT source a build comes from: the IR field and call names and
 * the fast function names differ (lj_ir.h IRFLDEF, lj_ircall.h IRCALLDEF). */
enum lj_fork { LJ_FORK_UPSTREAM = 0, LJ_FORK_LUAJIT2 = 1, LJ_FORK_TARANTOOL = 2 };

struct lj_trace_layout {
	const char *name;
	u8 fork; /* enum lj_fork */

	u32 gg_J; /* offsetof(GG_State, J) */

	/* jit_State */
	u16 J_trace;         /* GCRef *trace: the trace array, by trace number */
	u16 J_sizetrace;     /* MSize: its length */
	u16 J_exitstubgroup; /* MCode *[LJ_MAX_EXITSTUBGR]: shared exit stubs (x86) */
	/* Buffers g->gc.total counts (lj_trace.c lj_trace_freestate). */
	u16 J_irtoplim; /* MSize: IR buffer, in IRIns, irbotlim .. irtoplim */
	u16 J_irbotlim;
	u16 J_sizesnap;    /* MSize: snapshot buffer, in SnapShot */
	u16 J_sizesnapmap; /* MSize: snapshot map buffer, in SnapEntry */

	/* GCtrace (after the GC header; pointers are native, refs GCRef) */
	u16 T_size;     /* sizeof(GCtrace) */
	u16 T_nsnap;    /* uint16_t */
	u16 T_nins;     /* IRRef, biased with REF_BIAS */
	u16 T_ir;       /* IRIns *, biased: ir[REF_BIAS] is the first */
	u16 T_nk;       /* IRRef: lowest constant */
	u16 T_nsnapmap; /* uint32_t */
	u16 T_snap;     /* SnapShot * */
	u16 T_snapmap;  /* SnapEntry * */
	u16 T_startpt;  /* GCRef: GCproto the trace starts in */
	u16 T_startpc;  /* MRef: bytecode it starts at */
	u16 T_szmcode;  /* MSize */
	u16 T_mcode;    /* MCode * */
	u16 T_mcloop;   /* MSize: offset of the loop in mcode */
	u16 T_nchild;   /* uint16_t */
	u16 T_spadjust; /* uint16_t */
	u16 T_traceno;  /* TraceNo1 (uint16_t) for all of the below */
	u16 T_link;
	u16 T_root;
	u16 T_nextroot;
	u16 T_nextside;
	u16 T_linktype; /* uint8_t */
};

/* lj_ir.h: references are biased so that constants grow down from it. */
#define LJ_REF_BIAS 0x8000
/* sizeof(IRIns): op1, op2 (16 bits each), t, o, r, s (8 bits each). */
#define LJ_IRINS_SIZE 8
#define LJ_IRINS_OP1 0
#define LJ_IRINS_OP2 2
#define LJ_IRINS_T 4
#define LJ_IRINS_O 5
#define LJ_IRINS_PREV 6 /* r | s << 8: register and spill slot */

/* IRType (lj_ir.h IRTDEF) and its flag bits. */
#define LJ_IRT_P32 5
#define LJ_IRT_P64 9
#define LJ_IRT_UDATA 12
#define LJ_IRT_NUM 14
#define LJ_IRT_I64 21
#define LJ_IRT_TYPE 0x1f
#define LJ_IRT_ISPHI 0x40
#define LJ_IRT_GUARD 0x80

/* sizeof(SnapShot) and its fields (lj_jit.h). */
#define LJ_SNAP_SIZE 12
#define LJ_SNAP_MAPOFS 0 /* uint32_t: first entry in snapmap */
#define LJ_SNAP_REF 4    /* IRRef1: first IR ref it covers */
#define LJ_SNAP_MCOFS 6  /* uint16_t: offset of its exit in mcode */
#define LJ_SNAP_NSLOTS 8
#define LJ_SNAP_TOPSLOT 9
#define LJ_SNAP_NENT 10
#define LJ_SNAP_COUNT 11

/* SnapEntry: slot << 24 | flags | ref (lj_jit.h SNAP_*, snap_slot, snap_ref). */
#define LJ_SNAP_ENTRY_SLOT(e) ((e) >> 24)
#define LJ_SNAP_ENTRY_REF(e) ((e) & 0xffff)
#define LJ_SNAP_FRAME 0x010000
#define LJ_SNAP_CONT 0x020000
#define LJ_SNAP_NORESTORE 0x040000
#define LJ_SNAP_SOFTFPNUM 0x080000
#define LJ_SNAP_KEYINDEX 0x100000

/* x86 exit stubs (lj_target_x86.h, lj_target.h exitstub_addr): groups of
 * 32 stubs, 4 bytes apart, J->exitstubgroup[] holding up to 16 groups. */
#define LJ_MAX_EXITSTUBGR 16
#define LJ_EXITSTUBS_PER_GROUP 32
#define LJ_EXITSTUB_SPACING 4
/* arm64 (lj_target_arm64.h exitstub_trace_addr): each trace's own stubs
 * follow its code, after NOP padding, 3 instructions of common entry, then
 * one instruction per exit. */
#define LJ_A64_NOP 0xd503201f
#define LJ_A64_EXITSTUB_HEAD 3

/* GCtrace.linktype (lj_jit.h TraceLink), as jit.util.traceinfo names it. */
#define LJ_LINKTYPE_NAMES                                                                          \
	{                                                                                          \
		"none", "root", "loop", "tail-recursion", "up-recursion", "down-recursion",        \
			"interpreter", "return", "stitch"                                          \
	}

#endif
