// Follows the values of a function's arguments through registers, from its
// first instruction on: which register holds an argument, a value loaded
// from one (L->glref, that is g), a value loaded from that (g->mainthref),
// and so on. What it records, the memory accesses through such values, the
// subtractions of two of them and the calls with their arguments, is what
// derive_layout reads LuaJIT's offsets from. It knows nothing of LuaJIT.
//
// Paths through the code in address order, each up to a return, a jump
// out of the function or a jump back (a loop; with TrackOptions::every_way,
// only one into code the path ran): the fall-through one first, then one
// from each forward conditional branch's target (a bounded number), their
// records appended in that order. A jump forward within the function is
// taken; a conditional branch backward is not. The exported functions
// read are short and straight, and a rule takes the first access of its
// kind, before the paths meet again.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/derive/machine_operands.h"

namespace ljcore {

// The offsets a pointer was loaded from, in turn (L->glref, then
// g->mainthref: two). Held inline: values are copied at every step and at
// every branch, and allocating each copy's vector cost as much as
// decoding. The tracker follows no path longer than max (its value
// becomes unknown); LuaJIT's deepest is 4, L->base[-1].fn->pc's. Offsets
// are members' and held in 32 bits: a load from further away is not
// followed. A path made from more offsets than max, or from one beyond
// 32 bits, which no tracked one equals, keeps the first max and is marked
// overlong.
class LoadPath {
public:
	static constexpr size_t max = 6;

	LoadPath() = default;
	LoadPath(std::initializer_list<int64_t> offsets) : LoadPath(offsets.begin(), offsets.size())
	{
	}
	LoadPath(const std::vector<int64_t> &offsets) : LoadPath(offsets.data(), offsets.size()) {}

	size_t size() const { return n_; }
	bool empty() const { return n_ == 0; }
	bool overlong() const { return overlong_; }
	const int32_t *begin() const { return at_.data(); }
	const int32_t *end() const { return at_.data() + n_; }
	int64_t operator[](size_t i) const { return at_[i]; }
	int64_t back() const
	{
		assert(n_ > 0);
		return at_[n_ - 1];
	}
	// Appends offset; false, leaving the path as it was, when it is full
	// or offset does not fit.
	bool push_back(int64_t offset)
	{
		if (n_ == max || !fits(offset))
			return false;
		at_[n_++] = int32_t(offset);
		return true;
	}

	friend bool operator==(const LoadPath &a, const LoadPath &b)
	{
		return a.overlong_ == b.overlong_ &&
		       std::equal(a.begin(), a.end(), b.begin(), b.end());
	}
	friend bool operator<(const LoadPath &a, const LoadPath &b)
	{
		if (a.overlong_ != b.overlong_)
			return b.overlong_;
		return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
	}

private:
	static bool fits(int64_t offset) { return offset == int64_t(int32_t(offset)); }
	LoadPath(const int64_t *offsets, size_t n)
	    : n_(uint8_t(std::min(n, max))), overlong_(n > max)
	{
		for (size_t i = 0; i < n_; i++) {
			overlong_ |= !fits(offsets[i]);
			at_[i] = int32_t(offsets[i]);
		}
	}

	std::array<int32_t, max> at_{};
	uint8_t n_ = 0;
	bool overlong_ = false;
};

// What a register holds: a constant, or an argument with the loads made
// from it (path) plus an offset added after the last load; or a count,
// what such loads read last times scale plus k (a size: "lea edx, [8*rax +
// 0x28]"), which nothing is loaded through. 56 bytes, copied at every
// step.
struct TrackedValue {
	enum Kind : uint8_t { unknown, constant, pointer, count } kind = unknown;
	uint8_t width = 0; // bytes of the last load, 0 if not loaded
	unsigned arg = 0;  // pointer: which argument it starts from,
			   // stack: the stack pointer at entry,
			   // element + n: what the nth indexed load read,
			   // call_result + n: what the nth call returned
	int64_t k = 0;     // the constant, or the offset added
	int64_t scale = 1; // count: what the last load read is multiplied by
	LoadPath path;     // pointer: the offsets loaded from, in turn

	static constexpr unsigned stack = 31, element = 32, call_result = 64;

	// Whether this is argument arg with exactly these loads (and no
	// offset added).
	bool is(unsigned a, std::initializer_list<int64_t> p) const;
	bool is(unsigned a, const LoadPath &p) const;
	// The member of argument a's object at path p that this was loaded
	// from (the one load after p's, no offset added), if it was.
	std::optional<int64_t> member_of(unsigned a, const LoadPath &p) const;
};
static_assert(sizeof(TrackedValue) == 56);

struct MemoryAccess {
	uint64_t addr;       // of the instruction
	TrackedValue object; // the base, without its added offset
	int64_t offset;      // from the object: added offset + displacement
	uint8_t width;       // bytes moved, 0 if unknown
	bool store;          // a write (read-modify-write records both)
	TrackedValue value;  // store: what was written; load: what was read
};

// A load or store through a pointer plus a register (an array's element,
// uvptr[idx] say), kept apart from the accesses at a known offset: the
// object is the base, offset the displacement, index what the index
// register held (its scale is not kept).
struct IndexedAccess {
	uint64_t addr;
	TrackedValue object;
	int64_t offset;
	uint8_t width;
	bool store;
	TrackedValue index;
};

struct Subtraction {
	uint64_t addr;
	TrackedValue minuend, subtrahend;
};

// A constant added to a pointer held in a register: LuaJIT's interpreter
// keeps DISPATCH = G(L) + GG_G2DISP, for one.
struct Addition {
	uint64_t addr;
	TrackedValue result; // the pointer, with k the offset added so far
};

// An entry of a table in the file (of functions, gc_freefunc's), at
// table + scale * index.
struct TableEntry {
	uint64_t table = 0;
	uint8_t scale = 0;
	TrackedValue index;
};

struct CallSite {
	uint64_t addr = 0;
	uint64_t target = 0; // 0: indirect
	std::vector<TrackedValue> args;
	// Indirect: the target, what the register held or the memory operand
	// loaded ("call [rbx]": g->allocf), or an entry of a table of
	// functions in the file ("call [r14 + 8*rax]" after "lea r14, [rip +
	// ...]"; its table 0 if not).
	TrackedValue callee;
	TableEntry entry;
};

struct FunctionTrace {
	std::vector<MemoryAccess> accesses;
	// What the nth of them loads is followed as TrackedValue::element + n
	// (the first TrackedValue::call_result - element of them).
	std::vector<IndexedAccess> indexed;
	std::vector<Subtraction> subtractions;
	std::vector<Addition> additions;
	std::vector<CallSite> calls;
	size_t instructions = 0; // followed
};

// What track_values follows besides registers.
struct TrackOptions {
	// The stack pointer, as TrackedValue::stack (through pushes, pops
	// and subtractions): the interpreter's entries build their C frame
	// at offsets from it. Not by default, as the stores and loads of
	// every spill would be recorded too.
	bool stack = false;
	// Every way through a small function: a jump back to code the path
	// has not run (a tail the compiler shares between branches, where
	// they all end in one call, as lj_func_free's do) is taken, and a
	// conditional select (arm64's csel, x86's cmov) gives each of its
	// values on a path of its own. Not by default: in longer functions
	// every path would run their shared code again.
	bool every_way = false;
};

// Follows ops, in order, from a function's entry, decoding as far as its
// paths go.
FunctionTrace track_values(LazyOperations &ops, Arch arch, TrackOptions options = {});

} // namespace ljcore
