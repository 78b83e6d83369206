#include "analyzer/gc/gc_paths.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <thread>
#include <unordered_map>

#include "analyzer/gc/seen_objects.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/object_size.h"
#include "analyzer/lua/tvalue.h"

namespace ljcore {

namespace {

using gc::AddressSet;
using gc::SeenObjects;

// How a node was reached from its parent.
enum class Edge : uint8_t {
	root,       // key: index into root labels
	field,      // key: the GCstr key
	index,      // key: bits of the number key (or array index as double)
	other_key,  // key: tag of a boolean key, or the GC key object
	as_key,     // the object is a key of the parent table
	metatable,  //
	upvalue,    // key: upvalue index of the parent Lua function
	c_upvalue,  // key: upvalue index of the parent C function
	stack_slot, // key: slot number from the bottom of the stack
	prototype,  // the prototype of the parent Lua function
	constant,   // key: index of the parent prototype's GC constant
};

struct Node {
	uint64_t obj;
	uint64_t key;
	uint32_t parent;
	uint32_t prefix;
	Edge edge;
};

constexpr uint32_t no_parent = UINT32_MAX;
// Slots read per memory access while scanning a big table or stack.
constexpr uint64_t chunk_slots = 4096;

// Steps of a path shown at each end; those between are only counted: a
// list thousands of links long (or a corrupt heap made into one) must not
// make each path as long as the list.
constexpr size_t path_ends = 100;

// Problems listed one by one; past this many, only their number: a
// corrupt heap must not make the report as big as the heap.
constexpr size_t max_listed_problems = 16;

bool identifier(const std::string &s)
{
	if (s.empty() || isdigit((unsigned char)s[0]))
		return false;
	for (unsigned char c : s)
		if (!isalnum(c) && c != '_')
			return false;
	return true;
}

std::string quoted(const std::string &s)
{
	std::string out = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += char(c);
		} else if (c >= 0x20 && c < 0x7f) {
			out += char(c);
		} else {
			char buf[8];
			snprintf(buf, sizeof buf, "\\%u", c);
			out += buf;
		}
	}
	return out + "\"";
}

class Search {
public:
	Search(const Vm &vm, const GcPathOptions &o)
	    : vm_(vm), ly_(vm.layout()), g_(vm.g()), options_(o), seen_(vm.memory())
	{
	}
	// The search itself, which needs no census: it may run beside one.
	void run();
	// Gives the census what the search found: paths of its largest
	// objects, bytes by prefix, problems.
	void fill(GcCensus &census);

private:
	void problem(uint64_t obj, const std::string &what);
	void add_root(const std::string &label, uint64_t obj);
	void reach(uint32_t parent, uint64_t obj, Edge edge, uint64_t key);
	void expand(uint32_t i);
	void scan_slots(uint64_t addr, uint64_t count, size_t stride, const char *what,
			uint64_t obj, const auto &on_slot);
	void expand_table(uint32_t i);
	void expand_function(uint32_t i);
	void expand_thread(uint32_t i);
	uint64_t bytes_of(uint64_t obj, uint8_t gct);
	std::string label(const Node &n);
	std::string path(uint32_t i);
	std::string upvalue_name(uint64_t fn, uint32_t index);
	uint64_t registry_field(uint64_t registry, const char *name);

	const Vm &vm_;
	const lj_layout &ly_;
	uint64_t g_;
	std::vector<std::string> problems_listed_;
	GcPathOptions options_;
	std::vector<Node> nodes_;
	SeenObjects seen_;
	std::vector<std::string> roots_;
	std::vector<std::string> prefixes_;
	std::vector<uint64_t> prefix_bytes_;
	uint64_t slots_ = 0;
	uint64_t problems_ = 0;
	bool stopped_ = false;
	uint64_t main_thread_ = 0;
};

void Search::problem(uint64_t obj, const std::string &what)
{
	if (problems_++ < max_listed_problems)
		problems_listed_.push_back("paths: object " + luajit_pointer(obj) + ": " + what);
}

