#include <memory>

#include <lz4frame.h>

#include "readers/decoders.h"

namespace ljcore {

Expected<void> decode_lz4(std::span<const std::byte> in, InflateBuffer &out)
{
	LZ4F_dctx *raw = nullptr;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION)))
		return fail("lz4: no memory for a decoder");
	std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx *)> dctx(
		raw, LZ4F_freeDecompressionContext);
	size_t pos = in.size();
	LZ4F_frameInfo_t info{};
	size_t ret = LZ4F_getFrameInfo(dctx.get(), &info, in.data(), &pos);
	if (LZ4F_isError(ret))
		return fail(std::string("lz4: ") + LZ4F_getErrorName(ret));
	// The frame states its size only when the writer knew it.
	if (info.contentSize)
		if (auto r = out.expect(info.contentSize); !r)
			return r;
	for (;;) {
		auto room = out.room();
		if (!room)
			return std::unexpected(room.error());
		size_t src = in.size() - pos;
		size_t dst = room->size();
		ret = LZ4F_decompress(dctx.get(), room->data(), &dst, in.data() + pos, &src,
				      nullptr);
		out.filled(dst);
		pos += src;
		if (LZ4F_isError(ret))
			return fail(std::string("lz4: ") + LZ4F_getErrorName(ret));
		// All input used and room to spare: nothing is held back (a
		// truncated file ends here too, with what it held).
		if (pos == in.size() && dst < room->size())
			return {};
	}
}

} // namespace ljcore
