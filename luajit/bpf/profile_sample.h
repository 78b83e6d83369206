/*
 * What the profiler's samplers (the BPF program profile.bpf.c, and the
 * userspace one, analyzer/profile/user_sampler.cpp) and their reader
 * (analyzer/profile/profiler.cpp) exchange: the VM to walk per process,
 * and one record per sample. Plain C, no libc, for both compilers.
 */
#ifndef LJCORE_LUAJIT_BPF_PROFILE_SAMPLE_H
#define LJCORE_LUAJIT_BPF_PROFILE_SAMPLE_H

#include "../layout.h"
#include "request_sample.h"

/* Lua frames walked per sample; a deeper stack is marked truncated. */
#define LJ_PROFILE_MAX_FRAMES 512

/* --native: the user registers (x86_64 DWARF numbers 0-16: rax, rdx, rcx,
 * rbx, rsi, rdi, rbp, rsp, r8-r15, rip) and up to this much of the user
 * stack from sp, which userspace unwinds as perf --call-graph=dwarf does. */
#define LJ_PROFILE_NREGS 17
#define LJ_PROFILE_STACK_BYTES 8192
/* In a trace, or in a helper it called (g->jit_base set), this much of
 * the user stack: the helper's frames are below the trace's return
 * address, which the snapshot covering it is found by. */
#define LJ_PROFILE_TRACE_STACK_BYTES 2048

/* One per profiled process, keyed by its tgid. */
struct lj_profile_vm {
	struct lj_layout layout; /* its name pointer is not used */
	u64 g;                   /* global_State * */
	u32 tid;                 /* the thread that runs the VM, 0: any */
	u32 native;              /* copy registers and stack for --native */
};

/* struct lj_frame less what naming does not need. */
struct lj_profile_frame {
	u64 func;     /* GCfunc * */
	u64 pc;       /* bytecode pc, 0 if unknown */
	u64 slot;     /* the frame's link slot */
	u64 prevslot; /* the frame it links to: its caller's, when named by it */
};

enum lj_profile_source {
	LJ_PROFILE_NO_VM = 0,    /* no VM configured for the process */
	LJ_PROFILE_OTHER_THREAD, /* a thread of the process that does not run the VM */
	LJ_PROFILE_WALKED,       /* frames walked, see status */
	LJ_PROFILE_NO_STATE,     /* g->cur_L or g->vmstate unreadable */
	/* Userspace sampler only (a CPU-clock event never fires for them): */
	LJ_PROFILE_OFF_CPU,     /* the VM's thread was not running */
	LJ_PROFILE_NOT_STOPPED, /* --blocking: the thread did not stop in time */
	/* Off-CPU sampler only: */
	LJ_PROFILE_TOO_MANY_STACKS, /* the kernel's table of stacks was full */
};

/* Where a sample's walk started. In the interpreter, from its registers;
 * when their first frame link did not hold, from the frame BASE returns
 * to or from L->base, whichever's does (../profile_walk.h). */
enum lj_profile_start {
	LJ_PROFILE_FROM_STATE = 0, /* L->base, or g->jit_base in a trace */
	LJ_PROFILE_FROM_REGS,      /* the interpreter's BASE and PC */
	LJ_PROFILE_FROM_RETURN,    /* the frame PC returns to, with PC */
	LJ_PROFILE_FROM_L_BASE,    /* L->base, with PC */
};

struct lj_profile_sample {
	u32 pid;
	u32 tid;
	u32 source;  /* enum lj_profile_source */
	s32 status;  /* enum lj_walk_status of the walk: LJ_WALK_END when whole */
	s32 vmstate; /* g->vmstate */
	u32 nframes;
	u32 truncated; /* deeper than LJ_PROFILE_MAX_FRAMES */
	u32 start;     /* enum lj_profile_start: where the walk started */
	u64 ip;        /* the user pc at the sample */
	u64 ret;       /* the word at the user sp: the return address of a leaf
			* helper a trace called (lj_vm_modi, ...) */
	u64 L;         /* the coroutine walked */
	u64 bad_addr;  /* where a failed walk could not read */
	u64 cframe;    /* L->cframe, for placing the Lua frames among native ones */
	u64 jit_base;  /* g->jit_base: nonzero in a trace or what it called */
	struct lj_profile_frame frames[LJ_PROFILE_MAX_FRAMES];
	/* --native, or LJ_PROFILE_TRACE_STACK_BYTES of it with jit_base set:
	 * stack_len 0 when nothing could be copied. */
	u64 regs[LJ_PROFILE_NREGS];
	u32 stack_len;
	u32 pad;
	u8 stack[LJ_PROFILE_STACK_BYTES];
	/* request */
	struct lj_profile_request request; /* nginx: the coroutine's request */
	/* off-CPU (offcpu.bpf.c; offcpu_event.h): a thread leaving the CPU. */
	u32 offcpu_state;    /* enum lj_offcpu_state: 0, a sample on the CPU */
	u32 offcpu_switches; /* the times off the CPU it weighs: set by userspace */
	u64 offcpu_stack;    /* the hash offcpu.bpf.c sums the time under */
	u64 offcpu_ns;       /* how long they were: set by userspace */
};

#endif
