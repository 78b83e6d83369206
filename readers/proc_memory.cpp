#include "readers/proc_memory.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ljcore {

Expected<ProcMemory> ProcMemory::open(int32_t pid)
{
	std::string path = "/proc/" + std::to_string(pid) + "/mem";
	// Read-only: the dying process is never written to.
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	return ProcMemory(fd);
}

ProcMemory::~ProcMemory()
{
	if (fd_ >= 0)
		close(fd_);
}

std::expected<void, ReadMiss> ProcMemory::read(uint64_t addr, std::span<std::byte> out) const
{
	size_t done = 0;
	while (done < out.size()) {
		ssize_t n = pread(fd_, out.data() + done, out.size() - done, off_t(addr + done));
		if (n <= 0)
			return std::unexpected(ReadMiss{
				addr + done, n == 0 ? "end of process memory"
						    : std::string("not readable in the process (") +
							      strerror(errno) + ")"});
		done += size_t(n);
	}
	return {};
}

} // namespace ljcore
