#include "cli/catch/install.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/catch/files.h"

namespace ljcore::catching {

namespace {

// The kernel keeps at most 127 bytes of core_pattern (CORENAME_MAX_SIZE).
constexpr size_t max_pattern = 127;

std::string handler_prefix(const std::string &dir)
{
	return " catch --handle=" + dir + " -- ";
}

bool is_ours(const std::string &pattern, const std::string &dir)
{
	return pattern.starts_with("|") && pattern.find(handler_prefix(dir)) != std::string::npos;
}

// mkdir -p, the last directory 0700; it must end up a directory of
// root's that no one else can write, not a symlink.
Expected<void> make_crash_dir(const std::string &dir)
{
	if (dir.empty() || dir[0] != '/')
		return fail("--dir " + dir + ": not an absolute path");
	for (size_t at = 1; at <= dir.size(); at++)
		if (at == dir.size() || dir[at] == '/') {
			std::string part = dir.substr(0, at);
			if (mkdir(part.c_str(), at == dir.size() ? 0700 : 0755) != 0 &&
			    errno != EEXIST)
				return fail(part + ": " + strerror(errno));
		}
	struct stat st;
	if (lstat(dir.c_str(), &st) != 0)
		return fail(dir + ": " + strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return fail(dir + ": must be a directory of root's that only root can write");
	return {};
}

Expected<void> replace_file(const std::string &dir, const char *name, const std::string &text)
{
	int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(dir + ": " + strerror(errno));
	unlinkat(fd, name, 0);
	auto r = write_new_file(fd, name, text);
	close(fd);
	return r;
}

} // namespace

std::string handler_pattern(const std::string &self, const std::string &dir,
			    const std::string &previous)
{
	std::string pattern = "|" + self + handler_prefix(dir) + "%P %p %s %c";
	if (previous.empty())
		return pattern;
	// The previous handler's own arguments, for the kernel to expand
	// with the same values it gives ljcore's.
	std::string rest = previous.starts_with("|") ? previous.substr(1) : previous;
	rest.erase(0, rest.find_first_not_of(' '));
	return pattern + " " + rest;
}

Expected<std::string> install(const Settings &settings, const std::string &self)
{
	if (geteuid() != 0)
		return fail("--install sets kernel.core_pattern: run it as root");
	auto current = read_kernel_settings();
	if (!current)
		return std::unexpected(current.error());
	if (current->core_pattern.find(" catch --handle=") != std::string::npos)
		return fail("ljcore catch is installed already (core_pattern '" +
			    current->core_pattern + "'): --uninstall it first");
	if (auto r = make_crash_dir(settings.dir); !r)
		return std::unexpected(r.error());
	bool chain = settings.chain && !current->core_pattern.empty();
	std::string pattern =
		handler_pattern(self, settings.dir, chain ? current->core_pattern : "");
	if (pattern.size() > max_pattern)
		return fail("core_pattern would be " + std::to_string(pattern.size()) +
			    " bytes, the kernel keeps " + std::to_string(max_pattern) +
			    ": a shorter --dir or ljcore path ('" + pattern + "')");
	if (auto r = replace_file(settings.dir, previous_file, previous_text(*current)); !r)
		return std::unexpected(r.error());
	if (auto r = replace_file(settings.dir, settings_file, settings_text(settings)); !r)
		return std::unexpected(r.error());
	// Non-zero: the kernel keeps /proc/PID for the handler until it
	// exits (and runs at most this many at once). systemd uses 16.
	std::string limit = current->core_pipe_limit == "0" ? "16" : current->core_pipe_limit;
	if (auto r = write_kernel_settings({pattern, limit}); !r) {
		write_kernel_settings(*current);
		return std::unexpected(r.error());
	}
	return pattern;
}

Expected<std::string> uninstall(const std::string &dir)
{
	if (geteuid() != 0)
		return fail("--uninstall sets kernel.core_pattern: run it as root");
	auto previous = read_previous(dir);
	if (!previous)
		return fail("nothing to restore: " + previous.error().message);
	auto current = read_kernel_settings();
	if (!current)
		return std::unexpected(current.error());
	if (!is_ours(current->core_pattern, dir))
		return fail("core_pattern is not ljcore catch's for " + dir + " ('" +
			    current->core_pattern + "'): left as it is");
	if (auto r = write_kernel_settings(*previous); !r)
		return std::unexpected(r.error());
	unlink((dir + "/" + previous_file).c_str());
	return previous->core_pattern;
}

} // namespace ljcore::catching
