/*
 * What ljcore profile --off-cpu's BPF program (offcpu.bpf.c) and its reader
 * (analyzer/profile/offcpu_sampler.cpp) exchange besides the samples: why
 * a thread left the CPU, and the record of its return. Plain C, no libc,
 * for both compilers.
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

/* A thread whose switch out was sampled runs again: the sample (sent at
 * the switch out) weighs the ns between, of which the last runqueue_ns it
 * spent woken, on the run queue (all of them when it was preempted). */
struct lj_offcpu_resume {
	u32 tid;
	u32 pad;
	u64 ns;
	u64 runqueue_ns;
};

#endif
