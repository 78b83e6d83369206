// Which version strings (analyzer/locate/version_string.h) the builds of
// each built-in layout table carry, and the order of the tables a version
// string suggests. A hint only orders the tables: which one fits is still
// decided against memory.
#pragma once

#include <string>
#include <vector>

#include "analyzer/locate/version_string.h"
#include "luajit/layout.h"

namespace ljcore {

// The tables among layouts whose builds carry version v: an epoch
// "covers" a rolling version when the commit time falls in its range.
std::vector<const lj_layout *> layouts_for_version(const std::vector<const lj_layout *> &layouts,
						   const LuaJITVersion &v);

// layouts with those for v first, each group in its own order.
void order_by_version(std::vector<const lj_layout *> &layouts, const LuaJITVersion &v);

} // namespace ljcore
