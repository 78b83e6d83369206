#include "tests/fuzz/memfd_file.h"

#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

namespace ljcore::fuzz {

MemfdFile::MemfdFile(const uint8_t *data, size_t size)
{
	fd_ = memfd_create("ljcore-fuzz", MFD_CLOEXEC);
	// Without its input a harness tests nothing: stop loudly.
	if (fd_ < 0)
		abort();
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd_, data + done, size - done);
		if (n <= 0)
			abort();
		done += size_t(n);
	}
	path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemfdFile::~MemfdFile()
{
	close(fd_);
}

} // namespace ljcore::fuzz
