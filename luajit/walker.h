/*
 * The Lua frame walker, shared by the C++ analyzer and the eBPF unwinder.
 *
 * It reproduces lj_debug_frame() and debug_framepc() from LuaJIT's
 * lj_debug.c on a foreign address space: it visits the frames of one
 * lua_State from the top down, skips the pseudo frames LuaJIT skips (vararg
 * originals, dummy frames), and yields per frame the frame slot, the
 * function object and the bytecode pc the function is at.
 *
 * Rules for this file (it must pass the BPF verifier):
 *  - every memory access goes through LJ_READ(ctx, dst, addr, size), which
 *    the includer defines and which returns 0 on success;
 *  - every loop has a constant bound;
 *  - no libc, no recursion, no function pointers.
 */
#ifndef LJCORE_LUAJIT_WALKER_H
#define LJCORE_LUAJIT_WALKER_H

#include "frame.h"
#include "layout.h"

#ifndef LJ_READ
#error "define LJ_READ(ctx, dst, addr, size) before including walker.h"
#endif

#ifndef LJ_INLINE
#define LJ_INLINE static inline __attribute__((always_inline))
#endif

/* Bounds of the C-frame search in lj_walk_cframe_pc(): C frames skipped
 * at one position, and Lua frames stepped over while searching. The BPF
 * build lowers them to stay within the verifier's budget. */
#ifndef LJ_WALK_MAX_CFRAMES
#define LJ_WALK_MAX_CFRAMES 16
#endif
#ifndef LJ_WALK_MAX_CFRAME_STEPS
#define LJ_WALK_MAX_CFRAME_STEPS (LJ_WALK_MAX_CFRAMES * 16)
#endif

/* 47-bit GC pointer inside a GC64 TValue (LJ_GCVMASK in lj_obj.h). */
#define LJ_GCVMASK ((((u64)1) << 47) - 1)

/* Low bits of L->cframe that are flags, not address (CFRAME_RAWMASK). */
#define LJ_CFRAME_RAWMASK (~(u64)3)

enum lj_walk_status {
	LJ_WALK_OK = 0,
	LJ_WALK_END = 1,     /* reached the bottom of the stack */
	LJ_WALK_EREAD = -1,  /* a read failed: see bad_addr */
	LJ_WALK_ECHAIN = -2, /* the frame chain does not go down the stack */
	LJ_WALK_EFUNC = -3   /* a frame slot does not hold a function */
};

struct lj_frame {
	u64 slot;     /* address of the frame link slot ("frame" in LuaJIT) */
	u64 nextslot; /* the frame visited just before, 0 for the top frame */
	u64 prevslot; /* frame_prev() of the function's own frame */
	u64 func;     /* GCfunc * */
	u64 pc;       /* const BCIns * the function is at, 0 if unknown */
	u32 type;     /* frame link type (enum lj_frame_type), with FRAME_P */
	u32 level;    /* level as lua_getstack() counts it */
};

struct lj_walk {
	u64 L;
	u64 stack;  /* tvref(L->stack) */
	u64 bot;    /* lowest valid frame: stack + LJ_FR2 slots */
	u64 base;   /* L->base, or the BASE register when the VM is on top */
	u64 cframe; /* raw L->cframe */
	u64 top_pc; /* PC register for a Lua function on top, else 0 */
	u64 frame;  /* the next frame to visit */
	u64 nextframe;
	u32 level;
	int status;
	u64 bad_addr; /* address whose read failed */
};

LJ_INLINE int lj_rd64(void *ctx, struct lj_walk *w, u64 addr, u64 *out)
{
	if (LJ_READ(ctx, out, addr, 8) != 0) {
		w->bad_addr = addr;
		w->status = LJ_WALK_EREAD;
		return -1;
	}
	return 0;
}

