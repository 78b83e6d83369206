#include "analyzer/gc/retained.h"

#include <algorithm>
#include <queue>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/gc/bfs_parents.h"
#include "analyzer/gc/dominators.h"
#include "analyzer/gc/heap_objects.h"
#include "analyzer/gc/object_bytes.h"
#include "analyzer/gc/two_threads.h"
#include "analyzer/lua/ctype_state.h"
#include "analyzer/lua/gc_header.h"
#include "analyzer/lua/gc_roots.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/object_refs.h"
#include "analyzer/lua/object_size.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

namespace {

using Node = RetainedHeap::Node;

// Problems listed one by one; past this many, only their number.
constexpr uint64_t max_listed_problems = 16;

// Steps of a path shown at each end, as gc --paths does.
constexpr size_t path_ends = 100;

// The search reads the nodes it has found but not visited a batch at a
// time, at most this many, in chunks shared by two threads (reading an
// object and looking up what it references is most of the work); a
// batch smaller than min_shared_batch is read on one, as a second thread
// would cost more to start than it saves.
constexpr uint32_t max_batch = 1 << 16;
constexpr uint32_t min_shared_batch = 32;
constexpr uint32_t chunks_per_batch = 64, max_chunk = 256;
// The object this many nodes ahead is asked for while one is read: the
// nodes of a batch are spread over the heap, and a read waiting for
// memory is most of a small object's cost.
constexpr Node prefetch_distance = 8;

using CtypeSizes = std::unordered_map<uint16_t, uint32_t>;

// "retained: object 0x...: what", as each problem is said.
std::string problem_text(uint64_t obj, const std::string &what)
{
	return "retained: object " + luajit_pointer(obj) + ": " + what;
}

// Object indices appended in blocks that never move, and kept when
// cleared: a table of millions of slots fills many, where a vector would
// copy itself into fresh memory each time it doubled.
class IndexBlocks {
public:
	void push_back(uint32_t i)
	{
		if (size_ >> block_bits == blocks_.size())
			blocks_.push_back(std::make_unique_for_overwrite<uint32_t[]>(block));
		blocks_[size_ >> block_bits][size_ & (block - 1)] = i;
		size_++;
	}
	uint32_t operator[](size_t k) const { return blocks_[k >> block_bits][k & (block - 1)]; }
	size_t size() const { return size_; }
	void clear() { size_ = 0; }

private:
	static constexpr unsigned block_bits = 16;
	static constexpr size_t block = size_t(1) << block_bits;
	std::vector<std::unique_ptr<uint32_t[]>> blocks_;
	size_t size_ = 0;
};

// What reading a chunk of a batch's nodes found, to be added to the graph
// in the order of the nodes. Kept from batch to batch: its arrays grow to
// the most a chunk has found, and are faulted in once.
struct Found {
	IndexBlocks targets;         // object indices, each node's in turn
	std::vector<uint64_t> ends;  // by node of the chunk: its end in targets
	std::vector<uint64_t> bytes; // by node of the chunk: its shallow bytes
	// Its first max_listed_problems problems, and how many more.
	std::vector<std::string> problems;
	uint64_t more_problems = 0;
	uint64_t stale_slots = 0, dead_objects = 0;

	void clear()
	{
		targets.clear();
		ends.clear();
		bytes.clear();
		problems.clear();
		more_problems = stale_slots = dead_objects = 0;
	}
};

GcType gc_type(uint8_t gct, bool lua_function)
{
	switch (gct) {
	case LJ_TSTR:
		return GcType::string;
	case LJ_TUPVAL:
		return GcType::upvalue;
	case LJ_TTHREAD:
		return GcType::thread;
	case LJ_TPROTO:
		return GcType::proto;
	case LJ_TFUNC:
		return lua_function ? GcType::lua_function : GcType::c_function;
	case LJ_TTRACE:
		return GcType::trace;
	case LJ_TCDATA:
		return GcType::cdata;
	case LJ_TTAB:
		return GcType::table;
	default:
		return GcType::userdata;
	}
}

// Whether work apart is worth a second thread.
bool two_cpus()
{
	return std::thread::hardware_concurrency() >= 2;
}

// Frees v's memory (v = {} keeps it: that assigns an empty list).
template <typename T> void release(gc::BigArray<T> &v)
{
	gc::BigArray<T>().swap(v);
}

} // namespace

