// The thread unwind_from() and unwind_sample() unwind: its initial
// registers given (DWARF number, value) with its pc, reading the memory
// given. Complete here for NativeSession, which keeps unwind_sample()'s.
#pragma once

#include <cstdint>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "readers/memory.h"

namespace ljcore {

struct GivenFrame {
	const Memory *memory = nullptr;
	pid_t tid = 0;
	uint64_t pc = 0;
	std::vector<std::pair<unsigned, uint64_t>> regs;
	bool listed = false;
};

} // namespace ljcore
