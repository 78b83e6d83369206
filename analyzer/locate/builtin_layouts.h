// The built-in layout tables (luajit/layouts.h) that apply to an architecture.
#pragma once

#include <vector>

#include "luajit/layout.h"
#include "luajit/trace_layout.h"
#include "readers/target.h"

namespace ljcore {

std::vector<const lj_layout *> builtin_layouts(Arch arch);

// The JIT layout (luajit/trace_layouts.h) of the flavour whose object
// layout is ly, or nullptr when that flavour has no JIT or is unknown.
const lj_trace_layout *builtin_trace_layout(const lj_layout &ly);

} // namespace ljcore