struct RetainedHeap::Graph {
	// The objects indexed on this thread while the other faults in
	// room for the retained bytes of all of them (most are reachable):
	// in a VM, a page's first touch costs more than the rest of its use
	// here.
	Graph(const Vm &v, gc::BigArray<uint64_t> addrs) : vm(v), ly(v.layout())
	{
		const size_t listed = addrs.size();
		gc::share_chunks(2, two_cpus(), [&](size_t job, unsigned) {
			if (job == 0)
				objects = gc::HeapObjects(std::move(addrs));
			else
				retained.assign(listed + 1, 0);
		});
	}

	const Vm &vm;
	const lj_layout &ly;
	Diagnostics diagnostics;
	gc::HeapObjects objects;
	bool complete = true;
	uint64_t problems = 0;

	// Every array costs 4 bytes an object, and the heaps this is for
	// hold tens of millions: the arrays only the dominators need are
	// freed before the ones only the answers need are made.
	//
	// By object index (address order): its node, or none; only while
	// the search numbers the nodes (nodes_of() searches object_of).
	gc::BigArray<Node> node_of;
	// By node: its object index (the order of the search), breadth-first
	// parent (a root's is roots; bfs_parents.h), successors,
	// dominator, retained bytes (shallow ones until accumulate()) and
	// objects.
	Node node_count = 0;
	gc::BigArray<uint32_t> object_of;
	gc::BfsParents parents;
	gc::SuccessorLists succ;
	gc::BigArray<Node> idom;
	gc::BigArray<uint32_t> retained;
	gc::BigArray<uint32_t> count;
	// The retained bytes of nodes whose do not fit in retained (held
	// there as UINT32_MAX): a few at most, the roots among them.
	std::unordered_map<Node, uint64_t> retained_big;
	// Objects a path stops at, with the name it starts with there.
	std::unordered_map<Node, std::string> named;

	uint64_t main_thread = 0;
	uint64_t running_thread = 0;
	uint64_t strempty = GlobalState(vm).strempty();
	// While LuaJIT sweeps (GCSsweepstring, GCSsweep), the objects still
	// marked with the other white than g->gc.currentwhite are dead
	// (lj_gc.h isdead): garbage being freed, whose references may point
	// at objects already freed. Nothing live references them, but a
	// slot of the running thread's stack may still: lua_State.top is
	// only brought up to date where the VM calls out or the GC runs, and
	// the slots between the frames running now and that top hold what
	// they held then (a copy of a running process shows it). Such slots,
	// and dead objects, are no edges; counted for a note.
	uint8_t dead_white = 0; // 0 when not sweeping
	uint64_t stale_slots = 0, dead_objects = 0;
	uint64_t cts_tab = 0;
	uint32_t cts_sizetab = 0;
	CtypeSizes ctype_sizes; // shallow_bytes()'s: each reader has its own

	void problem(uint64_t obj, const std::string &what)
	{
		listed_problem(problem_text(obj, what));
	}
	// A problem, counted; the first max_listed_problems are said.
	void listed_problem(std::string text)
	{
		complete = false;
		if (problems++ < max_listed_problems)
			diagnostics.problem(std::move(text));
	}

	uint64_t address(Node n) const { return n ? objects.address(object_of[n]) : 0; }
	uint64_t bytes(Node n) const
	{
		return retained[n] == UINT32_MAX ? retained_big.at(n) : retained[n];
	}
	void set_bytes(Node n, uint64_t b)
	{
		if (b >= UINT32_MAX) {
			retained_big[n] = b;
			b = UINT32_MAX;
		}
		retained[n] = uint32_t(b);
	}
	GcType type(Node n) const;

	// The node of the object of index i, made when first reached.
	Node node(uint32_t i)
	{
		if (node_of[i] == none) {
			node_of[i] = Node(object_of.size());
			object_of.push_back(i);
			parents.found();
		}
		return node_of[i];
	}
	// The node of a root at addr; none for no object LuaJIT lists, or a
	// dead one.
	Node reach_root(uint64_t addr)
	{
		uint32_t i = objects.find(addr);
		// g->strempty, the empty string, lives in global_State and
		// is never freed: no node.
		if (i == gc::HeapObjects::none && addr == strempty)
			return none;
		if (i == gc::HeapObjects::none) {
			problem(0,
				"references " + luajit_pointer(addr) + ", which is on no GC list");
			return none;
		}
		if (node_of[i] == none && dead_white && dead(addr)) {
			dead_objects++;
			return none;
		}
		return node(i);
	}

