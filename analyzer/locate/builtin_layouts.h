// The built-in layout tables (luajit/layouts.h) that apply to an architecture.
#pragma once

#include <vector>

#include "luajit/layout.h"
#include "readers/target.h"

namespace ljcore {

std::vector<const lj_layout *> builtin_layouts(Arch arch);

} // namespace ljcore
