// Whether a dying process may hold a LuaJIT VM, decided before anything
// else is spent on it: most crashes on a machine are not LuaJIT's, and a
// process without LuaJIT must cost no more than passing its core on. The
// mark is LuaJIT's C API among the dynamic symbols of a file the process
// maps: the luajit executable exports it (-Wl,-E), and so do
// libluajit-5.1.so, nginx's lua module's host and Tarantool.
#pragma once

#include <cstdint>

namespace ljcore::catching {

// True when one of the ELF files mapped by process pid defines lua_close
// or luaJIT_setmode in its .dynsym, or when its mappings cannot be read,
// or reading them would take too long (64 MiB of symbol tables, a file
// served by FUSE, whose reads need never return): then the analysis,
// which the deadline bounds, decides. Reads /proc/PID/maps and, of each
// mapped regular file once, its section headers and dynamic symbols;
// caches nothing.
bool may_hold_luajit(int32_t pid);

} // namespace ljcore::catching
