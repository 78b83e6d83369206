// The objects the path search (gc_paths.cpp) has reached: every reach of
// an object asks here first, millions of times, so what runs per object is
// inline and only a move to another segment or a bigger table is not.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "readers/memory.h"

namespace ljcore::gc {

// The objects seen, as an open-addressing hash set of addresses (never 0):
// a quarter of the memory of std::unordered_set at millions of entries.
class AddressSet {
public:
	enum class Added { before, now, no_room };
	// Adds addr if it is not in the set yet and room says a new one may
	// be added; one probe of the table either way.
	Added add(uint64_t addr, bool room)
	{
		if (room && (count_ + 1) * 2 > slots_.size())
			grow();
		if (slots_.empty())
			return Added::no_room;
		size_t i = slot(addr);
		if (slots_[i] == addr)
			return Added::before;
		if (!room)
			return Added::no_room;
		slots_[i] = addr;
		count_++;
		return Added::now;
	}

private:
	size_t slot(uint64_t addr) const
	{
		size_t mask = slots_.size() - 1;
		// Objects are 8-aligned: mix the address before masking.
		size_t i = size_t((addr >> 3) * 0x9e3779b97f4a7c15ull >> 20) & mask;
		while (slots_[i] && slots_[i] != addr)
			i = (i + 1) & mask;
		return i;
	}
	void grow();

	std::vector<uint64_t> slots_;
	size_t count_ = 0;
};

// The objects seen. Where the core holds the memory, a bit per 8 bytes of
// the segment an object lies in (GC objects are 8-aligned): a census of
// millions of objects tests and sets bits in a few megabytes, where a hash
// set of their addresses is a cache miss at every probe. Anything else
// (memory read from files or a live process, a misaligned address from a
// corrupt heap) goes to the hash set.
class SeenObjects {
public:
	explicit SeenObjects(const Memory &mem) : mem_(mem) {}

	AddressSet::Added add(uint64_t addr, bool room)
	{
		Bitmap *b = addr & 7 ? nullptr : bitmap_for(addr);
		if (!b)
			return others_.add(addr, room);
		uint64_t bit = (addr - b->addr) >> 3;
		uint64_t &word = b->bits[bit >> 6];
		uint64_t mask = uint64_t(1) << (bit & 63);
		if (word & mask)
			return AddressSet::Added::before;
		if (!room)
			return AddressSet::Added::no_room;
		word |= mask;
		return AddressSet::Added::now;
	}

private:
	struct Bitmap {
		uint64_t addr, size;
		std::vector<uint64_t> bits;
	};

	Bitmap *bitmap_for(uint64_t addr)
	{
		if (last_ && addr - last_->addr < last_->size)
			return last_;
		return other_bitmap(addr);
	}
	// The bitmap of another segment than the last one's, made on its
	// first use; nullptr if the core does not hold addr.
	Bitmap *other_bitmap(uint64_t addr);

	const Memory &mem_;
	std::map<uint64_t, Bitmap> bitmaps_; // by first address
	Bitmap *last_ = nullptr;
	AddressSet others_;
};

} // namespace ljcore::gc