	// lj_gc.c gc_sweep frees an object of the other white unless it
	// is fixed (LJ_GC_FIXED, LJ_GC_SFIXED).
	bool dead(uint64_t addr) const
	{
		const uint8_t marked = vm.value<uint8_t>(addr + ly.ptrsize).value_or(0);
		return (marked & dead_white) && !(marked & (LJ_GC_FIXED | LJ_GC_SFIXED));
	}

	template <typename Fields>
	uint64_t shallow(uint64_t o, uint8_t gct, Fields &f, bool &lua_function,
			 CtypeSizes &ctypes) const;
	struct Reader;
	void add(Found &found, Node first);
	void build();
	struct LaterRoot {
		std::string name;
		uint64_t addr;
		bool gc; // one of the roots lj_gc.c marks
	};
	void add_root(const std::string &name, uint64_t addr);
	void add_later_root(const LaterRoot &root, uint64_t slot);
	void add_gcroot_array(std::vector<LaterRoot> &later);
	void find_dominators();
	void accumulate();
	std::string label(Node from, Node to) const;
	std::unordered_map<uint64_t, std::string>
	labels(Node from, const std::unordered_set<uint64_t> &to) const;
};

// What LuaJIT frees with the object o, whose fields f reads
// (object_size.h), as the census sizes it.
template <typename Fields>
uint64_t RetainedHeap::Graph::shallow(uint64_t o, uint8_t gct, Fields &f, bool &lua_function,
				      CtypeSizes &ctypes) const
{
	switch (gct) {
	case LJ_TSTR:
		return object_size::string(ly, f).total;
	case LJ_TUPVAL:
		return object_size::upvalue(ly);
	case LJ_TTHREAD:
		return object_size::thread(ly, f, o == main_thread).total;
	case LJ_TPROTO:
		return object_size::proto(ly, f);
	case LJ_TFUNC: {
		auto fn = object_size::function(ly, f);
		lua_function = fn.lua;
		return fn.total;
	}
	case LJ_TTAB:
		return object_size::table(ly, f).total;
	case LJ_TUDATA:
		return object_size::userdata(ly, f);
	case LJ_TTRACE:
		return ly.jit ? object_size::trace(*ly.jit, f).total : 0;
	case LJ_TCDATA: {
		if (object_size::cdata_variable(ly, f))
			return object_size::cdata_variable_size(vm, o).value_or(0);
		uint16_t id = object_size::cdata_ctypeid(ly, f);
		auto [it, added] = ctypes.emplace(id, 0);
		if (added)
			it->second = ctype_payload_size(vm, cts_tab, cts_sizetab, id);
		return object_size::cdata_fixed(ly, it->second);
	}
	}
	return 0;
}

void RetainedHeap::Graph::add_root(const std::string &name, uint64_t addr)
{
	if (!addr)
		return;
	Node n = reach_root(addr);
	if (n == none || named.count(n))
		return;
	named.emplace(n, name);
	succ.add(n);
}

// A root searched from once the first ones are done, into slot of the
// list of the roots. One the GC marks (gc) is an edge from the roots
// however it was reached; one it does not (the running coroutine) only
// if nothing else reached it: else the slot keeps the roots themselves,
// an edge the dominators skip.
void RetainedHeap::Graph::add_later_root(const LaterRoot &root, uint64_t slot)
{
	uint32_t i = root.addr ? objects.find(root.addr) : gc::HeapObjects::none;
	bool reached = i != gc::HeapObjects::none && node_of[i] != none;
	if (!root.addr || (reached && !root.gc && named.count(node_of[i])))
		return;
	Node n = reached ? node_of[i] : reach_root(root.addr);
	if (n == none)
		return;
	named.emplace(n, root.name);
	if (root.gc || !reached)
		succ.set_target(slot, n);
}

