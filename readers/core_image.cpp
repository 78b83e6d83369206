#include "readers/core_image.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/decoders.h"
#include "readers/stdin_spool.h"

namespace ljcore {

namespace {

struct Fd {
	int fd;
	~Fd()
	{
		if (fd >= 0)
			close(fd);
	}
};

// The file to map: the path, or for "-" standard input, made a regular
// file first.
Expected<int> open_input(const std::string &path)
{
	if (path != "-") {
		int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(path + ": " + strerror(errno));
		return fd;
	}
	if (auto r = spool_stdin(); !r)
		return std::unexpected(r.error());
	int fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return fail(std::string("standard input: ") + strerror(errno));
	return fd;
}

Expected<void> decode(Compression c, std::span<const std::byte> in, InflateBuffer &out)
{
	switch (c) {
	case Compression::zstd:
		return decode_zstd(in, out);
	case Compression::xz:
		return decode_xz(in, out);
	case Compression::lz4:
		return decode_lz4(in, out);
	case Compression::none:
		break;
	}
	return fail("not compressed");
}

} // namespace

CoreImage::~CoreImage()
{
	if (data_)
		munmap(data_, mapped_);
	if (fd_ >= 0)
		close(fd_);
}

void CoreImage::visit_data(uint64_t offset, uint64_t size,
			   const std::function<void(uint64_t, uint64_t)> &visit) const
{
	const uint64_t end = offset + size;
	if (fd_ < 0 || size == 0) {
		if (size)
			visit(offset, size);
		return;
	}
	// Each round moves past one hole at least: as many rounds as the
	// range has data extents, no more.
	for (uint64_t at = offset; at < end;) {
		off_t data = lseek(fd_, off_t(at), SEEK_DATA);
		if (data < 0) {
			// ENXIO: no data from here on. Anything else: the file
			// system cannot tell, so all of the rest.
			if (errno != ENXIO)
				visit(at, end - at);
			return;
		}
		if (uint64_t(data) >= end)
			return;
		off_t hole = lseek(fd_, data, SEEK_HOLE);
		uint64_t stop = hole < 0 ? end : std::min<uint64_t>(uint64_t(hole), end);
		if (stop <= uint64_t(data))
			stop = end;
		visit(uint64_t(data), stop - uint64_t(data));
		at = stop;
	}
}

Expected<std::unique_ptr<CoreImage>> CoreImage::open(const std::string &path)
{
	std::unique_ptr<CoreImage> img(new CoreImage());
	auto fd = open_input(path);
	if (!fd)
		return std::unexpected(fd.error());
	Fd f{*fd};
	struct stat st;
	if (fstat(f.fd, &st) != 0)
		return fail(path + ": " + strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(path + ": not a regular file");
	if (st.st_size == 0)
		return fail(path + ": empty file");
	void *file = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, f.fd, 0);
	if (file == MAP_FAILED)
		return fail(path + ": mmap: " + strerror(errno));
	std::span<const std::byte> bytes(static_cast<const std::byte *>(file), size_t(st.st_size));
	Compression compression = compression_of(bytes);
	if (compression == Compression::none) {
		img->data_ = static_cast<std::byte *>(file);
		img->size_ = img->mapped_ = bytes.size();
		img->fd_ = f.fd;
		f.fd = -1;
		return img;
	}
	InflateBuffer out(InflateBuffer::default_limit());
	auto decoded = decode(compression, bytes, out);
	munmap(file, bytes.size());
	if (!decoded)
		return std::unexpected(decoded.error().context(path));
	img->size_ = out.size();
	img->data_ = out.release(img->mapped_);
	img->decompressed_ = true;
	return img;
}

} // namespace ljcore