void Search::add_root(const std::string &label, uint64_t obj)
{
	if (!obj || seen_.add(obj, true) != AddressSet::Added::now)
		return;
	roots_.push_back(label);
	prefixes_.push_back(label);
	prefix_bytes_.push_back(0);
	nodes_.push_back(
		{obj, roots_.size() - 1, no_parent, uint32_t(prefixes_.size() - 1), Edge::root});
}

void Search::reach(uint32_t parent, uint64_t obj, Edge edge, uint64_t key)
{
	if (!obj || stopped_)
		return;
	switch (seen_.add(obj, nodes_.size() < options_.max_objects)) {
	case AddressSet::Added::before:
		return;
	case AddressSet::Added::no_room:
		stopped_ = true;
		return;
	case AddressSet::Added::now:
		break;
	}
	Node n{obj, key, parent, nodes_[parent].prefix, edge};
	// Children of a root start a prefix of their own: "_G.app".
	if (nodes_[parent].edge == Edge::root) {
		prefixes_.push_back(roots_[nodes_[parent].key] + label(n));
		prefix_bytes_.push_back(0);
		n.prefix = uint32_t(prefixes_.size() - 1);
	}
	nodes_.push_back(n);
}

// Reads count slots from addr, stride bytes apart, in chunks; calls
// on_slot(index, the slot's bytes) for each. An unreadable chunk ends
// the scan, told as a problem of obj, which calls the slots `what`.
void Search::scan_slots(uint64_t addr, uint64_t count, size_t stride, const char *what,
			uint64_t obj, const auto &on_slot)
{
	std::vector<unsigned char> buf;
	for (uint64_t done = 0; done < count && !stopped_; done += chunk_slots) {
		uint64_t n = std::min(chunk_slots, count - done);
		buf.resize(n * stride);
		auto r = vm_.memory().read(addr + done * stride,
					   std::as_writable_bytes(std::span(buf)));
		if (!r) {
			problem(obj, std::string(what) + " unreadable after " +
					     std::to_string(done) + " of " + std::to_string(count) +
					     ": " + r.error().reason + " at " +
					     luajit_pointer(r.error().addr));
			return;
		}
		for (uint64_t k = 0; k < n; k++)
			on_slot(done + k, buf.data() + k * stride);
		slots_ += n;
		if (slots_ >= options_.max_slots)
			stopped_ = true;
	}
}

void Search::expand_table(uint32_t i)
{
	uint64_t t = nodes_[i].obj;
	auto mt = vm_.ref(t + ly_.tab_metatable);
	auto array = vm_.ref(t + ly_.tab_array);
	auto asize = vm_.value<uint32_t>(t + ly_.tab_asize);
	auto node = vm_.ref(t + ly_.tab_node);
	auto hmask = vm_.value<uint32_t>(t + ly_.tab_hmask);
	if (!mt || !array || !asize || !node || !hmask)
		return;
	reach(i, *mt, Edge::metatable, 0);
	if (*asize > lj_limit::array_slots)
		problem(t, "table claims " + std::to_string(*asize) +
				   " array slots, more than LuaJIT allows");
	else
		scan_slots(*array, *asize, 8, "array part", t,
			   [&](uint64_t k, const unsigned char *p) {
				   double key = double(k);
				   uint64_t bits;
				   memcpy(&bits, &key, 8);
				   reach(i, tvalue::gc_object_or_0(ly_, tvalue::load(p)),
					 Edge::index, bits);
			   });
	if (*hmask == 0) // the shared nilnode
		return;
	if (*hmask >= lj_limit::hash_nodes) {
		problem(t, "table claims " + std::to_string(uint64_t(*hmask) + 1) +
				   " hash nodes, more than LuaJIT allows");
		return;
	}
	// Node: the value, then the key (lj_obj.h).
	scan_slots(*node, uint64_t(*hmask) + 1, ly_.node_size, "hash part", t,
		   [&](uint64_t, const unsigned char *p) {
			   uint64_t k = tvalue::load(p + 8);
			   if (tvalue::is_nil(ly_, k)) // free node
				   return;
			   uint64_t kgc = tvalue::gc_object_or_0(ly_, k);
			   bool string_key = tvalue::itype(ly_, k) == ~uint32_t(LJ_TSTR);
			   if (kgc && !string_key)
				   reach(i, kgc, Edge::as_key, 0);
			   uint64_t vgc = tvalue::gc_object_or_0(ly_, tvalue::load(p));
			   if (!vgc)
				   return;
			   if (string_key)
				   reach(i, vgc, Edge::field, kgc);
			   else if (tvalue::is_number(ly_, k))
				   reach(i, vgc, Edge::index, k);
			   else
				   reach(i, vgc, Edge::other_key,
					 kgc ? kgc : ~tvalue::itype(ly_, k));
		   });
}

