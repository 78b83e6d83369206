#include "readers/core_image.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

namespace ljcore {

namespace {

constexpr unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
// A decompressed core larger than this is refused rather than risking
// the machine's memory on a hostile frame header.
constexpr uint64_t max_decompressed = uint64_t(64) << 30;

struct Fd {
	int fd;
	~Fd()
	{
		if (fd >= 0)
			close(fd);
	}
};

} // namespace

CoreImage::~CoreImage()
{
	if (data_)
		munmap(data_, mapped_);
}

Expected<std::unique_ptr<CoreImage>> CoreImage::open(const std::string &path)
{
	std::unique_ptr<CoreImage> img(new CoreImage());
	Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
	if (f.fd < 0)
		return fail(path + ": " + strerror(errno));
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
	if (size_t(st.st_size) < sizeof zstd_magic ||
	    memcmp(file, zstd_magic, sizeof zstd_magic) != 0) {
		img->data_ = static_cast<std::byte *>(file);
		img->size_ = img->mapped_ = size_t(st.st_size);
		return img;
	}

	// Compressed: stream into an anonymous mapping that grows as needed
	// (the frame may not record its content size).
	unsigned long long hint = ZSTD_getFrameContentSize(file, size_t(st.st_size));
	size_t cap = hint < max_decompressed ? size_t(hint) : size_t(st.st_size) * 8;
	cap = std::max<size_t>(cap, 1 << 20);
	auto grow = [&](size_t want) -> bool {
		void *p = img->data_ ? mremap(img->data_, img->mapped_, want, MREMAP_MAYMOVE)
				     : mmap(nullptr, want, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return false;
		img->data_ = static_cast<std::byte *>(p);
		img->mapped_ = want;
		return true;
	};
	std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
	if (!dctx || !grow(cap)) {
		munmap(file, size_t(st.st_size));
		return fail(path + ": out of memory for decompression");
	}
	ZSTD_inBuffer in{file, size_t(st.st_size), 0};
	for (;;) {
		if (img->size_ == img->mapped_ &&
		    (img->mapped_ * 2 > max_decompressed || !grow(img->mapped_ * 2))) {
			munmap(file, size_t(st.st_size));
			return fail(path + ": decompressed core too large");
		}
		ZSTD_outBuffer out{img->data_, img->mapped_, img->size_};
		size_t ret = ZSTD_decompressStream(dctx.get(), &out, &in);
		img->size_ = out.pos;
		if (ZSTD_isError(ret)) {
			munmap(file, size_t(st.st_size));
			return fail(path + ": zstd: " + ZSTD_getErrorName(ret));
		}
		// Done when all input is used and the output had room to spare.
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	munmap(file, size_t(st.st_size));
	// A truncated .zst still yields the core's first part: ElfCore
	// reports the segments that run past its end.
	img->decompressed_ = true;
	mprotect(img->data_, img->mapped_, PROT_READ);
	return img;
}

} // namespace ljcore
