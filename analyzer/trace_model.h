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
};

struct TraceSnapshot {
	uint32_t ref = 0;   // first IR ref it covers (biased)
	uint16_t mcofs = 0; // offset of its exit in the machine code
	uint8_t nslots = 0;
	uint8_t topslot = 0;
	uint8_t count = 0;             // exits taken through it
	std::vector<uint32_t> entries; // SnapEntry: slot << 24 | flags | ref
	// The map words after the entries (lj_snap.c snapshot_framelinks()):
	// the pc (with FR2 one 64-bit pc << 8 | baseslot), then without FR2
	// the frame links, innermost first.
	std::vector<uint32_t> links;
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
	uint64_t mcode = 0;
	uint32_t szmcode = 0;
	uint32_t mcloop = 0; // offset of the loop in mcode, 0 if none
	uint16_t spadjust = 0;
	std::vector<uint8_t> mcode_bytes; // read when machine code is asked for

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
	int32_t executing = 0; // the trace running at the crash (g->vmstate > 0)
	std::vector<Trace> traces;
	std::string problem; // why no traces could be listed
};

} // namespace ljcore
