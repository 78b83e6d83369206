#include "readers/frozen_memory.h"

#include <algorithm>
#include <cstring>

namespace ljcore {

FrozenMemory::FrozenMemory(const LiveProcess &process, uint64_t max_bytes) : process_(process)
{
	// /proc/PID/maps lists mappings by address: the pieces stay sorted.
	for (const ProcMapping &m : process.mappings()) {
		if (!m.readable || !m.writable)
			continue;
		const uint64_t size = m.end - m.start;
		if (copied_ + size > max_bytes) {
			skipped_ += size;
			continue;
		}
		Piece p{m.start, std::vector<std::byte>(size)};
		// A mapping the kernel will not let us read ([vvar], a device)
		// is left to live reads, which report why.
		if (!process.read(m.start, p.bytes))
			continue;
		copied_ += size;
		pieces_.push_back(std::move(p));
	}
}

const FrozenMemory::Piece *FrozenMemory::piece_at(uint64_t addr) const
{
	auto it = std::upper_bound(pieces_.begin(), pieces_.end(), addr,
				   [](uint64_t a, const Piece &p) { return a < p.start; });
	if (it == pieces_.begin())
		return nullptr;
	--it;
	return addr - it->start < it->bytes.size() ? &*it : nullptr;
}

MemoryView FrozenMemory::view(uint64_t addr) const
{
	const Piece *p = piece_at(addr);
	if (!p)
		return {};
	return {p->start, p->bytes};
}

std::expected<void, ReadMiss> FrozenMemory::read(uint64_t addr, std::span<std::byte> out) const
{
	const Piece *p = piece_at(addr);
	if (!p)
		return process_.read(addr, out);
	const uint64_t off = addr - p->start;
	if (out.size() > p->bytes.size() - off) {
		// Runs past the copy: the next mapping may be live or copied.
		const size_t here = size_t(p->bytes.size() - off);
		std::memcpy(out.data(), p->bytes.data() + off, here);
		return read(addr + here, out.subspan(here));
	}
	std::memcpy(out.data(), p->bytes.data() + off, out.size());
	return {};
}

} // namespace ljcore
