// Finding LuaJIT VMs (global_State) in a core, and deciding whether a
// candidate really is one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "readers/diagnostics.h"
#include "readers/native_stack.h"

namespace ljcore {

struct VmCandidate {
	uint64_t g = 0;
	const lj_layout *layout = nullptr;
	std::string found_by;
	std::vector<std::string> checks; // what it passed
	// The dispatch table is where the layout puts it: what tells a build
	// with the JIT from one without when both layouts fit g.
	bool dispatch_ok = false;
	// g->cur_L is a thread of this VM (not merely null): what tells two
	// epochs apart when one keeps cur_L where the other keeps jit_base,
	// null outside a trace.
	bool cur_l_ok = false;
	// What the allocator's chunk that holds GG_State says of the layout's
	// sizeof(GG_State): what tells two epochs apart whose tables differ
	// only there. Unknown when there is no chunk header to ask (another
	// allocator, or a snapshot that did not keep the word before it).
	enum class ChunkFit { fits, differs, unknown };
	ChunkFit gg_chunk = ChunkFit::unknown;
	// Where the DISPATCH register pointed at it, if that is how.
	std::optional<size_t> thread, frame;
	// Every thread (index in the target's) whose registers, stack or TLS
	// hold one of its lua_States, the one it belongs to first: the one
	// running it (thread), else the one that holds it most directly and
	// holds fewest other VMs (vm_holders.h).
	std::vector<size_t> holders;
};

// A g that check_global_state() refused, and how far it got: what
// --explain shows as the closest candidate when no VM is found.
struct Rejection {
	uint64_t g = 0;
	std::string layout, found_by;
	std::vector<std::string> passed; // the checks it passed, in order
	std::string failed;              // the one it failed
};

// Keeps in closest the rejection that passed the most checks (the first
// of those that passed as many).
void note_rejection(std::optional<Rejection> &closest, Rejection r);

// A global_State is accepted only when it is consistent with itself:
// G(mainthread) == g, mainthread sits right before g in GG_State,
// strempty is an empty string, and G(cur_L) == g. The candidate has the
// checks passed, whether its dispatch table checks out and whether
// GG_State's allocation has its size. A refused one
// goes to closest (when given) if it got further than the one there.
Expected<VmCandidate> check_global_state(const Vm &vm, std::string found_by,
					 std::optional<Rejection> *closest = nullptr);

// Adds c to found unless its g is there already, in which case c replaces
// that one only if its layout explains more of the VM (dispatch_ok where
// the other's has not; else cur_l_ok where the other's has not; else
// its GG_State chunk fits). Returns whether c was taken.
bool add_candidate(std::vector<VmCandidate> &found, VmCandidate c);

// Whether g is in found with a layout no other can better (dispatch_ok,
// cur_l_ok, and a GG_State chunk that fits or cannot be asked): no other
// layout need be tried on it.
bool settled(const std::vector<VmCandidate> &found, uint64_t g);

// The DWARF register that holds the VM's dispatch table (x86_64 r14) or
// global_State (aarch64 GLREG x22).
int vm_register(Arch arch);

// Candidates from the VM register at every native frame (callee-saved,
// so recovered by CFI even below C code) and from the `globalL` symbol.
// Why candidates were rejected goes to evidence (for --explain), the one
// that got furthest to closest.
std::vector<VmCandidate>
vms_from_registers_and_symbols(const Memory &memory, Arch arch, const NativeSession &native,
			       const std::vector<NativeStack> &stacks,
			       const std::vector<const lj_layout *> &layouts, Diagnostics &diag,
			       std::optional<Rejection> &closest);

// g->vmstate in words (lj_obj.h LJ_VMST_*; a trace number when >= 0), in
// a build with the given number of VM states (lj_layout.vmstates).
std::string vmstate_text(int32_t vmstate, unsigned vmstates);

} // namespace ljcore
