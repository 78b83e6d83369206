#include "analyzer/gc/page_order.h"

#include <algorithm>

namespace ljcore::gc {

void order_by_page(std::vector<uint64_t> &links, std::vector<uint64_t> &spare,
		   std::vector<uint32_t> &counts)
{
	if (links.size() < 2)
		return;
	constexpr unsigned digit_bits = 11;
	constexpr uint64_t digit_mask = (1u << digit_bits) - 1;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint64_t a : links)
		lo = std::min(lo, a), hi = std::max(hi, a);
	// Pages, or coarser regions for a heap spread wider than two
	// digits' worth of them.
	unsigned shift = 12;
	while (((hi - lo) >> shift) >> (2 * digit_bits))
		shift++;
	spare.resize(links.size());
	for (unsigned pass = 0; pass < 2; pass++) {
		const unsigned s = shift + pass * digit_bits;
		if (pass && !((hi - lo) >> s))
			break; // one digit held them all
		counts.assign(digit_mask + 2, 0);
		for (uint64_t a : links)
			counts[(((a - lo) >> s) & digit_mask) + 1]++;
		for (size_t i = 1; i < counts.size(); i++)
			counts[i] += counts[i - 1];
		for (uint64_t a : links)
			spare[counts[((a - lo) >> s) & digit_mask]++] = a;
		links.swap(spare);
	}
}

} // namespace ljcore::gc
