// The notes of a core written from a live process: what the kernel's core
// dumper writes (NT_PRSTATUS per thread, NT_PRPSINFO, NT_AUXV, NT_FILE),
// without NT_SIGINFO, as no signal stopped the process.
#pragma once

#include <cstddef>
#include <vector>

#include "readers/live_process.h"

namespace ljcore {

std::vector<std::byte> live_core_notes(const LiveProcess &process);

} // namespace ljcore