LJ_INLINE int lj_rd32(void *ctx, struct lj_walk *w, u64 addr, u32 *out)
{
	if (LJ_READ(ctx, out, addr, 4) != 0) {
		w->bad_addr = addr;
		w->status = LJ_WALK_EREAD;
		return -1;
	}
	return 0;
}

/* A GCRef or MRef field: 64 or 32 bits depending on the build. */
LJ_INLINE int lj_rdref(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 addr, u64 *out)
{
	u32 v32;
	if (ly->ptrsize == 8)
		return lj_rd64(ctx, w, addr, out);
	if (lj_rd32(ctx, w, addr, &v32) != 0)
		return -1;
	*out = v32;
	return 0;
}

/* frame_ftsz(): the frame link, sign-extended. */
LJ_INLINE int lj_frame_ftsz(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 frame,
			    s64 *ftsz)
{
	u64 v64;
	u32 v32;
	if (ly->fr2) {
		if (lj_rd64(ctx, w, frame, &v64) != 0)
			return -1;
		*ftsz = (s64)v64;
		return 0;
	}
	if (lj_rd32(ctx, w, frame + 4, &v32) != 0)
		return -1;
	*ftsz = (s64)(s32)v32;
	return 0;
}

/* frame_gc(): the function (or thread, for dummy frames) of a frame. */
LJ_INLINE int lj_frame_gc(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 frame,
			  u64 *gc)
{
	u64 v64;
	u32 v32;
	if (ly->fr2) {
		if (lj_rd64(ctx, w, frame - 8, &v64) != 0)
			return -1;
		*gc = v64 & LJ_GCVMASK;
		return 0;
	}
	if (lj_rd32(ctx, w, frame, &v32) != 0)
		return -1;
	*gc = v32;
	return 0;
}

/* frame_pc() of a Lua or continuation link: the pc stored in the slot. */
LJ_INLINE u64 lj_ftsz_pc(const struct lj_layout *ly, s64 ftsz)
{
	return ly->fr2 ? (u64)ftsz : (u64)(u32)ftsz;
}

/* frame_prevl(): below a Lua frame by the A operand of the call. */
LJ_INLINE int lj_frame_prevl(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 frame,
			     s64 ftsz, u64 *prev)
{
	u32 ins;
	if (lj_rd32(ctx, w, lj_ftsz_pc(ly, ftsz) - 4, &ins) != 0)
		return -1;
	*prev = frame - 8 * (1 + ly->fr2 + ((ins >> 8) & 0xff));
	return 0;
}

/* frame_prev(): one frame down, whatever its link type. */
LJ_INLINE int lj_frame_prev(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 frame,
			    s64 ftsz, u64 *prev)
{
	if ((ftsz & LJ_FRAME_TYPE) == LJ_FRAME_LUA)
		return lj_frame_prevl(ctx, ly, w, frame, ftsz, prev);
	*prev = frame - (u64)(ftsz & ~(s64)LJ_FRAME_TYPEP);
	return 0;
}

/* cframe_pc(cf) */
LJ_INLINE int lj_cframe_pc(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 cf,
			   u64 *pc)
{
	return lj_rdref(ctx, ly, w, cf + ly->cf_pc, pc);
}

/* cframe_raw(cframe_prev(cf)) */
LJ_INLINE int lj_cframe_prev(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 cf,
			     u64 *prev)
{
	u64 v;
	if (lj_rd64(ctx, w, cf + ly->cf_prev, &v) != 0)
		return -1;
	*prev = v & LJ_CFRAME_RAWMASK;
	return 0;
}

/*
 * The pc of a Lua function below a C, pcall or error-handler frame lives in
 * the C frame (cframe) that called into the VM: follow the C-frame chain
 * down to the one that covers nextframe (debug_framepc() in lj_debug.c).
 */
