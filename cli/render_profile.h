// Renderers of a Profile (ljcore profile): each writes one format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/model/profile_model.h"

namespace ljcore {

// One frame as flame graphs show it: "name file:line" for a Lua function,
// "function <file:linedefined> file:line" for an anonymous one, "main chunk
// file:line", "[C] name", "[GC]"..., "[truncated]". Printable
// (render_bytes.h) and free of the folded format's separator ';'.
std::string profile_frame_label(const ProfileFrame &f);

// Brendan Gregg's folded stacks: "root;...;leaf count" per stack, the
// input of flamegraph.pl and inferno.
void render_profile_folded(std::ostream &out, const Profile &p);

// speedscope's JSON file format: shared frames, one "sampled" profile.
void render_profile_speedscope(std::ostream &out, const Profile &p);

// A table of self and total samples per function, then the outcomes.
void render_profile_top(std::ostream &out, const Profile &p);

// A self-contained interactive SVG flame graph, as flamegraph.pl draws one:
// click to zoom, Ctrl-F or the Search button to search, tooltips with
// counts and percentages. Frames under 0.1% of the samples are not drawn.
void render_profile_svg(std::ostream &out, const Profile &p);

// --by-request (nginx workers): the request each sample's coroutine
// served, as a root frame and pprof label: "GET /path", or "[no request]",
// "[request unreadable]".
std::string profile_request_label(const ProfileRequest &r);
// The profile with that root frame under every stack, for the flame graph
// formats.
Profile profile_by_request(const Profile &p);
// A table of the requests by their share of the samples, with their Host.
void render_profile_top_requests(std::ostream &out, const Profile &p);

// pprof's profile.proto (cli/pprof.proto), gzip-compressed, for go tool
// pprof; profile_pprof_message is the uncompressed message.
void render_profile_pprof(std::ostream &out, const Profile &p);
std::string profile_pprof_message(const Profile &p);

// Two saved profiles of one program, stack by stack (ljcore profile
// --diff, cli/profile_diff.cpp).
struct DiffStack {
	std::vector<std::string> frames; // labels, root first
	double before = 0;               // scaled to after's total samples
	uint64_t after = 0;
};
struct ProfileDiff {
	std::string before_name, after_name;
	uint64_t before_total = 0, after_total = 0;
	std::vector<DiffStack> stacks;
};

// A differential flame graph, as flamegraph.pl draws difffolded.pl's
// output: widths as after, red where a frame grew, blue where it shrank.
void render_profile_svg_diff(std::ostream &out, const ProfileDiff &d);
// difffolded.pl's output: "stack before after" per stack (before scaled).
void render_profile_folded_diff(std::ostream &out, const ProfileDiff &d);
// The functions whose share of the samples changed most, self and total.
void render_profile_top_diff(std::ostream &out, const ProfileDiff &d);

} // namespace ljcore
