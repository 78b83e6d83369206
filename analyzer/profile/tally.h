// What a profile counts as it goes: every sample by its outcome, and the
// named stacks with their values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyzer/model/profile_model.h"
#include "analyzer/profile/sample_namer.h"

namespace ljcore {

// The samples of every process profiled, counted together.
struct Tally {
	uint64_t samples = 0;
	std::map<std::string, std::pair<uint64_t, bool>> outcomes; // count, failure
	std::map<std::pair<std::vector<ProfileFrame>, ProfileLabels>, uint64_t> stacks;
	// --native: samples left with their Lua frames only, by why.
	std::map<std::string, uint64_t> without_native;

	void count(const std::string &outcome, bool failure, uint64_t n = 1)
	{
		auto [it, added] = outcomes.try_emplace(outcome, 0, failure);
		it->second.first += n;
		samples += n;
	}
	// n samples named alike, worth value together (n, or bytes, or ns).
	void add(const NamedSample &named, uint64_t value = 1, uint64_t n = 1)
	{
		if (!named.frames.empty())
			stacks[{named.frames, named.labels}] += value;
		if (!named.without_native.empty())
			without_native[named.without_native] += n;
		count(named.outcome, named.failure, n);
	}
	// The samples and their outcomes so far, for a progress line.
	Profile progress() const
	{
		Profile p;
		p.samples = samples;
		for (auto &[outcome, n] : outcomes)
			p.outcomes.push_back({outcome, n.first, n.second});
		return p;
	}
};

} // namespace ljcore
