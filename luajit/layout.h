/*
 * The parts of LuaJIT's object layout the frame walker and the symbolizer
 * read, as a table of offsets. One table describes one build flavour
 * (fork, GC64 or 32-bit GC references, architecture).
 *
 * Field names follow LuaJIT's own (lj_obj.h, lj_frame.h, lj_dispatch.h) so
 * that a reader can check each against the source.
 *
 * Plain C, no libc: this header is also compiled with clang -target bpf.
 */
#ifndef LJCORE_LUAJIT_LAYOUT_H
#define LJCORE_LUAJIT_LAYOUT_H

#include "types.h"

struct lj_layout {
	const char *name; /* e.g. "upstream-2.1 gc64 x86_64" */

	/* Build properties (lj_arch.h). */
	u8 gc64;    /* LJ_GC64: GCRef/MRef are 64 bits, TValue is NaN-tagged 64. */
	u8 fr2;     /* LJ_FR2: two-slot frame link (always with GC64). */
	u8 ptrsize; /* 8 or 4: size of GCRef/MRef fields. */

	/* lua_State */
	u16 L_status;
	u16 L_glref;
	u16 L_base;
	u16 L_top;
	u16 L_maxstack;
	u16 L_stack;
	u16 L_cframe;
	u16 L_stacksize;

	/* global_State */
	u16 g_strempty; /* embedded GCstr of length 0 */
	u16 g_vmstate;
	u16 g_mainthref;
	u16 g_cur_L;
	u16 g_jit_base;
	u16 g_gc_total; /* g->gc.total */

	/* GCfunc (GCfuncC / GCfuncL share the header) */
	u16 fn_ffid;
	u16 fn_nupvalues;
	u16 fn_pc; /* Lua: MRef to the bytecode after the GCproto header */
	u16 fn_f;  /* C: lua_CFunction */

	/* GCproto */
	u16 pt_size; /* sizeof(GCproto): bytecode starts right after it */
	u16 pt_numparams;
	u16 pt_framesize;
	u16 pt_sizebc;
	u16 pt_k;
	u16 pt_sizekgc;
	u16 pt_sizeuv;
	u16 pt_flags;
	u16 pt_chunkname;
	u16 pt_firstline;
	u16 pt_numline;
	u16 pt_lineinfo;
	u16 pt_uvinfo;
	u16 pt_varinfo;

	/* GCstr: the characters follow the header. */
	u16 str_len;
	u16 str_size;

	/* GG_State: main lua_State, global_State, ..., dispatch table. */
	u32 gg_g;        /* offsetof(GG_State, g) */
	u32 gg_dispatch; /* offsetof(GG_State, dispatch) */

	/* C frame (CFRAME_* in lj_frame.h, per architecture). */
	u16 cf_nres;
	u16 cf_prev;
	u16 cf_l;
	u16 cf_pc;
};

/* Generic object header: every GC object starts with nextgc, marked, gct. */
/* offsetof(GCHeader, gct): after nextgc (a GCRef) and marked. */
#define LJ_GCT_OFFSET(ly) ((ly)->ptrsize + 1)

/* Object type tags as gct stores them: ~LJ_T* of lj_obj.h, where LJ_TSTR
 * is (~4u) and so on. */
#define LJ_TSTR 4
#define LJ_TUPVAL 5
#define LJ_TTHREAD 6
#define LJ_TPROTO 7
#define LJ_TFUNC 8
#define LJ_TTRACE 9
#define LJ_TCDATA 10
#define LJ_TTAB 11
#define LJ_TUDATA 12

/* GCfunc.ffid: 0 is a Lua function, 1 a plain C function, larger values
 * are fast functions (lj_obj.h FF_LUA, FF_C). */
#define LJ_FF_LUA 0
#define LJ_FF_C 1

#endif
