// The string table walked a batch of buckets at a time: what a walk of
// one batch keeps between batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ljcore::gc {

// What a thread walking string table batches reuses from one to the next:
// the batch's anchors as read, the strings of the round being walked and
// of the next, and the radix sort's spare array and digit counts.
struct StringScratch {
	std::vector<std::byte> anchors;
	std::vector<uint64_t> links, next, spare;
	std::vector<uint32_t> counts;
};

} // namespace ljcore::gc