LJ_INLINE int lj_walk_cframe_pc(void *ctx, const struct lj_layout *ly, struct lj_walk *w,
				u64 nextframe, u64 *pc)
{
	u64 cf = w->cframe;
	u64 f = w->base - 8;
	u64 restore;
	s64 ftsz;
	s32 nres;
	u32 i, j;

	*pc = 0;
	for (i = 0; i < LJ_WALK_MAX_CFRAME_STEPS; i++) {
		if (cf == 0)
			return 0;
		for (j = 0; j < LJ_WALK_MAX_CFRAMES; j++) {
			if (lj_rd32(ctx, w, cf + ly->cf_nres, (u32 *)&nres) != 0)
				return -1;
			if (nres >= 0)
				break;
			restore = w->stack + (u64)(-(s64)nres);
			if (f >= restore)
				break;
			if (lj_cframe_prev(ctx, ly, w, cf, &cf) != 0)
				return -1;
			if (cf == 0)
				return 0;
		}
		if (f < nextframe)
			return lj_cframe_pc(ctx, ly, w, cf, pc);
		if (lj_frame_ftsz(ctx, ly, w, f, &ftsz) != 0)
			return -1;
		if ((ftsz & LJ_FRAME_TYPE) == LJ_FRAME_C ||
		    (ftsz & LJ_FRAME_TYPEP) == LJ_FRAME_CONT) {
			/* FFI callback continuations also own a C frame; the
			 * contv check needs the slot below. */
			int owns_cframe = (ftsz & LJ_FRAME_TYPE) == LJ_FRAME_C;
			if (!owns_cframe) {
				u64 contv;
				if (lj_rd64(ctx, w, f - 8 * (ly->fr2 ? 3 : 1), &contv) != 0)
					return -1;
				owns_cframe = (ly->fr2 ? contv : (u32)contv) == 1;
			}
			if (owns_cframe && lj_cframe_prev(ctx, ly, w, cf, &cf) != 0)
				return -1;
		}
		if (lj_frame_prev(ctx, ly, w, f, ftsz, &f) != 0)
			return -1;
	}
	return 0;
}

/* debug_framepc() up to the raw instruction pointer; 0 means NO_BCPOS. */
LJ_INLINE int lj_walk_framepc(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 func,
			      u64 nextframe, u64 *pc)
{
	u8 ffid;
	s64 ftsz;

	*pc = 0;
	if (LJ_READ(ctx, &ffid, func + ly->fn_ffid, 1) != 0) {
		w->bad_addr = func + ly->fn_ffid;
		w->status = LJ_WALK_EREAD;
		return -1;
	}
	if (ffid != LJ_FF_LUA)
		return 0;
	if (nextframe == 0) {
		/* Lua function on top: the VM holds the pc in a register. The
		 * cframe copy is only current during error/hook handling. */
		u64 cfL;
		if (w->top_pc) {
			*pc = w->top_pc;
			return 0;
		}
		if (w->cframe == 0)
			return 0;
		if (lj_cframe_pc(ctx, ly, w, w->cframe, pc) != 0)
			return -1;
		if (lj_rdref(ctx, ly, w, w->cframe + ly->cf_l, &cfL) != 0)
			return -1;
		if (*pc == cfL)
			*pc = 0;
		return 0;
	}
	if (lj_frame_ftsz(ctx, ly, w, nextframe, &ftsz) != 0)
		return -1;
	if ((ftsz & LJ_FRAME_TYPE) == LJ_FRAME_LUA) {
		*pc = lj_ftsz_pc(ly, ftsz);
		return 0;
	}
	if ((ftsz & LJ_FRAME_TYPEP) == LJ_FRAME_CONT) {
		/* frame_contpc(): the pc sits in the continuation slot below. */
		u64 cont = nextframe - 8 * (ly->fr2 ? 2 : 1);
		if (lj_frame_ftsz(ctx, ly, w, cont, &ftsz) != 0)
			return -1;
		*pc = lj_ftsz_pc(ly, ftsz);
		return 0;
	}
	return lj_walk_cframe_pc(ctx, ly, w, nextframe, pc);
}

