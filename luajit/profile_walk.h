/*
 * One profile sample of a LuaJIT VM: where the walk of the running
 * coroutine starts, and the walk itself, frame by frame. Shared by the BPF
 * program (luajit/bpf/profile.bpf.c) and the userspace sampler
 * (analyzer/profile/user_sampler.cpp), so both backends take the same
 * frames from the same state. Rules as for walker.h: the includer defines
 * LJ_READ; bounded loops only (the caller runs the steps).
 *
 * Where the sample lands in the interpreter (g->vmstate is INTERP and the
 * registers are the thread's own user registers), L->base is stale: the
 * live BASE and PC are in the interpreter's registers (vm_x64.dasc: BASE
 * rdx, PC rbx). In a trace, the frame the trace started in is at
 * g->jit_base. Otherwise (C, GC, the compiler) L->base is current; the GC
 * run from a trace (lj_gc_step_jit) set it to g->jit_base.
 *
 * The registers are evidence, not truth: caught returning, the
 * interpreter has PC in the caller while BASE is still the callee's,
 * whose function slot the results may cover; caught before a call to C,
 * it has stored BASE to L->base and may have reused rdx for an argument.
 * A second walk would take the BPF verifier past its limits, so the start
 * is checked by its first link (lj_walk_first_link_holds()), which is
 * what breaks then: the registers, else the frame BASE returns to, else
 * L->base, else the frame PC returns to, the first that holds
 * (lj_profile_interp_start(); analyzer/stack/interpreter_start.h).
 */
#ifndef LJCORE_LUAJIT_PROFILE_WALK_H
#define LJCORE_LUAJIT_PROFILE_WALK_H

#include "bpf/profile_sample.h"
#include "walker.h"

/* g->vmstate of the interpreter: ~LJ_VMST_INTERP. */
#define LJ_VMSTATE_INTERP (-1)

/* What the walk's start needs of the sampled thread's registers (x86_64). */
struct lj_profile_regs {
	u64 ip;
	u64 sp;
	u64 rdx;  /* the interpreter's BASE */
	u64 rbx;  /* the interpreter's PC */
	u32 user; /* these are the thread's user registers; 0: none known */
	u32 pad;
};

/* A GCRef or MRef field of the layout's width; 0 if unreadable. */
LJ_INLINE u64 lj_profile_ref(void *ctx, const struct lj_layout *ly, u64 addr)
{
	u64 v64 = 0;
	u32 v32 = 0;

	if (ly->ptrsize == 8)
		return LJ_READ(ctx, &v64, addr, 8) == 0 ? v64 : 0;
	return LJ_READ(ctx, &v32, addr, 4) == 0 ? v32 : 0;
}

/*
 * Where a walk in the interpreter starts: *base is its BASE register and pc
 * its PC. Returns the lj_profile_start taken, *base changed to match.
 */
LJ_INLINE u32 lj_profile_interp_start(void *ctx, const struct lj_layout *ly, struct lj_walk *w,
				      u64 L, u64 stack, u64 *base, u64 pc)
{
	u64 other = 0;

	if (lj_walk_first_link_holds(ctx, ly, w, L, stack, *base))
		return LJ_PROFILE_FROM_REGS;
	if (lj_walk_returning_to(ctx, ly, w, *base, pc, 1, &other) == 0 &&
	    lj_walk_first_link_holds(ctx, ly, w, L, stack, other)) {
		*base = other;
		return LJ_PROFILE_FROM_RETURN;
	}
	if (LJ_READ(ctx, &other, L + ly->L_base, 8) == 0 && other != *base &&
	    lj_walk_first_link_holds(ctx, ly, w, L, stack, other)) {
		*base = other;
		return LJ_PROFILE_FROM_L_BASE;
	}
	/* One-slot links (!LJ_FR2): the first result overwrote the link. */
	if (lj_walk_returning_to(ctx, ly, w, *base, pc, 0, &other) == 0 &&
	    lj_walk_first_link_holds(ctx, ly, w, L, stack, other)) {
		*base = other;
		return LJ_PROFILE_FROM_RETURN;
	}
	return LJ_PROFILE_FROM_REGS;
}

