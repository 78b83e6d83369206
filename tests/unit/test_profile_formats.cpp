// The SVG, pprof, speedscope and top renderers on profiles made by hand:
// hostile bytes in labels, an empty profile, a very deep stack, many stacks.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/pprof.pb.h"
#include "cli/render_profile.h"

using namespace ljcore;

namespace {

ProfileFrame lua(std::string name, std::string file, int line, int defined = 1)
{
	ProfileFrame f;
	f.name = std::move(name);
	f.file = std::move(file);
	f.line = line;
	f.line_defined = defined;
	return f;
}

Profile nested()
{
	Profile p;
	p.pid = 42;
	p.backend = "bpf";
	p.rate_hz = 100;
	ProfileFrame main = lua("", "m.lua", 9, 0);
	// Two prototypes named alike label the same: one frame in every format.
	p.stacks = {{{main, lua("f", "m.lua", 2)}, 3, {}},
		    {{main, lua("f", "m.lua", 2), lua("g", "m.lua", 5)}, 5, {}},
		    {{main, lua("f", "m.lua", 2, 7)}, 2, {}}};
	p.samples = 12;
	p.outcomes = {{"lua", 10, false}, {"stack read failed", 2, true}};
	return p;
}

// Bytes a target may hold in a function or chunk name.
Profile hostile()
{
	Profile p = nested();
	std::string nasty = "a;b<c>&d]]>\"'\xff\xfe\x01\x1b[31m\t\n\xef\xbf\xbe\xc3" +
			    std::string(1, '\0') + std::string(5000, 'x');
	p.stacks.push_back({{lua(nasty, "<&>\x80.lua", 1), lua("ok", "\xc0\xaf", 2)}, 4, {}});
	return p;
}

size_t count(const std::string &s, const std::string &what)
{
	size_t n = 0;
	for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size())
		n++;
	return n;
}

template <typename Render> std::string rendered(Render render, const Profile &p)
{
	std::ostringstream out;
	render(out, p);
	return out.str();
}

} // namespace

TEST_CASE("svg: one frame per merged label path, tooltips with counts and shares")
{
	std::string svg = rendered(render_profile_svg, nested());
	CHECK(svg.starts_with("<?xml"));
	CHECK(count(svg, "<g data-x=") == 4); // all, main chunk, f, g
	CHECK(svg.find("<title>all (10 samples, 100.00%)</title>") != std::string::npos);
	CHECK(svg.find("<title>f m.lua:2 (10 samples, 100.00%)</title>") != std::string::npos);
	CHECK(svg.find("<title>g m.lua:5 (5 samples, 50.00%)</title>") != std::string::npos);
	CHECK(svg.find("data-d=\"3\"") != std::string::npos);
	CHECK(svg.find("<script") != std::string::npos);
}

TEST_CASE("svg: hostile bytes are escaped for XML")
{
	std::string svg = rendered(render_profile_svg, hostile());
	// What XML refuses never reaches the file raw: markup characters,
	// control bytes, invalid UTF-8, U+FFFE; "]]>" only closes the script.
	CHECK(count(svg, "]]>") == 1);
	CHECK(svg.find("d]]&gt;&quot;") != std::string::npos);
	CHECK(svg.find("&lt;&amp;&gt;\\x80.lua") != std::string::npos);
	CHECK(svg.find("\\xff\\xfe\\x01\\x1b[31m\\t\\n\\uFFFE\\xc3\\x00") != std::string::npos);
	for (unsigned char c : svg)
		CHECK_MESSAGE((c >= 0x20 || c == '\n' || c == '\t'), "control byte in the SVG");
	CHECK(svg.find("\xff") == std::string::npos);
	CHECK(svg.find("\xef\xbf\xbe") == std::string::npos);
	// And the XML parser agrees, where there is one.
	if (access("/usr/bin/xmllint", X_OK) == 0) {
		std::string path = "/tmp/ljcore-hostile-" + std::to_string(getpid()) + ".svg";
		std::ofstream(path, std::ios::binary) << svg;
		CHECK(std::system(("xmllint --noout " + path).c_str()) == 0);
		std::remove(path.c_str());
	}
}