/*
 * The base of the frame that the Lua frame at base returns to, when the
 * interpreter is caught returning from it (BC_RET*, a fast function's
 * ->fff_res in vm_x64.dasc and vm_x86.dasc): PC already holds the return
 * address loaded from the frame's link, and the results may already cover
 * the frame's function slot, so the frame itself no longer walks. The
 * caller's frame follows from pc alone (frame_prevl(), then one slot up,
 * where the return leaves BASE). With linked, only if the link still holds
 * pc: a two-slot link (LJ_FR2) outlives the first result, a one-slot link
 * does not, and then pc is all there is. Returns 0 with *caller_base set,
 * or -1.
 */
LJ_INLINE int lj_walk_returning_to(void *ctx, const struct lj_layout *ly, struct lj_walk *w,
				   u64 base, u64 pc, int linked, u64 *caller_base)
{
	u64 link = base - 8, prev;
	s64 ftsz;

	/* A Lua link is the pc itself: type bits zero, as bytecode is aligned. */
	if ((pc & LJ_FRAME_TYPE) != LJ_FRAME_LUA)
		return -1;
	if (linked) {
		if (lj_frame_ftsz(ctx, ly, w, link, &ftsz) != 0)
			return -1;
		if ((ftsz & LJ_FRAME_TYPE) != LJ_FRAME_LUA || lj_ftsz_pc(ly, ftsz) != pc)
			return -1;
	}
	if (lj_frame_prevl(ctx, ly, w, link, (s64)pc, &prev) != 0 || prev >= link)
		return -1;
	*caller_base = prev + 8;
	return 0;
}

/*
 * Whether a walk of L from base starts on a frame: the frame's slot holds
 * a function (or L, the dummy frame of lj_err_optype_call()) and its link
 * leads down the stack, not below its bottom (or base is at the bottom).
 * One link of those lj_walk_next() checks, for a caller that cannot afford
 * to walk them all (BPF): the one a register caught mid-call or mid-return
 * breaks.
 */
LJ_INLINE int lj_walk_first_link_holds(void *ctx, const struct lj_layout *ly, struct lj_walk *w,
				       u64 L, u64 stack, u64 base)
{
	u64 frame = base - 8, bot = stack + 8 * ly->fr2, gc, prev;
	s64 ftsz;
	u8 gct;

	if (frame == bot)
		return 1;
	if (frame < bot)
		return 0;
	if (lj_frame_gc(ctx, ly, w, frame, &gc) != 0 ||
	    lj_frame_ftsz(ctx, ly, w, frame, &ftsz) != 0 ||
	    lj_frame_prev(ctx, ly, w, frame, ftsz, &prev) != 0)
		return 0;
	if (prev >= frame || prev < bot)
		return 0;
	if (gc == L)
		return 1;
	if (LJ_READ(ctx, &gct, gc + LJ_GCT_OFFSET(ly), 1) != 0)
		return 0;
	return gct == LJ_TFUNC;
}

/*
 * Start a walk of the lua_State L. base overrides L->base and top_pc gives
 * the pc of a Lua function on top (both from VM registers when the crash
 * is in the interpreter itself); pass 0 to use what L says.
 */
LJ_INLINE int lj_walk_init(void *ctx, const struct lj_layout *ly, struct lj_walk *w, u64 L,
			   u64 base, u64 top_pc)
{
	w->L = L;
	w->level = 0;
	w->status = LJ_WALK_OK;
	w->bad_addr = 0;
	w->top_pc = top_pc;
	w->nextframe = 0;
	if (lj_rdref(ctx, ly, w, L + ly->L_stack, &w->stack) != 0)
		return -1;
	if (!base && lj_rd64(ctx, w, L + ly->L_base, &base) != 0)
		return -1;
	if (lj_rd64(ctx, w, L + ly->L_cframe, &w->cframe) != 0)
		return -1;
	w->cframe &= LJ_CFRAME_RAWMASK;
	w->base = base;
	w->bot = w->stack + 8 * ly->fr2;
	w->frame = base - 8;
	return 0;
}

