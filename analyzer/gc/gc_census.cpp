#include "analyzer/gc/gc_census.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "analyzer/gc/gc_sizes.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/lua_debug.h"

namespace ljcore {

const char *gc_type_name(GcType t)
{
	switch (t) {
	case GcType::string:
		return "string";
	case GcType::upvalue:
		return "upvalue";
	case GcType::thread:
		return "thread";
	case GcType::proto:
		return "proto";
	case GcType::lua_function:
		return "Lua function";
	case GcType::c_function:
		return "C function";
	case GcType::trace:
		return "trace";
	case GcType::cdata:
		return "cdata";
	case GcType::table:
		return "table";
	case GcType::userdata:
		return "userdata";
	}
	return "?";
}

namespace {

// More objects than a 64 GB heap of the smallest ones: a list this long
// is cyclic or garbage.
constexpr uint64_t max_objects = uint64_t(1) << 32;

// Objects whose sizes LuaJIT could not have made are named one by one up
// to this many, then only counted: a corrupt heap must not make the
// report as big as the heap.
constexpr uint64_t max_listed_implausible = 16;

// CTypeID1 (lj_ctype.h), native pointers on the 64-bit targets we read.
constexpr uint64_t ctypeid1_size = 2;
constexpr uint64_t native_ptr = 8;

// lj_ctype.h: the type kind is in the top 4 bits of CTInfo; kinds up to
// CT_ENUM (5) keep their size in CType.size, CT_ATTRIB (8) wraps another.
constexpr uint32_t ct_hassize_max = 5;
constexpr uint32_t ct_attrib = 8;
constexpr uint32_t ctsize_ptr = 8;

// GCcdata.marked bit 0x80: a variable-sized cdata, with a GCcdataVar
// {offset, extra, len} (8 bytes) right before it (lj_obj.h cdataisv).
constexpr uint8_t cdata_var = 0x80;
constexpr uint64_t cdatavar_size = 8;

// The bytes of one object at a time. Inside a core segment they are read
// in place (no copy, and only the cache lines a field is on are touched);
// elsewhere each field range is copied with read().
class ObjBytes {
public:
	explicit ObjBytes(const Memory &mem) : mem_(mem) {}

	// Moves to the object at addr; false if its header is unreadable.
	bool fetch(uint64_t addr)
	{
		addr_ = addr;
		avail_ = 0;
		failed_ = false;
		return ensure(0, header_bytes);
	}
	template <typename T> T at(size_t off)
	{
		T v{};
		if (ensure(off, sizeof v))
			memcpy(&v, p_ + off, sizeof v);
		return v;
	}
	uint64_t ref(size_t off, unsigned ptrsize)
	{
		return ptrsize == 8 ? at<uint64_t>(off) : at<uint32_t>(off);
	}
	bool failed() const { return failed_; }
	const ReadMiss &miss() const { return miss_; }

	// Asks the CPU to start loading the object at addr, to be fetched a
	// little later: a hint only, so an address outside the mapped core
	// is simply not prefetched.
	void prefetch(uint64_t addr)
	{
		if (addr - ahead_.addr >= ahead_.bytes.size())
			ahead_ = mem_.view(addr);
		if (addr - ahead_.addr < ahead_.bytes.size())
			__builtin_prefetch(ahead_.bytes.data() + (addr - ahead_.addr));
	}

private:
	// nextgc, marked, gct: enough for any build.
	static constexpr size_t header_bytes = 10;

	// The object's bytes [off, off + size) at p_ + off.
	bool ensure(size_t off, size_t size) { return off + size <= avail_ || refill(off, size); }

	bool refill(size_t off, size_t size)
	{
		const size_t n = off + size;
		uint64_t rel = addr_ - view_.addr;
		if (rel >= view_.bytes.size() || view_.bytes.size() - rel < n)
			view_ = addr_ - ahead_.addr < ahead_.bytes.size() ? ahead_
									  : mem_.view(addr_);
		rel = addr_ - view_.addr;
		if (rel < view_.bytes.size() && view_.bytes.size() - rel >= n) {
			p_ = reinterpret_cast<const unsigned char *>(view_.bytes.data()) + rel;
			avail_ = view_.bytes.size() - rel;
			return true;
		}
		// Only the field itself: a snapshot recording the reads keeps no
		// more of the object than the census needed.
		auto r = n <= sizeof buf_
				 ? mem_.read(addr_ + off,
					     std::as_writable_bytes(std::span(buf_ + off, size)))
				 : std::unexpected(ReadMiss{addr_ + off, "object field too far"});
		if (!r) {
			miss_ = r.error();
			failed_ = true;
			return false;
		}
		// buf_ now holds this field, and the prefix only if it is one.
		p_ = buf_;
		avail_ = off == 0 ? n : 0;
		return true;
	}

