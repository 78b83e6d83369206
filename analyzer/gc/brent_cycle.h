// Brent's cycle detection for a list the census follows through memory:
// what bounds an intact list (g->str.num, a heap's size) is read from the
// target too, so it cannot be what stops a cycle.
#pragma once

#include <cstdint>

namespace ljcore::gc {

struct BrentCycle {
	uint64_t mark = 0; // the first link
	uint32_t power = 1, steps = 0;

	// Called with each link after the first: true when the list came
	// back to a link it already passed.
	bool loops_at(uint64_t link)
	{
		if (link == mark)
			return true;
		if (++steps == power) {
			mark = link;
			power *= 2;
			steps = 0;
		}
		return false;
	}
};

} // namespace ljcore::gc
