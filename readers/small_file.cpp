#include "readers/small_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ljcore {

Expected<std::string> read_small_file(const std::string &path, size_t max)
{
	int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	std::string text;
	char buf[4096];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			std::string why = strerror(errno);
			close(fd);
			return fail(path + ": " + why);
		}
		if (n == 0)
			break;
		if (text.size() + size_t(n) > max) {
			close(fd);
			return fail(path + ": larger than " + std::to_string(max) + " bytes");
		}
		text.append(buf, size_t(n));
	}
	close(fd);
	return text;
}

} // namespace ljcore
