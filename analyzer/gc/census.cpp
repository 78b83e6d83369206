#include "analyzer/gc/census.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "analyzer/gc/brent_cycle.h"
#include "analyzer/gc/gc_sizes.h"
#include "analyzer/gc/object_detail.h"
#include "analyzer/gc/string_batches.h"
#include "analyzer/lua/limits.h"

namespace ljcore::gc {

namespace {

// More objects than a 64 GB heap of the smallest ones: a list this long
// is cyclic or garbage.
constexpr uint64_t max_objects = uint64_t(1) << 32;

// lj_ctype.h: the type kind is in the top 4 bits of CTInfo; kinds up to
// CT_ENUM (5) keep their size in CType.size, CT_ATTRIB (8) wraps another.
constexpr uint32_t ct_hassize_max = 5;
constexpr uint32_t ct_attrib = 8;
constexpr uint32_t ctsize_ptr = 8;

// GCcdata.marked bit 0x80: a variable-sized cdata, with a GCcdataVar
// {offset, extra, len} (8 bytes) right before it (lj_obj.h cdataisv).
constexpr uint8_t cdata_var = 0x80;
constexpr uint64_t cdatavar_size = 8;

} // namespace

uint64_t Census::cdata_payload(uint16_t id)
{
	if (ctype_sizes_.empty())
		ctype_sizes_.assign(65536, UINT32_MAX);
	if (ctype_sizes_[id] != UINT32_MAX)
		return ctype_sizes_[id];
	// ctype_raw (lj_ctype.h): skip attributes to the type that has the size.
	uint32_t cur = id, size = ctsize_ptr;
	for (int hops = 0; hops < 64 && cur < cts_sizetab_; hops++) {
		auto info = vm_.value<uint32_t>(cts_tab_ + uint64_t(cur) * ly_.ctype_size);
		auto sz = vm_.value<uint32_t>(cts_tab_ + uint64_t(cur) * ly_.ctype_size + 4);
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
			auto extra = vm_.value<uint16_t>(o - cdatavar_size + 2);
			auto len = vm_.value<uint32_t>(o - cdatavar_size + 4);
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
	// A corrupt list must not keep us here.
	BrentCycle cycle{first};
	uint64_t o = first, seen = 0;
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
	const lj_layout &ly = ly_;
	auto total = vm_.ref(g_ + ly.g_gc_total);
	if (!total) {
		problem("g->gc.total unreadable: " + total.error().reason);
		return out_;
	}
	out_.gc_total = *total;
	main_thread_ = vm_.ref(g_ + ly.g_mainthref).value_or(0);
	add_overheads();
	auto strings = std::make_unique<Census>(vm_, options_);
	uint64_t tab = 0;
	std::optional<StringBatches> batches;
	if (strings->open_string_table(tab))
		batches.emplace(*strings, tab);
	std::exception_ptr strings_error;
	// Joined on every way out of here, an exception included.
	std::jthread strings_thread;
	if (batches && vm_.memory().concurrent_reads() && std::thread::hardware_concurrency() >= 2)
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
	if (auto root = vm_.ref(g_ + ly.g_gc_root))
		walk_list("GC object list", *root, 0, sized);
	else
		problem("g->gc.root unreadable");
	// Userdata and cdata waiting for their finalizer: a ring whose anchor
	// is the last one (lj_gc.c gc_finalize).
	if (auto mm = vm_.ref(g_ + ly.g_gc_mmudata); mm && *mm) {
		if (auto first = vm_.ref(*mm))
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
		if (auto uv = vm_.ref(L + ly.L_openupval))
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
		out_.top.push_back({r.addr, r.type, r.bytes, object_detail(vm_, r), ""});
	for (const Ranked &r : top_strings_.largest_first())
		out_.strings.largest.push_back(
			{r.addr, r.type, r.bytes, object_detail(vm_, r), ""});
	return out_;
}

} // namespace ljcore::gc

namespace ljcore {

GcCensus gc_census(const Vm &vm, const GcCensusOptions &options)
{
	return gc::Census(vm, options).run();
}

} // namespace ljcore
