// The order matters: everything that needs root is opened first, the
// analysis runs in a forked child that drops it (sandbox.h) and is killed
// at the deadline, and only then is the core, still in the pipe, passed
// on. The parent never parses the process's memory.
#include "cli/catch/handler.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "cli/catch/crash_dir.h"
#include "cli/catch/crash_report.h"
#include "cli/catch/files.h"
#include "cli/catch/lua_presence.h"
#include "cli/catch/pass_on.h"
#include "cli/catch/sandbox.h"
#include "cli/render.h"

namespace ljcore::catching {

namespace {

// The headers and notes a core's head may hold at most: the notes grow
// with threads (a few KiB each), not with memory.
constexpr uint64_t max_head_bytes = 64 << 20;
// The address space of the sandboxed analysis.
constexpr rlim_t max_analysis_memory = rlim_t(4) << 30;

// The kernel starts a pipe handler with only stdin open: without this,
// the first files opened would become stdout and stderr.
void ensure_standard_fds()
{
	for (int fd = 1; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0) {
			int null = open("/dev/null", O_RDWR);
			if (null >= 0 && null != fd) {
				dup2(null, fd);
				close(null);
			}
		}
}

// One line on the kernel log, where a handler's messages belong (or
// stderr where /dev/kmsg cannot be written).
void log_line(const std::string &text, int level)
{
	std::string line = "<" + std::to_string(level) + ">ljcore catch: " + text + "\n";
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line.data(), line.size()) < 0)
		std::fprintf(stderr, "%s", line.c_str() + 3);
	if (fd >= 0)
		close(fd);
}
constexpr int log_warning = 4, log_info = 6;

// The ELF header, program headers and notes the kernel writes first,
// read from the pipe into head (the memory that follows is read from the
// process). What was read stays in head when it is not a core's: it is
// passed on all the same.
Expected<void> read_core_head(int fd, std::vector<std::byte> &head)
{
	// Reads the head up to end bytes, or says where the core ended.
	auto read_to = [&](uint64_t end, const char *where) -> Expected<void> {
		size_t had = head.size();
		head.resize(size_t(end));
		size_t done = had;
		while (done < head.size()) {
			ssize_t r = read(fd, head.data() + done, head.size() - done);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				head.resize(done);
				return fail(std::string("the core ends in its ") + where);
			}
			done += size_t(r);
		}
		return {};
	};
	if (auto r = read_to(sizeof(Elf64_Ehdr), "ELF header"); !r)
		return r;
	Elf64_Ehdr eh;
	std::memcpy(&eh, head.data(), sizeof eh);
	if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_type != ET_CORE || eh.e_phentsize != sizeof(Elf64_Phdr))
		return fail("not a 64-bit ELF core");
	if (eh.e_phnum == PN_XNUM)
		return fail("more program headers than the ELF header counts");
	uint64_t phdrs_end = eh.e_phoff + uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
	if (eh.e_phoff < sizeof eh || phdrs_end > max_head_bytes)
		return fail("program headers out of place");
	if (auto r = read_to(phdrs_end, "program headers"); !r)
		return r;
	uint64_t notes_end = phdrs_end;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		std::memcpy(&ph, head.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
		if (ph.p_type != PT_NOTE || ph.p_filesz > max_head_bytes ||
		    ph.p_offset > max_head_bytes)
			continue;
		notes_end = std::max(notes_end, ph.p_offset + ph.p_filesz);
	}
	if (notes_end > max_head_bytes)
		return fail("notes larger than " + std::to_string(max_head_bytes) + " bytes");
	return read_to(notes_end, "notes");
}

template <typename T> bool parse_number(const std::string &s, T &out)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && end == s.data() + s.size();
}

std::string first_line(std::string s)
{
	if (auto nl = s.find('\n'); nl != std::string::npos)
		s.resize(nl);
	return s;
}

// What the analysis needs, opened while root: the memfd with the core's
// head, /proc/PID/mem and the process's root directory.
struct Opened {
	int head_fd = -1;
	int root_fd = -1;
	std::unique_ptr<Memory> memory;
	~Opened()
	{
		if (head_fd >= 0)
			close(head_fd);
		if (root_fd >= 0)
			close(root_fd);
	}
};

