/*
 * What both of ljcore's BPF programs (profile.bpf.c, alloc.bpf.c) need to
 * take a sample: the shared sample walk (../profile_walk.h) with reads
 * through bpf_probe_read_user, run one frame per bpf_loop() iteration; the
 * per-CPU count of records the ring buffer had no room for; and a copy of
 * the user stack. Include it once, after linux/bpf.h.
 */
#ifndef LJCORE_LUAJIT_BPF_SAMPLE_BPF_H
#define LJCORE_LUAJIT_BPF_SAMPLE_BPF_H

#include <bpf/bpf_helpers.h>

#define LJ_READ(ctx, dst, addr, size)                                                              \
	bpf_probe_read_user((dst), (__u32)(size), (const void *)(unsigned long)(addr))
/* Tighter bounds keep the verifier's path count small. */
#define LJ_WALK_MAX_CFRAMES 4
#define LJ_WALK_MAX_CFRAME_STEPS 8
#include "../profile_walk.h"

/* Records the ring buffer had no room for: userspace counts them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static void count_lost(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
}

struct walk_state {
	const struct lj_profile_vm *vm;
	struct lj_profile_sample *out;
	struct lj_walk w;
};

/* One frame per bpf_loop() iteration: the verifier checks the body once. */
static long walk_step(__u32 i, void *arg)
{
	struct walk_state *st = arg;

	return lj_profile_step(0, st->vm, &st->w, st->out, i);
}

/* Walks the Lua frames of vm into out (its pid and tid set), starting
 * from regs. */
static void walk_sample(const struct lj_profile_vm *vm, const struct lj_profile_regs *regs,
			struct lj_profile_sample *out)
{
	struct walk_state st = {};

	st.vm = vm;
	st.out = out;
	if (lj_profile_begin(0, vm, regs, out, &st.w)) {
		bpf_loop(LJ_PROFILE_MAX_FRAMES, walk_step, &st, 0);
		lj_profile_end(&st.w, out);
	}
}

/* As much of the user stack above sp as can be read, up to max bytes (a
 * constant), in halving sizes: a read fails whole past the stack's top.
 * Unrolled, so that each read's size is a constant, as the verifier wants. */
static __always_inline void copy_stack(struct lj_profile_sample *out, __u64 sp, __u32 max)
{
#pragma unroll
	for (int shift = 0; shift < 4; shift++) {
		__u32 n = max >> shift;

		if (bpf_probe_read_user(out->stack, n, (void *)sp) == 0) {
			out->stack_len = n;
			break;
		}
	}
}

#endif
