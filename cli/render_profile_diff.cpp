// ljcore profile --diff's table and folded output; the differential flame
// graph is drawn with the others, in render_profile_svg.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "cli/render_profile.h"

namespace ljcore {

namespace {

// Rows of the table.
constexpr size_t listed_functions = 40;

// A Lua frame's label less its current line ("f x.lua:12" is "f x.lua"):
// the table compares functions, whichever line of theirs ran.
std::string function_of(const std::string &label)
{
	size_t colon = label.rfind(':'), space = label.rfind(' ');
	if (colon == std::string::npos || space == std::string::npos || colon < space ||
	    colon + 1 == label.size() ||
	    label.find_first_not_of("0123456789", colon + 1) != std::string::npos)
		return label;
	return label.substr(0, colon);
}

} // namespace

void render_profile_folded_diff(std::ostream &out, const ProfileDiff &d)
{
	for (const DiffStack &s : d.stacks) {
		std::string line;
		for (const std::string &f : s.frames)
			line += (line.empty() ? "" : ";") + f;
		out << line << ' ' << std::llround(s.before) << ' ' << s.after << '\n';
	}
}

void render_profile_top_diff(std::ostream &out, const ProfileDiff &d)
{
	struct Shares {
		double self_before = 0, self_after = 0, total_before = 0, total_after = 0;
		double self_change() const { return self_after - self_before; }
		double total_change() const { return total_after - total_before; }
	};
	std::map<std::string, Shares> functions;
	const double all = d.after_total ? double(d.after_total) : 1;
	for (const DiffStack &s : d.stacks) {
		double before = 100 * s.before / all, after = 100 * double(s.after) / all;
		// A function on a stack twice (recursion) counts once in total.
		std::set<std::string> seen;
		for (const std::string &f : s.frames) {
			std::string fn = function_of(f);
			if (seen.insert(fn).second) {
				functions[fn].total_before += before;
				functions[fn].total_after += after;
			}
		}
		if (!s.frames.empty()) {
			Shares &leaf = functions[function_of(s.frames.back())];
			leaf.self_before += before;
			leaf.self_after += after;
		}
	}
	std::vector<std::pair<std::string, Shares>> rows(functions.begin(), functions.end());
	// The biggest change of self time first: where the time went.
	std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
		double ca = std::abs(a.second.self_change()), cb = std::abs(b.second.self_change());
		if (ca != cb)
			return ca > cb;
		return std::abs(a.second.total_change()) > std::abs(b.second.total_change());
	});
	out << d.before_total << " samples before (" << d.before_name << "), " << d.after_total
	    << " after (" << d.after_name << "); shares of each profile's samples\n";
	char line[128];
	snprintf(line, sizeof line, "%8s %8s %8s %8s %8s %8s  %s\n", "self", "before", "after",
		 "total", "before", "after", "function");
	out << line;
	for (size_t i = 0; i < rows.size() && i < listed_functions; i++) {
		const Shares &s = rows[i].second;
		if (std::abs(s.self_change()) < 0.005 && std::abs(s.total_change()) < 0.005)
			break;
		snprintf(line, sizeof line, "%+7.2f%% %7.2f%% %7.2f%% %+7.2f%% %7.2f%% %7.2f%%  ",
			 s.self_change(), s.self_before, s.self_after, s.total_change(),
			 s.total_before, s.total_after);
		out << line << rows[i].first << "\n";
	}
}

} // namespace ljcore
