#include "analyzer/gc/object_bytes.h"

namespace ljcore::gc {

bool ObjBytes::refill(size_t off, size_t size)
{
	const size_t n = off + size;
	uint64_t rel = addr_ - view_.addr;
	if (rel >= view_.bytes.size() || view_.bytes.size() - rel < n)
		view_ = addr_ - ahead_.addr < ahead_.bytes.size() ? ahead_ : mem_.view(addr_);
	rel = addr_ - view_.addr;
	if (rel < view_.bytes.size() && view_.bytes.size() - rel >= n) {
		p_ = reinterpret_cast<const unsigned char *>(view_.bytes.data()) + rel;
		avail_ = view_.bytes.size() - rel;
		return true;
	}
	// Only the field itself: a snapshot recording the reads keeps no
	// more of the object than the census needed.
	auto r = n <= sizeof buf_ ? mem_.read(addr_ + off,
					      std::as_writable_bytes(std::span(buf_ + off, size)))
				  : std::unexpected(ReadMiss{addr_ + off, "object field too far"});
	if (!r) {
		miss_ = r.error();
		failed_ = true;
		return false;
	}
	// buf_ now holds this field, and the prefix only if it is one.
	p_ = buf_;
	avail_ = off == 0 ? n : 0;
	return true;
}

} // namespace ljcore::gc
