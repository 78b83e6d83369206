// A copy of a live process's writable memory, taken while its threads are
// stopped, so that a long walk of its heap reads one instant while the
// process runs on. What it did not copy (code, read-only data, which do
// not change) is read from the process itself.
#pragma once

#include <cstdint>
#include <vector>

#include "readers/live_process.h"

namespace ljcore {

class FrozenMemory final : public Memory {
public:
	// Copies every readable, writable mapping of process (which must be
	// stopped) up to max_bytes in all; mappings past that are read live
	// and counted in skipped_bytes(). process must outlive this.
	FrozenMemory(const LiveProcess &process, uint64_t max_bytes);

	MemoryView view(uint64_t addr) const override;
	bool concurrent_reads() const override { return true; }
	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override;

	uint64_t copied_bytes() const { return copied_; }
	uint64_t skipped_bytes() const { return skipped_; }

private:
	struct Piece {
		uint64_t start = 0;
		std::vector<std::byte> bytes;
	};
	const Piece *piece_at(uint64_t addr) const;

	const LiveProcess &process_;
	std::vector<Piece> pieces_; // sorted by start, disjoint
	uint64_t copied_ = 0, skipped_ = 0;
};

} // namespace ljcore
