#include <algorithm>
#include <cstring>

#include "analyzer/gc/brent_cycle.h"
#include "analyzer/gc/census.h"
#include "analyzer/gc/page_order.h"
#include "analyzer/gc/string_table.h"
#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/global_state.h"

namespace ljcore::gc {

namespace {

// Links a chain of a table LuaJIT keeps at one string per bucket on
// average (lj_str.c resizes it when there are more) never reaches; past
// them a chain is followed on its own, which a cyclic one needs.
constexpr uint64_t chain_rounds = 64;

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

bool Census::visit_string(uint64_t addr, uint64_t &next)
{
	if (!obj_.fetch(addr)) {
		chain_problem(missed("string table chain"));
		return false;
	}
	next = gc_header::nextgc(ly_, obj_);
	if (gc_header::gct(ly_, obj_) != LJ_TSTR) {
		chain_problem("string table chain: object " + luajit_pointer(addr) +
			      " is no string");
		return false;
	}
	size_string(addr);
	if (obj_.failed()) {
		chain_problem(missed("string table chain"));
		return false;
	}
	out_.strings.strings++;
	return true;
}

// Hashing scatters the strings of consecutive buckets over the whole heap:
// a walk in bucket order waits on memory at every string, and on a page
// table walk too once the heap has more pages than the TLB holds (time per
// string grew 1.6 times from 3 to 30 M strings). So the chains of a batch
// of buckets are walked together, one link of each per round, and a
// round's strings in address order: that visits the heap's pages, and the
// page tables, from one end to the other, a few strings a page, and the
// string prefetch_distance links ahead is being loaded while this one is
// sized. A chain's length is the round its last link is in, so nothing is
// kept per bucket.
bool Census::walk_string_batch(uint64_t tab, uint64_t first, uint64_t n, StringScratch &scratch)
{
	const size_t prefetch_distance = 8;
	const unsigned ps = ly_.ptrsize;
	GcStringTable &st = out_.strings;
	auto &[anchors, links, next, spare, counts] = scratch;
	anchors.resize(n * ps);
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
			links.push_back(a & ~uint64_t(1));
	}
	st.used += links.size();
	for (uint64_t round = 0; !links.empty(); round++) {
		if (round == chain_rounds)
			return walk_long_chains(links, round);
		st.longest = std::max(st.longest, round + 1);
		order_by_page(links, spare, counts);
		next.clear();
		for (size_t i = 0; i < links.size(); i++) {
			if (i + prefetch_distance < links.size())
				obj_.prefetch(links[i + prefetch_distance]);
			uint64_t o;
			if (!visit_string(links[i], o))
				return false;
			if (o)
				next.push_back(o);
		}
		links.swap(next);
	}
	return true;
}

bool Census::walk_long_chains(const std::vector<uint64_t> &links, uint64_t rounds)
{
	GcStringTable &st = out_.strings;
	for (uint64_t link : links) {
		BrentCycle cycle{link};
		uint64_t length = rounds;
		for (uint64_t o = link; o;) {
			uint64_t next;
			if (!visit_string(o, next))
				return false;
			st.longest = std::max(st.longest, ++length);
			if (next && cycle.loops_at(next)) {
				chain_problem("string table chain is cyclic");
				return false;
			}
			o = next;
		}
	}
	return true;
}

} // namespace ljcore::gc
