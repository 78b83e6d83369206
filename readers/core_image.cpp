#include "readers/core_image.h"

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
