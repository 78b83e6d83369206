#include "analyzer/profile/remote_walk.h"

#include <sys/uio.h>

namespace ljcore {
namespace {

// LJ_READ of the shared walk: ctx points at the pid whose memory it reads.
int read_remote(void *ctx, void *dst, uint64_t addr, size_t size)
{
	pid_t pid = *static_cast<const pid_t *>(ctx);
	iovec local{dst, size};
	iovec remote{reinterpret_cast<void *>(addr), size};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == ssize_t(size) ? 0 : -1;
}

} // namespace
} // namespace ljcore

#define LJ_READ(ctx, dst, addr, size) ljcore::read_remote(ctx, dst, addr, size)
#include "luajit/nginx_request.h"
#include "luajit/profile_walk.h"

namespace ljcore {

void walk_remote(int32_t pid, int32_t tid, const lj_profile_vm &vm, const lj_nginx_offsets &nginx,
		 const WalkRegs &regs, bool trace_stack, lj_profile_sample &out)
{
	out.pid = uint32_t(pid);
	out.tid = uint32_t(tid);
	out.request.status = LJ_REQUEST_NONE;
	lj_profile_regs r{regs.ip, regs.sp, regs.rdx, regs.rbx, regs.user, 0};
	lj_walk w{};
	uint32_t copied = out.stack_len; // lj_profile_begin() clears it
	if (lj_profile_begin(&pid, &vm, &r, &out, &w)) {
		for (uint32_t i = 0; !lj_profile_step(&pid, &vm, &w, &out, i); i++) {
		}
		lj_profile_end(&w, &out);
	}
	out.stack_len = copied;
	if (out.source == LJ_PROFILE_WALKED)
		lj_request_read(&pid, &nginx, out.L, &out.request);
	// A helper a trace called is left by the trace's return address, up
	// the stack.
	if (trace_stack && !copied && out.jit_base)
		copy_remote_stack(pid, regs.sp, LJ_PROFILE_TRACE_STACK_BYTES, out);
}

void copy_remote_stack(int32_t pid, uint64_t sp, uint32_t bytes, lj_profile_sample &out)
{
	iovec local{out.stack, bytes};
	iovec remote{reinterpret_cast<void *>(sp), bytes};
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	out.stack_len = n > 0 ? uint32_t(n) : 0;
}

} // namespace ljcore