void Search::expand_function(uint32_t i)
{
	uint64_t fn = nodes_[i].obj;
	auto ffid = vm_.value<uint8_t>(fn + ly_.fn_ffid);
	auto nup = vm_.value<uint8_t>(fn + ly_.fn_nupvalues);
	if (!ffid || !nup)
		return;
	if (*ffid != LJ_FF_LUA) {
		// GCfuncC: upvalue TValues follow the lua_CFunction.
		scan_slots(fn + ly_.fn_f + 8, *nup, 8, "upvalues", fn,
			   [&](uint64_t k, const unsigned char *p) {
				   reach(i, tvalue::gc_object_or_0(ly_, tvalue::load(p)),
					 Edge::c_upvalue, k);
			   });
		return;
	}
	// The prototype sits right before the bytecode (lj_obj.h funcproto).
	if (auto pc = vm_.ref(fn + ly_.fn_pc); pc && *pc > ly_.pt_size)
		reach(i, *pc - ly_.pt_size, Edge::prototype, 0);
	// GCfuncL: uvptr[] to GCupval, whose v points at the value (closed:
	// inside the upvalue; open: a stack slot).
	for (uint32_t k = 0; k < *nup; k++) {
		auto uv = vm_.ref(fn + ly_.fn_uvptr + uint64_t(k) * ly_.ptrsize);
		auto v = uv ? vm_.ref(*uv + ly_.uv_v) : uv;
		auto tv = v ? vm_.value<uint64_t>(*v) : v;
		if (tv)
			reach(i, tvalue::gc_object_or_0(ly_, *tv), Edge::upvalue, k);
	}
}

void Search::expand_thread(uint32_t i)
{
	uint64_t L = nodes_[i].obj;
	auto stack = vm_.ref(L + ly_.L_stack);
	auto top = vm_.value<uint64_t>(L + ly_.L_top);
	auto stacksize = vm_.value<uint32_t>(L + ly_.L_stacksize);
	if (!stack || !top || !stacksize || *top < *stack)
		return;
	uint64_t n = std::min<uint64_t>((*top - *stack) / 8, *stacksize);
	if (n > lj_limit::stack_slots) {
		problem(L, "thread's stack claims " + std::to_string(n) +
				   " slots, more than LuaJIT allows");
		return;
	}
	scan_slots(*stack, n, 8, "stack", L, [&](uint64_t k, const unsigned char *p) {
		reach(i, tvalue::gc_object_or_0(ly_, tvalue::load(p)), Edge::stack_slot, k);
	});
}

uint64_t Search::bytes_of(uint64_t o, uint8_t gct)
{
	object_size::VmObject fields{vm_, o};
	switch (gct) {
	case LJ_TSTR:
		return object_size::string(ly_, fields).total;
	case LJ_TUPVAL:
		return object_size::upvalue(ly_);
	case LJ_TTHREAD:
		return object_size::thread(ly_, fields, o == main_thread_).total;
	case LJ_TPROTO:
		return object_size::proto(ly_, fields);
	case LJ_TFUNC:
		return object_size::function(ly_, fields).total;
	case LJ_TTAB:
		return object_size::table(ly_, fields).total;
	case LJ_TUDATA:
		return object_size::userdata(ly_, fields);
	default:
		// cdata payloads need the C type table and traces are no
		// values: the census counts both, the paths do not charge them.
		return 0;
	}
}

