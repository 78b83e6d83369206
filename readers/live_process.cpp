#include "readers/live_process.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sstream>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "readers/small_file.h"

namespace ljcore {

namespace {

// vm.max_map_count (65530) lines of a few hundred bytes at most.
constexpr size_t max_maps_bytes = 64 << 20;
// The arguments and environment exec takes (ARG_MAX, a quarter of an
// 8 MB stack limit); a process may write a longer one over its own.
constexpr size_t max_cmdline_bytes = 8 << 20;

std::vector<int32_t> list_tasks(int32_t pid)
{
	std::vector<int32_t> tids;
	std::string dir = "/proc/" + std::to_string(pid) + "/task";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return tids;
	while (dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			tids.push_back(int32_t(atoi(e->d_name)));
	closedir(d);
	// The main thread first, as a core would list the first thread.
	std::sort(tids.begin(), tids.end(), [pid](int32_t a, int32_t b) {
		return (a == pid) != (b == pid) ? a == pid : a < b;
	});
	return tids;
}

std::vector<ProcMapping> parse_maps(const std::string &text)
{
	std::vector<ProcMapping> out;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		ProcMapping m;
		char perms[8] = {};
		unsigned long long start, end, offset, inode;
		char dev[32];
		int path_at = 0;
		if (sscanf(line.c_str(), "%llx-%llx %7s %llx %31s %llu %n", &start, &end, perms,
			   &offset, dev, &inode, &path_at) < 6)
			continue;
		m.start = start;
		m.end = end;
		m.readable = perms[0] == 'r';
		m.writable = perms[1] == 'w';
		m.offset = offset;
		if (path_at > 0 && size_t(path_at) < line.size())
			m.path = line.substr(size_t(path_at));
		out.push_back(std::move(m));
	}
	return out;
}

} // namespace

ThreadRegs x86_64_thread_regs(const user_regs_struct &regs)
{
	// The layout of NT_PRSTATUS's pr_reg.
	return regs_from_prstatus(x86_64_arch, reinterpret_cast<const std::byte *>(&regs));
}

Expected<std::unique_ptr<LiveProcess>> LiveProcess::attach(int32_t pid)
{
	std::unique_ptr<LiveProcess> p(new LiveProcess());
	std::string proc = "/proc/" + std::to_string(pid);
	if (access(proc.c_str(), F_OK) != 0)
		return fail("process " + std::to_string(pid) + ": no such process");
	p->process_.pid = pid;
	p->process_.name = read_small_file(proc + "/comm").value_or("");
	if (!p->process_.name.empty() && p->process_.name.back() == '\n')
		p->process_.name.pop_back();
	std::string args = read_small_file(proc + "/cmdline", max_cmdline_bytes).value_or("");
	std::replace(args.begin(), args.end(), '\0', ' ');
	while (!args.empty() && args.back() == ' ')
		args.pop_back();
	p->process_.args = args;

	if (auto r = p->stop_threads(); !r)
		return std::unexpected(r.error());
	// Opened read-only: ljcore never writes to a live target.
	p->mem_fd_ = ::open((proc + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
	if (p->mem_fd_ < 0)
		return fail(proc + "/mem: " + strerror(errno));
	if (auto maps = read_small_file(proc + "/maps", max_maps_bytes))
		p->mappings_ = parse_maps(*maps);
	else
		p->diagnostics_.problem(maps.error().message);
	auto auxv_text = read_small_file(proc + "/auxv");
	if (!auxv_text)
		p->diagnostics_.problem(auxv_text.error().message);
	const std::string auxv = auxv_text.value_or("");
	auto auxv_bytes = std::as_bytes(std::span(auxv));
	p->auxv_.assign(auxv_bytes.begin(), auxv_bytes.end());
	return p;
}

Expected<void> LiveProcess::stop_threads()
{
	stopped_at_ = std::chrono::steady_clock::now();
	for (int32_t tid : list_tasks(process_.pid)) {
		if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
			if (errno == ESRCH)
				continue; // the thread exited meanwhile
			int err = errno;
			return fail("cannot ptrace thread " + std::to_string(tid) + ": " +
				    strerror(err) +
				    (err == EPERM ? " (needs the same user and "
						    "kernel.yama.ptrace_scope 0, or CAP_SYS_PTRACE)"
						  : ""));
		}
		stopped_.push_back({tid, 0});
		if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0)
			continue;
		// profile's SIGINT handler does not restart system calls: a
		// Ctrl-C here must not leave the interrupt to stop the thread
		// after it was let go.
		int status;
		pid_t waited;
		while ((waited = waitpid(tid, &status, __WALL)) < 0 && errno == EINTR) {
		}
		if (waited != tid) {
			diagnostics_.problem("thread " + std::to_string(tid) + " did not stop");
			continue;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			stopped_.pop_back(); // the thread exited meanwhile
			continue;
		}
		// A signal that came before the interrupt stops the thread in
		// its delivery (a stop of no PTRACE_EVENT): PTRACE_DETACH would
		// discard it unless it is given back.
		if (WIFSTOPPED(status) && (status >> 16) == 0)
			stopped_.back().signal = WSTOPSIG(status);
		user_regs_struct regs;
		iovec iov{&regs, sizeof regs};
		if (ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) != 0) {
			if (errno != ESRCH) // else killed meanwhile (SIGKILL needs no stop)
				diagnostics_.problem("registers of thread " + std::to_string(tid) +
						     ": " + strerror(errno));
			continue;
		}
		ThreadInfo t;
		t.tid = tid;
		t.regs = x86_64_thread_regs(regs);
		// The vector registers, for values a trace keeps in them.
		user_fpregs_struct fp;
		iovec fp_iov{&fp, sizeof fp};
		if (ptrace(PTRACE_GETREGSET, tid, NT_PRFPREG, &fp_iov) == 0)
			read_vector_regs(x86_64_arch, reinterpret_cast<const std::byte *>(&fp),
					 t.regs);
		threads_.push_back(t);
		auto raw = std::as_bytes(std::span(&regs, 1));
		raw_regs_.emplace_back(raw.begin(), raw.end());
	}
	if (threads_.empty())
		return fail("process " + std::to_string(process_.pid) +
			    ": no thread could be stopped");
	return {};
}

