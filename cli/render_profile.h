// Renderers of a Profile (ljcore profile): each writes one format.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/model/profile_model.h"

namespace ljcore {

// One frame as flame graphs show it: "name file:line" for a Lua function,
// "function <file:linedefined> file:line" for an anonymous one, "main chunk
// file:line", "[C] name", "[trace N]", "[GC]"..., "[truncated]". Printable
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

// pprof's profile.proto (cli/pprof.proto), gzip-compressed, for go tool
// pprof; profile_pprof_message is the uncompressed message.
void render_profile_pprof(std::ostream &out, const Profile &p);
std::string profile_pprof_message(const Profile &p);

} // namespace ljcore