void Search::expand(uint32_t i)
{
	uint64_t o = nodes_[i].obj;
	auto gct = vm_.gct(o);
	if (!gct)
		return;
	prefix_bytes_[nodes_[i].prefix] += bytes_of(o, *gct);
	switch (*gct) {
	case LJ_TTAB:
		expand_table(i);
		break;
	case LJ_TFUNC:
		expand_function(i);
		break;
	case LJ_TTHREAD:
		expand_thread(i);
		break;
	case LJ_TPROTO: {
		// GC constants: GCRefs counted down from k (lj_obj.h proto_kgc).
		auto k = vm_.ref(o + ly_.pt_k);
		auto n = vm_.value<uint32_t>(o + ly_.pt_sizekgc);
		if (k && n)
			scan_slots(*k - uint64_t(*n) * ly_.ptrsize, *n, ly_.ptrsize, "GC constants",
				   o, [&](uint64_t at, const unsigned char *p) {
					   uint64_t ref = 0;
					   memcpy(&ref, p, ly_.ptrsize);
					   reach(i, ref, Edge::constant, *n - 1 - at);
				   });
		break;
	}
	case LJ_TUDATA:
		// GCudata.metatable sits where GCtab's does (lj_obj.h).
		reach(i, vm_.ref(o + ly_.tab_metatable).value_or(0), Edge::metatable, 0);
		break;
	default:
		break;
	}
}

// The name lj_debug_uvname() gives upvalue index of Lua function fn, or
// "" when it has none or its prototype cannot be read.
std::string Search::upvalue_name(uint64_t fn, uint32_t index)
{
	auto pt = function_proto(vm_, fn);
	return pt ? ljcore::upvalue_name(vm_, *pt, index).value_or("") : "";
}

std::string Search::label(const Node &n)
{
	switch (n.edge) {
	case Edge::root:
		return roots_[n.key];
	case Edge::field: {
		std::string s = vm_.str(n.key, 200).value_or("?");
		return identifier(s) ? "." + s : "[" + quoted(s) + "]";
	}
	case Edge::index: {
		double d;
		memcpy(&d, &n.key, 8);
		char buf[40];
		if (d == std::floor(d) && std::fabs(d) < 1e15)
			snprintf(buf, sizeof buf, "[%lld]", (long long)d);
		else
			snprintf(buf, sizeof buf, "[%.17g]", d);
		return buf;
	}
	case Edge::other_key:
		if (n.key == tvalue::tag_true)
			return "[true]";
		if (n.key == tvalue::tag_false)
			return "[false]";
		if (n.key < 16)
			return "[<lightuserdata>]";
		return "[<" +
		       std::string(vm_.gct(n.key).value_or(0) == LJ_TTAB ? "table" : "object") +
		       " " + luajit_pointer(n.key) + ">]";
	case Edge::as_key:
		return "<a key>";
	case Edge::metatable:
		return "<metatable>";
	case Edge::upvalue: {
		std::string name = upvalue_name(nodes_[n.parent].obj, uint32_t(n.key));
		return name.empty() ? "<upvalue " + std::to_string(n.key + 1) + ">"
				    : "<upvalue '" + name + "'>";
	}
	case Edge::c_upvalue:
		return "<upvalue " + std::to_string(n.key + 1) + ">";
	case Edge::stack_slot:
		return "<stack slot " + std::to_string(n.key) + ">";
	case Edge::prototype:
		return "<prototype>";
	case Edge::constant:
		return "<constant " + std::to_string(n.key) + ">";
	}
	return "?";
}

std::string Search::path(uint32_t i)
{
	std::vector<uint32_t> chain;
	for (uint32_t at = i; at != no_parent && chain.size() <= nodes_.size();
	     at = nodes_[at].parent)
		chain.push_back(at);
	std::string out;
	// A long path shows path_ends steps at each end, those between counted.
	size_t hidden = chain.size() > 2 * path_ends ? chain.size() - 2 * path_ends : 0;
	for (size_t step = 0; step < chain.size(); step++) {
		if (hidden && step == path_ends) {
			out += "<" + std::to_string(hidden) + " steps>";
			step += hidden;
		}
		out += label(nodes_[chain[chain.size() - 1 - step]]);
	}
	return out;
}

