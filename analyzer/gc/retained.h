// Retained sizes: the dominator tree of one VM's heap. An object d
// dominates o when every path from the roots to o passes through d; the
// objects d dominates are what the GC would free if d went away, and their
// bytes are d's retained size (what Eclipse MAT and Chrome's heap
// snapshots show).
//
// The graph is the one lj_gc.c marks: the roots of gc_mark_start (the
// main thread, its globals, the registry, g->gcroot[]; the finalizer
// ring, which gc_mark_mmudata marks) and the edges of ObjectRefs in RefMode::gc (weak
// halves of weak tables left out). Objects are those the census found on
// LuaJIT's own lists (g->gc.root, the finalizer ring, the string table,
// each thread's open upvalues): a reference to anything else is a bad
// edge, recorded as a problem and not followed. Objects no root reaches are garbage the next
// cycle frees: they have no node.
//
// Node 0 stands for the roots together (address 0; it dominates
// everything reachable). The objects are numbered from 1 in breadth-first
// order from the roots, so each object's dominators and the parent of its
// shortest path have smaller numbers than it has (dominators are found with Cooper, Harvey and
// Kennedy's iteration, "A Simple, Fast Dominance Algorithm", on that
// order). Everything is kept in arrays indexed by node.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/gc/big_array.h"
#include "analyzer/lua/vm.h"
#include "analyzer/model/gc_model.h"
#include "readers/diagnostics.h"

namespace ljcore {

class RetainedHeap {
public:
	using Node = uint32_t;
	static constexpr Node none = UINT32_MAX;

	// The heap of vm, which must outlive this, over objects, the
	// addresses gc_census() collected (objects_complete: its census
	// was). Never fails: what could not be read is in diagnostics(),
	// and complete() says whether every list and edge was read.
	RetainedHeap(const Vm &vm, gc::BigArray<uint64_t> objects, bool objects_complete);
	~RetainedHeap();
	RetainedHeap(RetainedHeap &&) noexcept;

	// Node 0, the roots together, and the objects reachable from them:
	// nodes are 0 .. nodes() - 1.
	static constexpr Node roots = 0;
	Node nodes() const;
	uint64_t address(Node n) const;
	GcType type(Node n) const;
	// What LuaJIT frees with the object alone (object_size.h), and with
	// everything it dominates.
	uint64_t shallow_bytes(Node n) const;
	uint64_t retained_bytes(Node n) const;
	uint64_t retained_objects(Node n) const; // n included
	// The immediate dominator: roots (0) for an object only the roots
	// dominate together, none for roots itself.
	Node idom(Node n) const;
	// The node of the object at each of addrs; none where no root
	// reaches it. One pass over the nodes for all of them.
	std::vector<Node> nodes_of(const std::vector<uint64_t> &addrs) const;
	// A shortest path from a root, as `gc --paths` writes one
	// ("_G.app.cache[3]"); a root's label for a root.
	std::string path(Node n) const;
	// The n nodes of the largest retained sizes, largest first.
	std::vector<Node> largest(size_t n) const;
	// For each of parents, the nodes it immediately dominates, at most
	// count of them, the largest retained first. One pass over the
	// nodes for all of parents.
	std::vector<std::vector<Node>> dominated(const std::vector<Node> &parents,
						 size_t count) const;
	// The retained bytes of the object at each path prefix (a root and
	// its first step: "_G.app"), the keys of GcCensus::by_prefix.
	std::map<std::string, uint64_t> retained_by_prefix() const;

	uint64_t objects_listed() const; // on LuaJIT's lists, reachable or not
	bool complete() const;
	const Diagnostics &diagnostics() const;

private:
	struct Graph;
	std::unique_ptr<Graph> g_;
};

// The model gc --retained prints: the top objects by retained size, each
// with its largest dominated children down to depth (0: none).
GcRetained gc_retained(const RetainedHeap &heap, size_t top, size_t depth);

} // namespace ljcore
