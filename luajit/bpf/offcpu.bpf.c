/*
 * ljcore profile --off-cpu: the Lua stacks a profiled process's VM thread
 * spends its time off the CPU in, split into the time blocked and the time
 * it waited for a CPU once woken or preempted (sched_info.run_delay), walked
 * with the shared sample walk (luajit/profile_walk.h, as profile.bpf.c
 * does for a CPU sample). A stack is sent to userspace once, the first
 * time it is seen; the times are summed here, by stack (offcpu_event.h).
 *
 * The time off the CPU is estimated, as a CPU profile estimates the time
 * on it: a thread that switches 50 000 times a second cannot pay a 3 us
 * walk at each switch. A period off the CPU of d ns is walked with
 * probability min(1, d / period_ns) and, walked, weighs max(d, period_ns)
 * ns, split between blocked and runqueue as d was: the expected weight of
 * each stack is the time it spent off the CPU, and at most about one walk
 * per period_ns of time off the CPU is taken, whatever the switch rate.
 * Periods of period_ns or more are all walked, at their own length.
 *
 * The walk happens when the thread runs again, in its own context
 * (tp_btf/sched_exit_tp, at the end of __schedule(), in recent kernels):
 * only then is d known, and a thread off the CPU has not changed its user
 * registers (task_pt_regs(), saved when it entered the kernel) nor its
 * Lua frames. sched_switch runs in __schedule() before the switch, in the
 * context of the thread leaving, whose memory bpf_probe_read_user reads;
 * on kernels without sched_exit_tp (walk_at_return 0) it walks every
 * switch out there, and the time is exact.
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
struct sched_info {
	unsigned long long run_delay; /* ns waited on a run queue, in all */
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct sched_info sched_info; /* CONFIG_SCHED_INFO */
} __attribute__((preserve_access_index));

struct pt_regs___kernel {
	unsigned long bx;
	unsigned long dx;
	unsigned long ip;
	unsigned long sp;
} __attribute__((preserve_access_index));

/* sched_switch's prev_state of a task that is exiting: it never runs again. */
#define TASK_DEAD 0x80

/* Set by the reader before loading (offcpu_sampler.cpp). Periods off the
 * CPU shorter than period_ns are walked with probability d / period_ns. */
const volatile __u64 period_ns = 1000000;
/* The kernel has sched_exit_tp: walk as the thread runs again. */
const volatile __u8 walk_at_return = 0;

/* Bit pid % PID_BITS set for each profiled process, by the reader: every
 * switch and wakeup of the machine runs these programs, and most are of
 * other processes, which this lets go without a helper call. */
#define PID_BITS 8192
__u64 profiled[PID_BITS / 64];

static __always_inline int maybe_profiled(__u32 pid)
{
	return (profiled[(pid / 64) % (PID_BITS / 64)] >> (pid % 64)) & 1;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_profile_vm);
} vms SEC(".maps");

/* The VM threads seen leaving the CPU, by tid; since 0 once back. Only
 * the profiled VM threads have an entry, updated in place. */
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

/* The profiled VM of the process, if the current thread runs it. */
static const struct lj_profile_vm *current_vm(__u32 pid, __u32 tid)
{
	const struct lj_profile_vm *vm;

	if (!maybe_profiled(pid))
		return 0;
	vm = bpf_map_lookup_elem(&vms, &pid);
	/* Only the thread that runs the VM has its frames (profile_walk.h). */
	return vm && (!vm->tid || vm->tid == tid) ? vm : 0;
}

/* Walks the current thread's Lua frames from its user registers, and
 * returns the stack to time them under (sent if new). */
static __u64 walk_current(const struct lj_profile_vm *vm, __u32 pid, __u32 tid, __u32 state)
{
	struct pt_regs___kernel *uregs;
	struct lj_profile_regs regs = {};
	struct lj_profile_sample *out;
	__u32 zero = 0;

	out = bpf_map_lookup_elem(&scratch, &zero);
	if (!out)
		return LJ_OFFCPU_NO_STACK;
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
	out->offcpu_state = state;
	return send_once(out);
}

