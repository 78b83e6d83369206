// ljcore profile --diff BEFORE AFTER: how two saved profiles of one program
// differ (folded stacks or pprof, as ljcore profile writes them, or as
// flamegraph.pl's stackcollapse scripts and go tool pprof do).
#pragma once

#include <string>

namespace ljcore {

// Reads both profiles and writes their difference in format ("top": a
// table of the biggest changes, "svg": a differential flame graph,
// "folded": difffolded.pl's three columns) to output ("": stdout);
// returns the exit status.
int profile_diff_command(const std::string &before, const std::string &after,
			 const std::string &format, const std::string &output);

} // namespace ljcore
