#include <memory>

#include <zstd.h>

#include "readers/decoders.h"

namespace ljcore {

Expected<void> decode_zstd(std::span<const std::byte> in, InflateBuffer &out)
{
	unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR)
		if (auto r = out.expect(declared); !r)
			return r;
	std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
	if (!dctx)
		return fail("zstd: no memory for a decoder");
	ZSTD_inBuffer src{in.data(), in.size(), 0};
	for (;;) {
		auto room = out.room();
		if (!room)
			return std::unexpected(room.error());
		ZSTD_outBuffer dst{room->data(), room->size(), 0};
		size_t ret = ZSTD_decompressStream(dctx.get(), &dst, &src);
		out.filled(dst.pos);
		if (ZSTD_isError(ret))
			return fail(std::string("zstd: ") + ZSTD_getErrorName(ret));
		// All input used and room to spare: nothing is held back.
		if (src.pos == src.size && dst.pos < dst.size)
			return {};
	}
}

} // namespace ljcore