/*
 * Fills out's header (pid and tid are the caller's) and, when there are
 * frames to walk, starts the walk in w. Returns 1 if the caller is to run
 * lj_profile_step() until it returns nonzero, then lj_profile_end().
 */
LJ_INLINE int lj_profile_begin(void *ctx, const struct lj_profile_vm *vm,
			       const struct lj_profile_regs *r, struct lj_profile_sample *out,
			       struct lj_walk *w)
{
	const struct lj_layout *ly = &vm->layout;
	u64 base = 0, top_pc = 0, L, stack, maxstack, ret = 0;
	s32 vmstate = 0;

	out->ip = r->user ? r->ip : 0;
	if (r->user && LJ_READ(ctx, &ret, r->sp, 8) != 0)
		ret = 0;
	out->ret = ret;
	out->nframes = 0;
	out->truncated = 0;
	out->start = LJ_PROFILE_FROM_STATE;
	out->status = 0;
	out->bad_addr = 0;
	out->vmstate = 0;
	out->L = 0;
	out->cframe = 0;
	out->stack_len = 0;
	out->jit_base = 0;
	out->offcpu_state = 0; /* on the CPU, unless an off-CPU sampler says */
	out->offcpu_switches = 0;
	out->offcpu_ns = 0;
	if (vm->tid && vm->tid != out->tid) {
		out->source = LJ_PROFILE_OTHER_THREAD;
		return 0;
	}
	L = lj_profile_ref(ctx, ly, vm->g + ly->g_cur_L);
	if (LJ_READ(ctx, &vmstate, vm->g + ly->g_vmstate, 4) != 0 || !L) {
		out->source = LJ_PROFILE_NO_STATE;
		return 0;
	}
	out->vmstate = vmstate;
	out->L = L;
	out->jit_base = lj_profile_ref(ctx, ly, vm->g + ly->g_jit_base);
	out->source = LJ_PROFILE_WALKED;
	stack = lj_profile_ref(ctx, ly, L + ly->L_stack);
	maxstack = lj_profile_ref(ctx, ly, L + ly->L_maxstack);
	if (vmstate == LJ_VMSTATE_INTERP && r->user && r->rdx > stack && r->rdx < maxstack) {
		base = r->rdx;
		top_pc = r->rbx;
		out->start = lj_profile_interp_start(ctx, ly, w, L, stack, &base, top_pc);
	} else if (vmstate >= 0) {
		base = out->jit_base;
	}
	if (lj_walk_init(ctx, ly, w, L, base, top_pc) != 0) {
		out->status = w->status;
		out->bad_addr = w->bad_addr;
		return 0;
	}
	out->cframe = w->cframe;
	return 1;
}

/* Walks frame i into out. Returns nonzero when the walk is over. */
LJ_INLINE int lj_profile_step(void *ctx, const struct lj_profile_vm *vm, struct lj_walk *w,
			      struct lj_profile_sample *out, u32 i)
{
	struct lj_frame f;

	if (i >= LJ_PROFILE_MAX_FRAMES)
		return 1;
	if (lj_walk_next(ctx, &vm->layout, w, &f) != LJ_WALK_OK)
		return 1;
	/* The mask (a power of two) is the bound the verifier can see. */
	i &= LJ_PROFILE_MAX_FRAMES - 1;
	out->frames[i].func = f.func;
	out->frames[i].pc = f.pc;
	out->frames[i].slot = f.slot;
	out->frames[i].prevslot = f.prevslot;
	out->nframes = i + 1;
	return 0;
}

LJ_INLINE void lj_profile_end(const struct lj_walk *w, struct lj_profile_sample *out)
{
	out->status = w->status;
	out->bad_addr = w->bad_addr;
	/* Frames left after the last slot: the stack is deeper than walked. */
	if (w->status == LJ_WALK_OK && out->nframes == LJ_PROFILE_MAX_FRAMES)
		out->truncated = 1;
}

#endif
