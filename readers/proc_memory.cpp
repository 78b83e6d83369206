#include "readers/proc_memory.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ljcore {

Expected<std::unique_ptr<ProcMemory>> ProcMemory::open(int32_t pid)
{
	std::string path = "/proc/" + std::to_string(pid) + "/mem";
	// Read-only: the dying process is never written to.
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	return std::unique_ptr<ProcMemory>(new ProcMemory(fd));
}

ProcMemory::~ProcMemory()
{
	if (fd_ >= 0)
		close(fd_);
}

std::expected<const std::byte *, ReadMiss> ProcMemory::page(uint64_t addr) const
{
	const uint64_t number = addr / page_size;
	Page &p = cache_[number % cached_pages];
	if (p.number == number)
		return p.bytes.data();
	// A process's memory is readable a page at a time or not at all.
	ssize_t n = pread(fd_, p.bytes.data(), page_size, off_t(number * page_size));
	if (n != ssize_t(page_size)) {
		p.number = UINT64_MAX;
		return std::unexpected(
			ReadMiss{addr, n < 0 ? std::string("not readable in the process (") +
						       strerror(errno) + ")"
					     : "end of process memory"});
	}
	p.number = number;
	return p.bytes.data();
}

std::expected<void, ReadMiss> ProcMemory::read(uint64_t addr, std::span<std::byte> out) const
{
	size_t done = 0;
	while (done < out.size()) {
		const uint64_t at = addr + done;
		auto p = page(at);
		if (!p)
			return std::unexpected(p.error());
		const size_t offset = size_t(at % page_size);
		const size_t n = std::min(out.size() - done, size_t(page_size) - offset);
		std::memcpy(out.data() + done, *p + offset, n);
		done += n;
	}
	return {};
}

} // namespace ljcore