Expected<void> open_for_analysis(int32_t host_pid, std::span<const std::byte> head, Opened &o)
{
	auto memory = open_process_memory(host_pid);
	if (!memory)
		return std::unexpected(memory.error());
	o.memory = std::move(*memory);
	std::string root = "/proc/" + std::to_string(host_pid) + "/root";
	o.root_fd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o.root_fd < 0)
		return fail(root + ": " + strerror(errno));
	o.head_fd = memfd_create("ljcore-core-head", MFD_CLOEXEC);
	if (o.head_fd < 0)
		return fail(std::string("memfd_create: ") + strerror(errno));
	if (write(o.head_fd, head.data(), head.size()) != ssize_t(head.size()))
		return fail(std::string("memfd: ") + strerror(errno));
	return {};
}

// Runs the analysis in a sandboxed child writing into out_dir; kills it
// at the deadline. Returns its exit status, or -1 (killed, crashed).
int analyze_in_child(const CrashFacts &facts, const Opened &o, int out_dir,
		     const Settings &settings, std::string &why)
{
	pid_t pid = fork();
	if (pid < 0) {
		why = std::string("fork: ") + strerror(errno);
		return -1;
	}
	if (pid == 0) {
		// Bounds the report's files and the analysis's memory, whatever
		// the dying process's memory makes it do.
		struct rlimit fsize = {settings.size_cap + (1 << 20),
				       settings.size_cap + (1 << 20)};
		struct rlimit as = {max_analysis_memory, max_analysis_memory};
		setrlimit(RLIMIT_FSIZE, &fsize);
		setrlimit(RLIMIT_AS, &as);
		signal(SIGXFSZ, SIG_IGN);
		if (auto r = enter_sandbox(); !r) {
			std::fprintf(stderr, "ljcore catch: %s\n", r.error().message.c_str());
			_exit(report_not_written);
		}
		std::string self = "/proc/self/fd/";
		_exit(write_crash_report(facts, self + std::to_string(o.head_fd),
					 self + std::to_string(o.root_fd), *o.memory, out_dir,
					 settings));
	}
	auto deadline =
		std::chrono::steady_clock::now() + std::chrono::seconds(settings.deadline_seconds);
	int status = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			why = std::string("waitpid: ") + strerror(errno);
			return -1;
		}
		if (std::chrono::steady_clock::now() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			why = "analysis stopped at the deadline (" +
			      std::to_string(settings.deadline_seconds) + " s)";
			return -1;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
	if (WIFSIGNALED(status)) {
		why = "analysis killed by " + signal_name(WTERMSIG(status)) +
		      (WTERMSIG(status) == SIGSYS ? " (a system call outside the sandbox)" : "");
		return -1;
	}
	return WEXITSTATUS(status);
}

} // namespace