std::chrono::microseconds LiveProcess::resume()
{
	if (stopped_.empty())
		return paused_;
	for (const Stopped &t : stopped_)
		ptrace(PTRACE_DETACH, t.tid, nullptr, reinterpret_cast<void *>(intptr_t(t.signal)));
	stopped_.clear();
	paused_ = std::chrono::duration_cast<std::chrono::microseconds>(
		std::chrono::steady_clock::now() - stopped_at_);
	return paused_;
}

LiveProcess::~LiveProcess()
{
	resume();
	if (mem_fd_ >= 0)
		close(mem_fd_);
}

std::expected<void, ReadMiss> LiveProcess::read(uint64_t addr, std::span<std::byte> out) const
{
	size_t done = 0;
	while (done < out.size()) {
		ssize_t n =
			pread(mem_fd_, out.data() + done, out.size() - done, off_t(addr + done));
		if (n <= 0)
			return std::unexpected(ReadMiss{
				addr + done, n == 0 ? "end of process memory"
						    : std::string("not readable in the process (") +
							      strerror(errno) + ")"});
		done += size_t(n);
	}
	return {};
}

bool LiveProcess::writable(uint64_t addr) const
{
	// /proc/PID/maps lists the mappings in address order.
	auto m = std::ranges::upper_bound(mappings_, addr, {}, &ProcMapping::start);
	return m != mappings_.begin() && addr < std::prev(m)->end && std::prev(m)->writable;
}

void LiveProcess::visit_writable(const Visitor &visit) const
{
	constexpr size_t chunk = 16 << 20, overlap = 4096;
	std::vector<std::byte> buf;
	for (const ProcMapping &m : mappings_) {
		if (!m.writable || !m.readable)
			continue;
		for (uint64_t at = m.start; at < m.end;) {
			size_t n = size_t(std::min<uint64_t>(chunk, m.end - at));
			buf.resize(n);
			ssize_t got = pread(mem_fd_, buf.data(), n, off_t(at));
			if (got > 0)
				visit(at, std::span(buf.data(), size_t(got)));
			if (at + n >= m.end)
				break;
			at += n - overlap;
		}
	}
}

} // namespace ljcore
