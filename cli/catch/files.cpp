#include "cli/catch/files.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ljcore::catching {

Expected<void> write_new_file(int dirfd, const std::string &name, std::span<const std::byte> bytes)
{
	int fd = openat(dirfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0)
		return fail(name + ": " + strerror(errno));
	size_t done = 0;
	while (done < bytes.size()) {
		ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			std::string why = n < 0 ? strerror(errno) : "short write";
			close(fd);
			unlinkat(dirfd, name.c_str(), 0);
			return fail(name + ": " + why);
		}
		done += size_t(n);
	}
	if (close(fd) != 0) {
		std::string why = strerror(errno);
		unlinkat(dirfd, name.c_str(), 0);
		return fail(name + ": " + why);
	}
	return {};
}

Expected<void> write_new_file(int dirfd, const std::string &name, std::string_view text)
{
	return write_new_file(dirfd, name, std::as_bytes(std::span(text.data(), text.size())));
}

Expected<void> write_existing_file(const std::string &path, std::string_view text)
{
	int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	ssize_t n = write(fd, text.data(), text.size());
	std::string why = n < 0 ? strerror(errno) : "short write";
	close(fd);
	if (n != ssize_t(text.size()))
		return fail(path + ": " + why);
	return {};
}

namespace {

// Calls each(entry name) for the files in the crash directory name.
template <typename F> void each_file(int dirfd, const std::string &name, F each)
{
	int fd = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while (dirent *e = readdir(d))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			each(::dirfd(d), e->d_name);
	closedir(d);
}

} // namespace

void remove_crash_dir(int dirfd, const std::string &name)
{
	each_file(dirfd, name, [](int fd, const char *file) { unlinkat(fd, file, 0); });
	unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

uint64_t crash_dir_bytes(int dirfd, const std::string &name)
{
	uint64_t total = 0;
	each_file(dirfd, name, [&](int fd, const char *file) {
		struct stat st;
		if (fstatat(fd, file, &st, AT_SYMLINK_NOFOLLOW) == 0)
			total += uint64_t(st.st_blocks) * 512;
	});
	return total;
}

} // namespace ljcore::catching