// registry[name] for a string key, by a walk of the registry's hash part.
uint64_t Search::registry_field(uint64_t registry, const char *name)
{
	auto node = vm_.ref(registry + ly_.tab_node);
	auto hmask = vm_.value<uint32_t>(registry + ly_.tab_hmask);
	if (!node || !hmask || *hmask >= (1u << 20))
		return 0;
	for (uint64_t k = 0; k <= *hmask; k++) {
		unsigned char nd[16];
		if (!vm_.memory().read(*node + k * ly_.node_size,
				       std::as_writable_bytes(std::span(nd))))
			return 0;
		uint64_t key = tvalue::load(nd + 8);
		if (tvalue::itype(ly_, key) == ~uint32_t(LJ_TSTR) &&
		    vm_.str(tvalue::gc_object(ly_, key), 64).value_or("") == name)
			return tvalue::gc_object_or_0(ly_, tvalue::load(nd));
	}
	return 0;
}

void Search::run()
{
	main_thread_ = vm_.ref(g_ + ly_.g_mainthref).value_or(0);
	uint64_t registry =
		tvalue::gc_object_or_0(ly_, vm_.value<uint64_t>(g_ + ly_.g_registrytv).value_or(0));
	uint32_t i = 0;
	auto search = [&] {
		for (; i < nodes_.size(); i++)
			expand(i);
	};
	// What the heap holds first: a path through globals says where memory
	// stays, while a stack slot may be gone at the next return.
	add_root("_G", main_thread_ ? vm_.ref(main_thread_ + ly_.L_env).value_or(0) : 0);
	if (registry)
		add_root("package.loaded", registry_field(registry, "_LOADED"));
	add_root("registry", registry);
	search();
	// Then what only the stacks of the main and the running thread hold.
	add_root("main thread", main_thread_);
	uint64_t cur = vm_.ref(g_ + ly_.g_cur_L).value_or(0);
	add_root("thread " + luajit_pointer(cur), cur);
	search();
}

void Search::fill(GcCensus &census)
{
	census.paths_complete = !stopped_;
	for (const std::string &p : problems_listed_)
		census.diagnostics.problem(p);
	if (problems_ > max_listed_problems)
		census.diagnostics.problem(
			"paths: " + std::to_string(problems_ - max_listed_problems) +
			" more objects could not be read");
	// The node of each object whose path is shown: one pass over the
	// nodes, where a filter of a few bits per wanted address turns all
	// but a few away with one test.
	std::unordered_map<uint64_t, uint32_t> wanted;
	std::vector<uint64_t> filter(64);
	auto bit = [](uint64_t addr) { return (addr >> 3) * 0x9e3779b97f4a7c15ull >> 52; };
	for (auto *objects : {&census.top, &census.strings.largest})
		for (const GcObject &o : *objects) {
			wanted.emplace(o.addr, UINT32_MAX);
			filter[bit(o.addr) >> 6] |= uint64_t(1) << (bit(o.addr) & 63);
		}
	for (uint32_t i = 0; i < nodes_.size(); i++) {
		uint64_t b = bit(nodes_[i].obj);
		if (filter[b >> 6] >> (b & 63) & 1)
			if (auto w = wanted.find(nodes_[i].obj); w != wanted.end())
				w->second = i;
	}
	for (auto *objects : {&census.top, &census.strings.largest})
		for (GcObject &o : *objects)
			if (uint32_t i = wanted[o.addr]; i != UINT32_MAX)
				o.path = path(i);
	for (size_t p = 0; p < prefixes_.size(); p++)
		if (prefix_bytes_[p])
			census.by_prefix[prefixes_[p]] += prefix_bytes_[p];
}

} // namespace

GcCensus gc_census_with_paths(const Vm &vm, const GcCensusOptions &census_options,
			      const GcPathOptions &path_options)
{
	Search search(vm, path_options);
	std::exception_ptr error;
	// The search beside the census where the memory may be read on two
	// threads: the two take about as long on a big heap.
	std::jthread beside;
	if (vm.memory().concurrent_reads() && std::thread::hardware_concurrency() >= 2)
		beside = std::jthread([&] {
			try {
				search.run();
			} catch (...) {
				error = std::current_exception();
			}
		});
	GcCensus census = gc_census(vm, census_options);
	if (beside.joinable()) {
		beside.join();
		if (error)
			std::rethrow_exception(error);
	} else {
		search.run();
	}
	search.fill(census);
	return census;
}

} // namespace ljcore
