// JIT traces as the result model holds them: each GCtrace's header, its IR
// with every constant resolved (strings, functions, numbers), and its
// snapshots, as plain data that renderers print the way jit.dump does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ljcore {

// A function as jit.dump's fmtfunc names it: where a Lua function starts
// ("file.lua:12"), a fast function's id, or a C function's address.
struct TraceFunction {
	uint64_t address = 0; // GCfunc *
	std::string loc;      // Lua: lj_debug_pushloc()'s text; empty otherwise
	int ffid = 0;         // fast function id (> 1), 0 Lua, 1 plain C
	uint64_t cfunc = 0;   // lua_CFunction of a C function
};

// One IR instruction or constant (lj_ir.h IRIns), with what its constant
// refers to read from memory.
struct IrIns {
	uint16_t op1 = 0;
	uint16_t op2 = 0;
	uint8_t type = 0;  // IRType with its flags (guard, PHI)
	uint8_t op = 0;    // IROp
	uint16_t prev = 0; // register | spill slot << 8, once assembled
	// Constants: KINT's value, KNUM's and KINT64's bits, KGC's object,
	// KPTR's pointer.
	uint64_t k = 0;
	std::string str;      // KGC string: its first bytes
	uint32_t str_len = 0; //   and its length
	TraceFunction func;   // KGC function
	std::string problem;  // a constant that could not be read
	// The upper slot of a constant with a 64-bit value (KNUM, KINT64;
	// with GC64 also KGC, KPTR, KKPTR): its value, not an instruction.
	bool value_slot = false;
};

struct TraceSnapshot {
	uint32_t ref = 0;   // first IR ref it covers (biased)
	uint16_t mcofs = 0; // where its part of the code starts, in MCode units
	uint8_t nslots = 0;
	uint8_t topslot = 0;
	uint8_t count = 0;             // exits taken through it; 255: a side trace is linked
	std::vector<uint32_t> entries; // SnapEntry: slot << 24 | flags | ref
	// What follows the entries (lj_snap.c snapshot_framelinks): the
	// bytecode pc it resumes at, then, without LJ_FR2, one link per frame.
	uint64_t pc = 0;
	uint32_t base_slot = 0; // LJ_FR2: where the innermost frame's base is
	std::vector<uint32_t> links;
};

// One machine instruction of a trace, with what LuaJIT's code layout says
// about it (lj_asm.c, lj_target_*.h).
struct McodeLine {
	uint32_t offset = 0; // from the trace's mcode
	uint32_t size = 0;
	std::string text;
	uint64_t target = 0;             // a direct branch's target, 0 if none
	int32_t exit = -1;               // the exit (= snapshot number) a guard takes
	uint32_t to_trace = 0;           // a branch into another trace: a link or a patched exit
	bool to_loop = false;            // the branch back to the loop
	std::vector<uint32_t> snapshots; // snapshots whose code starts here
};

struct Trace {
	uint32_t number = 0;
	uint64_t address = 0; // GCtrace *
	std::string problem;  // why it could not be read (the rest is partial)
	uint32_t root = 0;    // root trace of a side trace, 0 for a root trace
	uint32_t link = 0;    // linked trace
	std::string linktype; // as jit.util.traceinfo names it
	uint32_t nextroot = 0;
	uint32_t nextside = 0;
	uint32_t nchild = 0;
	uint32_t nk = 0;       // lowest constant ref (biased)
	uint32_t nins = 0;     // next instruction ref (biased)
	std::vector<IrIns> ir; // refs nk .. nins-1
	std::vector<TraceSnapshot> snapshots;
	uint64_t start_proto = 0; // GCproto * it starts in
	uint64_t start_pc = 0;
	std::string start_loc; // "file.lua:12", as jit.dump names the start
	// The function it starts in: "function <file.lua:10>" (its prototype's
	// first line, named as jit.dump names functions) or "main chunk", as
	// debug.traceback tells them apart; empty if the prototype is unreadable.
	std::string start_function;
	uint64_t mcode = 0;
	uint32_t szmcode = 0;
	uint32_t mcloop = 0; // offset of the loop in mcode, 0 if none
	uint16_t spadjust = 0;
	std::vector<uint8_t> mcode_bytes; // read when machine code is asked for
	std::vector<McodeLine> listing;   // and disassembled
	// Distinct exits its machine code can take: guards to exit stubs, and
	// guards LuaJIT since patched to enter a side trace (still an exit of
	// this trace, as jit.dump listed it when compiled). -1: code not read.
	int32_t exits = -1;
	// A side trace's parent and the exit of it that was patched to jump
	// here, found in the parent's machine code (0 and -1 if unknown).
	uint32_t parent = 0;
	int32_t parent_exit = -1;

	const IrIns *at(int64_t ref) const
	{
		return ref >= nk && ref < int64_t(nk + ir.size()) ? &ir[size_t(ref - nk)] : nullptr;
	}
};

struct TraceSet {
	std::string fork; // "upstream" or "luajit2": IR field, call and fast function names
	bool gc64 = false;
	uint64_t jit_state = 0; // jit_State *
	uint32_t sizetrace = 0;
	// The trace running at the crash: g->vmstate > 0, or on arm64 (whose
	// traces do not set it) the trace a thread was found running in.
	int32_t executing = 0;
	// Bytes per MCode unit, in which snapshots count their mcofs: 1 on
	// x86_64, 4 on arm64 (lj_target_*.h).
	uint32_t mcode_unit = 1;
	// x86_64: J->exitstubgroup[], the shared exit stubs (read with mcode).
	std::vector<uint64_t> exit_stub_groups;
	// The names of the machine's register ids, as jit.dump prints them.
	std::vector<std::string> register_names;
	std::vector<Trace> traces;
	std::string problem; // why no traces could be listed
};

} // namespace ljcore