	const Memory &mem_;
	MemoryView view_;
	MemoryView ahead_; // the view prefetch() last used
	uint64_t addr_ = 0;
	const unsigned char *p_ = nullptr;
	size_t avail_ = 0;
	bool failed_ = false;
	alignas(8) unsigned char buf_[256];
	ReadMiss miss_;
};

struct Ranked {
	uint64_t bytes;
	uint64_t addr;
	GcType type;
	bool operator>(const Ranked &o) const
	{
		return bytes != o.bytes ? bytes > o.bytes : addr > o.addr;
	}
};

// The n largest seen, in memory proportional to n.
class TopN {
public:
	explicit TopN(size_t n) : n_(n) {}
	// Small enough to be inlined: most objects are turned away here.
	void offer(uint64_t bytes, uint64_t addr, GcType type)
	{
		if (n_ != 0 && bytes >= floor_)
			consider(bytes, addr, type);
	}
	// Sizes below which nothing can be among the n largest any more.
	uint64_t floor() const { return floor_; }
	// What another TopN of the same objects knows: n of them are at
	// least this big, so nothing smaller needs to be kept here.
	void raise_floor(uint64_t bytes) { floor_ = std::max(floor_, bytes); }
	std::vector<Ranked> largest_first()
	{
		std::vector<Ranked> out = std::move(heap_);
		std::sort(out.begin(), out.end(), std::greater<Ranked>());
		return out;
	}

private:
	[[gnu::noinline]] void consider(uint64_t bytes, uint64_t addr, GcType type)
	{
		Ranked r{bytes, addr, type};
		if (heap_.size() < n_) {
			heap_.push_back(r);
			std::push_heap(heap_.begin(), heap_.end(), std::greater<Ranked>());
		} else if (r > heap_.front()) {
			replace_smallest(r);
		}
		// Once n are kept, the smallest of them is the floor.
		if (heap_.size() == n_)
			floor_ = std::max(floor_, heap_.front().bytes);
	}

	// r in place of the smallest kept, moved down to where it belongs:
	// one pass down the heap, where a pop and a push are two. Objects of
	// one size seen in rising address order replace the smallest again
	// and again (equal sizes rank by address).
	void replace_smallest(const Ranked &r)
	{
		size_t i = 0, n = heap_.size();
		for (size_t c; (c = 2 * i + 1) < n; i = c) {
			if (c + 1 < n && heap_[c] > heap_[c + 1])
				c++; // the smaller child
			if (!(r > heap_[c]))
				break;
			heap_[i] = heap_[c];
		}
		heap_[i] = r;
	}

	size_t n_;
	uint64_t floor_ = 0;
	std::vector<Ranked> heap_; // a min-heap: the smallest kept in front
};

struct StringLink {
	uint64_t addr;
	uint32_t bucket; // within the batch of buckets
};

// Brent's cycle detection for one hash chain: g->str.num, which bounds an
// intact chain, is itself read from the target, so it cannot be what
// stops a cycle.
struct ChainCycle {
	uint64_t mark = 0;
	uint32_t power = 1, steps = 0;

	// Called with each link after the first: true when the chain came
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

// What a thread walking string table batches reuses from one to the next.
struct StringScratch {
	std::vector<std::byte> anchors;
	std::vector<uint32_t> chain;
	std::vector<ChainCycle> cycle;
	std::vector<StringLink> links, next, spare;
	std::vector<uint32_t> counts;
};

class StringBatches;

class Census {
public:
	Census(const Vm &mem, uint64_t g, const GcCensusOptions &o)
	    : mem_(mem), ly_(mem.layout()), tl_(ly_.jit), g_(g), options_(o),
	      obj_(mem.memory()), top_(o.top), top_strings_(o.top_strings)
	{
	}

