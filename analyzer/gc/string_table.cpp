#include <algorithm>
#include <cstring>

#include "analyzer/gc/census.h"
#include "analyzer/gc/string_table.h"
#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/global_state.h"

namespace ljcore::gc {

namespace {

// Puts links in order of the 64 KB region of the heap they point into,
// in one counting pass (O(n), unlike a sort): visits that stay within a
// few pages at a time hit the TLB and let the hardware prefetcher help.
void order_by_region(std::vector<StringLink> &links, std::vector<StringLink> &out,
		     std::vector<uint32_t> &counts)
{
	if (links.size() < 2)
		return;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (const StringLink &l : links)
		lo = std::min(lo, l.addr), hi = std::max(hi, l.addr);
	unsigned shift = 16;
	// At most 1 M regions: a heap spread wider gets coarser ones.
	while (((hi - lo) >> shift) >= (1u << 20))
		shift++;
	counts.assign(((hi - lo) >> shift) + 2, 0);
	for (const StringLink &l : links)
		counts[((l.addr - lo) >> shift) + 1]++;
	for (size_t i = 1; i < counts.size(); i++)
		counts[i] += counts[i - 1];
	out.resize(links.size());
	for (const StringLink &l : links)
		out[counts[(l.addr - lo) >> shift]++] = l;
	links.swap(out);
}

} // namespace

// Strings hang off g->str.tab[0..mask] through nextgc; the low bit of an
// anchor flags secondary hashing (lj_str.c).
bool Census::open_string_table(uint64_t &tab)
{
	GcStringTable &st = out_.strings;
	const GlobalState g(vm_);
	auto t = g.str_tab();
	auto mask = g.str_mask();
	auto num = g.str_num();
	if (!t || !mask || !num) {
		problem("string table unreadable");
		return false;
	}
	tab = *t;
	st.buckets = uint64_t(*mask) + 1;
	st.num = *num;
	out_.overheads.push_back({"string hash table", st.buckets * ly_.ptrsize});
	return true;
}

// Hashing scatters the strings of consecutive buckets over the whole heap,
// and a walk in bucket order waits on memory at every string. So a batch
// of buckets at a time, one chain link per round; a round's links are
// visited region by region of the heap, and the string prefetch_distance
// links ahead is being loaded while this one is sized. On 3 M strings
// that halves the time of a bucket-order walk. A batch's anchors, chain
// counts and links (about half a megabyte) stay in the CPU's cache
// however big the table. The batch size and the prefetch distance are
// the fastest measured (tools/bench/gc.sh): batches of 8 K to 16 K
// buckets, 8 links ahead; 256 K buckets took half as long again.
bool Census::walk_string_batch(uint64_t tab, uint64_t first, uint64_t n, StringScratch &scratch)
{
	const size_t prefetch_distance = 8;
	const unsigned ps = ly_.ptrsize;
	GcStringTable &st = out_.strings;
	auto &[anchors, chain, cycle, links, next, spare, counts] = scratch;
	anchors.resize(n * ps);
	chain.assign(n, 0);
	cycle.assign(n, BrentCycle{});
	if (auto r = vm_.memory().read(tab + first * ps, anchors); !r) {
		problem("string hash table unreadable: " + r.error().reason);
		return false;
	}
	links.clear();
	for (uint64_t k = 0; k < n; k++) {
		// Loads of a constant size: a memcpy of ps bytes compiles to a
		// string move, which costs more than all the rest of this loop.
		uint64_t a = 0;
		if (ps == 8) {
			memcpy(&a, anchors.data() + k * 8, 8);
		} else {
			uint32_t a32;
			memcpy(&a32, anchors.data() + k * 4, 4);
			a = a32;
		}
		if (a & ~uint64_t(1))
			links.push_back({a & ~uint64_t(1), uint32_t(k)});
	}
	for (const StringLink &l : links)
		cycle[l.bucket].mark = l.addr;
	while (!links.empty()) {
		order_by_region(links, spare, counts);
		next.clear();
		for (size_t i = 0; i < links.size(); i++) {
			const StringLink &l = links[i];
			if (i + prefetch_distance < links.size())
				obj_.prefetch(links[i + prefetch_distance].addr);
			if (!obj_.fetch(l.addr)) {
				problem(missed("string table chain"));
				return false;
			}
			uint64_t o = gc_header::nextgc(ly_, obj_);
			if (gc_header::gct(ly_, obj_) != LJ_TSTR) {
				problem("string table chain: object " + luajit_pointer(l.addr) +
					" is no string");
				return false;
			}
			size_string(l.addr);
			if (obj_.failed()) {
				problem(missed("string table chain"));
				return false;
			}
			chain[l.bucket]++;
			if (o && cycle[l.bucket].loops_at(o)) {
				problem("string table chain is cyclic");
				return false;
			}
			if (o)
				next.push_back({o, l.bucket});
		}
		links.swap(next);
	}
	for (uint64_t k = 0; k < n; k++) {
		st.used += chain[k] != 0;
		st.longest = std::max<uint64_t>(st.longest, chain[k]);
		st.strings += chain[k];
	}
	return true;
}

} // namespace ljcore::gc
