// ljcore catch --handle: what the kernel runs at every crash (core_pattern
// "|ljcore catch --handle=DIR -- %P %p %s %c [previous handler...]").
#pragma once

#include <string>
#include <vector>

namespace ljcore::catching {

// args: the kernel's %P %p %s %c, then the previous handler's command
// (or file name) as the kernel expanded it, when --chain installed one.
// Returns 0 unless the arguments are not the kernel's.
int handle_crash(const std::string &dir, const std::vector<std::string> &args);

} // namespace ljcore::catching
