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

#include "trace_layout.h"
#include "types.h"

struct lj_layout {
	const char *name; /* e.g. "upstream-2.1 gc64 x86_64" */

	/* Build properties (lj_arch.h). */
	u8 gc64;     /* LJ_GC64: GCRef/MRef are 64 bits, TValue is NaN-tagged 64. */
	u8 fr2;      /* LJ_FR2: two-slot frame link (always with GC64). */
	u8 ptrsize;  /* 8 or 4: size of GCRef/MRef fields. */
	u8 vmstates; /* LJ_VMST__MAX: 7, or 9 in Tarantool's fork (lj_obj.h). */

	/* lua_State */
	u16 L_status;
	u16 L_glref;
	u16 L_base;
	u16 L_top;
	u16 L_maxstack;
	u16 L_stack;
	u16 L_cframe;
	u16 L_stacksize;
	u16 L_openupval; /* chain of open upvalues, through nextgc */
	u16 L_env;       /* GCRef to the globals table */

	/* global_State */
	u16 g_strempty; /* embedded GCstr of length 0 */
	u16 g_vmstate;
	u16 g_mainthref;
	u16 g_cur_L;
	u16 g_jit_base;
	u16 g_gc_total;      /* g->gc.total */
	u16 g_gc_root;       /* g->gc.root: every GC object but strings */
	u16 g_gc_mmudata;    /* ring of objects waiting for __gc */
	u16 g_gc_lightudnum; /* 64-bit builds: lightuserdata segments - 1 */
	u16 g_gc_lightudseg; /* MRef to the segment map */
	u16 g_str_tab;       /* g->str.tab: string hash anchors */
	u16 g_str_mask;
	u16 g_str_num;
	u16 g_tmpbuf;      /* SBuf {w, e, b, L}: native pointers */
	u16 g_ctype_state; /* MRef to the FFI's CTState, or 0 */
	u16 g_registrytv;  /* TValue holding the registry table */

	/* GCfunc (GCfuncC / GCfuncL share the header) */
	u16 fn_ffid;
	u16 fn_nupvalues;
	u16 fn_pc;    /* Lua: MRef to the bytecode after the GCproto header */
	u16 fn_f;     /* C: lua_CFunction */
	u16 fn_uvptr; /* Lua: GCRef uvptr[] to GCupval */
	u16 fnc_size; /* sizeof(GCfuncC), with one upvalue TValue */
	u16 fnl_size; /* sizeof(GCfuncL), with one upvalue GCRef */

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
	u16 pt_sizept; /* bytes of the prototype with its arrays */

	/* GCstr: the characters follow the header. */
	u16 str_len;
	u16 str_size;

	/* GCtab, its hash Node */
	u16 tab_colo; /* int8: colocated array slots, negative when abandoned */
	u16 tab_array;
	u16 tab_metatable;
	u16 tab_node;
	u16 tab_asize;
	u16 tab_hmask;
	u16 tab_size;
	u16 node_size;

	/* GCudata and GCcdata: the payload follows the header. */
	u16 ud_len;
	u16 ud_size;
	u16 cd_ctypeid;
	u16 cd_size;

	/* GCupval */
	u16 uv_size;
	u16 uv_v; /* MRef to the value */

	/* CType and CTState (lj_ctype.h); luajit2's CCallback is larger. */
	u16 ctype_size;
	u16 cts_tab; /* CType *: native pointer */
	u16 cts_sizetab;
	u16 cts_cb_sizeid; /* cb.sizeid: slots of the callback id table */
	u16 cts_size;

	/* GG_State: main lua_State, global_State, ..., dispatch table. */
	u32 gg_g;        /* offsetof(GG_State, g) */
	u32 gg_dispatch; /* offsetof(GG_State, dispatch) */
	u32 gg_size;     /* sizeof(GG_State): what gc.total starts with */
	u16 L_size;      /* sizeof(lua_State): luajit2 adds exdata */

	/* C frame (CFRAME_* in lj_frame.h, per architecture). */
	u16 cf_nres;
	u16 cf_prev;
	u16 cf_l;
	u16 cf_pc;

	/* The JIT's layout of the same build (trace_layout.h), NULL when it
	 * was built without the JIT or the layout is unknown. */
	const struct lj_trace_layout *jit;
};

/*
 * The allocator: in the global_State of all three forks (lj_obj.h), the
 * lua_Alloc allocf and its void *allocd are the two native pointers right
 * before GCState gc, which starts with total. GCState goes on with
 * threshold (GCSize: 64 bits with GC64, else 32), currentwhite and state
 * (GCSpause 0, GCSpropagate, GCSatomic, GCSsweepstring, GCSsweep,
 * GCSfinalize). 64-bit targets only.
 */
#define LJ_G_ALLOCF(ly) ((ly)->g_gc_total - 16)
#define LJ_G_ALLOCD(ly) ((ly)->g_gc_total - 8)
#define LJ_G_GC_STATE(ly) ((ly)->g_gc_total + ((ly)->gc64 ? 16 : 8) + 1)
#define LJ_GCS_PAUSE 0
#define LJ_GCS_SWEEPSTRING 3
#define LJ_GCS_SWEEP 4
/* GCHeader.marked bits (lj_gc.h). */
#define LJ_GC_WHITES 0x03 /* LJ_GC_WHITE0 | LJ_GC_WHITE1 */
#define LJ_GC_FIXED 0x20
#define LJ_GC_SFIXED 0x40

/* Generic object header: every GC object starts with nextgc, marked, gct. */
/* offsetof(GCHeader, gct): after nextgc (a GCRef) and marked. */
#define LJ_GCT_OFFSET(ly) ((ly)->ptrsize + 1)

/* Tarantool's fork, told by its two extra VM states (lj_obj.h). It kept
 * pieces of LuaJIT 2.1 that upstream and luajit2 have since reworked. */
#define LJ_LAYOUT_TARANTOOL(ly) ((ly)->vmstates == 9)

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
