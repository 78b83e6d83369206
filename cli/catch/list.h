// ljcore catch --list: the caught crashes, newest first, one line each,
// then what the rate limit left unreported.
#pragma once

#include <ostream>
#include <string>

namespace ljcore::catching {

// Returns an exit status: 3 when dir cannot be read.
int list_crashes(std::ostream &out, const std::string &dir);

} // namespace ljcore::catching