int handle_crash(const std::string &dir, const std::vector<std::string> &args)
{
	ensure_standard_fds();
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	CrashFacts facts;
	facts.time = time(nullptr);
	uint64_t core_limit = 0;
	int signo = 0;
	if (args.size() < 4 || !parse_number(args[0], facts.host_pid) ||
	    !parse_number(args[1], facts.ns_pid) || !parse_number(args[2], signo) ||
	    !parse_number(args[3], core_limit) || facts.host_pid <= 0) {
		log_line("--handle wants the kernel's %P %p %s %c, not what it was given",
			 log_warning);
		return 64;
	}
	facts.signal = signo;
	const std::vector<std::string> chained(args.begin() + 4, args.end());
	const std::string proc = "/proc/" + std::to_string(facts.host_pid);
	facts.comm = first_line(read_small_file(proc + "/comm").value_or("?"));
	char exe[4096];
	ssize_t n = readlink((proc + "/exe").c_str(), exe, sizeof exe - 1);
	facts.exe = n > 0 ? std::string(exe, size_t(n)) : "?";
	const std::string who = facts.comm + "[" + std::to_string(facts.host_pid) + "]";

	Settings settings;
	if (auto s = read_settings(dir))
		settings = *s;
	else
		log_line(s.error().message + "; default settings", log_warning);

	// Most crashes on a machine are not LuaJIT's: those cost no analysis,
	// only what --chain and --keep-core ask for.
	const bool lua_maybe = may_hold_luajit(facts.host_pid);

	std::vector<std::byte> head_bytes;
	auto head = read_core_head(0, head_bytes);
	if (!head)
		log_line(who + ": " + head.error().message, log_warning);
	auto crashes = CrashDir::open(dir);
	if (!crashes)
		log_line(crashes.error().message, log_warning);

	// The analysis, into a temporary directory that is renamed when
	// complete or removed.
	std::string temp;
	bool lua = false;
	if (lua_maybe && head && crashes && crashes->admit(facts.exe, settings.rate, facts.time)) {
		Opened opened;
		int out_dir = -1;
		if (auto r = open_for_analysis(facts.host_pid, head_bytes, opened); !r) {
			log_line(who + ": " + r.error().message, log_warning);
		} else if (auto t = crashes->make_temp(sandbox_uid, sandbox_gid); !t) {
			log_line(t.error().message, log_warning);
		} else {
			temp = *t;
			out_dir = openat(crashes->fd(), temp.c_str(),
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (out_dir >= 0) {
			std::string why;
			int status = analyze_in_child(facts, opened, out_dir, settings, why);
			close(out_dir);
			lua = status == report_written;
			if (status == report_not_written)
				why = "the report could not be written (full disk?)";
			else if (status == report_unreadable)
				why = "the core's head could not be read";
			if (!why.empty())
				log_line(who + ": " + why, log_warning);
		}
	}

	// The core itself: to the previous handler, and into the crash's
	// directory as --keep-core says.
	std::vector<CoreSink *> sinks;
	ChainedProgram program;
	CoreSink file_sink, kept;
	if (settings.chain && !chained.empty()) {
		auto previous = read_previous(dir);
		if (!previous) {
			log_line(previous.error().message, log_warning);
		} else if (previous->core_pattern.starts_with("|")) {
			if (auto p = start_chained_program(chained)) {
				program = *p;
				sinks.push_back(&program.sink);
			} else {
				log_line(p.error().message, log_warning);
			}
		} else {
			std::string name;
			for (auto &a : chained)
				name += (name.empty() ? "" : " ") + a;
			bool has_pid = previous->core_pattern.find("%p") != std::string::npos;
			if (auto f = open_chained_file(name, has_pid, facts.host_pid, facts.ns_pid,
						       core_limit)) {
				file_sink = *f;
				if (file_sink.fd >= 0)
					sinks.push_back(&file_sink);
			} else {
				log_line(who + ": " + f.error().message, log_warning);
			}
		}
	}
	bool keep = head && (settings.keep_core == KeepCore::always ||
			     (settings.keep_core == KeepCore::lua && lua));
	if (keep && crashes && temp.empty()) {
		if (auto t = crashes->make_temp(0, 0))
			temp = *t;
	}
	if (keep && !temp.empty()) {
		int out_dir = openat(crashes->fd(), temp.c_str(),
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		kept.fd = out_dir < 0 ? -1
				      : openat(out_dir, "core",
					       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					       0600);
		if (out_dir >= 0)
			close(out_dir);
		if (kept.fd >= 0)
			sinks.push_back(&kept);
	}
	// With nowhere to go, the rest of the core is not read: the kernel
	// stops writing it at once and reaps the process sooner.
	if (!sinks.empty())
		pass_core(head_bytes, 0, sinks);
	for (CoreSink *s : sinks)
		close(s->fd);
	if (program.pid > 0)
		waitpid(program.pid, nullptr, 0);
	if (kept.failed)
		log_line(who + ": the core could not be kept (full disk?)", log_warning);

	if (temp.empty() || !crashes)
		return 0;
	if (!lua && !(keep && kept.fd >= 0 && !kept.failed)) {
		remove_crash_dir(crashes->fd(), temp);
		return 0;
	}
	const std::string name = utc_stamp(facts.time) + "-" + file_name_safe(facts.comm) + "-" +
				 std::to_string(facts.host_pid);
	auto published = crashes->publish(temp, name);
	if (!published) {
		log_line(published.error().message, log_warning);
		remove_crash_dir(crashes->fd(), temp);
		return 0;
	}
	crashes->enforce_quota(settings.quota, *published);
	log_line(who + " " + signal_name(facts.signal) + ": " + dir + "/" + *published, log_info);
	return 0;
}

} // namespace ljcore::catching
