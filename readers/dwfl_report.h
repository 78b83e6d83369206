// Which modules a target has, told to libdwfl.
#pragma once

#include <elfutils/libdwfl.h>

#include "readers/elf_core.h"
#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

// Reports the target's modules to dwfl (dwfl_report_begin .. end): a live
// process's from /proc, a core's as libdwfl finds them from its notes, or
// from the link_map chain when it has no NT_FILE, or as the core alone
// records them. core is the target when it is a core, else null.
Expected<void> report_modules(Dwfl *dwfl, const Target &target, const ElfCore *core);

} // namespace ljcore
