// How LuaJIT writes values as text, for the analyzer and the renderers
// alike: part of the model's vocabulary, not of any one output.
#pragma once

#include <cstdint>
#include <string>

namespace ljcore {

// lj_strfmt_wptr(): how LuaJIT's "%p" prints a pointer.
std::string luajit_pointer(uint64_t p);

// An address or a number as "0x" and its hex digits, no padding: how the
// analyzer names an object in a message. Cheap, as the locator names
// hundreds while it tries layouts.
std::string hex(uint64_t v);

} // namespace ljcore