// g->gcroot[]'s objects (gc_roots.h) as roots: only those the heap lists,
// as the slots past the known ones may be other fields, and of the last
// (the FFI's finalizers in newer upstream builds) only a table.
void RetainedHeap::Graph::add_gcroot_array(std::vector<LaterRoot> &later)
{
	const GcRootArray a = gc_root_array(vm);
	if (a.metamethod_names.empty()) {
		diagnostics.note("retained: g->gcroot[] not found: metamethod names and base "
				 "metatables are roots of nothing");
		return;
	}
	auto add = [&](const char *name, uint64_t o) {
		if (o && objects.find(o) != gc::HeapObjects::none)
			later.push_back({name, o, true});
	};
	for (uint64_t o : a.metamethod_names)
		add("<metamethod name>", o);
	for (uint64_t o : a.base_metatables)
		add("<base metatable>", o);
	for (uint64_t o : a.default_files)
		add("<default file>", o);
	if (vm.gct(a.ffi_finalizers).value_or(0) == LJ_TTAB)
		add("<FFI finalizers>", a.ffi_finalizers);
}

// One thread's reader of nodes: each node's object sized and its
// references looked up among the objects, into the Found of its chunk.
// Reads the graph, never changes it: the other thread reads it too.
struct RetainedHeap::Graph::Reader {
	explicit Reader(const Graph &graph)
	    : g(graph), fields(graph.vm.memory()), sink{*this}, refs(graph.vm, sink, RefMode::gc)
	{
	}

	void visit(Node n)
	{
		from = g.address(n);
		bool lua_function = false;
		uint8_t gct = fields.fetch(from) ? gc_header::gct(g.ly, fields) : 0;
		uint64_t bytes = gct ? g.shallow(from, gct, fields, lua_function, ctypes) : 0;
		if (fields.failed()) {
			problem(from, "unreadable: " + fields.miss().reason + " at " +
					      luajit_pointer(fields.miss().addr));
			bytes = 0;
		} else if (gct != LJ_TTAB || !childless_table()) {
			refs.visit(from, gct);
		}
		out->bytes.push_back(bytes);
		out->ends.push_back(out->targets.size());
	}

	// A table with no metatable, array slots or hash nodes references
	// nothing (lj_gc.c gc_traverse_tab). Told from its header, read in
	// place already, where ObjectRefs would read it again: most tables
	// of a big heap are such.
	bool childless_table()
	{
		return !fields.ref(g.ly.tab_metatable, g.ly.ptrsize) &&
		       !fields.at<uint32_t>(g.ly.tab_asize) &&
		       !fields.at<uint32_t>(g.ly.tab_hmask) && !fields.failed();
	}

	// A reference of from's to target: its object's index, or what
	// stands for none (Graph::reach_root says which, and why).
	void ref(RefKind kind, uint64_t target)
	{
		const uint32_t i = g.objects.find(target);
		if (i == gc::HeapObjects::none) {
			if (target == g.strempty)
				return;
			if (kind == RefKind::stack_slot && from == g.running_thread)
				out->stale_slots++;
			else
				problem(from, "references " + luajit_pointer(target) +
						      ", which is on no GC list");
			return;
		}
		// A dead object never gets a node: no reach makes one.
		if (g.dead_white && g.dead(target)) {
			out->dead_objects++;
			return;
		}
		out->targets.push_back(i);
	}

	void problem(uint64_t obj, const std::string &what)
	{
		if (out->problems.size() < max_listed_problems)
			out->problems.push_back(problem_text(obj, what));
		else
			out->more_problems++;
	}

	struct Sink {
		Reader &r;
		void ref(RefKind kind, uint64_t, uint64_t target) { r.ref(kind, target); }
		bool stopped() const { return false; }
		void scanned(uint64_t) {}
		void problem(uint64_t obj, const std::string &what) { r.problem(obj, what); }
	};

	const Graph &g;
	// Each object's header and size fields read in place in the core.
	gc::ObjBytes fields;
	Sink sink;
	ObjectRefs<Sink> refs;
	CtypeSizes ctypes;
	Found *out = nullptr;
	uint64_t from = 0; // the object being visited
};

