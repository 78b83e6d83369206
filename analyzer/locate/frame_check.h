// Whether a VM's Lua frames read as frames under the layout it was found
// with: the last check of a layout, for a layout can fit every word of
// global_State that the locator checks and still misplace a GCproto's
// fields (a release or a fork that added one), and then every frame would
// print as `<:-1>`.
#pragma once

#include <optional>
#include <string>

#include "analyzer/lua/vm.h"

namespace ljcore {

// Why the innermost Lua frames of the running coroutine (the main thread
// when none runs) do not read under vm's layout: a Lua function whose
// prototype is not a GCproto, or whose chunk name is not a string.
// Without such frames, the first Lua functions on g->gc.root are checked
// instead. Nothing when they read, when there are none, or when the
// memory that would tell is not at hand.
std::optional<std::string> frames_misread(const Vm &vm);

} // namespace ljcore