	GcCensus run();

private:
	void problem(std::string what)
	{
		out_.complete = false;
		out_.problems.push_back(std::move(what));
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
	}
	// Sizes one object whose bytes obj_ holds, by its gct; false if it is
	// no GC object we know.
	bool size_object(uint64_t o, uint8_t gct);
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
	// One batch's findings, as if this census had walked it after the
	// batches added before.
	void add_batch(Census &part);
	void add_strings(Census &strings);
	void add_overheads();
	std::string describe(const Ranked &r);

	const Vm &mem_;
	const lj_layout &ly_;
	const lj_trace_layout *tl_; // nullptr: a build without the JIT
	uint64_t g_;
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

	friend class StringBatches; // adds batches to the census of the strings
};

uint64_t Census::cdata_payload(uint16_t id)
{
	if (ctype_sizes_.empty())
		ctype_sizes_.assign(65536, UINT32_MAX);
	if (ctype_sizes_[id] != UINT32_MAX)
		return ctype_sizes_[id];
	// ctype_raw (lj_ctype.h): skip attributes to the type that has the size.
	uint32_t cur = id, size = ctsize_ptr;
	for (int hops = 0; hops < 64 && cur < cts_sizetab_; hops++) {
		auto info = mem_.value<uint32_t>(cts_tab_ + uint64_t(cur) * ly_.ctype_size);
		auto sz = mem_.value<uint32_t>(cts_tab_ + uint64_t(cur) * ly_.ctype_size + 4);
		if (!info || !sz)
			break;
		uint32_t kind = *info >> 28;
		if (kind == ct_attrib) {
			cur = *info & 0xffff;
			continue;
		}
		size = kind <= ct_hassize_max ? *sz : ctsize_ptr;
		break;
	}
	ctype_sizes_[id] = size;
	return size;
}

bool Census::size_object(uint64_t o, uint8_t gct)
{
	switch (gct) {
	case LJ_TSTR: {
		uint32_t len = obj_.at<uint32_t>(ly_.str_len);
		if (len > lj_limit::str_len)
			implausible(o, "string of " + std::to_string(len) + " bytes");
		uint64_t bytes = gc_size::string(ly_, len);
		count(GcType::string, o, bytes);
		top_strings_.offer(bytes, o, GcType::string);
		return true;
	}
	case LJ_TUPVAL:
		count(GcType::upvalue, o, ly_.uv_size);
		return true;
	case LJ_TTHREAD: {
		uint32_t slots = obj_.at<uint32_t>(ly_.L_stacksize);
		if (slots > lj_limit::stack_slots)
			implausible(o, "stack of " + std::to_string(slots) + " slots");
		uint64_t stack = gc_size::thread_stack(slots);
		// The main lua_State is part of GG_State, counted with it.
		uint64_t self = o == main_thread_ ? 0 : ly_.L_size;
		count(GcType::thread, o, self + stack, stack);
		threads_.push_back(o);
		return true;
	}
	case LJ_TPROTO:
		count(GcType::proto, o, obj_.at<uint32_t>(ly_.pt_sizept));
		return true;
	case LJ_TFUNC: {
		uint8_t nup = obj_.at<uint8_t>(ly_.fn_nupvalues);
		if (obj_.at<uint8_t>(ly_.fn_ffid) == LJ_FF_LUA)
			count(GcType::lua_function, o, gc_size::lua_function(ly_, nup));
		else
			count(GcType::c_function, o, gc_size::c_function(ly_, nup));
		return true;
	}
	case LJ_TTRACE: {
		if (!tl_) {
			// A JIT build none of our tables describe: counted, not sized.
			if (!out_.types[size_t(GcType::trace)].count)
				problem("traces not sized: no JIT layout for " +
					std::string(ly_.name));
			count(GcType::trace, o, 0);
			return true;
		}
		uint32_t nins = obj_.at<uint32_t>(tl_->T_nins), nk = obj_.at<uint32_t>(tl_->T_nk);
		uint32_t nsnapmap = obj_.at<uint32_t>(tl_->T_nsnapmap);
		if (nins - nk > lj_limit::trace_ir || nsnapmap > lj_limit::trace_snapmap)
			implausible(o, "trace of " + std::to_string(nins - nk) +
					       " IR instructions and " + std::to_string(nsnapmap) +
					       " snapshot map entries");
		auto t = gc_size::trace(*tl_, nins, nk, obj_.at<uint16_t>(tl_->T_nsnap), nsnapmap);
		count(GcType::trace, o, t.total, t.ir, t.snapshots);
		out_.types[size_t(GcType::trace)].outside += obj_.at<uint32_t>(tl_->T_szmcode);
		return true;
	}
	case LJ_TCDATA: { // lj_cdata.c lj_cdata_free
		// GCcdata.marked follows nextgc.
		if (obj_.at<uint8_t>(ly_.ptrsize) & cdata_var) {
			auto extra = mem_.value<uint16_t>(o - cdatavar_size + 2);
			auto len = mem_.value<uint32_t>(o - cdatavar_size + 4);
			if (!extra || !len) {
				problem("variable-sized cdata " + luajit_pointer(o) +
					": header unreadable");
				return true;
			}
			count(GcType::cdata, o, uint64_t(*len) + *extra);
		} else {
			count(GcType::cdata, o,
			      ly_.cd_size + cdata_payload(obj_.at<uint16_t>(ly_.cd_ctypeid)));
		}
		return true;
	}
	case LJ_TTAB: {
		uint32_t asize = obj_.at<uint32_t>(ly_.tab_asize);
		uint32_t hmask = obj_.at<uint32_t>(ly_.tab_hmask);
		if (asize > lj_limit::array_slots || hmask >= lj_limit::hash_nodes)
			implausible(o, "table of " + std::to_string(asize) + " array slots and " +
					       std::to_string(uint64_t(hmask) + 1) + " hash nodes");
		auto t = gc_size::table(ly_, obj_.at<int8_t>(ly_.tab_colo), asize, hmask);
		count(GcType::table, o, t.total, t.array, t.hash);
		return true;
	}
	case LJ_TUDATA:
		count(GcType::userdata, o, gc_size::userdata(ly_, obj_.at<uint32_t>(ly_.ud_len)));
		return true;
	}
	return false;
}

template <typename Visit>
void Census::walk_list(const char *name, uint64_t first, uint64_t stop, Visit visit)
{
	// Brent's cycle detection: a corrupt list must not keep us here.
	uint64_t o = first, mark = first, power = 1, steps = 0, seen = 0;
	while (o && !(seen && o == stop)) {
		if (!obj_.fetch(o)) {
			problem(missed(name));
			return;
		}
		uint64_t next = obj_.ref(0, ly_.ptrsize);
		bool known = visit(o);
		if (obj_.failed()) {
			problem(missed(name));
			return;
		}
		if (!known) {
			problem(std::string(name) + ": object " + luajit_pointer(o) +
				" has unknown type " +
				std::to_string(obj_.at<uint8_t>(LJ_GCT_OFFSET(&ly_))));
			return;
		}
		o = next;
		if (o == mark && o != stop) {
			problem(std::string(name) + " is cyclic");
			return;
		}
		if (++steps == power) {
			mark = o;
			power *= 2;
			steps = 0;
		}
		if (++seen >= max_objects) {
			problem(std::string(name) + " longer than any heap could be");
			return;
		}
	}
}

// Strings hang off g->str.tab[0..mask] through nextgc; the low bit of an
// anchor flags secondary hashing (lj_str.c).
bool Census::open_string_table(uint64_t &tab)
{
	GcStringTable &st = out_.strings;
	auto t = mem_.ref(g_ + ly_.g_str_tab);
	auto mask = mem_.value<uint32_t>(g_ + ly_.g_str_mask);
	auto num = mem_.value<uint32_t>(g_ + ly_.g_str_num);
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
	cycle.assign(n, ChainCycle{});
	if (auto r = mem_.memory().read(tab + first * ps, anchors); !r) {
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
			uint64_t o = obj_.ref(0, ps);
			if (obj_.at<uint8_t>(LJ_GCT_OFFSET(&ly_)) != LJ_TSTR) {
				problem("string table chain: object " + luajit_pointer(l.addr) +
					" is no string");
				return false;
			}
			size_object(l.addr, LJ_TSTR);
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

// What g->gc.total counts besides objects: allocations of the VM itself
// (lj_state.c close_state lists them as it frees them).
void Census::add_overheads()
{
	const lj_layout &ly = ly_;
	uint64_t gg = g_ - ly.gg_g;
	out_.overheads.push_back({"GG_State (main lua_State, global_State, jit_State, "
				  "dispatch table)",
				  ly.gg_size});
	// g->tmpbuf: an SBuf {w, e, b, L} of native pointers (lj_buf.h
	// sbufsz); in Tarantool's fork {p, e, b, L} of MRefs, 32 bits
	// without GC64 (its lj_obj.h).
	const bool mrefs = LJ_LAYOUT_TARANTOOL(&ly);
	const uint64_t field = mrefs ? ly.ptrsize : native_ptr;
	auto sbuf_ptr = [&](uint64_t at) {
		return mrefs ? mem_.ref(at) : mem_.value<uint64_t>(at);
	};
	auto e = sbuf_ptr(g_ + ly.g_tmpbuf + field);
	auto b = sbuf_ptr(g_ + ly.g_tmpbuf + 2 * field);
	if (e && b && *e >= *b)
		out_.overheads.push_back({"temporary string buffer", *e - *b});
	else
		problem("g->tmpbuf unreadable");
	// Lightuserdata segments (lj_udata.c), 64-bit builds.
	auto seg = mem_.ref(g_ + ly.g_gc_lightudseg);
	auto segnum = mem_.value<uint8_t>(g_ + ly.g_gc_lightudnum);
	if (seg && *seg && segnum) {
		uint64_t n = *segnum ? uint64_t(2) << (31 - __builtin_clz(*segnum)) : 2;
		out_.overheads.push_back({"lightuserdata segment map", n * 4});
	}
	if (tl_) { // lj_trace.c lj_trace_freestate
		uint64_t J = gg + tl_->gg_J;
		auto sizetrace = mem_.value<uint32_t>(J + tl_->J_sizetrace);
		auto irtop = mem_.value<uint32_t>(J + tl_->J_irtoplim);
		auto irbot = mem_.value<uint32_t>(J + tl_->J_irbotlim);
		auto sizesnap = mem_.value<uint32_t>(J + tl_->J_sizesnap);
		auto sizesnapmap = mem_.value<uint32_t>(J + tl_->J_sizesnapmap);
		if (sizetrace && irtop && irbot && sizesnap && sizesnapmap) {
			out_.overheads.push_back(
				{"JIT trace number table", uint64_t(*sizetrace) * ly.ptrsize});
			out_.overheads.push_back(
				{"JIT IR buffer", uint64_t(*irtop - *irbot) * gc_size::irins});
			out_.overheads.push_back(
				{"JIT snapshot buffers",
				 uint64_t(*sizesnap) * LJ_SNAP_SIZE +
					 uint64_t(*sizesnapmap) * gc_size::snapentry});
		} else {
			problem("jit_State unreadable");
		}
	}
	// The FFI's C type state (lj_ctype.c lj_ctype_freestate).
	auto cts = mem_.ref(g_ + ly.g_ctype_state);
	if (cts && *cts) {
		auto tab = mem_.value<uint64_t>(*cts + ly.cts_tab);
		auto sizetab = mem_.value<uint32_t>(*cts + ly.cts_sizetab);
		auto sizeid = mem_.value<uint32_t>(*cts + ly.cts_cb_sizeid);
		if (tab && sizetab && sizeid) {
			cts_tab_ = *tab;
			cts_sizetab_ = *sizetab;
			out_.overheads.push_back({"FFI C type state",
						  ly.cts_size + uint64_t(*sizetab) * ly.ctype_size +
							  uint64_t(*sizeid) * ctypeid1_size});
		} else {
			problem("FFI C type state unreadable");
		}
	}
}

std::string printable_prefix(const std::string &s, size_t max)
{
	std::string out = "\"";
	for (size_t i = 0; i < s.size() && i < max; i++) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			out += char(c);
		} else {
			char buf[8];
			snprintf(buf, sizeof buf, "\\x%02x", c);
			out += buf;
		}
	}
	out += s.size() > max ? "\"..." : "\"";
	return out;
}

std::string Census::describe(const Ranked &r)
{
	const lj_layout &ly = ly_;
	switch (r.type) {
	case GcType::string: {
		auto len = mem_.value<uint32_t>(r.addr + ly.str_len);
		auto s = mem_.str(r.addr, 40);
		if (!len || !s)
			return "unreadable";
		return "len " + std::to_string(*len) + " " + printable_prefix(*s, 32);
	}
	case GcType::table: {
		auto asize = mem_.value<uint32_t>(r.addr + ly.tab_asize);
		auto hmask = mem_.value<uint32_t>(r.addr + ly.tab_hmask);
		if (!asize || !hmask)
			return "unreadable";
		return "array " + std::to_string(*asize) + ", hash " +
		       std::to_string(*hmask ? uint64_t(*hmask) + 1 : 0);
	}
	default:
		return "";
	}
}

// Strings hang off the string table's chains only, never off the object
// list (lj_str.c), so the two walks share nothing but the memory they read.
// Where that memory can be read from two threads, the string table is
// walked beside the lists: both wait on memory, on two CPUs.
// The string table walked a batch of buckets at a time by every thread
// free to: the string thread from the start, the census's own once the
// object lists are done. Batches are added to the total in their order,
// so the result, problems and where a corrupt chain stops the walk
// included, is the one a single thread walking them in order gives.
class StringBatches {
public:
	static constexpr uint64_t buckets_per_batch = 1 << 14;