// A chunk read, added: its problems and counts, then each node's bytes
// and successors, numbering the nodes they reach first.
void RetainedHeap::Graph::add(Found &found, Node first)
{
	for (std::string &p : found.problems)
		listed_problem(std::move(p));
	if (found.more_problems) {
		complete = false;
		problems += found.more_problems;
	}
	stale_slots += found.stale_slots;
	dead_objects += found.dead_objects;
	uint64_t e = 0;
	for (size_t k = 0; k < found.ends.size(); k++) {
		const Node n = first + Node(k);
		succ.end_list(); // n - 1's
		parents.visit_next();
		set_bytes(n, found.bytes[k]);
		for (; e < found.ends[k]; e++)
			succ.add(node(found.targets[e]));
	}
}

// Breadth-first from the roots: numbers the nodes, and lists each one's
// successors as it is visited, so the list of node n follows n - 1's.
// The search's order is its queue: object_of.
void RetainedHeap::Graph::build()
{
	const GlobalState g(vm);
	const GcRoots r = gc_roots(vm);
	main_thread = r.main_thread;
	running_thread = r.cur_L;
	auto state = g.gc_state();
	auto white = g.gc_currentwhite();
	if (state && (*state == LJ_GCS_SWEEPSTRING || *state == LJ_GCS_SWEEP) && white &&
	    (*white == 1 || *white == 2))
		dead_white = *white ^ LJ_GC_WHITES;
	if (auto cts = g.ctype_state(); cts && *cts) {
		const CTypeState state(vm, *cts);
		cts_tab = state.tab().value_or(0);
		cts_sizetab = state.sizetab().value_or(0);
	}
	node_of.assign(objects.size(), none);
	// Most objects are reachable: room for all of them at once, not
	// copies of the arrays each time they double.
	object_of.reserve(objects.size() + 1);
	object_of.push_back(0); // the roots together
	// As gc --paths: what the heap holds first, from _G, package.loaded
	// (no root of the GC's, but reachable from the registry) and the
	// registry; a path through the stacks of the main and the running
	// thread only for what those do not reach. Then the finalizer ring,
	// which gc_mark_mmudata marks.
	add_root("_G", r.globals);
	add_root("package.loaded", r.loaded);
	add_root("registry", r.registry);
	std::vector<LaterRoot> later{{"main thread", r.main_thread, true},
				     {"thread " + luajit_pointer(r.cur_L), r.cur_L, false}};
	add_gcroot_array(later);
	if (auto mm = g.gc_mmudata(); mm && *mm) {
		uint64_t o = vm.nextgc(*mm).value_or(0);
		for (uint64_t k = 0; o && k < objects.size(); k++) {
			later.push_back({"<finalizer ring>", o, true});
			if (o == *mm)
				break;
			o = vm.nextgc(o).value_or(0);
		}
	}
	// Their slots in the list of the roots, filled when the first
	// search is done.
	const uint64_t later_slots = succ.edges();
	for (size_t k = 0; k < later.size(); k++)
		succ.add(roots);
	// Worker 0 reads on this thread, 1 on the other.
	const bool two = vm.memory().concurrent_reads() && two_cpus();
	std::unique_ptr<Reader> readers[2] = {std::make_unique<Reader>(*this),
					      two ? std::make_unique<Reader>(*this) : nullptr};
	std::vector<Found> found;
	bool later_added = false;
	for (Node n = 1;;) {
		if (n == object_of.size() && !later_added) {
			for (size_t k = 0; k < later.size(); k++)
				add_later_root(later[k], later_slots + k);
			later_added = true;
		}
		if (n == object_of.size())
			break;
		// The nodes found and not visited yet: read on two threads,
		// then added in their order, which numbers the nodes they
		// find as a search visiting one at a time would.
		const Node batch = std::min<Node>(Node(object_of.size()) - n, max_batch);
		const Node chunk = std::clamp<Node>(batch / chunks_per_batch, 1, max_chunk);
		const size_t chunks = (batch + chunk - 1) / chunk;
		if (found.size() < chunks)
			found.resize(chunks);
		gc::share_chunks(
			chunks, two && batch >= min_shared_batch, [&](size_t c, unsigned worker) {
				Reader &r = *readers[worker];
				r.out = &found[c];
				r.out->clear();
				const Node first = n + Node(c) * chunk;
				const Node end = std::min<Node>(first + chunk, n + batch);
				for (Node k = first; k < end; k++) {
					if (k + prefetch_distance < end)
						r.fields.prefetch(address(k + prefetch_distance));
					r.visit(k);
				}
			});
		for (size_t c = 0; c < chunks; c++)
			add(found[c], n + Node(c) * chunk);
		n += batch;
	}
	while (succ.lists() < object_of.size())
		succ.end_list();
	retained.resize(object_of.size());
	node_count = Node(object_of.size());
}

