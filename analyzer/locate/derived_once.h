// The layouts read from LuaJIT's code (analyzer/derive/), once per module
// file in a run. Reading code costs milliseconds (loading LLVM's module,
// disassembling: tools/bench/derive.sh); a profile of many processes, the
// two cores of a diff and a live process read the same binary, and a live
// process must not wait, stopped, while its code is read.
#pragma once

#include <cstdint>

#include <elfutils/libdwfl.h>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/options.h"
#include "readers/error.h"

namespace ljcore {

// What derive_layout() made of the file elf of module mod, read the first
// time it is asked for in this run: by the file's build-id (the same file
// whatever path a process reaches it by), else its path. Sets read_before
// when an earlier call had read it.
Expected<DerivedLayout> derived_once(Dwfl_Module *mod, Elf *elf, bool *read_before = nullptr);

// Reads the code of the LuaJIT module process pid maps, when the layout
// choice will (no DWARF, or --layout derived), before pid is stopped:
// derived_once() then answers at once in the stopped window. Anything it
// cannot do is left to that window.
void derive_before_stopping(int32_t pid, LayoutChoice layout);

} // namespace ljcore
