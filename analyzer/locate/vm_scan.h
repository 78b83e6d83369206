// Finding VMs without any register or symbol: a scan of the core's
// writable memory for GG_State blocks that are consistent with themselves.
#pragma once

#include <vector>

#include "analyzer/locate/vm_locator.h"
#include "readers/target.h"

namespace ljcore {

// Every global_State in the target's writable memory, under each layout.
// A word is a candidate when it could be g->mainthref pointing at the
// lua_State right in front of g (GG_State puts them together); candidates
// then pass check_global_state(). One pass over the memory for all
// layouts, no copies; the holes of a sparse core are skipped. The
// candidate that got furthest without passing goes to closest.
std::vector<VmCandidate> scan_for_vms(const Target &target,
				      const std::vector<const lj_layout *> &layouts,
				      std::optional<Rejection> &closest);

} // namespace ljcore