	StringBatches(Census &total, uint64_t tab)
	    : total_(total), tab_(tab), buckets_(total.out_.strings.buckets),
	      count_((buckets_ + buckets_per_batch - 1) / buckets_per_batch)
	{
	}

	// Walks batches until none is left to claim.
	void work()
	{
		StringScratch scratch;
		uint64_t index, first, n;
		while (claim(index, first, n)) {
			std::unique_ptr<Census> p = part();
			bool completed = p->walk_string_batch(tab_, first, n, scratch);
			done(index, std::move(p), completed);
		}
	}

private:
	// The next batch to walk, its first bucket and size; false when none is left.
	bool claim(uint64_t &index, uint64_t &first, uint64_t &n)
	{
		if (halted_)
			return false;
		index = next_++;
		if (index >= count_)
			return false;
		first = index * buckets_per_batch;
		n = std::min(buckets_per_batch, buckets_ - first);
		return true;
	}

	// A census for the next batch. It starts from the sizes the largest
	// objects and strings found so far already exceed: a fresh list of
	// the largest would take in most of a batch's strings before its
	// threshold rose, where the total's is already high.
	std::unique_ptr<Census> part() const
	{
		auto p = std::make_unique<Census>(total_.mem_, total_.g_, total_.options_);
		p->top_.raise_floor(top_floor_);
		p->top_strings_.raise_floor(top_strings_floor_);
		return p;
	}