/*
 * Visit the next frame. Returns LJ_WALK_OK with *out filled, LJ_WALK_END at
 * the bottom, or a negative lj_walk_status; w->status keeps the result.
 */
LJ_INLINE int lj_walk_next(void *ctx, const struct lj_layout *ly, struct lj_walk *w,
			   struct lj_frame *out)
{
	u64 frame, gc, prev, real;
	s64 ftsz, realftsz;
	u32 i;
	u8 gct;

	if (w->status != LJ_WALK_OK)
		return w->status;
	/* At most two pseudo frames (dummy, vararg original) sit between
	 * two real ones, and each step goes strictly down. */
	for (i = 0; i < 4; i++) {
		frame = w->frame;
		/* The chain ends exactly at the bottom slot, which holds the
		 * dummy frame of the stack's first call (lj_state.c); going
		 * below it means a link (or a saved pc's call operand) was
		 * garbage, and the frames below are not reachable. */
		if (frame == w->bot) {
			w->status = LJ_WALK_END;
			return LJ_WALK_END;
		}
		if (frame < w->bot) {
			w->bad_addr = frame;
			w->status = LJ_WALK_ECHAIN;
			return w->status;
		}
		if (lj_frame_gc(ctx, ly, w, frame, &gc) != 0 ||
		    lj_frame_ftsz(ctx, ly, w, frame, &ftsz) != 0 ||
		    lj_frame_prev(ctx, ly, w, frame, ftsz, &prev) != 0)
			return w->status;
		if (prev >= frame) {
			w->bad_addr = frame;
			w->status = LJ_WALK_ECHAIN;
			return w->status;
		}
		if (gc == w->L) {
			/* Dummy frame of lj_err_optype_call(): not a level. */
			w->nextframe = frame;
			w->frame = prev;
			continue;
		}
		if (LJ_READ(ctx, &gct, gc + LJ_GCT_OFFSET(ly), 1) != 0) {
			w->bad_addr = gc + LJ_GCT_OFFSET(ly);
			w->status = LJ_WALK_EREAD;
			return w->status;
		}
		if (gct != LJ_TFUNC) {
			w->bad_addr = frame;
			w->status = LJ_WALK_EFUNC;
			return w->status;
		}
		out->slot = frame;
		out->nextslot = w->nextframe;
		out->func = gc;
		out->type = (u32)(ftsz & LJ_FRAME_TYPEP);
		out->level = w->level++;
		if (lj_walk_framepc(ctx, ly, w, gc, w->nextframe, &out->pc) != 0)
			return w->status;
		/* A vararg frame sits above the frame of the original call;
		 * that one links to the caller and is not a level of its own
		 * (lj_debug_frame(), lj_debug_funcname()). */
		real = frame;
		realftsz = ftsz;
		if ((ftsz & LJ_FRAME_TYPEP) == LJ_FRAME_VARG) {
			real = prev;
			if (real <= w->bot) {
				w->bad_addr = frame;
				w->status = LJ_WALK_ECHAIN;
				return w->status;
			}
			if (lj_frame_ftsz(ctx, ly, w, real, &realftsz) != 0 ||
			    lj_frame_prev(ctx, ly, w, real, realftsz, &prev) != 0)
				return w->status;
			if (prev >= real) {
				w->bad_addr = real;
				w->status = LJ_WALK_ECHAIN;
				return w->status;
			}
		}
		out->prevslot = prev;
		w->nextframe = real;
		w->frame = prev;
		return LJ_WALK_OK;
	}
	w->bad_addr = w->frame;
	w->status = LJ_WALK_ECHAIN;
	return w->status;
}

#endif
