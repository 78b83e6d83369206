// Where the objects of a VM are reached from (lj_gc.c gc_mark_start):
// the main thread and its globals, the registry, and besides them the
// thread running now.
#pragma once

#include <cstdint>
#include <vector>

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

// g->gcroot[] (lj_obj.h), which gc_mark_gcroot marks; 0 for an empty
// slot. No layout field says where it is: it follows ctype_state and,
// since 2020, the PRNG state, and its first entry is the string
// "__index".
struct GcRootArray {
	std::vector<uint64_t> metamethod_names;
	std::vector<uint64_t> base_metatables; // by ~type: the string metatable
	std::vector<uint64_t> default_files;   // io's input and output
	// The FFI's finalizer table in newer upstream builds; in others the
	// field after the array: check it against the heap.
	uint64_t ffi_finalizers = 0;
};

// Empty names when the array is not where it should be.
GcRootArray gc_root_array(const Vm &vm);

} // namespace ljcore