void RetainedHeap::Graph::find_dominators()
{
	gc::Dominators d = gc::dominators(succ);
	if (!d.settled)
		problem(0, "dominators not settled: the tree is an approximation");
	idom = std::move(d.idom);
}

// Node n's type, read again from the core: one byte an object is more
// than the few nodes printed need.
GcType RetainedHeap::Graph::type(Node n) const
{
	if (n == roots)
		return GcType::table;
	uint64_t o = address(n);
	auto gct = vm.gct(o);
	if (!gct)
		return GcType::userdata;
	bool lua_function = false;
	if (*gct == LJ_TFUNC) {
		object_size::VmObject fields{vm, o};
		lua_function = object_size::function(ly, fields).lua;
	}
	return gc_type(*gct, lua_function);
}

// Each node's bytes and objects added to its dominator's, the deepest
// first: the dominator of n is numbered below n. The two sums are apart,
// one on each thread.
void RetainedHeap::Graph::accumulate()
{
	gc::share_chunks(2, two_cpus(), [&](size_t sum, unsigned) {
		if (sum == 0) {
			for (Node n = node_count - 1; n > 0; n--)
				if (idom[n] != none)
					set_bytes(idom[n], bytes(idom[n]) + bytes(n));
			return;
		}
		for (Node n = node_count - 1; n > 0; n--)
			if (idom[n] != none)
				count[idom[n]] += count[n];
		count[roots]--; // node 0 is no object
	});
}

// The step of a path from node from to each of the objects of to: the
// label of the first reference of from's that leads there, "<?>" if none
// does. One visit of from for all of them.
std::unordered_map<uint64_t, std::string>
RetainedHeap::Graph::labels(Node from, const std::unordered_set<uint64_t> &to) const
{
	struct Find {
		const Vm &vm;
		const std::unordered_set<uint64_t> &wanted;
		uint64_t from;
		std::unordered_map<uint64_t, std::string> found;
		void ref(RefKind kind, uint64_t key, uint64_t t)
		{
			if (wanted.count(t) && !found.count(t))
				found.emplace(t, ref_label(vm, kind, key, from));
		}
		bool stopped() const { return found.size() == wanted.size(); }
		void scanned(uint64_t) {}
		void problem(uint64_t, const std::string &) {}
	} find{vm, to, address(from), {}};
	if (auto gct = vm.gct(find.from))
		ObjectRefs<Find>(vm, find, RefMode::gc).visit(find.from, *gct);
	for (uint64_t t : to)
		find.found.emplace(t, "<?>");
	return std::move(find.found);
}

// The step of a path from node from to node to: the label of the first
// reference of from's that leads to to.
std::string RetainedHeap::Graph::label(Node from, Node to) const
{
	struct Find {
		uint64_t target;
		RefKind kind = RefKind::field;
		uint64_t key = 0;
		bool found = false;
		void ref(RefKind k, uint64_t key_, uint64_t t)
		{
			if (!found && t == target)
				kind = k, key = key_, found = true;
		}
		bool stopped() const { return found; }
		void scanned(uint64_t) {}
		void problem(uint64_t, const std::string &) {}
	} find{address(to)};
	uint64_t o = address(from);
	auto gct = vm.gct(o);
	if (!gct)
		return "<?>";
	ObjectRefs<Find>(vm, find, RefMode::gc).visit(o, *gct);
	return find.found ? ref_label(vm, find.kind, find.key, o) : "<?>";
}

