#include "analyzer/gc/dominators.h"

namespace ljcore::gc {

Dominators dominators(const SuccessorLists &succ, int max_passes)
{
	constexpr uint32_t none = Dominators::none;
	const uint32_t nodes = succ.lists();
	Dominators out;
	BigArray<uint32_t> &idom = out.idom;
	idom.assign(nodes, none);
	if (!nodes)
		return out;
	idom[0] = 0; // while iterating: the walk up stops at the entry
	auto intersect = [&](uint32_t a, uint32_t b) {
		while (a != b) {
			while (a > b)
				a = idom[a];
			while (b > a)
				b = idom[b];
		}
		return a;
	};
	bool changed = true;
	for (int pass = 0; changed && pass < max_passes; pass++) {
		changed = false;
		succ.for_each([&](uint32_t p, uint32_t s) {
			if (idom[p] == none || s == 0 || s == p || s >= nodes)
				return;
			// A node not reached yet gets p; as numbering says
			// p < s then, the order the walk needs holds.
			uint32_t d = idom[s] == none ? (p < s ? p : none) : intersect(idom[s], p);
			if (d != none && d != idom[s]) {
				idom[s] = d;
				changed = true;
			}
		});
	}
	out.settled = !changed;
	idom[0] = none;
	return out;
}

} // namespace ljcore::gc