TEST_CASE("svg: empty, deep and wide profiles")
{
	std::string empty = rendered(render_profile_svg, Profile{});
	CHECK(count(empty, "<g data-x=") == 1);
	CHECK(empty.find("<title>all (0 samples, 100.00%)</title>") != std::string::npos);

	Profile deep;
	ProfileStack s{{}, 1, {}};
	for (int i = 0; i < 2000; i++)
		s.frames.push_back(lua("f" + std::to_string(i), "d.lua", i));
	deep.stacks.push_back(s);
	std::string svg = rendered(render_profile_svg, deep);
	CHECK(count(svg, "<g data-x=") == 2001);
	CHECK(svg.find("data-d=\"2000\"") != std::string::npos);

	// 10,000 stacks of one sample each: each leaf is under 0.1%, so only
	// their shared callers are drawn, and the note says how many are not.
	Profile wide;
	for (int i = 0; i < 10000; i++)
		wide.stacks.push_back(
			{{lua("main", "w.lua", 1), lua("leaf" + std::to_string(i), "w.lua", 2)},
			 1,
			 {}});
	svg = rendered(render_profile_svg, wide);
	CHECK(count(svg, "<g data-x=") == 2);
	CHECK(svg.find(">10000 frames narrower than 0.1% of all samples are not drawn") !=
	      std::string::npos);
}

TEST_CASE("pprof: sample types from the rate, functions by prototype, leaf first")
{
	Profile p = nested();
	ljcore::pprof::Profile m;
	REQUIRE(m.ParseFromString(profile_pprof_message(p)));
	auto str = [&](int64_t i) { return m.string_table(static_cast<int>(i)); };
	CHECK(str(0) == "");
	REQUIRE(m.sample_type_size() == 2);
	CHECK(str(m.sample_type(0).type()) == "samples");
	CHECK(str(m.sample_type(0).unit()) == "count");
	CHECK(str(m.sample_type(1).type()) == "cpu");
	CHECK(str(m.sample_type(1).unit()) == "nanoseconds");
	CHECK(m.period() == 10000000);
	REQUIRE(m.sample_size() == 3);
	CHECK(m.sample(1).value(0) == 5);
	CHECK(m.sample(1).value(1) == 50000000);
	// Locations per frame label, functions per (name, file, first line):
	// main chunk, f (line 1), g, f (line 7) at the label of f.
	CHECK(m.location_size() == 3);
	CHECK(m.function_size() == 3);
	const auto &g = m.location(static_cast<int>(m.sample(1).location_id(0) - 1));
	CHECK(g.line(0).line() == 5);
	const auto &fn = m.function(static_cast<int>(g.line(0).function_id() - 1));
	CHECK(str(fn.name()) == "g");
	CHECK(str(fn.filename()) == "m.lua");
	CHECK(fn.start_line() == 1);
	CHECK(m.sample(1).location_id_size() == 3);
	CHECK(str(m.comment(2)) == "stack read failed: 2 samples (failed)");

	p.unit = "bytes";
	REQUIRE(m.ParseFromString(profile_pprof_message(p)));
	REQUIRE(m.sample_type_size() == 1);
	CHECK(str(m.sample_type(0).unit()) == "bytes");

	// Strings are printable UTF-8, as protobuf's string fields must be.
	REQUIRE(m.ParseFromString(profile_pprof_message(hostile())));
	std::string gz = rendered(render_profile_pprof, hostile());
	CHECK(gz.substr(0, 2) == "\x1f\x8b");
	REQUIRE(m.ParseFromString(profile_pprof_message(Profile{})));
	CHECK(m.sample_size() == 0);
}

TEST_CASE("speedscope and top on hostile bytes")
{
	auto doc = nlohmann::json::parse(rendered(render_profile_speedscope, hostile()));
	CHECK(doc["shared"]["frames"].size() == 5);
	CHECK(doc["profiles"][0]["samples"].size() == doc["profiles"][0]["weights"].size());
	std::string top = rendered(render_profile_top, hostile());
	CHECK(top.find("\xff") == std::string::npos);
	CHECK(top.find("\n12 samples:\n") != std::string::npos);
	CHECK(top.find("stack read failed") != std::string::npos);
}

TEST_CASE("top of an allocation profile counts sampled allocations")
{
	Profile p = hostile();
	p.unit = "bytes";
	std::string top = rendered(render_profile_top, p);
	CHECK(top.find("\n12 sampled allocations:\n") != std::string::npos);
	CHECK(top.find(" samples:") == std::string::npos);
}
