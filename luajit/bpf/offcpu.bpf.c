/*
 * ljcore profile --off-cpu: at each scheduler switch (tp_btf/sched_switch)
 * of a profiled process's VM thread, walk the Lua frames it leaves the CPU
 * in with the shared sample walk (luajit/profile_walk.h, as profile.bpf.c
 * does for a CPU sample), and when it runs again add how long it was away
 * to that stack's time, split into the time blocked and the time it waited
 * for a CPU once woken (since sched_wakeup) or preempted. A stack is sent
 * to userspace once, the first time it is seen; the times are summed here,
 * by stack (offcpu_event.h). Sending each switch's 25 KB sample cost more
 * than the walk, and filled the ring buffer past 100 000 switches a second.
 *
 * sched_switch runs in __schedule() before the switch: the current task is
 * prev, whose memory bpf_probe_read_user reads. Its user registers are in
 * task_pt_regs(prev), saved when it entered the kernel (a system call, or
 * the interrupt that preempted it).
 */
#include <linux/bpf.h>
/* after linux/bpf.h, which defines the types they use */
#include "offcpu_event.h"
#include "sample.bpf.h"
/* after sample.bpf.h, which defines LJ_READ */
#include "request_tag.bpf.h"
#include <bpf/bpf_tracing.h>

/* The kernel's own types, relocated against its BTF (CO-RE): the fields
 * read, under their kernel names. tp_btf's arguments and
 * bpf_task_pt_regs() are typed pointers, read directly: each
 * BPF_CORE_READ would be a bpf_probe_read_kernel() call, at every switch
 * and wakeup of the machine. The ___ suffix keeps them apart from the
 * UAPI's struct pt_regs; libbpf matches the name before it. */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct pt_regs___kernel {
	unsigned long bx;
	unsigned long dx;
	unsigned long ip;
	unsigned long sp;
} __attribute__((preserve_access_index));

/* sched_switch's prev_state of a task that is exiting: it never runs again. */
#define TASK_DEAD 0x80

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_profile_vm);
} vms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct lj_offcpu_away);
} off_since SEC(".maps");

/* The stacks sent to userspace, by offcpu_stack. Full, a new stack is
 * timed as LJ_OFFCPU_NO_STACK. */
#define MAX_STACKS 16384
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_STACKS);
	__type(key, __u64);
	__type(value, __u8);
} stacks_sent SEC(".maps");

/* The time off the CPU by stack, process and state (offcpu_event.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * MAX_STACKS);
	__type(key, struct lj_offcpu_key);
	__type(value, struct lj_offcpu_time);
} times SEC(".maps");

/* The switch out being walked, per CPU: a sample is 25 KB, more than the
 * BPF stack, and is sent only when its stack is new. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lj_profile_sample);
} scratch SEC(".maps");

/* New stacks, and times the map had no room for. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 25);
} samples SEC(".maps");

/* Wake the reader only when this much is waiting: a wakeup per record
 * would add switches to the process profiled. Userspace also reads the
 * ring on its own, a few times a second. */
#define WAKE_BYTES (1 << 22)

static __u64 wakeup_flag(void)
{
	return bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= WAKE_BYTES ? BPF_RB_FORCE_WAKEUP
									    : BPF_RB_NO_WAKEUP;
}

/* One 64-bit word into a hash (a multiply-rotate mix: the stacks are
 * not chosen by an adversary who could aim at a collision of 64 bits). */
static __always_inline __u64 mix(__u64 h, __u64 word)
{
	h ^= word * 0x9e3779b97f4a7c15ULL;
	h = (h << 31) | (h >> 33);
	return h * 0xbf58476d1ce4e5b9ULL;
}

struct hash_state {
	const struct lj_profile_sample *s;
	__u64 h;
	__u32 n; /* frames, or bytes of the stack copy */
};

static long hash_frame(__u32 i, void *arg)
{
	struct hash_state *st = arg;
	const struct lj_profile_frame *f;

	if (i >= st->n)
		return 1;
	f = &st->s->frames[i & (LJ_PROFILE_MAX_FRAMES - 1)];
	st->h = mix(mix(mix(mix(st->h, f->func), f->pc), f->slot), f->prevslot);
	return 0;
}

/* Eight words of the stack copy per iteration, those below its length. */
static long hash_stack(__u32 i, void *arg)
{
	struct hash_state *st = arg;
	const __u64 *words = (const __u64 *)st->s->stack;
	__u32 at = (i * 8) & (LJ_PROFILE_STACK_BYTES / 8 - 1);

	if (i * 64 >= st->n)
		return 1;
#pragma unroll
	for (int k = 0; k < 8; k++)
		if ((i * 8 + k) * 8 + 8 <= st->n)
			st->h = mix(st->h, words[(at + k) & (LJ_PROFILE_STACK_BYTES / 8 - 1)]);
	return 0;
}

/* A hash of all the reader names a switch out by (sample_namer.cpp): the
 * header, the frames walked, the stack copy and the request; never
 * LJ_OFFCPU_NO_STACK. */
