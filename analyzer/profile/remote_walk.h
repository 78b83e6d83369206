// The shared sample walk (luajit/profile_walk.h) from userspace, reading
// another process's memory with process_vm_readv: each sample of the
// userspace backend, and --off-cpu's walk of a thread still off the CPU
// when the profile ends (offcpu_sampler.cpp).
#pragma once

#include <cstdint>

#include "luajit/bpf/profile_sample.h"

namespace ljcore {

// What the walk's start needs of the thread's registers (lj_profile_regs,
// luajit/profile_walk.h: the interpreter's BASE in rdx, its PC in rbx).
struct WalkRegs {
	uint64_t ip = 0, sp = 0, rdx = 0, rbx = 0;
	bool user = false; // these are the thread's user registers
};

// Walks thread tid of pid into out from regs (none known: the walk starts
// from the VM's state in memory), with the request its coroutine
// serves (nginx's L_exdata 0: none). trace_stack: in a trace, also copies
// the stack above regs.sp, where the trace's return address is, as the BPF
// program does. out.stack_len is left alone otherwise.
void walk_remote(int32_t pid, int32_t tid, const lj_profile_vm &vm, const lj_nginx_offsets &nginx,
		 const WalkRegs &regs, bool trace_stack, lj_profile_sample &out);

// Up to bytes of pid's stack from sp into out.stack; out.stack_len says how
// many could be read (a read past the stack's top stops there).
void copy_remote_stack(int32_t pid, uint64_t sp, uint32_t bytes, lj_profile_sample &out);

} // namespace ljcore
