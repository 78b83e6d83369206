#include "analyzer/gc/heap_objects.h"

#include <algorithm>
#include <string>

#include "analyzer/gc/brent_cycle.h"
#include "analyzer/gc/object_bytes.h"
#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/model/lua_text.h"

namespace ljcore::gc {

namespace {

class ListWalk {
public:
	ListWalk(const Vm &vm, uint64_t max_objects, std::vector<uint64_t> &out,
		 Diagnostics &diagnostics)
	    : vm_(vm), ly_(vm.layout()), obj_(vm.memory()), max_(max_objects), out_(out),
	      diagnostics_(diagnostics)
	{
	}

	// The objects linked through nextgc from first, up to 0 or, for a
	// ring, back to stop; the threads among them into threads_.
	void walk(const char *name, uint64_t first, uint64_t stop)
	{
		BrentCycle cycle{first};
		uint64_t o = first;
		for (bool started = false; o && !(started && o == stop); started = true) {
			if (out_.size() >= max_) {
				fail(std::string(name) + ": more objects than the limit of " +
				     std::to_string(max_));
				return;
			}
			if (!obj_.fetch(o)) {
				fail(std::string(name) + ": " + obj_.miss().reason + " at " +
				     luajit_pointer(obj_.miss().addr));
				return;
			}
			out_.push_back(o);
			if (gc_header::gct(ly_, obj_) == LJ_TTHREAD)
				threads_.push_back(o);
			o = gc_header::nextgc(ly_, obj_);
			if (o != stop && o && cycle.loops_at(o)) {
				fail(std::string(name) + " is cyclic");
				return;
			}
		}
	}

	// The string table's chains (lj_str.c): the low bit of an anchor
	// flags secondary hashing.
	void strings()
	{
		const GlobalState g(vm_);
		auto tab = g.str_tab();
		auto mask = g.str_mask();
		if (!tab || !mask) {
			fail("string table unreadable");
			return;
		}
		for (uint64_t b = 0; b <= *mask && ok_; b++) {
			auto anchor = vm_.ref(*tab + b * ly_.ptrsize);
			if (!anchor) {
				fail("string table unreadable: " + anchor.error().reason);
				return;
			}
			walk("string table chain", *anchor & ~uint64_t(1), 0);
		}
	}

	void open_upvalues()
	{
		std::sort(threads_.begin(), threads_.end());
		threads_.erase(std::unique(threads_.begin(), threads_.end()), threads_.end());
		for (uint64_t L : threads_)
			if (auto uv = LuaState(vm_, L).openupval())
				walk("open upvalue list", *uv, 0);
	}

	bool ok() const { return ok_; }

private:
	void fail(std::string what)
	{
		ok_ = false;
		diagnostics_.problem("retained: " + std::move(what));
	}

	const Vm &vm_;
	const lj_layout &ly_;
	ObjBytes obj_;
	uint64_t max_;
	std::vector<uint64_t> &out_;
	std::vector<uint64_t> threads_;
	Diagnostics &diagnostics_;
	bool ok_ = true;
};

} // namespace

HeapObjects::HeapObjects(const Vm &vm, uint64_t max_objects, Diagnostics &diagnostics)
{
	max_objects = std::min<uint64_t>(max_objects, none - 1);
	ListWalk lists(vm, max_objects, addrs_, diagnostics);
	const GlobalState g(vm);
	if (auto root = g.gc_root())
		lists.walk("GC object list", *root, 0);
	else
		diagnostics.problem("retained: g->gc.root unreadable");
	// The finalizer ring's anchor is its last object (lj_gc.c gc_finalize).
	if (auto mm = g.gc_mmudata(); mm && *mm) {
		if (auto first = vm.nextgc(*mm))
			lists.walk("finalizer list", *first, *first);
		else
			diagnostics.problem("retained: g->gc.mmudata unreadable");
	}
	lists.open_upvalues();
	lists.strings();
	complete_ = lists.ok();
	std::sort(addrs_.begin(), addrs_.end());
	addrs_.erase(std::unique(addrs_.begin(), addrs_.end()), addrs_.end());
	index();
}

// About two objects a bucket where the heap is dense; a heap spread over
// distant mappings gets its clusters into fewer buckets, still found by
// a binary search within the bucket.
void HeapObjects::index()
{
	if (addrs_.empty())
		return;
	uint64_t span = addrs_.back() - addrs_.front();
	uint64_t want = std::max<uint64_t>(addrs_.size() / 2, 1024);
	while ((span >> shift_) >= want)
		shift_++;
	uint64_t nb = (span >> shift_) + 1;
	buckets_.assign(nb + 1, 0);
	for (uint64_t a : addrs_)
		buckets_[((a - addrs_.front()) >> shift_) + 1]++;
	for (size_t b = 1; b < buckets_.size(); b++)
		buckets_[b] += buckets_[b - 1];
}

} // namespace ljcore::gc
