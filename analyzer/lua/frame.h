// The links between frames on a thread's stacks (lj_frame.h): the link
// slot of a Lua frame, and the C frames of the VM's entries from C. The
// walker (luajit/walker.h) goes down the whole chain; these read one link
// for the code that follows the chain its own way.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"
#include "luajit/frame.h"

namespace ljcore {

// frame_ftsz(): the link slot of the frame at slot f, sign-extended. Its
// low bits are the frame's type (LJ_FRAME_*).
Read<int64_t> frame_ftsz(const Vm &vm, uint64_t f);

struct FrameLink {
	int64_t ftsz = 0;
	uint64_t prev = 0; // frame_prev(): the slot of the frame below
};

// The link of the frame at slot f and the frame it leads to: for a Lua
// link the caller's frame, found from the call instruction before the
// return pc (frame_prevl()), else f less the delta the link holds
// (frame_prevd()).
Read<FrameLink> frame_link(const Vm &vm, uint64_t f);

// frame_contv(): what a continuation frame's contv slot holds (1 for the
// continuation of an FFI callback, frame_iscont_fficb()).
Read<uint64_t> frame_contv(const Vm &vm, uint64_t f);

// cframe_raw(): the low bits of a C frame pointer are flags.
constexpr uint64_t cframe_raw(uint64_t cf)
{
	return cf & ~uint64_t(3);
}

// CFRAME_OFS_NRES: negative in a C frame of lua_cpcall, the stack in use
// when it was entered.
Read<int32_t> cframe_nres(const Vm &vm, uint64_t cf);
// CFRAME_OFS_PREV: the C frame of the entry before, flags cleared.
Read<uint64_t> cframe_prev(const Vm &vm, uint64_t cf);
// CFRAME_OFS_L: the lua_State this entry runs.
Read<uint64_t> cframe_L(const Vm &vm, uint64_t cf);

} // namespace ljcore
