// ljcore profile --format top: self and total samples per function, as
// perf report --no-children and pprof's top list them, then the outcomes.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

void render_profile_top(std::ostream &out, const Profile &p)
{
	struct Counts {
		uint64_t self = 0, total = 0;
	};
	std::map<std::string, Counts> functions;
	uint64_t samples = 0;
	for (const ProfileStack &s : p.stacks) {
		samples += s.value;
		// A function on a stack twice (recursion) counts once in total.
		std::set<std::string> seen;
		for (const ProfileFrame &f : s.frames) {
			std::string label = profile_frame_label(f);
			if (seen.insert(label).second)
				functions[label].total += s.value;
		}
		if (!s.frames.empty())
			functions[profile_frame_label(s.frames.back())].self += s.value;
	}
	std::vector<std::pair<std::string, Counts>> rows(functions.begin(), functions.end());
	std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
		return a.second.self != b.second.self ? a.second.self > b.second.self
						      : a.second.total > b.second.total;
	});
	auto pct = [&](uint64_t n) { return samples ? 100.0 * double(n) / double(samples) : 0.0; };
	char line[96];
	snprintf(line, sizeof line, "%10s %7s %10s %7s  %s\n", "self", "self%", "total", "total%",
		 "function");
	out << line;
	for (const auto &[label, c] : rows) {
		snprintf(line, sizeof line, "%10llu %6.2f%% %10llu %6.2f%%  ",
			 static_cast<unsigned long long>(c.self), pct(c.self),
			 static_cast<unsigned long long>(c.total), pct(c.total));
		out << line << label << "\n";
	}
	// A profile in bytes counts sampled allocations, not time samples.
	out << "\n" << p.samples << (p.unit == "bytes" ? " sampled allocations:\n" : " samples:\n");
	for (const ProfileOutcome &o : p.outcomes) {
		snprintf(line, sizeof line, "%10llu %6.2f%%  ",
			 static_cast<unsigned long long>(o.samples),
			 p.samples ? 100.0 * double(o.samples) / double(p.samples) : 0.0);
		out << line << printable(o.outcome) << "\n";
	}
}

} // namespace ljcore
