// A flat address range of little-endian bytes for hand-built address
// spaces in unit tests; everything else is a miss.
#pragma once

#include <cstring>
#include <vector>

#include "readers/memory.h"

namespace ljcore {

class FlatMemory : public Memory {
public:
	FlatMemory(uint64_t base, size_t size) : base_(base), bytes_(size) {}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		if (addr < base_ || addr - base_ + out.size() > bytes_.size())
			return std::unexpected(ReadMiss{addr, "outside the test memory"});
		memcpy(out.data(), bytes_.data() + (addr - base_), out.size());
		return {};
	}
	void put64(uint64_t addr, uint64_t v) { memcpy(&bytes_[addr - base_], &v, 8); }
	void put32(uint64_t addr, uint32_t v) { memcpy(&bytes_[addr - base_], &v, 4); }

private:
	uint64_t base_;
	std::vector<std::byte> bytes_;
};

} // namespace ljcore
