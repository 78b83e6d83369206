#include "analyzer/gc/census.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "analyzer/gc/brent_cycle.h"
#include "analyzer/gc/object_detail.h"
#include "analyzer/gc/string_batches.h"
#include "analyzer/lua/ctype_state.h"
#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/object_size.h"

namespace ljcore::gc {

namespace {

// More objects than a 64 GB heap of the smallest ones: a list this long
// is cyclic or garbage.
constexpr uint64_t max_objects = uint64_t(1) << 32;

// Room for the addresses of the objects listed, made before the walks so
// that the arrays never move: at most one object in 8 bytes of
// g->gc.total (a one-byte cdata of a 32-bit build has 9), and never more
// than this many (2 GiB of address space, only what is filled is memory).
constexpr uint64_t max_reserved = uint64_t(1) << 28;

} // namespace

uint64_t Census::cdata_payload(uint16_t id)
{
	if (ctype_sizes_.empty())
		ctype_sizes_.assign(65536, UINT32_MAX);
	if (ctype_sizes_[id] == UINT32_MAX)
		ctype_sizes_[id] = ctype_payload_size(vm_, cts_tab_, cts_sizetab_, id);
	return ctype_sizes_[id];
}

void Census::size_trace(uint64_t o)
{
	if (!tl_) {
		// A JIT build none of our tables describe: counted, not sized.
		if (!out_.types[size_t(GcType::trace)].count)
			problem("traces not sized: no JIT layout for " +
				std::string(ly_.name ? ly_.name : "this build"));
		count(GcType::trace, o, 0);
		return;
	}
	auto t = object_size::trace(*tl_, obj_);
	if (t.ir_ins > lj_limit::trace_ir || t.snapmap > lj_limit::trace_snapmap)
		implausible(o, "trace of " + std::to_string(t.ir_ins) + " IR instructions and " +
				       std::to_string(t.snapmap) + " snapshot map entries");
	count(GcType::trace, o, t.total, t.ir, t.snapshots);
	out_.types[size_t(GcType::trace)].outside += t.mcode;
}

void Census::size_cdata(uint64_t o)
{
	if (!object_size::cdata_variable(ly_, obj_)) {
		uint64_t payload = cdata_payload(object_size::cdata_ctypeid(ly_, obj_));
		count(GcType::cdata, o, object_size::cdata_fixed(ly_, payload));
	} else if (auto bytes = object_size::cdata_variable_size(vm_, o)) {
		count(GcType::cdata, o, *bytes);
	} else {
		problem("variable-sized cdata " + luajit_pointer(o) + ": header unreadable");
	}
}

bool Census::size_object(uint64_t o, uint8_t gct)
{
	switch (gct) {
	case LJ_TSTR:
		size_string(o);
		return true;
	case LJ_TUPVAL:
		count(GcType::upvalue, o, object_size::upvalue(ly_));
		return true;
	case LJ_TTHREAD: {
		auto t = object_size::thread(ly_, obj_, o == main_thread_);
		if (t.slots > lj_limit::stack_slots)
			implausible(o, "stack of " + std::to_string(t.slots) + " slots");
		count(GcType::thread, o, t.total, t.stack);
		threads_.push_back(o);
		return true;
	}
	case LJ_TPROTO:
		count(GcType::proto, o, object_size::proto(ly_, obj_));
		return true;
	case LJ_TFUNC: {
		auto f = object_size::function(ly_, obj_);
		count(f.lua ? GcType::lua_function : GcType::c_function, o, f.total);
		return true;
	}
	case LJ_TTRACE:
		size_trace(o);
		return true;
	case LJ_TCDATA:
		size_cdata(o);
		return true;
	case LJ_TTAB: {
		auto t = object_size::table(ly_, obj_);
		if (t.asize > lj_limit::array_slots || t.hmask >= lj_limit::hash_nodes)
			implausible(o, "table of " + std::to_string(t.asize) + " array slots and " +
					       std::to_string(uint64_t(t.hmask) + 1) +
					       " hash nodes");
		count(GcType::table, o, t.total, t.array, t.hash);
		return true;
	}
	case LJ_TUDATA:
		count(GcType::userdata, o, object_size::userdata(ly_, obj_));
		return true;
	}
	return false;
}

template <typename Visit>
void Census::walk_list(const char *name, uint64_t first, uint64_t stop, Visit visit)
{
	// A corrupt list must not keep us here.
	BrentCycle cycle{first};
	uint64_t o = first, seen = 0;
	while (o && !(seen && o == stop)) {
		if (!obj_.fetch(o)) {
			problem(missed(name));
			return;
		}
		uint64_t next = gc_header::nextgc(ly_, obj_);
		bool known = visit(o);
		if (obj_.failed()) {
			problem(missed(name));
			return;
		}
		if (!known) {
			problem(std::string(name) + ": object " + luajit_pointer(o) +
				" has unknown type " + std::to_string(gc_header::gct(ly_, obj_)));
			return;
		}
		o = next;
		if (o != stop && cycle.loops_at(o)) {
			problem(std::string(name) + " is cyclic");
			return;
		}
		if (++seen >= max_objects) {
			problem(std::string(name) + " longer than any heap could be");
			return;
		}
	}
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
	objects_.insert(objects_.end(), strings.objects_.begin(), strings.objects_.end());
	strings.objects_ = {};
	for (auto &o : strings.out_.overheads)
		out_.overheads.push_back(std::move(o));
	for (auto &p : strings.out_.diagnostics.problems())
		problem(std::move(p));
	implausible_ += strings.implausible_;
	for (const Ranked &r : strings.top_.largest_first())
		top_.offer(r.bytes, r.addr, r.type);
	top_strings_ = std::move(strings.top_strings_);
}

GcCensus Census::run()
{
	const GlobalState g(vm_);
	auto total = g.gc_total();
	if (!total) {
		problem("g->gc.total unreadable: " + total.error().reason);
		return out_;
	}
	out_.gc_total = *total;
	main_thread_ = g.mainthread().value_or(0);
	add_overheads();
	auto strings = std::make_unique<Census>(vm_, options_);
	strings->collect_ = collect_;
	uint64_t tab = 0;
	std::optional<StringBatches> batches;
	if (strings->open_string_table(tab))
		batches.emplace(*strings, tab);
	std::exception_ptr strings_error;
	// Joined on every way out of here, an exception included.
	std::jthread strings_thread;
	if (collect_) {
		objects_.reserve(std::min(*total / 8, max_reserved));
		strings->objects_.reserve(std::min(strings->out_.strings.num, max_reserved));
	}
	if (batches && vm_.memory().concurrent_reads() && std::thread::hardware_concurrency() >= 2)
		strings_thread = std::jthread([&] {
			try {
				batches->work();
			} catch (...) {
				strings_error = std::current_exception();
			}
		});

	auto sized = [&](uint64_t o) { return size_object(o, gc_header::gct(ly_, obj_)); };
	if (auto root = g.gc_root())
		walk_list("GC object list", *root, 0, sized);
	else
		problem("g->gc.root unreadable");
	// Userdata and cdata waiting for their finalizer: a ring whose anchor
	// is the last one (lj_gc.c gc_finalize).
	if (auto mm = g.gc_mmudata(); mm && *mm) {
		if (auto first = vm_.nextgc(*mm))
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
		if (auto uv = LuaState(vm_, L).openupval())
			walk_list("open upvalue list", *uv, 0, [&](uint64_t o) {
				count(GcType::upvalue, o, object_size::upvalue(ly_));
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
		out_.top.push_back({r.addr, r.type, r.bytes, object_detail(vm_, r), ""});
	for (const Ranked &r : top_strings_.largest_first())
		out_.strings.largest.push_back(
			{r.addr, r.type, r.bytes, object_detail(vm_, r), ""});
	return out_;
}

} // namespace ljcore::gc

namespace ljcore {

GcCensus gc_census(const Vm &vm, const GcCensusOptions &options, gc::BigArray<uint64_t> *objects)
{
	gc::Census census(vm, options);
	if (objects)
		census.collect_objects();
	GcCensus out = census.run();
	if (objects)
		*objects = std::move(census.objects());
	return out;
}

} // namespace ljcore