static __u64 stack_hash(const struct lj_profile_sample *s)
{
	struct hash_state st = {s, 0x6c6a636f7265ULL, 0};
	const __u64 *head = (const __u64 *)s;
	const __u64 *request = (const __u64 *)&s->request;

#pragma unroll
	for (int k = 0; k < (int)(__builtin_offsetof(struct lj_profile_sample, frames) / 8); k++)
		st.h = mix(st.h, head[k]);
	st.n = s->nframes;
	bpf_loop(LJ_PROFILE_MAX_FRAMES, hash_frame, &st, 0);
	st.n = s->stack_len;
	st.h = mix(st.h, st.n);
	bpf_loop(LJ_PROFILE_STACK_BYTES / 64, hash_stack, &st, 0);
	if (s->request.status != LJ_REQUEST_NONE) {
#pragma unroll
		for (int k = 0; k < (int)(sizeof s->request / 8); k++)
			st.h = mix(st.h, request[k]);
	}
	return st.h == LJ_OFFCPU_NO_STACK ? 1 : st.h;
}

/* Sends s unless its stack was sent before. Returns the stack to time
 * the switch under. A sample the ring buffer had no room for is sent the
 * next time; never sent, userspace counts its time as lost. */
static __u64 send_once(struct lj_profile_sample *s)
{
	__u64 stack = stack_hash(s);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&stacks_sent, &stack))
		return stack;
	if (bpf_map_update_elem(&stacks_sent, &stack, &one, BPF_NOEXIST) != 0)
		return LJ_OFFCPU_NO_STACK;
	s->offcpu_stack = stack;
	if (bpf_ringbuf_output(&samples, s, sizeof *s, wakeup_flag()) != 0)
		bpf_map_delete_elem(&stacks_sent, &stack);
	return stack;
}

static void switched_out(__u64 preempt, __u64 prev_state, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id, zero = 0;
	const struct lj_profile_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	struct pt_regs___kernel *uregs;
	struct lj_profile_regs regs = {};
	struct lj_offcpu_away away = {now, 0, 0, LJ_OFFCPU_BLOCKED, pid};
	struct lj_profile_sample *out;

	/* Only the thread that runs the VM has its frames (profile_walk.h). */
	if (!vm || (vm->tid && vm->tid != tid) || (prev_state & TASK_DEAD))
		return;
	out = bpf_map_lookup_elem(&scratch, &zero);
	if (!out)
		return;
	out->pid = pid;
	out->tid = tid;
	uregs = (struct pt_regs___kernel *)bpf_task_pt_regs(bpf_get_current_task_btf());
	regs.user = 1;
	regs.ip = uregs->ip;
	regs.sp = uregs->sp;
	regs.rdx = uregs->dx;
	regs.rbx = uregs->bx;
	walk_sample(vm, &regs, out);
	tag_request(pid, out);
	if (out->jit_base)
		copy_stack(out, regs.sp, LJ_PROFILE_TRACE_STACK_BYTES);
	/* Preempted, the task is still on the run queue whatever its state. */
	if (preempt || prev_state == 0) {
		away.woken = now;
		away.state = LJ_OFFCPU_RUNQUEUE;
	}
	out->offcpu_state = away.state;
	away.stack = send_once(out);
	bpf_map_update_elem(&off_since, &tid, &away, BPF_ANY);
}

/* Adds ns to a stack's time; sends it when the map is full. */
static void add_time(__u64 stack, __u32 pid, __u32 state, __u64 ns)
{
	struct lj_offcpu_key key = {stack, pid, state};
	struct lj_offcpu_time one = {ns, 1}, *t = bpf_map_lookup_elem(&times, &key);
	struct lj_offcpu_unsummed out = {key, one};

	if (!t && bpf_map_update_elem(&times, &key, &one, BPF_NOEXIST) == 0)
		return;
	if (!t) /* another CPU added it just now, or the map is full */
		t = bpf_map_lookup_elem(&times, &key);
	if (t) {
		__sync_fetch_and_add(&t->ns, ns);
		__sync_fetch_and_add(&t->switches, 1);
	} else if (bpf_ringbuf_output(&samples, &out, sizeof out, wakeup_flag()) != 0) {
		count_lost();
	}
}

static void switched_in(__u32 tid, __u64 now)
{
	struct lj_offcpu_away *away = bpf_map_lookup_elem(&off_since, &tid);
	__u64 ns, runqueue;

	if (!away)
		return;
	/* Blocked, then woken and waiting for a CPU: two times of one stack. */
	ns = now - away->since;
	runqueue = away->woken ? now - away->woken : 0;
	if (runqueue > ns)
		runqueue = ns;
	if (away->state == LJ_OFFCPU_BLOCKED && ns > runqueue)
		add_time(away->stack, away->pid, LJ_OFFCPU_BLOCKED, ns - runqueue);
	if (runqueue)
		add_time(away->stack, away->pid, LJ_OFFCPU_RUNQUEUE, runqueue);
	bpf_map_delete_elem(&off_since, &tid);
}

/* A blocked thread made runnable: from now on it waits for a CPU. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	__u32 tid = (__u32)p->pid;
	struct lj_offcpu_away *away = bpf_map_lookup_elem(&off_since, &tid);

	if (away && !away->woken)
		away->woken = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, __u64 preempt, struct task_struct *prev, struct task_struct *next,
	     __u64 prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	/* The TASK_* bits are the low 32 of an unsigned int. */
	switched_out(preempt & 0xff, prev_state & 0xffffffff, now);
	switched_in((__u32)next->pid, now);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
