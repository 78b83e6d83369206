// How LuaJIT writes values as text, for the analyzer and the renderers
// alike: part of the model's vocabulary, not of any one output.
#pragma once

#include <cstdint>
#include <string>

namespace ljcore {

// lj_strfmt_wptr(): how LuaJIT's "%p" prints a pointer.
std::string luajit_pointer(uint64_t p);

} // namespace ljcore