	// A walked batch: added to the total with every batch before it that
	// is done, unless a problem before it ended the walk.
	void done(uint64_t index, std::unique_ptr<Census> part, bool completed)
	{
		std::lock_guard lock(mutex_);
		done_[index] = {std::move(part), completed};
		for (auto it = done_.find(added_); it != done_.end(); it = done_.find(added_)) {
			if (!halted_) {
				total_.add_batch(*it->second.part);
				halted_ = !it->second.completed;
				top_floor_ = total_.top_.floor();
				top_strings_floor_ = total_.top_strings_.floor();
			}
			done_.erase(it);
			added_++;
		}
	}

	struct Walked {
		std::unique_ptr<Census> part;
		bool completed;
	};
	Census &total_;
	const uint64_t tab_, buckets_, count_;
	std::atomic<uint64_t> next_{0};
	std::atomic<bool> halted_{false};
	std::atomic<uint64_t> top_floor_{0}, top_strings_floor_{0};
	std::mutex mutex_;
	uint64_t added_ = 0;              // batches [0, added_) are in the total
	std::map<uint64_t, Walked> done_; // walked, waiting for those before
};

void Census::add_batch(Census &part)
{
	GcTypeStats &mine = out_.types[size_t(GcType::string)];
	const GcTypeStats &theirs = part.out_.types[size_t(GcType::string)];
	mine.count += theirs.count;
	mine.bytes += theirs.bytes;
	GcStringTable &st = out_.strings;
	st.used += part.out_.strings.used;
	st.longest = std::max(st.longest, part.out_.strings.longest);
	st.strings += part.out_.strings.strings;
	st.bytes = mine.bytes;
	// The part listed its first implausible objects first, then maybe
	// the problem that ended it: of the former, only as many as this
	// census has room left for.
	uint64_t implausible_listed = std::min(part.implausible_, max_listed_implausible);
	for (size_t i = 0; i < part.out_.problems.size(); i++)
		if (i >= implausible_listed || implausible_ + i < max_listed_implausible)
			problem(std::move(part.out_.problems[i]));
	implausible_ += part.implausible_;
	for (const Ranked &r : part.top_.largest_first())
		top_.offer(r.bytes, r.addr, r.type);
	for (const Ranked &r : part.top_strings_.largest_first())
		top_strings_.offer(r.bytes, r.addr, r.type);
}

// What the string walk found, as if this census had walked it.
void Census::add_strings(Census &strings)
{
	GcTypeStats &mine = out_.types[size_t(GcType::string)];
	const GcTypeStats &theirs = strings.out_.types[size_t(GcType::string)];
	mine.count += theirs.count;
	mine.bytes += theirs.bytes;
	mine.part1 += theirs.part1;
	mine.part2 += theirs.part2;
	out_.strings = std::move(strings.out_.strings);
	for (auto &o : strings.out_.overheads)
		out_.overheads.push_back(std::move(o));
	for (auto &p : strings.out_.problems)
		problem(std::move(p));
	implausible_ += strings.implausible_;
	for (const Ranked &r : strings.top_.largest_first())
		top_.offer(r.bytes, r.addr, r.type);
	top_strings_ = std::move(strings.top_strings_);
}

GcCensus Census::run()
{
	const lj_layout &ly = ly_;
	auto total = mem_.ref(g_ + ly.g_gc_total);
	if (!total) {
		problem("g->gc.total unreadable: " + total.error().reason);
		return out_;
	}
	out_.gc_total = *total;
	main_thread_ = mem_.ref(g_ + ly.g_mainthref).value_or(0);
	add_overheads();
	auto strings = std::make_unique<Census>(mem_, g_, options_);
	uint64_t tab = 0;
	std::optional<StringBatches> batches;
	if (strings->open_string_table(tab))
		batches.emplace(*strings, tab);
	std::exception_ptr strings_error;
	// Joined on every way out of here, an exception included.
	std::jthread strings_thread;
	if (batches && mem_.memory().concurrent_reads() && std::thread::hardware_concurrency() >= 2)
		strings_thread = std::jthread([&] {
			try {
				batches->work();
			} catch (...) {
				strings_error = std::current_exception();
			}
		});

	auto sized = [&](uint64_t o) {
		return size_object(o, obj_.at<uint8_t>(LJ_GCT_OFFSET(&ly)));
	};
	if (auto root = mem_.ref(g_ + ly.g_gc_root))
		walk_list("GC object list", *root, 0, sized);
	else
		problem("g->gc.root unreadable");
	// Userdata and cdata waiting for their finalizer: a ring whose anchor
	// is the last one (lj_gc.c gc_finalize).
	if (auto mm = mem_.ref(g_ + ly.g_gc_mmudata); mm && *mm) {
		if (auto first = mem_.ref(*mm))
			walk_list("finalizer list", *first, *first, sized);
		else
			problem("g->gc.mmudata unreadable");
	}
	// Open upvalues are on no GC list but their thread's (lj_func.c).
	// A cyclic list passes a thread many times before the cycle shows:
	// each one's list is walked once.
	std::sort(threads_.begin(), threads_.end());
	threads_.erase(std::unique(threads_.begin(), threads_.end()), threads_.end());
	for (uint64_t L : threads_)
		if (auto uv = mem_.ref(L + ly.L_openupval))
			walk_list("open upvalue list", *uv, 0, [&](uint64_t o) {
				count(GcType::upvalue, o, ly.uv_size);
				return true;
			});
	// What is left of the string table, this thread helps with.
	if (batches)
		batches->work();
	if (strings_thread.joinable()) {
		strings_thread.join();
		if (strings_error)
			std::rethrow_exception(strings_error);
	}
	add_strings(*strings);
	if (implausible_ > max_listed_implausible)
		problem(std::to_string(implausible_ - max_listed_implausible) +
			" more objects of sizes LuaJIT could not have made");

	for (const Ranked &r : top_.largest_first())
		out_.top.push_back({r.addr, r.type, r.bytes, describe(r), ""});
	for (const Ranked &r : top_strings_.largest_first())
		out_.strings.largest.push_back({r.addr, r.type, r.bytes, describe(r), ""});
	return out_;
}

} // namespace

GcCensus gc_census(const Vm &mem, uint64_t g, const GcCensusOptions &options)
{
	return Census(mem, g, options).run();
}

} // namespace ljcore
