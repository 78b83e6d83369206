// Addresses put in the order of the heap pages they point into, for the
// string table's walk (string_table.cpp): the order that visits a heap's
// pages, and its page tables, from one end to the other.
#pragma once

#include <cstdint>
#include <vector>

namespace ljcore::gc {

// Sorts links by page (by coarser regions, the smallest power of two that
// makes at most 4 M of them, for a heap spread wider than 16 GB); within
// a page the order is unspecified. Linear in their number: two passes of
// a least-significant-digit radix sort, each writing to at most 2 K
// places at a time, few enough for the TLB (a one-pass counting sort over
// the pages of a 4 GB heap writes to a million). spare and counts are
// scratch, kept by the caller from one call to the next.
void order_by_page(std::vector<uint64_t> &links, std::vector<uint64_t> &spare,
		   std::vector<uint32_t> &counts);

} // namespace ljcore::gc
