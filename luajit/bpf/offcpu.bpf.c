/*
 * ljcore profile --off-cpu: at each scheduler switch (tp_btf/sched_switch)
 * of a profiled process's VM thread, walk the Lua frames it leaves the CPU
 * in with the shared sample walk (luajit/profile_walk.h, as profile.bpf.c
 * does for a CPU sample) and send them at once; when it runs again, send
 * how long it was away, and how much of that it spent woken, waiting for
 * a CPU (since sched_wakeup). Userspace pairs the two by thread: a
 * sample's weight is the time off the CPU, blocked and on the run queue.
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
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

/* The kernel's own types, relocated against its BTF (CO-RE): the fields
 * read, under their kernel names. The ___ suffix keeps them apart from the
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

/* A thread off the CPU whose switch out was sent: since when, and since
 * when it is runnable again (0: blocked still). */
struct away {
	__u64 since;
	__u64 woken;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct away);
} off_since SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 25);
} samples SEC(".maps");

/* Wake the reader only when this much is waiting: a wakeup per switch
 * would double the switches of the process profiled. Userspace also
 * reads the ring on its own, a few times a second. */
#define WAKE_BYTES (1 << 22)

static __u64 wakeup_flag(void)
{
	return bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= WAKE_BYTES ? BPF_RB_FORCE_WAKEUP
									    : BPF_RB_NO_WAKEUP;
}

static void switched_out(__u64 preempt, __u64 prev_state, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id;
	const struct lj_profile_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	struct pt_regs___kernel *uregs;
	struct lj_profile_regs regs = {};
	struct away away = {now, 0};
	struct lj_profile_sample *out;

	/* Only the thread that runs the VM has its frames (profile_walk.h). */
	if (!vm || (vm->tid && vm->tid != tid) || (prev_state & TASK_DEAD))
		return;
	out = bpf_ringbuf_reserve(&samples, sizeof *out, 0);
	if (!out) {
		count_lost();
		return;
	}
	out->pid = pid;
	out->tid = tid;
	uregs = (struct pt_regs___kernel *)bpf_task_pt_regs(bpf_get_current_task_btf());
	regs.user = 1;
	regs.ip = BPF_CORE_READ(uregs, ip);
	regs.sp = BPF_CORE_READ(uregs, sp);
	regs.rdx = BPF_CORE_READ(uregs, dx);
	regs.rbx = BPF_CORE_READ(uregs, bx);
	walk_sample(vm, &regs, out);
	tag_request(pid, out);
	if (out->jit_base)
		copy_stack(out, regs.sp, LJ_PROFILE_TRACE_STACK_BYTES);
	/* Preempted, the task is still on the run queue whatever its state. */
	if (preempt || prev_state == 0)
		away.woken = now;
	out->offcpu_state = away.woken ? LJ_OFFCPU_RUNQUEUE : LJ_OFFCPU_BLOCKED;
	out->offcpu_since = now;
	out->offcpu_ns = 0;
	bpf_ringbuf_submit(out, wakeup_flag());
	bpf_map_update_elem(&off_since, &tid, &away, BPF_ANY);
}

static void switched_in(__u32 tid, __u64 now)
{
	struct away *away = bpf_map_lookup_elem(&off_since, &tid);
	struct lj_offcpu_resume *out;

	if (!away)
		return;
	out = bpf_ringbuf_reserve(&samples, sizeof *out, 0);
	if (out) {
		out->tid = tid;
		out->pad = 0;
		out->ns = now - away->since;
		out->runqueue_ns = away->woken ? now - away->woken : 0;
		bpf_ringbuf_submit(out, wakeup_flag());
	} else {
		count_lost();
	}
	bpf_map_delete_elem(&off_since, &tid);
}

/* A blocked thread made runnable: from now on it waits for a CPU. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	__u32 tid = (__u32)BPF_CORE_READ(p, pid);
	struct away *away = bpf_map_lookup_elem(&off_since, &tid);

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
	switched_in((__u32)BPF_CORE_READ(next, pid), now);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
