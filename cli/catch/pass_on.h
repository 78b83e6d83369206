// Where a caught core goes after the analysis: to the handler that
// core_pattern named before ljcore catch (--chain), into the crash
// directory (--keep-core), or nowhere. When it goes somewhere, the pipe
// is read to its end; when nowhere, not at all: the kernel stops writing
// the core when its reader is gone, and tears the process down sooner.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <sys/types.h>
#include <vector>

#include "readers/error.h"

namespace ljcore::catching {

// One place the core's bytes go, at most limit of them.
struct CoreSink {
	int fd = -1;
	uint64_t limit = UINT64_MAX;
	uint64_t written = 0;
	bool failed = false;
};

// The previous pipe handler, run as the kernel ran ljcore catch (root,
// cwd /) with the arguments the kernel expanded for it: argv[0] is its
// path. Its stdin is sink's fd.
struct ChainedProgram {
	pid_t pid = -1;
	CoreSink sink;
};
Expected<ChainedProgram> start_chained_program(const std::vector<std::string> &argv);

// The previous file pattern, expanded by the kernel (name): the file the
// kernel would have made, relative to the process's cwd or root, with
// its rules: none under a core size limit below a page, ".PID" added by
// core_uses_pid when the pattern has no %p, made new (0600, O_EXCL,
// O_NOFOLLOW) and owned by the process's fsuid and fsgid.
Expected<CoreSink> open_chained_file(const std::string &name, bool pattern_has_pid,
				     int32_t host_pid, int32_t ns_pid, uint64_t core_limit);

// Writes head, then what is left of in_fd, to every sink (a sink that
// fails is dropped), and reads in_fd to its end.
void pass_core(std::span<const std::byte> head, int in_fd, std::vector<CoreSink *> sinks);

} // namespace ljcore::catching
