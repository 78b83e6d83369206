// ljcore profile --format speedscope: speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): a "sampled" profile
// of every stack, weighted by its count, then one per VM state (compiled,
// interpreted, GC...), speedscope's way to show a category apart: its
// profile selector picks one.
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

namespace {

using json = nlohmann::json;

class FrameTable {
public:
	size_t index(const ProfileFrame &f)
	{
		std::string label = profile_frame_label(f);
		auto [it, added] = index_.try_emplace(label, frames_.size());
		if (added) {
			json j = {{"name", label}};
			if (f.kind == ProfileFrameKind::lua && !f.file.empty()) {
				j["file"] = f.file;
				if (f.line >= 0)
					j["line"] = f.line;
			}
			frames_.push_back(std::move(j));
		}
		return it->second;
	}
	json take() { return std::move(frames_); }

private:
	json frames_ = json::array();
	std::map<std::string, size_t> index_;
};

// The sampled profile of the stacks whose state is activity (all of them
// for unknown).
json sampled(const Profile &p, FrameTable &frames, VmActivity activity, const std::string &name)
{
	json samples = json::array(), weights = json::array();
	uint64_t total = 0;
	for (const ProfileStack &s : p.stacks) {
		if (activity != VmActivity::unknown && s.labels.activity != activity)
			continue;
		json stack = json::array();
		for (const ProfileFrame &f : s.frames)
			stack.push_back(frames.index(f));
		samples.push_back(std::move(stack));
		weights.push_back(s.value);
		total += s.value;
	}
	return {{"type", "sampled"},
		{"name", name},
		{"unit", p.unit == "bytes" ? "bytes" : "none"},
		{"startValue", 0},
		{"endValue", total},
		{"samples", std::move(samples)},
		{"weights", std::move(weights)}};
}

} // namespace

void render_profile_speedscope(std::ostream &out, const Profile &p)
{
	FrameTable frames;
	std::string name = "Lua stacks of process " + std::to_string(p.pid) + " (" + p.backend +
			   ", " + std::to_string(p.rate_hz) + " Hz)";
	json profiles = json::array({sampled(p, frames, VmActivity::unknown, name)});
	std::set<VmActivity> states;
	for (const ProfileStack &s : p.stacks)
		if (s.labels.activity != VmActivity::unknown)
			states.insert(s.labels.activity);
	for (VmActivity activity : states)
		profiles.push_back(
			sampled(p, frames, activity, name + ": " + activity_name(activity)));
	json doc = {
		{"$schema", "https://www.speedscope.app/file-format-schema.json"},
		{"exporter", "ljcore"},
		{"name", "process " + std::to_string(p.pid)},
		{"activeProfileIndex", 0},
		{"shared", {{"frames", frames.take()}}},
		{"profiles", std::move(profiles)},
	};
	print_json(out, std::move(doc));
}

} // namespace ljcore
