// The locate step on its own: every LuaJIT VM of a target with the layout
// it is read with. analyze, profile (and a crash handler) start here; what
// they do with a VM is theirs.
#pragma once

#include <optional>
#include <vector>

#include "analyzer/locate/layout_candidates.h"
#include "analyzer/locate/vm_locator.h"
#include "analyzer/model/analysis.h"
#include "analyzer/options.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"
#include "readers/target.h"

namespace ljcore {

struct LocatedVms {
	LayoutSet layouts; // the candidates' layouts point into it
	std::vector<VmCandidate> vms;
};

// Finds the VMs from the VM register at every native frame of stacks (one
// per thread of target, in order), the lua_States each thread holds
// (vm_holders.h), the globalL symbol and, as scan says, a scan of
// writable memory. How they were looked for goes to diag as
// evidence; finding none is a problem, with the closest candidate named.
// layout says which layouts are tried (candidate_layouts).
LocatedVms locate_vms(const Target &target, const NativeSession &native,
		      const std::vector<NativeStack> &stacks, ScanMode scan, Diagnostics &diag,
		      LayoutChoice layout = LayoutChoice::automatic);

// The VMs that layouts (the preferred first) find, as locate_vms() looks
// for them, less those whose Lua frames do not read under the layout
// that found them (frame_check.h): those are looked for again with the
// other layouts. Each refusal may become closest.
std::vector<VmCandidate> locate_with(const Target &target, const NativeSession &native,
				     const std::vector<NativeStack> &stacks, ScanMode scan,
				     std::vector<const lj_layout *> layouts, Diagnostics &diag,
				     std::optional<Rejection> &closest);

// What is known of a located VM before any walk: where it is, how it was
// found, its layout and where that came from, its threads, state and GC
// total, read from its global_State.
VmResult describe_vm(const Target &target, const VmCandidate &c, const LayoutSet &layouts,
		     Diagnostics &diag);

} // namespace ljcore
