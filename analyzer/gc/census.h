// The census of one VM's heap (gc_census.h) as it runs: the walks of the
// object lists (census.cpp), of the string table (string_table.cpp, in
// batches spread over two threads by string_batches.cpp), and what
// g->gc.total counts besides objects (census_overheads.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/gc/gc_census.h"
#include "analyzer/gc/object_bytes.h"
#include "analyzer/gc/top_n.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/object_size.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/lua_text.h"
#include "luajit/trace_layout.h"

namespace ljcore::gc {

// Objects whose sizes LuaJIT could not have made are named one by one up
// to this many, then only counted: a corrupt heap must not make the
// report as big as the heap.
constexpr uint64_t max_listed_implausible = 16;

struct StringScratch;

class Census {
public:
	Census(const Vm &vm, const GcCensusOptions &o)
	    : vm_(vm), ly_(vm.layout()), tl_(ly_.jit), options_(o), obj_(vm.memory()), top_(o.top),
	      top_strings_(o.top_strings)
	{
	}

	GcCensus run();
	// Also keeps the address of every object counted, for objects().
	void collect_objects() { collect_ = true; }
	BigArray<uint64_t> &objects() { return objects_; }

private:
	void problem(std::string what)
	{
		out_.complete = false;
		out_.diagnostics.problem(std::move(what));
	}
	void chain_problem(std::string what)
	{
		out_.strings.chains_whole = false;
		problem(std::move(what));
	}
	// An object whose size fields say more than LuaJIT allows: counted
	// as it claims (the bytes are what g->gc.total would say), reported.
	void implausible(uint64_t o, const std::string &what)
	{
		if (implausible_++ < max_listed_implausible)
			problem("object " + luajit_pointer(o) + ": " + what +
				", more than LuaJIT allows");
	}
	std::string missed(const char *what)
	{
		return std::string(what) + ": " + obj_.miss().reason + " at " +
		       luajit_pointer(obj_.miss().addr);
	}
	void count(GcType t, uint64_t addr, uint64_t bytes, uint64_t part1 = 0, uint64_t part2 = 0)
	{
		GcTypeStats &s = out_.types[size_t(t)];
		s.count++;
		s.bytes += bytes;
		s.part1 += part1;
		s.part2 += part2;
		top_.offer(bytes, addr, t);
		if (collect_)
			objects_.push_back(addr);
	}
	// Sizes one object whose bytes obj_ holds, by its gct; false if it is
	// no GC object we know.
	bool size_object(uint64_t o, uint8_t gct);
	// The same for a string: inline, as the string table's walk sizes
	// millions of them from another file.
	void size_string(uint64_t o)
	{
		auto s = object_size::string(ly_, obj_);
		if (s.len > lj_limit::str_len)
			implausible(o, "string of " + std::to_string(s.len) + " bytes");
		count(GcType::string, o, s.total);
		top_strings_.offer(s.total, o, GcType::string);
	}
	void size_trace(uint64_t o);
	void size_cdata(uint64_t o);
	uint64_t cdata_payload(uint16_t ctypeid);
	// A linked list through nextgc from first, ended by 0 or, for a ring,
	// by coming back to stop. Bounded and cycle-safe.
	template <typename Visit>
	void walk_list(const char *name, uint64_t first, uint64_t stop, Visit visit);
	// The string table: its size and where it is, into out_.strings;
	// false, told as a problem, if unreadable.
	bool open_string_table(uint64_t &tab);
	// The chains of buckets [first, first + n); false when a problem ends
	// the walk there.
	bool walk_string_batch(uint64_t tab, uint64_t first, uint64_t n, StringScratch &scratch);
	// Sizes the string at addr, a link of a chain, and sets next to the
	// link after it; false, told as a problem, if it is no string.
	bool visit_string(uint64_t addr, uint64_t &next);
	// The chains still going after rounds links, each followed to its
	// end on its own; false when a problem ends the walk there.
	bool walk_long_chains(const std::vector<uint64_t> &links, uint64_t rounds);
	// One batch's findings, as if this census had walked it after the
	// batches added before.
	void add_batch(Census &part);
	void add_strings(Census &strings);
	void add_overheads();

	const Vm &vm_;
	const lj_layout &ly_;
	const lj_trace_layout *tl_; // nullptr: a build without the JIT
	GcCensusOptions options_;
	ObjBytes obj_;
	TopN top_;
	TopN top_strings_;
	GcCensus out_;
	uint64_t main_thread_ = 0;
	std::vector<uint64_t> threads_;
	uint64_t cts_tab_ = 0; // CTState.tab, 0 without FFI state
	uint32_t cts_sizetab_ = 0;
	std::vector<uint32_t> ctype_sizes_; // payload size by CTypeID, cached
	uint64_t implausible_ = 0;
	bool collect_ = false;
	BigArray<uint64_t> objects_; // when collect_

	friend class StringBatches; // adds batches to the census of the strings
};

} // namespace ljcore::gc
