#include "analyzer/gc/gc_paths.h"

#include <algorithm>
#include <exception>
#include <map>
#include <thread>
#include <unordered_map>

#include "analyzer/gc/seen_objects.h"
#include "analyzer/lua/gc_roots.h"
#include "analyzer/lua/object_refs.h"
#include "analyzer/lua/object_size.h"

namespace ljcore {

namespace {

using gc::AddressSet;
using gc::SeenObjects;

// An object reached: a root (parent no_parent, key the index of its
// label), or by a reference of kind edge and key from its parent.
struct Node {
	uint64_t obj;
	uint64_t key;
	uint32_t parent;
	uint32_t prefix;
	RefKind edge;
	uint8_t depth; // steps below the root, saturated
};

constexpr uint32_t no_parent = UINT32_MAX;

// Steps of a path shown at each end; those between are only counted: a
// list thousands of links long (or a corrupt heap made into one) must not
// make each path as long as the list.
constexpr size_t path_ends = 100;

// Problems listed one by one; past this many, only their number: a
// corrupt heap must not make the report as big as the heap.
constexpr size_t max_listed_problems = 16;

class Search {
public:
	Search(const Vm &vm, const GcPathOptions &o)
	    : vm_(vm), ly_(vm.layout()), options_(o), seen_(vm.memory())
	{
	}
	// The search itself, which needs no census: it may run beside one.
	void run();
	// Gives the census what the search found: paths of its largest
	// objects, bytes by prefix, problems.
	void fill(GcCensus &census);
	// Where the search first reached each block: the object it is, or
	// whose array, hash part or stack it is, and that object's prefix.
	std::vector<BlockPlace> places_of(const std::vector<uint64_t> &blocks) const;
	// Each prefix, with the object at its end.
	std::map<std::string, uint64_t> heads() const;
	bool complete() const { return !stopped_; }

private:
	void problem(uint64_t obj, const std::string &what);
	void add_root(const std::string &label, uint64_t obj);
	void reach(uint32_t parent, uint64_t obj, RefKind edge, uint64_t key);
	void expand(uint32_t i);
	uint64_t bytes_of(uint64_t obj, uint8_t gct);
	std::string label(const Node &n);
	std::string path(uint32_t i);

	// What ObjectRefs tells of the references of node i.
	struct Refs {
		Search &search;
		uint32_t i;

		void ref(RefKind kind, uint64_t key, uint64_t target)
		{
			search.reach(i, target, kind, key);
		}
		bool stopped() const { return search.stopped_; }
		void scanned(uint64_t slots)
		{
			search.slots_ += slots;
			if (search.slots_ >= search.options_.max_slots)
				search.stopped_ = true;
		}
		void problem(uint64_t obj, const std::string &what) { search.problem(obj, what); }
	};

