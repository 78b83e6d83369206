#include <cstring>

#include "readers/decoders.h"

namespace ljcore {

namespace {

// The first bytes of each format's file: a zstd frame, an xz stream and
// an LZ4 frame (not the legacy LZ4 format, which systemd never wrote).
constexpr unsigned char zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd};
constexpr unsigned char xz_magic[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
constexpr unsigned char lz4_magic[] = {0x04, 0x22, 0x4d, 0x18};

template <size_t N>
bool starts_with(std::span<const std::byte> file, const unsigned char (&magic)[N])
{
	return file.size() >= N && memcmp(file.data(), magic, N) == 0;
}

} // namespace

Compression compression_of(std::span<const std::byte> file)
{
	if (starts_with(file, zstd_magic))
		return Compression::zstd;
	if (starts_with(file, xz_magic))
		return Compression::xz;
	if (starts_with(file, lz4_magic))
		return Compression::lz4;
	return Compression::none;
}

} // namespace ljcore
