// The VMs threads hold while they run no Lua: a worker waiting in C for
// its next event, a host between two calls into Lua. No interpreter
// register names their VM then, but the thread keeps the lua_State it
// calls into next: in a register or a stack slot of the function that
// calls lua_pcall (or whose callee-saved register a deeper frame saved),
// in its TLS or its pthread's keys, or in a per-thread object one of
// those points to (wrk keeps L in its `thread`).
#pragma once

#include <optional>
#include <vector>

#include "analyzer/locate/vm_locator.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

// Bounds of the search, per thread.
struct HolderReach {
	uint64_t stack = 128 << 10; // bytes of stack from the innermost frame up
	uint64_t frame = 512;       // bytes at each native frame past that
	uint64_t tls = 4 << 10;     // bytes each side of the thread pointer
	size_t objects = 2048;      // objects looked into, of the words above
	uint64_t object = 256;      // bytes of each
};

// Looks through each thread's registers at every native frame (stacks:
// one per thread of target, in order), its stack and the words around its
// thread pointer, and the first words of the objects in writable memory
// those point to, for lua_States (a thread object whose G is a VM that
// check_global_state accepts). Adds the VMs found to found, each found by
// the thread that holds it most directly; on every VM of found, sets
// holders. What was looked at goes to diag as evidence.
void add_held_vms(const Target &target, const std::vector<NativeStack> &stacks,
		  const std::vector<const lj_layout *> &layouts, std::vector<VmCandidate> &found,
		  Diagnostics &diag, std::optional<Rejection> &closest,
		  const HolderReach &reach = {});

} // namespace ljcore
