#include "analyzer/alloc_sites.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analyzer/gc/gc_paths.h"
#include "analyzer/gc/retained.h"
#include "analyzer/heap_watch.h"
#include "analyzer/profile/alloc_profiler.h"

namespace ljcore {

namespace {

using Node = RetainedHeap::Node;

// For each node, the nearest of the holders that dominates it (itself
// included), or none: up the dominator tree, remembering every node
// passed, so that each is climbed through once in all.
class NearestHolder {
public:
	NearestHolder(const RetainedHeap &heap, const std::vector<Node> &holders) : heap_(heap)
	{
		for (Node h : holders)
			memo_[h] = h;
	}

	Node operator()(Node n)
	{
		std::vector<Node> passed;
		Node found = RetainedHeap::none;
		// Dominators have smaller numbers (retained.h): the climb ends.
		for (Node at = n; at != RetainedHeap::none && at != RetainedHeap::roots;
		     at = heap_.idom(at)) {
			if (auto m = memo_.find(at); m != memo_.end()) {
				found = m->second;
				break;
			}
			passed.push_back(at);
		}
		for (Node p : passed)
			memo_[p] = found;
		return found;
	}

private:
	const RetainedHeap &heap_;
	std::unordered_map<Node, Node> memo_;
};

void add_block(AllocHolder &h, const OutstandingBlock &b,
	       std::map<const std::vector<ProfileFrame> *, AllocSite> &by_stack)
{
	AllocSite &site = by_stack[b.stack];
	site.bytes += b.bytes;
	site.blocks++;
	h.bytes += b.bytes;
	h.blocks++;
}

AllocSitesVm place_blocks(const ProfiledProcess &proc, const std::vector<OutstandingBlock> &blocks,
			  size_t top, Diagnostics &d)
{
	AllocSitesVm out;
	out.pid = proc.pid;
	out.global_state = proc.config.g;
	if (blocks.empty())
		return out;
	auto frozen = freeze_heap(proc, d);
	if (!frozen) {
		d.problem("process " + std::to_string(proc.pid) + ": " + frozen.error().message);
		out.complete = false;
		return out;
	}
	out.paused_us = frozen->paused_us;
	const Vm &vm = *frozen->vm;
	std::vector<uint64_t> addrs;
	for (const OutstandingBlock &b : blocks)
		addrs.push_back(b.addr);
	const std::vector<BlockPlace> places = gc_block_places(vm, addrs, GcPathOptions{});
	const RetainedHeap heap(vm, std::move(frozen->objects), frozen->objects_complete);
	d.merge(heap.diagnostics());
	out.complete = heap.complete();

	const std::vector<Node> largest = heap.largest(top);
	std::vector<AllocHolder> holders(largest.size() + 2);
	std::unordered_map<Node, size_t> holder_of;
	for (size_t i = 0; i < largest.size(); i++) {
		const Node n = largest[i];
		holders[i] = {AllocHolder::Kind::object,
			      heap.address(n),
			      heap.type(n),
			      heap.retained_bytes(n),
			      heap.path(n),
			      0,
			      0,
			      {}};
		holder_of[n] = i;
	}
	AllocHolder &elsewhere = holders[largest.size()];
	elsewhere.kind = AllocHolder::Kind::elsewhere;
	AllocHolder &garbage = holders[largest.size() + 1];
	garbage.kind = AllocHolder::Kind::garbage;

	std::vector<std::map<const std::vector<ProfileFrame> *, AllocSite>> by_stack(
		holders.size());
	NearestHolder nearest(heap, largest);
	std::vector<uint64_t> objects;
	for (const BlockPlace &p : places)
		objects.push_back(p.object);
	const std::vector<Node> nodes = heap.nodes_of(objects);
	for (size_t i = 0; i < blocks.size(); i++) {
		const Node n = places[i].object ? nodes[i] : RetainedHeap::none;
		size_t h = holders.size() - 1;
		if (n != RetainedHeap::none) {
			const Node holder = nearest(n);
			h = holder == RetainedHeap::none ? holders.size() - 2 : holder_of[holder];
		}
		add_block(holders[h], blocks[i], by_stack[h]);
	}
	for (size_t h = 0; h < holders.size(); h++) {
		if (!holders[h].blocks)
			continue;
		for (auto &[stack, site] : by_stack[h]) {
			site.stack = *stack;
			holders[h].sites.push_back(std::move(site));
		}
		std::stable_sort(holders[h].sites.begin(), holders[h].sites.end(),
				 [](auto &a, auto &b) { return a.bytes > b.bytes; });
		out.holders.push_back(std::move(holders[h]));
	}
	return out;
}

} // namespace

std::expected<AllocSites, ProfileError> alloc_sites(ProfileOptions options, size_t top)
{
	AllocSites sites;
	options.alloc = ProfileOptions::Alloc::outstanding;
	Diagnostics placing;
	auto profile = profile_allocations(
		options, [&](const ProfiledProcess &proc, const std::vector<OutstandingBlock> &b) {
			sites.vms.push_back(place_blocks(proc, b, top, placing));
		});
	if (!profile)
		return std::unexpected(profile.error());
	sites.profile = std::move(*profile);
	sites.profile.diagnostics.merge(placing);
	return sites;
}

} // namespace ljcore