RetainedHeap::RetainedHeap(const Vm &vm, gc::BigArray<uint64_t> objects, bool objects_complete)
    : g_(std::make_unique<Graph>(vm, std::move(objects)))
{
	g_->complete = objects_complete;
	Graph &g = *g_;
	g.build();
	// Only the search numbering the nodes needs it; object_of holds it
	// inverted.
	release(g.node_of);
	// The dominators on one thread; the other meanwhile faults in the
	// array accumulate() counts retained objects in (in a VM, a page's
	// first touch costs more than the rest of its use here).
	gc::share_chunks(2, two_cpus(), [&](size_t job, unsigned) {
		if (job == 0)
			g.find_dominators();
		else
			g.count.assign(g.node_count, 1);
	});
	// Only the dominators need them.
	g.succ = {};
	g.accumulate();
	if (g.stale_slots || g.dead_objects)
		g.diagnostics.note(
			"retained: not followed: " + std::to_string(g.stale_slots) +
			" slots of the running thread's stack above its live frames that hold no "
			"object, and " +
			std::to_string(g.dead_objects) +
			" dead objects the sweep under way frees (references of a running "
			"process's stale slots)");
	if (g_->problems > max_listed_problems)
		g_->diagnostics.problem(
			"retained: " + std::to_string(g_->problems - max_listed_problems) +
			" more problems");
}

RetainedHeap::~RetainedHeap() = default;
RetainedHeap::RetainedHeap(RetainedHeap &&) noexcept = default;

RetainedHeap::Node RetainedHeap::nodes() const
{
	return g_->node_count;
}
uint64_t RetainedHeap::address(Node n) const
{
	return g_->address(n);
}
GcType RetainedHeap::type(Node n) const
{
	return g_->type(n);
}
uint64_t RetainedHeap::shallow_bytes(Node n) const
{
	if (n == roots)
		return 0;
	uint64_t o = address(n);
	bool lua_function = false;
	auto gct = g_->vm.gct(o);
	object_size::VmObject fields{g_->vm, o};
	return gct ? g_->shallow(o, *gct, fields, lua_function, g_->ctype_sizes) : 0;
}
uint64_t RetainedHeap::retained_bytes(Node n) const
{
	return g_->bytes(n);
}
uint64_t RetainedHeap::retained_objects(Node n) const
{
	return g_->count[n];
}
RetainedHeap::Node RetainedHeap::idom(Node n) const
{
	return g_->idom[n];
}
std::vector<RetainedHeap::Node> RetainedHeap::nodes_of(const std::vector<uint64_t> &addrs) const
{
	std::vector<Node> out(addrs.size(), none);
	// By object index: where addrs has it. One pass over the nodes
	// finds them all.
	std::unordered_multimap<uint32_t, size_t> wanted;
	std::vector<bool> is_wanted(g_->objects.size());
	for (size_t k = 0; k < addrs.size(); k++)
		if (uint32_t i = g_->objects.find(addrs[k]); i != gc::HeapObjects::none) {
			wanted.emplace(i, k);
			is_wanted[i] = true;
		}
	for (Node n = 1; n < nodes() && !wanted.empty(); n++) {
		const uint32_t i = g_->object_of[n];
		if (!is_wanted[i])
			continue;
		auto [first, last] = wanted.equal_range(i);
		for (auto it = first; it != last; ++it)
			out[it->second] = n;
	}
	return out;
}
uint64_t RetainedHeap::objects_listed() const
{
	return g_->objects.size();
}
bool RetainedHeap::complete() const
{
	return g_->complete;
}
const Diagnostics &RetainedHeap::diagnostics() const
{
	return g_->diagnostics;
}

std::string RetainedHeap::path(Node n) const
{
	if (n == roots)
		return "<roots>";
	std::vector<Node> chain;
	for (Node at = n; at != roots && at != none && chain.size() <= nodes();
	     at = g_->parents.parent(at)) {
		chain.push_back(at);
		if (g_->named.count(at))
			break;
	}
	std::string out;
	auto name = g_->named.find(chain.back());
	out = name != g_->named.end() ? name->second : "<?>";
	size_t steps = chain.size() - 1;
	size_t hidden = steps > 2 * path_ends ? steps - 2 * path_ends : 0;
	for (size_t step = 0; step < steps; step++) {
		if (hidden && step == path_ends) {
			out += "<" + std::to_string(hidden) + " steps>";
			step += hidden;
		}
		size_t to = chain.size() - 2 - step;
		out += g_->label(chain[to + 1], chain[to]);
	}
	return out;
}

