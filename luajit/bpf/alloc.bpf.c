/*
 * ljcore profile --alloc: a uprobe at the VM's allocator, the lua_Alloc in
 * g->allocf (called as allocf(ud, ptr, osize, nsize); lj_gc.c), so it needs
 * no symbol and serves LuaJIT's own allocator, the system one and a host's.
 *
 * Allocations are sampled every LJ_ALLOC_INTERVALS-drawn number of bytes
 * (exponential, mean --sample-bytes), as tcmalloc and jemalloc sample: an
 * allocation of n bytes is taken with probability 1 - exp(-n/mean), which
 * userspace undoes. A sampled one walks the Lua stack with the shared
 * sample walk (luajit/profile_walk.h) and its address comes from the
 * uretprobe; from then on a free or realloc of that address is reported.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
/* after linux/bpf.h, which defines the types it uses */
#include "alloc_event.h"
#include "sample.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_alloc_vm);
} vms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LJ_ALLOC_INTERVALS);
	__type(key, __u32);
	__type(value, __u64);
} intervals SEC(".maps");

/* Bytes each thread may still allocate before its next sample. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __s64);
} countdown SEC(".maps");

/* A sampled allocation between the probe and its return, by thread. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} pending SEC(".maps");

struct block {
	__u32 pid;
	__u32 pad;
	__u64 addr;
};

/* Sampled blocks not yet freed: their allocation's number. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 18);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct block);
	__type(value, __u64);
} live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

/* Userspace clears it at the end: frees are still matched, no new samples. */
__u32 sampling = 1;
__u64 next_seq;

static void note(__u32 kind, __u32 pid, __u64 seq, __u64 addr)
{
	struct lj_alloc_note *n = bpf_ringbuf_reserve(&events, sizeof *n, 0);

	if (!n) {
		count_lost();
		return;
	}
	n->kind = kind;
	n->pid = pid;
	n->seq = seq;
	n->addr = addr;
	bpf_ringbuf_submit(n, 0);
}

static __s64 next_interval(void)
{
	__u32 i = bpf_get_prandom_u32() & (LJ_ALLOC_INTERVALS - 1);
	__u64 *v = bpf_map_lookup_elem(&intervals, &i);

	return v ? (__s64)*v : 512 * 1024;
}

/* The Lua stack of the allocation, from memory: the allocator's registers
 * are not the interpreter's, and the VM has stored L->base and the pc
 * before calling anything that allocates. */
static void sample(struct pt_regs *ctx, const struct lj_alloc_vm *vm, __u32 pid, __u32 tid,
		   __u64 osize, __u64 nsize)
{
	struct lj_profile_regs regs = {};
	struct lj_alloc_sample *out = bpf_ringbuf_reserve(&events, sizeof *out, 0);
	__u64 seq;

	if (!out) {
		count_lost();
		return;
	}
	seq = __sync_fetch_and_add(&next_seq, 1);
	out->kind = LJ_ALLOC_SAMPLED;
	out->pid = pid;
	out->seq = seq;
	out->size = nsize;
	out->osize = osize;
	out->s.pid = pid;
	out->s.tid = tid;
	walk_sample(&vm->vm, &regs, &out->s);
	copy_stack(&out->s, ctx->rsp, LJ_ALLOC_STACK_BYTES);
	bpf_ringbuf_submit(out, 0);
	bpf_map_update_elem(&pending, &tid, &seq, BPF_ANY);
}

SEC("uprobe")
int alloc_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id;
	const struct lj_alloc_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	__u64 ptr = ctx->rsi, osize = ctx->rdx, nsize = ctx->rcx;
	__s64 *left, first;

	if (!vm || ctx->rdi != vm->allocd)
		return 0;
	if (ptr) {
		/* A free (nsize 0) or a realloc: the old block goes either way. */
		struct block b = {pid, 0, ptr};
		__u64 *seq = bpf_map_lookup_elem(&live, &b);

		if (seq) {
			note(LJ_ALLOC_FREED, pid, *seq, ptr);
			bpf_map_delete_elem(&live, &b);
		}
	}
	if (nsize == 0 || !sampling)
		return 0;
	left = bpf_map_lookup_elem(&countdown, &tid);
	if (!left) {
		first = next_interval();
		bpf_map_update_elem(&countdown, &tid, &first, BPF_ANY);
		left = bpf_map_lookup_elem(&countdown, &tid);
		if (!left)
			return 0;
	}
	*left -= (__s64)nsize;
	if (*left > 0)
		return 0;
	*left = next_interval();
	sample(ctx, vm, pid, tid, ptr ? osize : 0, nsize);
	return 0;
}

SEC("uretprobe")
int alloc_return(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id;
	__u64 *pseq = bpf_map_lookup_elem(&pending, &tid);
	__u64 seq, addr = ctx->rax;

	if (!pseq)
		return 0;
	seq = *pseq;
	bpf_map_delete_elem(&pending, &tid);
	if (addr) {
		struct block b = {pid, 0, addr};

		if (bpf_map_update_elem(&live, &b, &seq, BPF_ANY) != 0) {
			note(LJ_ALLOC_UNTRACKED, pid, seq, addr);
			return 0;
		}
	}
	note(LJ_ALLOC_PLACED, pid, seq, addr);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
