#include "cli/catch/sandbox.h"

#include <cerrno>
#include <cstring>
#include <grp.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace ljcore::catching {

namespace {

// What reading the process, libdw and writing the report need: file
// reads and the new files' writes, memory, locks between threads, time.
// No execve, no socket, no ptrace, no process creation, no chown or
// chmod, no kill. README.md lists them too: keep the two the same.
constexpr int allowed[] = {
	SCMP_SYS(read),         SCMP_SYS(pread64),   SCMP_SYS(readv),      SCMP_SYS(write),
	SCMP_SYS(writev),       SCMP_SYS(openat),    SCMP_SYS(close),      SCMP_SYS(fstat),
	SCMP_SYS(newfstatat),   SCMP_SYS(statx),     SCMP_SYS(lseek),      SCMP_SYS(readlink),
	SCMP_SYS(readlinkat),   SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(access),
	SCMP_SYS(getdents64),   SCMP_SYS(fcntl),     SCMP_SYS(unlinkat),   SCMP_SYS(mmap),
	SCMP_SYS(munmap),       SCMP_SYS(mremap),    SCMP_SYS(mprotect),   SCMP_SYS(madvise),
	SCMP_SYS(brk),          SCMP_SYS(futex),     SCMP_SYS(getrandom),  SCMP_SYS(clock_gettime),
	SCMP_SYS(gettimeofday), SCMP_SYS(getpid),    SCMP_SYS(gettid),     SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(exit),      SCMP_SYS(exit_group), SCMP_SYS(uname),
};

} // namespace

Expected<void> enter_sandbox()
{
	// Groups, then gid, then uid: once the uid is gone so is the right to
	// change the others.
	if (setgroups(0, nullptr) != 0)
		return fail(std::string("setgroups: ") + strerror(errno));
	if (setresgid(sandbox_gid, sandbox_gid, sandbox_gid) != 0)
		return fail(std::string("setresgid: ") + strerror(errno));
	if (setresuid(sandbox_uid, sandbox_uid, sandbox_uid) != 0)
		return fail(std::string("setresuid: ") + strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return fail(std::string("PR_SET_NO_NEW_PRIVS: ") + strerror(errno));
	scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!filter)
		return fail("seccomp_init failed");
	for (int call : allowed)
		if (int r = seccomp_rule_add(filter, SCMP_ACT_ALLOW, call, 0); r != 0) {
			seccomp_release(filter);
			return fail(std::string("seccomp_rule_add: ") + strerror(-r));
		}
	int r = seccomp_load(filter);
	seccomp_release(filter);
	if (r != 0)
		return fail(std::string("seccomp_load: ") + strerror(-r));
	return {};
}

} // namespace ljcore::catching
