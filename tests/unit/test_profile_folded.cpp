// Folded stacks: labels as flamegraph.pl shows them, bytes made printable,
// the separator kept out of frames, equal stacks summed.
#include <doctest/doctest.h>

#include <sstream>

#include "cli/render_profile.h"

using namespace ljcore;

namespace {

ProfileFrame lua(std::string name, std::string file, int line, int defined)
{
	ProfileFrame f;
	f.name = std::move(name);
	f.file = std::move(file);
	f.line = line;
	f.line_defined = defined;
	return f;
}

ProfileFrame of_kind(ProfileFrameKind kind, std::string name)
{
	ProfileFrame f;
	f.kind = kind;
	f.name = std::move(name);
	return f;
}

} // namespace

TEST_CASE("profile frame labels")
{
	CHECK(profile_frame_label(lua("foo", "x.lua", 12, 10)) == "foo x.lua:12");
	CHECK(profile_frame_label(lua("", "x.lua", 3, 0)) == "main chunk x.lua:3");
	CHECK(profile_frame_label(lua("", "x.lua", 12, 10)) == "function <x.lua:10> x.lua:12");
	CHECK(profile_frame_label(of_kind(ProfileFrameKind::c, "pcall")) == "[C] pcall");
	CHECK(profile_frame_label(of_kind(ProfileFrameKind::state, "GC")) == "[GC]");
	CHECK(profile_frame_label(of_kind(ProfileFrameKind::truncated, "")) == "[truncated]");
	CHECK(profile_frame_label(lua("a;b\n\xff", "z.lua", 1, 1)) == "a:b\\n\\xff z.lua:1");
}

TEST_CASE("folded stacks sum what labels the same, root first")
{
	Profile p;
	ProfileStack s1{{lua("", "m.lua", 9, 0), lua("f", "m.lua", 2, 1)}, 3, {}};
	ProfileStack s2 = s1;
	s2.value = 4;
	ProfileStack s3{{lua("", "m.lua", 9, 0)}, 1, {}};
	p.stacks = {s1, s3, s2};
	std::ostringstream out;
	render_profile_folded(out, p);
	CHECK(out.str() == "main chunk m.lua:9 1\nmain chunk m.lua:9;f m.lua:2 7\n");
}
