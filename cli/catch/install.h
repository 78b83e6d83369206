// ljcore catch --install and --uninstall: kernel.core_pattern and
// kernel.core_pipe_limit set for ljcore catch, and put back exactly.
#pragma once

#include <string>

#include "cli/catch/settings.h"
#include "readers/error.h"

namespace ljcore::catching {

// The core_pattern that runs self (ljcore's absolute path) for crashes
// into dir, chaining previous (a pipe or a file pattern) when not empty.
std::string handler_pattern(const std::string &self, const std::string &dir,
			    const std::string &previous);

// Makes settings.dir (0700, root's), keeps the settings and the kernel's
// current ones there, and points the kernel at ljcore catch. Returns the
// core_pattern set.
Expected<std::string> install(const Settings &settings, const std::string &self);

// Puts back what install replaced. Returns the core_pattern restored.
Expected<std::string> uninstall(const std::string &dir);

} // namespace ljcore::catching
