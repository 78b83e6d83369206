#include <lzma.h>

#include "readers/decoders.h"

namespace ljcore {

namespace {

// The dictionary memory the decoder may take: xz -9 needs 65 MiB, and
// systemd-coredump compresses with the default preset (9 MiB).
constexpr uint64_t dictionary_limit = uint64_t(256) << 20;

std::string xz_error(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return "xz: out of memory";
	case LZMA_MEMLIMIT_ERROR:
		return "xz: needs more than " + std::to_string(dictionary_limit >> 20) +
		       " MiB of dictionary";
	case LZMA_FORMAT_ERROR:
		return "xz: not an xz stream";
	case LZMA_OPTIONS_ERROR:
		return "xz: unsupported options";
	case LZMA_DATA_ERROR:
		return "xz: corrupt data";
	default:
		return "xz: error " + std::to_string(ret);
	}
}

} // namespace

Expected<void> decode_xz(std::span<const std::byte> in, InflateBuffer &out)
{
	// An xz stream states its decompressed size only in the index at its
	// end; the buffer grows as it fills instead.
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret = lzma_stream_decoder(&s, dictionary_limit, LZMA_CONCATENATED);
	if (ret != LZMA_OK)
		return fail(xz_error(ret));
	s.next_in = reinterpret_cast<const uint8_t *>(in.data());
	s.avail_in = in.size();
	Expected<void> result;
	for (;;) {
		auto room = out.room();
		if (!room) {
			result = std::unexpected(room.error());
			break;
		}
		s.next_out = reinterpret_cast<uint8_t *>(room->data());
		s.avail_out = room->size();
		ret = lzma_code(&s, LZMA_FINISH);
		out.filled(room->size() - s.avail_out);
		// LZMA_BUF_ERROR: the input ended early, a truncated file.
		if (ret == LZMA_STREAM_END || ret == LZMA_BUF_ERROR)
			break;
		if (ret != LZMA_OK) {
			result = fail(xz_error(ret));
			break;
		}
	}
	lzma_end(&s);
	return result;
}

} // namespace ljcore
