/*
 * The shared Lua frame walker (luajit/walker.h) as an eBPF program: on a
 * perf event it walks the lua_State named in the config map and stores
 * the frames in the frames map. The test loads it through the kernel's
 * verifier, which proves the walker stays in the BPF-safe subset.
 */
#include <linux/bpf.h>
/* after linux/bpf.h, which defines the types it uses */
#include <bpf/bpf_helpers.h>

#define LJ_READ(ctx, dst, addr, size)                                                              \
	bpf_probe_read_user((dst), (__u32)(size), (const void *)(unsigned long)(addr))
/* Tighter bounds keep the verifier's path count small. */
#define LJ_WALK_MAX_CFRAMES 4
#define LJ_WALK_MAX_CFRAME_STEPS 8
#include "../../luajit/walker.h"

#define MAX_FRAMES 32

struct walk_config {
	struct lj_layout layout;
	__u64 L;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_config);
} config SEC(".maps");

struct frames_out {
	__u32 count;
	__s32 status;
	struct lj_frame frames[MAX_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frames_out);
} frames SEC(".maps");

struct walk_state {
	struct walk_config *cfg;
	struct frames_out *out;
	struct lj_walk w;
};

/* One frame per bpf_loop() iteration: the verifier checks this body once
 * instead of once per unrolled frame. */
static long walk_step(__u32 i, void *arg)
{
	struct walk_state *st = arg;

	if (i >= MAX_FRAMES)
		return 1;
	if (lj_walk_next(0, &st->cfg->layout, &st->w, &st->out->frames[i]) != LJ_WALK_OK)
		return 1;
	st->out->count = i + 1;
	return 0;
}

SEC("perf_event")
int walk_lua_frames(void *ctx)
{
	__u32 zero = 0;
	struct walk_state st = {};

	(void)ctx;
	st.cfg = bpf_map_lookup_elem(&config, &zero);
	st.out = bpf_map_lookup_elem(&frames, &zero);
	if (!st.cfg || !st.out || !st.cfg->L)
		return 0;
	st.out->count = 0;
	if (lj_walk_init(0, &st.cfg->layout, &st.w, st.cfg->L, 0, 0) == 0)
		bpf_loop(MAX_FRAMES, walk_step, &st, 0);
	st.out->status = st.w.status;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