static void switched_out(const struct task_struct *prev, __u64 preempt, __u64 prev_state)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 pid = id >> 32, tid = (__u32)id;
	const struct lj_profile_vm *vm = 0;
	struct lj_offcpu_away *away, fresh = {};

	if (!maybe_profiled(pid))
		return;
	/* An entry is kept from one period to the next; an exiting thread's
	 * goes, or threads come and go until the map has no room for the
	 * VM's. */
	if (prev_state & TASK_DEAD) {
		bpf_map_delete_elem(&off_since, &tid);
		return;
	}
	/* Only a VM thread has an entry: found, the VM is needed only to
	 * walk now. */
	away = bpf_map_lookup_elem(&off_since, &tid);
	if (!away || away->pid != pid || !walk_at_return) {
		vm = current_vm(pid, tid);
		if (!vm)
			return;
	}
	if (!away) {
		bpf_map_update_elem(&off_since, &tid, &fresh, BPF_NOEXIST);
		away = bpf_map_lookup_elem(&off_since, &tid);
		if (!away)
			return;
	}
	now = bpf_ktime_get_ns();
	away->pid = pid;
	/* Preempted, the task is still on the run queue whatever its state. */
	if (preempt || prev_state == 0) {
		away->woken = now;
		away->state = LJ_OFFCPU_RUNQUEUE;
	} else {
		away->woken = 0;
		away->state = LJ_OFFCPU_BLOCKED;
	}
	if (walk_at_return) {
		away->run_delay = prev->sched_info.run_delay;
		away->stack = LJ_OFFCPU_NO_STACK;
	} else if (vm) {
		away->stack = walk_current(vm, pid, tid, away->state);
	}
	/* Last: the wakeup and the return take a period by it. */
	away->since = now;
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

/* A period off the CPU of ns, runqueue of them waiting for a CPU, is
 * walked: always from period_ns on, else with probability ns / period_ns
 * (a 32-bit random fraction of period_ns, which the reader keeps below
 * 2^32). */
static int chosen(__u64 ns)
{
	return ns >= period_ns || (((__u64)bpf_get_prandom_u32() * period_ns) >> 32) < ns;
}

/* Adds a period off the CPU of ns to a stack: blocked, then woken and
 * waiting for a CPU runqueue ns, two times of one stack. A period shorter
 * than period_ns, walked with probability ns / period_ns, weighs
 * period_ns, split as it was. */
static void add_period(const struct lj_offcpu_away *away, __u64 stack, __u64 ns, __u64 runqueue)
{
	if (away->state == LJ_OFFCPU_RUNQUEUE || runqueue > ns)
		runqueue = ns;
	if (walk_at_return && ns && ns < period_ns) {
		runqueue = runqueue * period_ns / ns;
		ns = period_ns;
	}
	if (ns > runqueue)
		add_time(stack, away->pid, LJ_OFFCPU_BLOCKED, ns - runqueue);
	if (runqueue)
		add_time(stack, away->pid, LJ_OFFCPU_RUNQUEUE, runqueue);
}

/* Without sched_exit_tp: next, whose stack was walked as it left. */
static void switched_in(const struct task_struct *next, __u64 now)
{
	__u32 tid = (__u32)next->pid;
	struct lj_offcpu_away *away;

	if (!maybe_profiled((__u32)next->tgid))
		return;
	away = bpf_map_lookup_elem(&off_since, &tid);
	if (away && away->since) {
		add_period(away, away->stack, now - away->since,
			   away->woken ? now - away->woken : 0);
		away->since = 0;
	}
}

/* A blocked thread made runnable: from now on it waits for a CPU. Loaded
 * only without sched_exit_tp: at the return, the kernel's own sum of the
 * time the thread waited on a run queue says it (sched_info.run_delay,
 * added as it arrives on the CPU), with no program at every wakeup. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	__u32 tid = (__u32)p->pid;
	struct lj_offcpu_away *away;

	if (!maybe_profiled((__u32)p->tgid))
		return 0;
	away = bpf_map_lookup_elem(&off_since, &tid);
	if (away && away->since && !away->woken)
		away->woken = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, __u64 preempt, struct task_struct *prev, struct task_struct *next,
	     __u64 prev_state)
{
	/* The TASK_* bits are the low 32 of an unsigned int. */
	switched_out(prev, preempt & 0xff, prev_state & 0xffffffff);
	if (!walk_at_return)
		switched_in(next, bpf_ktime_get_ns());
	return 0;
}

/* The end of __schedule(), in the context of the thread that runs now: back on the CPU, a VM thread's period
 * off it is walked, or not (chosen()). Not loaded where the kernel has no
 * sched_exit_tp (walk_at_return 0). */
SEC("tp_btf/sched_exit_tp")
int BPF_PROG(on_return)
{
	__u64 id = bpf_get_current_pid_tgid(), ns, runqueue;
	__u32 pid = id >> 32, tid = (__u32)id;
	const struct lj_profile_vm *vm;
	struct lj_offcpu_away *away;

	if (!maybe_profiled(pid))
		return 0;
	away = bpf_map_lookup_elem(&off_since, &tid);
	if (!away || !away->since)
		return 0;
	ns = bpf_ktime_get_ns() - away->since;
	away->since = 0;
	if (!chosen(ns))
		return 0;
	vm = current_vm(pid, tid);
	if (!vm)
		return 0;
	runqueue = bpf_get_current_task_btf()->sched_info.run_delay - away->run_delay;
	add_period(away, walk_current(vm, pid, tid, away->state), ns, runqueue);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
