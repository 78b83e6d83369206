/*
 * What ljcore profile --off-cpu's BPF program (offcpu.bpf.c) and its reader
 * (analyzer/profile/offcpu_sampler.cpp) exchange besides the samples: why
 * a thread left the CPU, and the time off it summed in the kernel by
 * stack. Plain C, no libc, for both compilers.
 *
 * A walk of the thread's Lua frames (as it runs again, for the periods
 * off the CPU chosen; offcpu.bpf.c) hashes what the reader uses of it
 * (lj_profile_sample.offcpu_stack); the sample itself is sent only the
 * first time its stack is seen. The time off the CPU is
 * added up per stack, process and state in a map the reader drains: a
 * process that leaves the CPU 100 000 times a second from the same few
 * places sends a few samples, not 100 000.
 */
#ifndef LJCORE_LUAJIT_BPF_OFFCPU_EVENT_H
#define LJCORE_LUAJIT_BPF_OFFCPU_EVENT_H

#include "../types.h"

/* lj_profile_sample.offcpu_state. */
enum lj_offcpu_state {
	LJ_OFFCPU_ON_CPU = 0,   /* a sample of a running thread (profile.bpf.c) */
	LJ_OFFCPU_BLOCKED = 1,  /* it left the CPU to wait: prev_state != TASK_RUNNING */
	LJ_OFFCPU_RUNQUEUE = 2, /* preempted, still runnable: waiting for a CPU */
};

/* The offcpu_stack of a switch out whose stack the kernel's table of
 * stacks sent had no room for: its time is summed, its frames unknown. */
#define LJ_OFFCPU_NO_STACK 0

/* The key of the time summed: a stack of a process, in a state. */
struct lj_offcpu_key {
	u64 stack; /* lj_profile_sample.offcpu_stack, or LJ_OFFCPU_NO_STACK */
	u32 pid;
	u32 state; /* LJ_OFFCPU_BLOCKED or LJ_OFFCPU_RUNQUEUE */
};

/* The time summed under a key since the profile started: never reset, the
 * reader takes the difference from what it read last. */
struct lj_offcpu_time {
	u64 ns;
	u64 switches; /* the periods off the CPU walked and summed */
};

/* A VM thread off the CPU (by tid): since when (0: back on it), since
 * when it is runnable again (0: blocked still), and, walked as it left
 * (kernels without sched_exit_tp), where. */
struct lj_offcpu_away {
	u64 since; /* bpf_ktime_get_ns() */
	u64 woken;
	u64 stack;     /* lj_profile_sample.offcpu_stack */
	u64 run_delay; /* the task's sched_info.run_delay as it left */
	u32 state;     /* enum lj_offcpu_state at the switch out */
	u32 pid;
};

/* The record sent instead when the map of times is full. */
struct lj_offcpu_unsummed {
	struct lj_offcpu_key key;
	struct lj_offcpu_time time;
};

#endif
