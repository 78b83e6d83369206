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
#include "request_tag.bpf.h"

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

/* --native: the user registers, and as much of the stack above sp as can
 * be read. */
static void copy_native(const struct pt_regs *uregs, struct lj_profile_sample *out)
{
	__u64 sp = uregs->rsp;

	out->regs[0] = uregs->rax;
	out->regs[1] = uregs->rdx;
	out->regs[2] = uregs->rcx;
	out->regs[3] = uregs->rbx;
	out->regs[4] = uregs->rsi;
	out->regs[5] = uregs->rdi;
	out->regs[6] = uregs->rbp;
	out->regs[7] = sp;
	out->regs[8] = uregs->r8;
	out->regs[9] = uregs->r9;
	out->regs[10] = uregs->r10;
	out->regs[11] = uregs->r11;
	out->regs[12] = uregs->r12;
	out->regs[13] = uregs->r13;
	out->regs[14] = uregs->r14;
	out->regs[15] = uregs->r15;
	out->regs[16] = uregs->rip;
	copy_stack(out, sp, LJ_PROFILE_STACK_BYTES);
}

/* The process's user registers, from the frame saved when the task
 * entered the kernel (task_pt_regs(); its layout is the UAPI's struct
 * pt_regs on x86_64). For a sample taken in user mode they are the
 * sample's own registers, saved by the timer's interrupt; for one taken in
 * the kernel (a system call, a page fault) the sample's registers are the
 * kernel's, and walking from memory alone would start from an L->base the
 * interpreter may not have stored yet. One source for both: the verifier
 * refuses an instruction that reads through two kinds of pointer. */
static const struct pt_regs *user_regs(void)
{
	return (const struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

SEC("perf_event")
int sample_lua(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	const struct lj_profile_vm *vm = bpf_map_lookup_elem(&vms, &pid);
	const struct pt_regs *uregs;
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
	uregs = user_regs();
	regs.user = 1;
	regs.ip = uregs->rip;
	regs.sp = uregs->rsp;
	regs.rdx = uregs->rdx;
	regs.rbx = uregs->rbx;
	walk_sample(vm, &regs, out);
	tag_request(pid, out);
	if (vm->native)
		copy_native(uregs, out);
	else if (out->jit_base)
		copy_stack(out, regs.sp, LJ_PROFILE_TRACE_STACK_BYTES);
	bpf_ringbuf_submit(out, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
