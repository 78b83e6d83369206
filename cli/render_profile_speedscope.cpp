// ljcore profile --format speedscope: speedscope's file format
// (https://www.speedscope.app/file-format-schema.json), one "sampled"
// profile whose samples are the distinct stacks, weighted by their counts.
#include <map>

#include <nlohmann/json.hpp>

#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

void render_profile_speedscope(std::ostream &out, const Profile &p)
{
	using json = nlohmann::json;
	json frames = json::array();
	std::map<std::string, size_t> index;
	auto frame_index = [&](const ProfileFrame &f) {
		std::string label = profile_frame_label(f);
		auto [it, added] = index.try_emplace(label, frames.size());
		if (added) {
			json j = {{"name", label}};
			if (f.kind == ProfileFrameKind::lua && !f.file.empty()) {
				j["file"] = f.file;
				if (f.line >= 0)
					j["line"] = f.line;
			}
			frames.push_back(std::move(j));
		}
		return it->second;
	};
	json samples = json::array(), weights = json::array();
	uint64_t total = 0;
	for (const ProfileStack &s : p.stacks) {
		json stack = json::array();
		for (const ProfileFrame &f : s.frames)
			stack.push_back(frame_index(f));
		samples.push_back(std::move(stack));
		weights.push_back(s.value);
		total += s.value;
	}
	json doc = {
		{"$schema", "https://www.speedscope.app/file-format-schema.json"},
		{"exporter", "ljcore"},
		{"name", "process " + std::to_string(p.pid)},
		{"activeProfileIndex", 0},
		{"shared", {{"frames", std::move(frames)}}},
		{"profiles",
		 json::array(
			 {{{"type", "sampled"},
			   {"name", "Lua stacks of process " + std::to_string(p.pid) + " (" +
					    p.backend + ", " + std::to_string(p.rate_hz) + " Hz)"},
			   {"unit", p.unit == "bytes" ? "bytes" : "none"},
			   {"startValue", 0},
			   {"endValue", total},
			   {"samples", std::move(samples)},
			   {"weights", std::move(weights)}}})},
	};
	print_json(out, std::move(doc));
}

} // namespace ljcore
