// profile --native: a sample's native frames around its Lua frames, placed
// as analyze places them in a core: each run of Lua frames right above the
// native frame of the VM entry that runs it, the frame whose stack pointer
// is the run's C frame (the interpreter keeps its stack pointer there,
// vm_x64.dasc). The native frames come from unwinding the registers and
// stack copy the sampler took, with the process's code read as it is now.
#pragma once

#include <string>
#include <vector>

#include "analyzer/model/profile_model.h"
#include "analyzer/stack/lua_stack.h"
#include "luajit/bpf/profile_sample.h"
#include "readers/native_stack.h"

namespace ljcore {

// vm: the sampled VM, whose process memory the sample's copy of the stack
// stands in front of. lua: the sample's Lua frames, named, innermost first, and raw the same
// frames as walked (the first ninlined of them inlined by a trace). Sets
// out to the mixed frames, root first, and returns true; returns false with
// the reason when the sample has no native frames to give, or none of them
// runs the Lua frames (out is then untouched).
bool mix_native_frames(const NativeSession &native, const Vm &vm, const lj_profile_sample &s,
		       const std::vector<WalkedFrame> &raw, size_t ninlined,
		       const std::vector<ProfileFrame> &lua, std::vector<ProfileFrame> &out,
		       std::string &why);

} // namespace ljcore
