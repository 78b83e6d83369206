// Reading a small whole file such as /proc/PID/stat or a sysctl without
// iostreams: a process can exit between open() and read(), and read()
// then fails with ESRCH, which libstdc++'s filebuf turns into an
// exception where an iterator reads it. Here it is an error value.
#pragma once

#include <cstddef>
#include <string>

#include "readers/error.h"

namespace ljcore {

// The whole text of path, at most max bytes (a longer file is an error,
// not a silently cut one). The last component is never followed as a
// symlink, so a root process cannot be steered to another file.
Expected<std::string> read_small_file(const std::string &path, size_t max = 64 << 10);

} // namespace ljcore
