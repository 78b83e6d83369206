// Reads folded stacks ("frame;frame;... count" per line) into a Profile and
// writes it in every format of ljcore profile, so that the formats can be
// checked by their own tools without sampling a process:
//   render_folded FOLDED OUTDIR     writes OUTDIR/profile.{folded,svg,pb.gz,
//                                   pb,speedscope.json,top.txt}
//   render_folded --bench STACKS DEPTH OUT.svg
//                                   times the SVG of STACKS distinct stacks
//                                   DEPTH frames deep
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/render_profile.h"

using namespace ljcore;

namespace {

// The frame a label came from, near enough to label the same again: "[C] f",
// "[GC]"-like states, "name file:line" Lua frames, anything else native.
ProfileFrame parse_frame(const std::string &label)
{
	ProfileFrame f;
	size_t space = label.rfind(' '), colon = label.rfind(':');
	if (label.starts_with("[C] ")) {
		f.kind = ProfileFrameKind::c;
		f.name = label.substr(4);
	} else if (label.starts_with("[") && label.ends_with("]")) {
		f.kind = ProfileFrameKind::state;
		f.name = label.substr(1, label.size() - 2);
	} else if (space != std::string::npos && colon != std::string::npos && colon > space &&
		   colon + 1 < label.size() &&
		   label.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
		f.name = label.substr(0, space);
		f.file = label.substr(space + 1, colon - space - 1);
		f.line = std::stoi(label.substr(colon + 1));
	} else {
		f.kind = ProfileFrameKind::native;
		f.name = label;
	}
	return f;
}

Profile read_folded(std::istream &in)
{
	Profile p;
	p.backend = "folded";
	p.rate_hz = 99;
	std::string line;
	while (std::getline(in, line)) {
		size_t space = line.rfind(' ');
		if (line.empty() || space == std::string::npos)
			continue;
		ProfileStack s;
		s.value = std::stoull(line.substr(space + 1));
		std::istringstream frames(line.substr(0, space));
		for (std::string label; std::getline(frames, label, ';');)
			s.frames.push_back(parse_frame(label));
		p.samples += s.value;
		p.stacks.push_back(std::move(s));
	}
	p.outcomes = {{"lua", p.samples, false}};
	p.duration_s = double(p.samples) / p.rate_hz;
	return p;
}

int write(const std::string &path, void (*render)(std::ostream &, const Profile &),
	  const Profile &p)
{
	std::ofstream out(path, std::ios::binary);
	render(out, p);
	if (!out) {
		std::cerr << path << ": cannot write\n";
		return 1;
	}
	return 0;
}

int bench(int stacks, int depth, const std::string &path)
{
	// Distinct stacks whose frames branch at every level, like a server
	// with many handlers: stack i takes, at level d, one of a few names
	// picked by i's digits.
	Profile p;
	p.backend = "synthetic";
	p.rate_hz = 99;
	for (int i = 0; i < stacks; i++) {
		ProfileStack s;
		for (int d = 0, n = i; d < depth; d++, n = n / 3 + d) {
			ProfileFrame f;
			f.name = "handler_" + std::to_string(d) + "_" + std::to_string(n % 7);
			f.file = "app/module" + std::to_string(d % 13) + ".lua";
			f.line = 10 + d;
			s.frames.push_back(f);
		}
		s.value = 1 + i % 5;
		p.samples += s.value;
		p.stacks.push_back(std::move(s));
	}
	auto start = std::chrono::steady_clock::now();
	std::ostringstream svg;
	render_profile_svg(svg, p);
	double ms =
		std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
			.count();
	std::ofstream(path, std::ios::binary) << svg.str();
	printf("svg of %d stacks x %d frames: %.0f ms, %zu bytes\n", stacks, depth, ms,
	       svg.str().size());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 5 && std::string(argv[1]) == "--bench")
		return bench(std::stoi(argv[2]), std::stoi(argv[3]), argv[4]);
	if (argc != 3) {
		std::cerr << "usage: render_folded FOLDED OUTDIR | --bench STACKS DEPTH OUT.svg\n";
		return 2;
	}
	std::ifstream in(argv[1], std::ios::binary);
	if (!in) {
		std::cerr << argv[1] << ": cannot read\n";
		return 1;
	}
	Profile p = read_folded(in);
	std::string dir = argv[2];
	std::ofstream(dir + "/profile.pb", std::ios::binary) << profile_pprof_message(p);
	return write(dir + "/profile.folded", render_profile_folded, p) |
	       write(dir + "/profile.svg", render_profile_svg, p) |
	       write(dir + "/profile.pb.gz", render_profile_pprof, p) |
	       write(dir + "/profile.speedscope.json", render_profile_speedscope, p) |
	       write(dir + "/profile.top.txt", render_profile_top, p);
}
