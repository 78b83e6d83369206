/*
 * What ljcore profile --alloc's BPF program (alloc.bpf.c) and its reader
 * (analyzer/profile/alloc_sampler.cpp) exchange: the VM whose allocator is
 * probed, per process, and three kinds of record. Plain C, no libc.
 */
#ifndef LJCORE_LUAJIT_BPF_ALLOC_EVENT_H
#define LJCORE_LUAJIT_BPF_ALLOC_EVENT_H

#include "profile_sample.h"

/* Sampling intervals drawn from: userspace fills them with an exponential
 * distribution's quantiles, the program picks one at random. */
#define LJ_ALLOC_INTERVALS 1024

/* Stack copied with a sampled allocation: enough to find the return
 * address into a trace's machine code past the allocator and the
 * lj_mem_newgco()/lj_tab_new()/lj_str_new() frames above it. */
#define LJ_ALLOC_STACK_BYTES 2048

/* One per probed process, keyed by its tgid. */
struct lj_alloc_vm {
	struct lj_profile_vm vm;
	u64 allocd; /* g->allocd: tells this VM's calls from another's */
};

enum lj_alloc_kind {
	LJ_ALLOC_SAMPLED = 1, /* struct lj_alloc_sample: a sampled allocation */
	LJ_ALLOC_PLACED,      /* struct lj_alloc_note: where it was placed */
	LJ_ALLOC_FREED,       /* struct lj_alloc_note: a sampled block freed */
	LJ_ALLOC_UNTRACKED,   /* struct lj_alloc_note: no room to track it */
};

struct lj_alloc_note {
	u32 kind;
	u32 pid;
	u64 seq;  /* the sampled allocation's number */
	u64 addr; /* the block; 0 for an allocation that failed */
};

struct lj_alloc_sample {
	u32 kind;
	u32 pid;
	u64 seq;
	u64 size;  /* nsize: the bytes asked for */
	u64 osize; /* a realloc's old size, else 0 */
	/* The Lua stack, walked as a profile sample is; stack[] holds
	 * LJ_ALLOC_STACK_BYTES from the allocator's sp when readable. */
	struct lj_profile_sample s;
};

#endif
