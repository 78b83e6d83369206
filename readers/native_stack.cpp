#include "readers/native_stack.h"

#include "readers/dwfl_files.h"
#include "readers/dwfl_report.h"
#include "readers/given_frame.h"

namespace ljcore {

Expected<std::unique_ptr<NativeSession>> NativeSession::open_core(const ElfCore &core)
{
	std::unique_ptr<NativeSession> s(new NativeSession());
	s->arch_ = core.arch();
	s->target_ = &core;
	s->core_ = &core;
	s->dwfl_ = dwfl_begin(&core_dwfl_callbacks);
	if (!s->dwfl_)
		return fail(std::string("dwfl_begin: ") + dwfl_errmsg(-1));
	if (auto r = report_modules(s->dwfl_, core, &core); !r)
		return std::unexpected(r.error());
	// A core's head holds no stack: its threads are unwound from their
	// registers over the target's memory (unwind_from), not by libdwfl.
	if (core.head_only())
		s->from_registers_ = true;
	else if (dwfl_core_file_attach(s->dwfl_, core.elf()) < 0)
		s->attach_error_ = dwfl_errmsg(-1);
	else
		s->attached_ = true;
	return s;
}

Expected<std::unique_ptr<NativeSession>> NativeSession::open_live(const LiveProcess &process)
{
	std::unique_ptr<NativeSession> s(new NativeSession());
	s->arch_ = process.arch();
	s->target_ = &process;
	pid_t pid = process.process().pid;
	s->dwfl_ = dwfl_begin(&live_dwfl_callbacks);
	if (!s->dwfl_)
		return fail(std::string("dwfl_begin: ") + dwfl_errmsg(-1));
	if (auto r = report_modules(s->dwfl_, process, nullptr); !r)
		return std::unexpected(r.error());
	// LiveProcess already holds every thread ptrace-stopped.
	if (dwfl_linux_proc_attach(s->dwfl_, pid, true) != 0)
		s->attach_error_ = dwfl_errmsg(-1);
	else
		s->attached_ = true;
	return s;
}

Expected<std::unique_ptr<NativeSession>> NativeSession::open_modules(int32_t pid)
{
	std::unique_ptr<NativeSession> s(new NativeSession());
	s->dwfl_ = dwfl_begin(&live_dwfl_callbacks);
	if (!s->dwfl_)
		return fail(std::string("dwfl_begin: ") + dwfl_errmsg(-1));
	dwfl_report_begin(s->dwfl_);
	// Reads /proc/PID/maps only: no ptrace.
	if (dwfl_linux_proc_report(s->dwfl_, pid) != 0 ||
	    dwfl_report_end(s->dwfl_, nullptr, nullptr) != 0)
		return fail("process " + std::to_string(pid) +
			    ": reporting modules: " + dwfl_errmsg(-1));
	s->attach_error_ = "the process is not stopped";
	return s;
}

NativeSession::~NativeSession()
{
	if (sample_dwfl_)
		dwfl_end(sample_dwfl_);
	if (dwfl_)
		dwfl_end(dwfl_);
}

} // namespace ljcore
