// Mixed stacks on a hand-built address space: which C frame runs which Lua
// frame, where each run lands among native frames, and how broken C-frame
// chains end.
#include <doctest/doctest.h>

#include "analyzer/stack/lua_runs.h"
#include "luajit/layouts.h"
#include "tests/unit/flat_memory.h"

using namespace ljcore;

namespace {

// GC64, two-slot frames (lj_frame.h): the link at the frame slot, the
// function below it. L, its stack and two C frames, all in one range.
const lj_layout &ly = lj_layout_upstream_gc64_x64;
constexpr uint64_t base = 0x10000, L = base, stack = base + 0x100;
constexpr uint64_t cf_inner = base + 0x800, cf_outer = base + 0x900;
constexpr uint64_t frame_c = 1;

// main chunk at slot bottom, called from C (lua_pcall); a function above
// it called from C again (lua_call through a C function of the chunk).
constexpr uint64_t slot_outer = stack + 0x18, slot_inner = stack + 0x48;

FlatMemory two_entries()
{
	FlatMemory mem(base, 0x1000);
	mem.put64(L + ly.L_stack, stack);
	mem.put64(L + ly.L_cframe, cf_inner);
	mem.put64(slot_inner, (slot_inner - slot_outer) | frame_c);
	mem.put64(slot_outer, (slot_outer - stack) | frame_c);
	mem.put32(cf_inner + ly.cf_nres, 1);
	mem.put64(cf_inner + ly.cf_prev, cf_outer);
	mem.put32(cf_outer + ly.cf_nres, 1);
	mem.put64(cf_outer + ly.cf_prev, 0);
	return mem;
}

LuaStack two_frames()
{
	LuaStack s;
	s.L = L;
	s.frames.resize(2);
	s.frames[0].slot = slot_inner;
	s.frames[0].level = 0;
	s.frames[1].slot = slot_outer;
	s.frames[1].level = 1;
	return s;
}

NativeFrame native_at_sp(uint64_t sp)
{
	NativeFrame f;
	f.regs.dwarf[7] = sp; // rsp
	f.known_regs = uint64_t(1) << 7;
	return f;
}

} // namespace

TEST_CASE("a frame called from C runs in its own C frame, the one below in the next")
{
	FlatMemory mem = two_entries();
	Vm lua(mem, ly, 0);
	FrameCframes cf = frame_cframes(lua, two_frames());
	CHECK(cf.problem.empty());
	REQUIRE(cf.cframe.size() == 2);
	CHECK(cf.cframe[0] == cf_inner);
	CHECK(cf.cframe[1] == cf_outer);
}

TEST_CASE("each run lands at the native frame whose stack pointer is its C frame")
{
	FlatMemory mem = two_entries();
	Vm lua(mem, ly, 0);
	LuaStack s = two_frames();
	NativeStack ns;
	ns.frames = {native_at_sp(0x1), native_at_sp(cf_inner), native_at_sp(0x2),
		     native_at_sp(cf_outer)};
	std::vector<ThreadResult> threads(1);
	place_lua_runs(threads, {ns}, Arch::x86_64, 0, s, frame_cframes(lua, s), 0);
	REQUIRE(threads[0].lua_runs.size() == 2);
	CHECK(threads[0].lua_runs[0].native_frame == size_t(1));
	CHECK(threads[0].lua_runs[0].first_level == 0);
	CHECK(threads[0].lua_runs[1].native_frame == size_t(3));
	CHECK(threads[0].lua_runs[1].first_level == 1);
}

TEST_CASE("without any matching native frame, nothing is placed")
{
	FlatMemory mem = two_entries();
	Vm lua(mem, ly, 0);
	LuaStack s = two_frames();
	NativeStack ns;
	ns.frames = {native_at_sp(0x1)};
	std::vector<ThreadResult> threads(1);
	place_lua_runs(threads, {ns}, Arch::x86_64, 0, s, frame_cframes(lua, s), 0);
	CHECK(threads[0].lua_runs.empty());
}

TEST_CASE("a C frame chain that loops on itself ends the walk, bounded")
{
	FlatMemory mem = two_entries();
	// A lua_cpcall frame (negative nres) above every Lua frame, linked
	// to itself: it is skipped over and over, at most a bounded number
	// of times.
	mem.put32(cf_inner + ly.cf_nres, uint32_t(-0x800));
	mem.put64(cf_inner + ly.cf_prev, cf_inner);
	Vm lua(mem, ly, 0);
	FrameCframes cf = frame_cframes(lua, two_frames());
	CHECK(cf.cframe.size() == 2);
}

TEST_CASE("an unreadable C frame stops with a reason")
{
	FlatMemory mem = two_entries();
	mem.put64(cf_inner + ly.cf_prev, 0xdead0000);
	Vm lua(mem, ly, 0);
	FrameCframes cf = frame_cframes(lua, two_frames());
	CHECK(cf.cframe[0] == cf_inner);
	CHECK(cf.problem.find("cannot read C frame") != std::string::npos);
}
