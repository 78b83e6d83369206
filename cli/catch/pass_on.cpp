#include "cli/catch/pass_on.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/catch/files.h"

extern char **environ;

namespace ljcore::catching {

namespace {

// The dumping thread's fsuid and fsgid (fourth of /proc/PID/status's
// Uid: and Gid: lines): the kernel creates the core file as them.
std::pair<uid_t, gid_t> fs_ids(int32_t pid)
{
	uid_t uid = 0;
	gid_t gid = 0;
	auto status = read_small_file("/proc/" + std::to_string(pid) + "/status");
	if (!status)
		return {uid, gid};
	std::istringstream in(*status);
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream f(line);
		std::string key;
		unsigned long ids[4];
		if (!(f >> key >> ids[0] >> ids[1] >> ids[2] >> ids[3]))
			continue;
		if (key == "Uid:")
			uid = uid_t(ids[3]);
		else if (key == "Gid:")
			gid = gid_t(ids[3]);
	}
	return {uid, gid};
}

void write_sink(CoreSink &s, const std::byte *data, size_t n)
{
	if (s.failed || s.written >= s.limit)
		return;
	n = size_t(std::min<uint64_t>(n, s.limit - s.written));
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(s.fd, data + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s.failed = true;
			return;
		}
		done += size_t(w);
	}
	s.written += n;
}

} // namespace

Expected<ChainedProgram> start_chained_program(const std::vector<std::string> &argv)
{
	if (argv.empty() || argv[0].empty() || argv[0][0] != '/')
		return fail("chained handler: not an absolute path");
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return fail(std::string("pipe: ") + strerror(errno));
	std::vector<char *> args;
	for (auto &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fail(std::string("fork: ") + strerror(errno));
	}
	if (pid == 0) {
		// As the kernel starts a handler: the core on stdin, cwd /.
		dup2(fds[0], 0);
		if (chdir("/") != 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execve(args[0], args.data(), environ);
		_exit(127);
	}
	close(fds[0]);
	return ChainedProgram{pid, CoreSink{fds[1]}};
}

Expected<CoreSink> open_chained_file(const std::string &name, bool pattern_has_pid,
				     int32_t host_pid, int32_t ns_pid, uint64_t core_limit)
{
	// The kernel writes no core under a limit smaller than a page
	// (binfmt_elf's min_coredump).
	if (core_limit < 4096)
		return CoreSink{-1, 0, 0, true};
	std::string file = name;
	if (!pattern_has_pid) {
		auto uses_pid = read_small_file("/proc/sys/kernel/core_uses_pid");
		if (uses_pid && uses_pid->starts_with("1"))
			file += "." + std::to_string(ns_pid);
	}
	// As the dying process opens it: from its cwd, or its root.
	std::string proc = "/proc/" + std::to_string(host_pid);
	std::string path = file[0] == '/' ? proc + "/root" + file : proc + "/cwd/" + file;
	unlink(path.c_str());
	int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	auto [uid, gid] = fs_ids(host_pid);
	if (fchown(fd, uid, gid) != 0) {
		std::string why = strerror(errno);
		close(fd);
		return fail(path + ": chown: " + why);
	}
	return CoreSink{fd, core_limit};
}

void pass_core(std::span<const std::byte> head, int in_fd, std::vector<CoreSink *> sinks)
{
	for (CoreSink *s : sinks)
		write_sink(*s, head.data(), head.size());
	std::vector<std::byte> buf(1 << 20);
	for (;;) {
		ssize_t n = read(in_fd, buf.data(), buf.size());
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (CoreSink *s : sinks)
			write_sink(*s, buf.data(), size_t(n));
	}
}

} // namespace ljcore::catching
