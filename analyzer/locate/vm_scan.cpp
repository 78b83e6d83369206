#include "analyzer/locate/vm_scan.h"

#include <algorithm>
#include <cstring>

namespace ljcore {

namespace {

// GG_State puts the main lua_State right in front of g, and g->mainthref
// points at it: the word at g + g_mainthref is g - gg_g. So a word at
// address A gives a layout away when A - word == g_mainthref + gg_g, its
// distance: one subtraction per word for every layout of a word size at
// once, instead of a pass per layout.
struct Distance {
	uint64_t value;
	const lj_layout *layout;
};

// The layouts of one word size (8: GC64, 4: 32-bit refs), by distance.
struct WordSize {
	std::vector<Distance> distances; // sorted by value
	uint64_t least = 0, span = 0;    // of their values
};

WordSize layouts_of_size(const std::vector<const lj_layout *> &layouts, size_t ref)
{
	WordSize w;
	for (const lj_layout *ly : layouts)
		if (ly->ptrsize == ref)
			w.distances.push_back({ly->g_mainthref + ly->gg_g, ly});
	std::ranges::stable_sort(w.distances, {}, &Distance::value);
	if (!w.distances.empty()) {
		w.least = w.distances.front().value;
		w.span = w.distances.back().value - w.least;
	}
	return w;
}

} // namespace

std::vector<VmCandidate> scan_for_vms(const Target &target,
				      const std::vector<const lj_layout *> &layouts,
				      std::optional<Rejection> &closest)
{
	std::vector<VmCandidate> found;
	// A word at A that some layout's distance explains: each such layout
	// in the order given, unless g is settled already.
	auto candidate = [&](const WordSize &w, uint64_t A, uint64_t distance) {
		for (const Distance &d : w.distances) {
			if (d.value != distance)
				continue;
			const uint64_t g = A - d.layout->g_mainthref;
			if (settled(found, g))
				continue;
			auto c = check_global_state(Vm(target, *d.layout, g),
						    "scan of writable memory", &closest);
			if (c)
				add_candidate(found, std::move(*c));
		}
	};
	// GG_State is allocated with at least pointer alignment. The word
	// size is a template argument so that the inner loop compiles to
	// plain loads, a subtraction and a compare.
	auto scan = [&]<typename Ref>(const WordSize &w, uint64_t vaddr,
				      std::span<const std::byte> bytes) {
		if (w.distances.empty())
			return;
		const size_t words = bytes.size() / sizeof(Ref);
		for (size_t i = 0; i < words; i++) {
			Ref word;
			memcpy(&word, bytes.data() + i * sizeof(Ref), sizeof word);
			const uint64_t A = vaddr + i * sizeof(Ref);
			const Ref distance = Ref(A) - word;
			if (uint64_t(Ref(distance - Ref(w.least))) <= w.span)
				candidate(w, A, distance);
		}
	};
	const WordSize wide = layouts_of_size(layouts, 8), narrow = layouts_of_size(layouts, 4);
	target.visit_writable([&](uint64_t vaddr, std::span<const std::byte> bytes) {
		scan.operator()<uint64_t>(wide, vaddr, bytes);
		scan.operator()<uint32_t>(narrow, vaddr, bytes);
	});
	return found;
}

} // namespace ljcore
