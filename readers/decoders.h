// The compressed forms systemd-coredump stores cores in (Compress= and
// its version choose zstd, xz or lz4), told apart by their magic bytes, and
// one decoder each. A decoder fills an InflateBuffer with all the input
// holds: a truncated file still gives the core's first part, whose
// segments past the end ElfCore then reports.
#pragma once

#include <cstddef>
#include <span>

#include "readers/error.h"
#include "readers/inflate_buffer.h"

namespace ljcore {

enum class Compression { none, zstd, xz, lz4 };

Compression compression_of(std::span<const std::byte> file);

Expected<void> decode_zstd(std::span<const std::byte> in, InflateBuffer &out);
Expected<void> decode_xz(std::span<const std::byte> in, InflateBuffer &out);
Expected<void> decode_lz4(std::span<const std::byte> in, InflateBuffer &out);

} // namespace ljcore
