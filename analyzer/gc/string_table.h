// The string table walked a batch of buckets at a time: what a walk of
// one batch keeps between batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/gc/brent_cycle.h"

namespace ljcore::gc {

struct StringLink {
	uint64_t addr;
	uint32_t bucket; // within the batch of buckets
};

// What a thread walking string table batches reuses from one to the next.
struct StringScratch {
	std::vector<std::byte> anchors;
	std::vector<uint32_t> chain;
	std::vector<BrentCycle> cycle;
	std::vector<StringLink> links, next, spare;
	std::vector<uint32_t> counts;
};

} // namespace ljcore::gc
