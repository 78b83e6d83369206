/*
 * ljcore profile: on each CPU-clock sample of a profiled process, walk the
 * running coroutine's Lua frames with the shared walker (luajit/walker.h)
 * and send them to userspace through a ring buffer, which names them.
 *
 * Where the sample lands in the interpreter (g->vmstate is INTERP and the
 * CPU was in user mode), L->base is stale: the live BASE and PC are in the
 * interpreter's registers (vm_x64.dasc: BASE rdx, PC rbx). In a trace,
 * the frame the trace started in is at g->jit_base. Otherwise (C, GC, the
 * compiler) L->base is current.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
/* after linux/bpf.h, which defines the types it uses */
#include <bpf/bpf_helpers.h>

#define LJ_READ(ctx, dst, addr, size)                                                              \
	bpf_probe_read_user((dst), (__u32)(size), (const void *)(unsigned long)(addr))
/* Tighter bounds keep the verifier's path count small. */
#define LJ_WALK_MAX_CFRAMES 4
#define LJ_WALK_MAX_CFRAME_STEPS 8
#include "../walker.h"
#include "profile_sample.h"

/* g->vmstate of the interpreter: ~LJ_VMST_INTERP. */
#define LJ_VMSTATE_INTERP (-1)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_profile_vm);
} vms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} samples SEC(".maps");

/* Samples the ring buffer had no room for: userspace counts them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

struct walk_state {
	const struct lj_profile_vm *vm;
	struct lj_profile_sample *out;
	struct lj_walk w;
};

/* One frame per bpf_loop() iteration: the verifier checks the body once. */
static long walk_step(__u32 i, void *arg)
{
	struct walk_state *st = arg;
	struct lj_frame f;

	if (i >= LJ_PROFILE_MAX_FRAMES)
		return 1;
	if (lj_walk_next(0, &st->vm->layout, &st->w, &f) != LJ_WALK_OK)
		return 1;
	/* The mask (a power of two) is the bound the verifier can see. */
	i &= LJ_PROFILE_MAX_FRAMES - 1;
	st->out->frames[i].func = f.func;
	st->out->frames[i].pc = f.pc;
	st->out->frames[i].slot = f.slot;
	st->out->frames[i].prevslot = f.prevslot;
	st->out->nframes = i + 1;
	return 0;
}

static __u64 read_u64(__u64 addr)
{
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof v, (const void *)(unsigned long)addr);
	return v;
}

/* A GCRef or MRef field of the layout's width. */
static __u64 read_ref(const struct lj_layout *ly, __u64 addr)
{
	__u32 v32 = 0;
	if (ly->ptrsize == 8)
		return read_u64(addr);
	bpf_probe_read_user(&v32, sizeof v32, (const void *)(unsigned long)addr);
	return v32;
}

SEC("perf_event")
int sample_lua(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id, zero = 0;
	const struct lj_profile_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	struct lj_profile_sample *out;
	struct walk_state st = {};
	__u64 base = 0, top_pc = 0, L, stack, maxstack;
	__s32 vmstate = 0;
	int user = (ctx->regs.cs & 3) == 3;

	if (!vm)
		return 0;
	out = bpf_ringbuf_reserve(&samples, sizeof *out, 0);
	if (!out) {
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
		return 0;
	}
	out->pid = pid;
	out->tid = tid;
	out->ip = user ? ctx->regs.rip : 0;
	out->ret = user ? read_u64(ctx->regs.rsp) : 0;
	out->nframes = 0;
	out->truncated = 0;
	out->regs_used = 0;
	out->status = 0;
	out->bad_addr = 0;
	out->vmstate = 0;
	out->L = 0;
	if (vm->tid && vm->tid != tid) {
		out->source = LJ_PROFILE_OTHER_THREAD;
		bpf_ringbuf_submit(out, 0);
		return 0;
	}
	const struct lj_layout *ly = &vm->layout;
	L = read_ref(ly, vm->g + ly->g_cur_L);
	if (bpf_probe_read_user(&vmstate, sizeof vmstate,
				(const void *)(unsigned long)(vm->g + ly->g_vmstate)) != 0 ||
	    !L) {
		out->source = LJ_PROFILE_NO_STATE;
		bpf_ringbuf_submit(out, 0);
		return 0;
	}
	out->vmstate = vmstate;
	out->L = L;
	out->source = LJ_PROFILE_WALKED;
	stack = read_ref(ly, L + ly->L_stack);
	maxstack = read_ref(ly, L + ly->L_maxstack);
	if (vmstate == LJ_VMSTATE_INTERP && user && ctx->regs.rdx > stack &&
	    ctx->regs.rdx < maxstack) {
		base = ctx->regs.rdx;
		top_pc = ctx->regs.rbx;
		out->regs_used = 1;
	} else if (vmstate >= 0) {
		base = read_ref(ly, vm->g + ly->g_jit_base);
	}
	st.vm = vm;
	st.out = out;
	if (lj_walk_init(0, ly, &st.w, L, base, top_pc) == 0)
		bpf_loop(LJ_PROFILE_MAX_FRAMES, walk_step, &st, 0);
	out->status = st.w.status;
	out->bad_addr = st.w.bad_addr;
	/* Frames left after the last slot: the stack is deeper than walked. */
	if (st.w.status == LJ_WALK_OK && out->nframes == LJ_PROFILE_MAX_FRAMES)
		out->truncated = 1;
	bpf_ringbuf_submit(out, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
