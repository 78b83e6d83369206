/*
 * ljcore profile: on each CPU-clock sample of a profiled process, walk the
 * running coroutine's Lua frames with the shared sample walk
 * (luajit/profile_walk.h, over luajit/walker.h) and send them to userspace
 * through a ring buffer, which names them.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
/* after linux/bpf.h, which defines the types it uses */
#include "sample.bpf.h"
/* after sample.bpf.h, which defines LJ_READ */
#include "../nginx_request.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_profile_vm);
} vms SEC(".maps");

/* nginx workers: where their coroutines' requests are (tag_request). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_nginx_offsets);
} nginx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} samples SEC(".maps");

/* --native: the user registers, and as much of the stack above sp as can
 * be read. */
static void copy_native(struct bpf_perf_event_data *ctx, struct lj_profile_sample *out)
{
	__u64 sp = ctx->regs.rsp;

	out->regs[0] = ctx->regs.rax;
	out->regs[1] = ctx->regs.rdx;
	out->regs[2] = ctx->regs.rcx;
	out->regs[3] = ctx->regs.rbx;
	out->regs[4] = ctx->regs.rsi;
	out->regs[5] = ctx->regs.rdi;
	out->regs[6] = ctx->regs.rbp;
	out->regs[7] = sp;
	out->regs[8] = ctx->regs.r8;
	out->regs[9] = ctx->regs.r9;
	out->regs[10] = ctx->regs.r10;
	out->regs[11] = ctx->regs.r11;
	out->regs[12] = ctx->regs.r12;
	out->regs[13] = ctx->regs.r13;
	out->regs[14] = ctx->regs.r14;
	out->regs[15] = ctx->regs.r15;
	out->regs[16] = ctx->regs.rip;
	copy_stack(out, sp, LJ_PROFILE_STACK_BYTES);
}

/* The request the walked coroutine serves, now: once answered, its memory
 * is reused. */
static void tag_request(__u32 pid, struct lj_profile_sample *out)
{
	const struct lj_nginx_offsets *o = bpf_map_lookup_elem(&nginx, &pid);

	out->request.status = LJ_REQUEST_NONE;
	if (o && out->source == LJ_PROFILE_WALKED)
		lj_request_read(0, o, out->L, &out->request);
}

SEC("perf_event")
int sample_lua(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	const struct lj_profile_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	struct lj_profile_regs regs = {};
	struct lj_profile_sample *out;

	if (!vm)
		return 0;
	out = bpf_ringbuf_reserve(&samples, sizeof *out, 0);
	if (!out) {
		count_lost();
		return 0;
	}
	out->pid = pid;
	out->tid = (__u32)id;
	/* A sample in the kernel has the process's user registers only in
	 * its saved frame: walk from memory then, as with no registers. */
	if ((ctx->regs.cs & 3) == 3) {
		regs.user = 1;
		regs.ip = ctx->regs.rip;
		regs.sp = ctx->regs.rsp;
		regs.rdx = ctx->regs.rdx;
		regs.rbx = ctx->regs.rbx;
	}
	walk_sample(vm, &regs, out);
	tag_request(pid, out);
	if (vm->native && regs.user)
		copy_native(ctx, out);
	else if (out->jit_base && regs.user)
		copy_stack(out, regs.sp, LJ_PROFILE_TRACE_STACK_BYTES);
	bpf_ringbuf_submit(out, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
