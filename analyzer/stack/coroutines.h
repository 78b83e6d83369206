// Every lua_State (coroutine) of a VM, what state it is in and which one
// resumed which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "readers/error.h"

namespace ljcore {

// The main thread of vm first, then every thread on the GC object list
// (g->gc.root). Bounded and cycle-safe; a broken list ends the search
// with the reason in problem.
struct ThreadList {
	std::vector<uint64_t> threads;
	uint64_t objects_seen = 0;
	std::string problem;
};
ThreadList list_threads(const Vm &vm);

// coroutine.status() as lib_base.c decides it: running, suspended,
// normal (it resumed another one), dead.
std::string coroutine_status(const Vm &mem, uint64_t L, uint64_t current);

// The thread a frame's function resumed: the first argument of
// coroutine.resume, or the upvalue of a coroutine.wrap function. 0 if none.
uint64_t resumed_thread(const Vm &mem, uint64_t frame_slot, uint64_t func);

} // namespace ljcore
