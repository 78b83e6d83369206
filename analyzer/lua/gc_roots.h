// Where the objects of a VM are reached from (lj_gc.c gc_mark_start):
// the main thread and its globals, the registry, and besides them the
// thread running now.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"

namespace ljcore {

// Each 0 when it cannot be read.
struct GcRoots {
	uint64_t main_thread;
	uint64_t globals;  // the main thread's env, _G
	uint64_t registry; // the registry table
	uint64_t loaded;   // registry._LOADED, package.loaded
	uint64_t cur_L;    // the thread running now
};

GcRoots gc_roots(const Vm &vm);

} // namespace ljcore