	const Vm &vm_;
	const lj_layout &ly_;
	Diagnostics problems_listed_;
	GcPathOptions options_;
	std::vector<Node> nodes_;
	SeenObjects seen_;
	std::vector<std::string> roots_;
	// Per prefix: its text, the bytes first reached through it, the
	// prefix one step shorter (no_parent for a root's own) and the steps
	// from the root to the object that heads it.
	std::vector<std::string> prefixes_;
	std::vector<uint64_t> prefix_bytes_;
	std::vector<uint32_t> prefix_parent_;
	std::vector<uint8_t> prefix_steps_;
	uint64_t slots_ = 0;
	uint64_t problems_ = 0;
	bool stopped_ = false;
	uint64_t main_thread_ = 0;
};

void Search::problem(uint64_t obj, const std::string &what)
{
	if (problems_++ < max_listed_problems)
		problems_listed_.problem("paths: object " + luajit_pointer(obj) + ": " + what);
}

void Search::add_root(const std::string &label, uint64_t obj)
{
	if (!obj || seen_.add(obj, true) != AddressSet::Added::now)
		return;
	roots_.push_back(label);
	prefixes_.push_back(label);
	prefix_bytes_.push_back(0);
	prefix_parent_.push_back(no_parent);
	prefix_steps_.push_back(0);
	nodes_.push_back({obj, roots_.size() - 1, no_parent, uint32_t(prefixes_.size() - 1),
			  RefKind::field, 0});
}

void Search::reach(uint32_t parent, uint64_t obj, RefKind edge, uint64_t key)
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
	const uint8_t depth = uint8_t(std::min(nodes_[parent].depth + 1, 255));
	Node n{obj, key, parent, nodes_[parent].prefix, edge, depth};
	// Children of a root start a prefix of their own ("_G.app"), and so,
	// as deep as asked and while there is room, do their children but the
	// elements of an array: "_G.app.log" grows, not each "_G.app.log[7]"
	// (nor anything under one: a prefix is its parent's and one step).
	const bool parent_heads = prefix_steps_[n.prefix] == nodes_[parent].depth;
	if (depth == 1 || (parent_heads && depth <= options_.prefix_depth &&
			   edge != RefKind::index && prefixes_.size() < options_.max_prefixes)) {
		prefixes_.push_back(prefixes_[n.prefix] + label(n));
		prefix_bytes_.push_back(0);
		prefix_parent_.push_back(depth == 1 ? no_parent : n.prefix);
		prefix_steps_.push_back(depth);
		n.prefix = uint32_t(prefixes_.size() - 1);
	}
	nodes_.push_back(n);
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
	const uint64_t bytes = bytes_of(o, *gct);
	// Bounded by prefix_depth: each step is a prefix made one step deeper.
	for (uint32_t p = nodes_[i].prefix; p != no_parent; p = prefix_parent_[p])
		prefix_bytes_[p] += bytes;
	Refs refs{*this, i};
	ObjectRefs<Refs>(vm_, refs).visit(o, *gct);
}

std::string Search::label(const Node &n)
{
	if (n.parent == no_parent)
		return roots_[n.key];
	return ref_label(vm_, n.edge, n.key, nodes_[n.parent].obj);
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

void Search::run()
{
	const GcRoots roots = gc_roots(vm_);
	main_thread_ = roots.main_thread;
	uint32_t i = 0;
	auto search = [&] {
		for (; i < nodes_.size(); i++)
			expand(i);
	};
	// What the heap holds first: a path through globals says where memory
	// stays, while a stack slot may be gone at the next return.
	add_root("_G", roots.globals);
	add_root("package.loaded", roots.loaded);
	add_root("registry", roots.registry);
	search();
	// Then what only the stacks of the main and the running thread hold.
	add_root("main thread", roots.main_thread);
	add_root("thread " + luajit_pointer(roots.cur_L), roots.cur_L);
	search();
}

void Search::fill(GcCensus &census)
{
	census.paths_complete = !stopped_;
	census.diagnostics.merge(problems_listed_);
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

std::vector<BlockPlace> Search::places_of(const std::vector<uint64_t> &blocks) const
{
	std::unordered_map<uint64_t, size_t> wanted;
	for (size_t k = 0; k < blocks.size(); k++)
		wanted.emplace(blocks[k], k);
	std::vector<BlockPlace> out(blocks.size());
	auto place = [&](uint64_t addr, const Node &n) {
		if (auto w = wanted.find(addr); w != wanted.end())
			out[w->second] = {prefixes_[n.prefix], n.obj};
	};
	for (const Node &n : nodes_) {
		place(n.obj, n);
		// Blocks of their own that belong to an object: a table's
		// array and hash parts (lj_tab.c), a thread's stack.
		auto gct = vm_.gct(n.obj);
		if (gct == LJ_TTAB) {
			place(vm_.ref(n.obj + ly_.tab_array).value_or(0), n);
			place(vm_.ref(n.obj + ly_.tab_node).value_or(0), n);
		} else if (gct == LJ_TTHREAD) {
			place(vm_.ref(n.obj + ly_.L_stack).value_or(0), n);
		}
	}
	// The same block asked for twice gets its place twice.
	for (size_t k = 0; k < blocks.size(); k++)
		if (!out[k].object)
			out[k] = out[wanted[blocks[k]]];
	return out;
}

std::map<std::string, uint64_t> Search::heads() const
{
	std::map<std::string, uint64_t> out;
	for (const Node &n : nodes_)
		if (prefix_steps_[n.prefix] == n.depth)
			out.emplace(prefixes_[n.prefix], n.obj);
	return out;
}

} // namespace

GcCensus gc_census_with_paths(const Vm &vm, const GcCensusOptions &census_options,
			      const GcPathOptions &path_options, gc::BigArray<uint64_t> *objects)
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
	GcCensus census = gc_census(vm, census_options, objects);
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

std::vector<BlockPlace> gc_block_places(const Vm &vm, const std::vector<uint64_t> &blocks,
					const GcPathOptions &path_options)
{
	Search search(vm, path_options);
	search.run();
	return search.places_of(blocks);
}

std::map<std::string, uint64_t> gc_path_heads(const Vm &vm, const GcPathOptions &path_options,
					      bool &complete)
{
	Search search(vm, path_options);
	search.run();
	complete = search.complete();
	return search.heads();
}

} // namespace ljcore
