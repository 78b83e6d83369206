// Folded stacks, and the frame labels every profile format shares.
#include "cli/render_profile.h"

#include <algorithm>
#include <map>

#include "cli/render_bytes.h"

namespace ljcore {

namespace {

std::string lua_label(const ProfileFrame &f)
{
	std::string where = f.file;
	if (f.line >= 0)
		where += ":" + std::to_string(f.line);
	if (!f.name.empty())
		return f.name + " " + where;
	if (f.line_defined == 0)
		return "main chunk " + where;
	return "function <" + f.file + ":" + std::to_string(f.line_defined) + "> " + where;
}

std::string raw_label(const ProfileFrame &f)
{
	switch (f.kind) {
	case ProfileFrameKind::lua:
		return lua_label(f);
	case ProfileFrameKind::c:
		return "[C] " + (f.name.empty() ? std::string("?") : f.name);
	case ProfileFrameKind::native:
		return f.name.empty() ? "[" + f.file + "]" : f.name;
	case ProfileFrameKind::state:
		return "[" + f.name + "]";
	case ProfileFrameKind::truncated:
		return "[truncated]";
	case ProfileFrameKind::request:
		return f.name;
	}
	return "?";
}

} // namespace

std::string profile_frame_label(const ProfileFrame &f)
{
	std::string label = printable(raw_label(f));
	std::replace(label.begin(), label.end(), ';', ':');
	return label;
}

void render_profile_folded(std::ostream &out, const Profile &p)
{
	// Stacks that label the same (two prototypes of one name and line)
	// are one line: flamegraph.pl would add them up anyway.
	std::map<std::string, uint64_t> lines;
	for (const ProfileStack &s : p.stacks) {
		std::string line;
		for (const ProfileFrame &f : s.frames) {
			if (!line.empty())
				line += ';';
			line += profile_frame_label(f);
		}
		lines[line] += s.value;
	}
	for (const auto &[stack, value] : lines)
		out << stack << ' ' << value << '\n';
}

} // namespace ljcore
