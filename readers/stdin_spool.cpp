#include "readers/stdin_spool.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/inflate_buffer.h"

namespace ljcore {

namespace {

Expected<void> write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return fail(std::string("writing the copy: ") + strerror(errno));
		p += w;
		n -= size_t(w);
	}
	return {};
}

Expected<void> copy_stdin_to(int fd)
{
	std::vector<char> buf(size_t(1) << 20);
	uint64_t total = 0;
	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf.data(), buf.size());
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(std::string("reading: ") + strerror(errno));
		if (r == 0)
			return {};
		total += uint64_t(r);
		if (total > max_core_bytes)
			return fail("more than " + std::to_string(max_core_bytes >> 30) +
				    " GiB, larger than any core");
		if (auto w = write_all(fd, buf.data(), size_t(r)); !w)
			return w;
	}
}

} // namespace

Expected<void> spool_stdin()
{
	struct stat st;
	if (fstat(STDIN_FILENO, &st) != 0)
		return fail(std::string("standard input: ") + strerror(errno));
	if (S_ISREG(st.st_mode))
		return {};
	const char *env = getenv("TMPDIR");
	std::string dir = env && *env ? env : "/var/tmp";
	int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail("standard input: no unlinked temporary file in " + dir + ": " +
			    strerror(errno) + " (set TMPDIR to another directory)");
	auto copied = copy_stdin_to(fd);
	if (copied && dup2(fd, STDIN_FILENO) < 0)
		copied = fail(std::string("dup2: ") + strerror(errno));
	close(fd);
	if (!copied)
		return std::unexpected(copied.error().context("standard input"));
	return {};
}

} // namespace ljcore