std::vector<RetainedHeap::Node> RetainedHeap::largest(size_t n) const
{
	auto smaller = [&](Node a, Node b) { return g_->bytes(a) > g_->bytes(b); };
	std::priority_queue<Node, std::vector<Node>, decltype(smaller)> best(smaller);
	for (Node k = 1; k < nodes(); k++) {
		if (best.size() < n)
			best.push(k);
		else if (n && g_->bytes(k) > g_->bytes(best.top())) {
			best.pop();
			best.push(k);
		}
	}
	std::vector<Node> out;
	for (; !best.empty(); best.pop())
		out.push_back(best.top());
	std::reverse(out.begin(), out.end());
	return out;
}

std::vector<std::vector<RetainedHeap::Node>>
RetainedHeap::dominated(const std::vector<Node> &parents, size_t count) const
{
	std::unordered_map<Node, size_t> slot;
	for (size_t i = 0; i < parents.size(); i++)
		slot.emplace(parents[i], i);
	std::vector<std::vector<Node>> out(parents.size());
	auto larger = [&](Node a, Node b) { return g_->bytes(a) > g_->bytes(b); };
	for (Node k = 1; k < nodes() && count; k++) {
		auto it = slot.find(g_->idom[k]);
		if (it == slot.end())
			continue;
		auto &kids = out[it->second];
		if (kids.size() == count && !larger(k, kids.back()))
			continue;
		kids.insert(std::upper_bound(kids.begin(), kids.end(), k, larger), k);
		if (kids.size() > count)
			kids.pop_back();
	}
	return out;
}

std::map<std::string, uint64_t> RetainedHeap::retained_by_prefix() const
{
	// The children of each named node on the shortest paths, labelled
	// with one visit of the named node.
	std::unordered_map<Node, std::unordered_set<uint64_t>> children;
	std::unordered_map<uint64_t, Node> node_at;
	for (const auto &[p, name] : g_->named) {
		const auto [first, end] = g_->parents.children(p);
		for (Node k = first; k < end; k++)
			if (!g_->named.count(k)) {
				children[p].insert(address(k));
				node_at.emplace(address(k), k);
			}
	}
	std::map<std::string, uint64_t> out;
	for (const auto &[p, kids] : children) {
		const std::string &name = g_->named.at(p);
		for (const auto &[addr, label] : g_->labels(p, kids))
			out[name + label] += retained_bytes(node_at.at(addr));
	}
	return out;
}

GcRetained gc_retained(const RetainedHeap &heap, size_t top, size_t depth)
{
	GcRetained out;
	out.objects = heap.nodes() - 1;
	out.objects_listed = heap.objects_listed();
	out.reachable_bytes = heap.retained_bytes(RetainedHeap::roots);
	out.complete = heap.complete();
	out.by_prefix = heap.retained_by_prefix();
	auto object = [&](RetainedHeap::Node n) {
		return GcRetainedObject{heap.address(n),
					heap.type(n),
					heap.shallow_bytes(n),
					heap.retained_bytes(n),
					heap.retained_objects(n),
					heap.path(n),
					{}};
	};
	// Level by level, one pass over the nodes for each: the tables of
	// the level above and where their children go.
	std::vector<RetainedHeap::Node> level = heap.largest(top);
	std::vector<GcRetainedObject *> places;
	for (RetainedHeap::Node n : level)
		out.top.push_back(object(n));
	for (auto &o : out.top)
		places.push_back(&o);
	for (size_t d = 0; d < depth; d++) {
		std::vector<RetainedHeap::Node> tables;
		std::vector<GcRetainedObject *> table_places;
		for (size_t i = 0; i < level.size(); i++)
			if (heap.type(level[i]) == GcType::table) {
				tables.push_back(level[i]);
				table_places.push_back(places[i]);
			}
		if (tables.empty())
			break;
		auto kids = heap.dominated(tables, top);
		level.clear();
		places.clear();
		for (size_t i = 0; i < tables.size(); i++) {
			auto &children = table_places[i]->children;
			children.reserve(kids[i].size());
			for (RetainedHeap::Node k : kids[i])
				children.push_back(object(k));
			for (size_t c = 0; c < kids[i].size(); c++) {
				level.push_back(kids[i][c]);
				places.push_back(&children[c]);
			}
		}
	}
	return out;
}

} // namespace ljcore
