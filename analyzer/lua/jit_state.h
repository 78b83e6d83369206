// The jit_State in GG_State (lj_jit.h): the buffers the trace recorder
// keeps, which g->gc.total counts and lj_trace_freestate frees.
#pragma once

#include <cstdint>
#include <optional>

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/object_size.h"
#include "luajit/trace_layout.h"

namespace ljcore {

struct JitBuffers {
	uint64_t trace_table; // J->trace[]: a GCRef per trace number
	uint64_t ir;          // the IR buffer, irbotlim .. irtoplim
	uint64_t snapshots;   // snapshot and snapshot map buffers
};

// The jit_State's buffers, nullopt if it cannot be read.
inline std::optional<JitBuffers> jit_buffers(const Vm &vm, const lj_trace_layout &tl)
{
	uint64_t J = GlobalState(vm).gg() + tl.gg_J;
	auto sizetrace = vm.value<uint32_t>(J + tl.J_sizetrace);
	auto irtop = vm.value<uint32_t>(J + tl.J_irtoplim);
	auto irbot = vm.value<uint32_t>(J + tl.J_irbotlim);
	auto sizesnap = vm.value<uint32_t>(J + tl.J_sizesnap);
	auto sizesnapmap = vm.value<uint32_t>(J + tl.J_sizesnapmap);
	if (!sizetrace || !irtop || !irbot || !sizesnap || !sizesnapmap)
		return std::nullopt;
	return JitBuffers{uint64_t(*sizetrace) * vm.layout().ptrsize,
			  uint64_t(*irtop - *irbot) * object_size::irins,
			  uint64_t(*sizesnap) * LJ_SNAP_SIZE +
				  uint64_t(*sizesnapmap) * object_size::snapentry};
}

} // namespace ljcore
