#include "analyzer/gc/seen_objects.h"

#include <algorithm>

namespace ljcore::gc {

void AddressSet::grow()
{
	std::vector<uint64_t> old(std::max<size_t>(1024, slots_.size() * 2));
	old.swap(slots_);
	for (uint64_t a : old)
		if (a)
			slots_[slot(a)] = a;
}

SeenObjects::Bitmap *SeenObjects::other_bitmap(uint64_t addr)
{
	if (auto it = bitmaps_.upper_bound(addr); it != bitmaps_.begin()) {
		Bitmap &b = std::prev(it)->second;
		if (addr - b.addr < b.size)
			return last_ = &b;
	}
	MemoryView v = mem_.view(addr);
	if (v.bytes.empty() || v.addr & 7)
		return nullptr;
	Bitmap &b = bitmaps_[v.addr];
	b = {v.addr, v.bytes.size(), std::vector<uint64_t>((v.bytes.size() / 8 + 63) / 64)};
	return last_ = &b;
}

} // namespace ljcore::gc
