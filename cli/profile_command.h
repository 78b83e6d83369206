// ljcore profile: the command around analyzer/profile/profiler.h.
#pragma once

#include <string>

#include "analyzer/profile/profiler.h"

namespace ljcore {

struct ProfileCommand {
	ProfileOptions options;
	std::string output; // -o FILE, empty: standard output
	std::string format = "folded";
};

// Runs it; returns the exit status (cli/exit_codes.h).
int profile_command(ProfileCommand c);

} // namespace ljcore
