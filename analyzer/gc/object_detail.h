// What the census says of each of the largest objects it lists: a
// string's length and first characters, a table's parts.
#pragma once

#include <string>

#include "analyzer/gc/top_n.h"
#include "analyzer/lua/vm.h"

namespace ljcore::gc {

std::string object_detail(const Vm &vm, const Ranked &r);

} // namespace ljcore::gc
