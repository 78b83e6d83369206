#include "analyzer/alloc_sites.h"

#include <algorithm>
#include <map>

#include "analyzer/gc/gc_paths.h"
#include "analyzer/heap_watch.h"
#include "analyzer/profile/alloc_profiler.h"

namespace ljcore {

namespace {

AllocSitesVm place_blocks(const ProfiledProcess &proc, const std::vector<OutstandingBlock> &blocks,
			  uint32_t depth, Diagnostics &d)
{
	AllocSitesVm out;
	out.pid = proc.pid;
	out.global_state = proc.config.g;
	if (blocks.empty())
		return out;
	auto frozen = freeze_heap(proc);
	if (!frozen) {
		d.problem("process " + std::to_string(proc.pid) + ": " + frozen.error().message);
		return out;
	}
	out.paused_us = frozen->paused_us;
	std::vector<uint64_t> addrs;
	for (const OutstandingBlock &b : blocks)
		addrs.push_back(b.addr);
	GcPathOptions paths;
	paths.prefix_depth = depth;
	std::vector<std::string> prefixes = gc_path_prefixes(*frozen->vm, addrs, paths);
	std::map<std::string, std::map<const std::vector<ProfileFrame> *, AllocSite>> grouped;
	for (size_t i = 0; i < blocks.size(); i++) {
		AllocSite &site = grouped[prefixes[i]][blocks[i].stack];
		site.bytes += blocks[i].bytes;
		site.blocks++;
	}
	for (auto &[path, by_stack] : grouped) {
		AllocSitePath p{path, 0, 0, {}};
		for (auto &[stack, site] : by_stack) {
			site.stack = *stack;
			p.bytes += site.bytes;
			p.blocks += site.blocks;
			p.sites.push_back(std::move(site));
		}
		std::stable_sort(p.sites.begin(), p.sites.end(),
				 [](auto &a, auto &b) { return a.bytes > b.bytes; });
		out.paths.push_back(std::move(p));
	}
	std::stable_sort(out.paths.begin(), out.paths.end(),
			 [](auto &a, auto &b) { return a.bytes > b.bytes; });
	return out;
}

} // namespace

std::expected<AllocSites, ProfileError> alloc_sites(ProfileOptions options, uint32_t depth)
{
	AllocSites sites;
	options.alloc = ProfileOptions::Alloc::outstanding;
	Diagnostics placing;
	auto profile = profile_allocations(
		options, [&](const ProfiledProcess &proc, const std::vector<OutstandingBlock> &b) {
			sites.vms.push_back(place_blocks(proc, b, depth, placing));
		});
	if (!profile)
		return std::unexpected(profile.error());
	sites.profile = std::move(*profile);
	sites.profile.diagnostics.merge(placing);
	return sites;
}

} // namespace ljcore
