// The GC heap of one VM as the census found it: what each object type
// holds, what g->gc.total counts besides objects, the string table, the
// largest objects and where they hang from. Plain data for the renderers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "readers/diagnostics.h"

namespace ljcore {

// The GC object types, with Lua and C functions apart (lj_obj.h ~LJ_T*).
enum class GcType : uint8_t {
	string,
	upvalue,
	thread,
	proto,
	lua_function,
	c_function,
	trace,
	cdata,
	table,
	userdata,
};
constexpr size_t gc_type_count = 10;
const char *gc_type_name(GcType t);

struct GcTypeStats {
	uint64_t count = 0;
	uint64_t bytes = 0; // as LuaJIT accounts them in g->gc.total
	// Parts of bytes, by type: tables: array and hash parts; threads:
	// stacks; traces: IR and snapshots. Machine code of traces lives
	// outside g->gc.total (mcode areas are mmap'ed, lj_mcode.c).
	uint64_t part1 = 0;
	uint64_t part2 = 0;
	uint64_t outside = 0; // traces: machine code bytes
};

// Memory g->gc.total counts that belongs to no GC object.
struct GcOverhead {
	std::string what;
	uint64_t bytes = 0;
};

struct GcObject {
	uint64_t addr = 0;
	GcType type = GcType::table;
	uint64_t bytes = 0;
	std::string detail; // e.g. "asize 0, hmask 1023", a string's prefix
	std::string path;   // how it is reachable from a root, if looked for
};

struct GcStringTable {
	uint64_t buckets = 0; // g->str.mask + 1
	uint64_t num = 0;     // g->str.num
	uint64_t used = 0;    // buckets holding at least one string
	uint64_t longest = 0; // longest chain
	uint64_t strings = 0; // strings found on the chains
	uint64_t bytes = 0;   // their bytes
	// False when a chain ended early: a link unreadable, not a string, or
	// cyclic (a heap copied while LuaJIT moved strings between chains).
	bool chains_whole = true;
	std::vector<GcObject> largest;
};

// One object by what it keeps alive (gc --retained, gc/retained.h).
struct GcRetainedObject {
	uint64_t addr = 0;
	GcType type = GcType::table;
	uint64_t shallow_bytes = 0;             // the object alone
	uint64_t retained_bytes = 0;            // with all it dominates
	uint64_t retained_objects = 0;          // it and all it dominates
	std::string path;                       // a shortest one from a root
	std::vector<GcRetainedObject> children; // largest dominated, to --depth
};

struct GcRetained {
	uint64_t objects = 0;              // reachable from the roots
	uint64_t objects_listed = 0;       // on LuaJIT's lists, garbage included
	uint64_t reachable_bytes = 0;      // retained by the roots together
	std::vector<GcRetainedObject> top; // largest retained first
	// Retained bytes of the object at each path prefix, for --diff.
	std::map<std::string, uint64_t> by_prefix;
	bool complete = true;
};

struct GcCensus {
	uint64_t gc_total = 0; // g->gc.total
	std::array<GcTypeStats, gc_type_count> types{};
	std::vector<GcOverhead> overheads;
	GcStringTable strings;
	std::vector<GcObject> top; // largest first
	// Bytes first reached through each path prefix (root and first key)
	// by the path search, for --diff; empty when paths were not asked for.
	std::map<std::string, uint64_t> by_prefix;
	std::optional<GcRetained> retained; // when asked for (gc --retained)
	bool paths_complete = true;         // the path search visited everything
	bool complete = true;               // every list was walked to its end
	Diagnostics diagnostics;            // what could not be read, as problems

	uint64_t object_bytes() const
	{
		uint64_t n = 0;
		for (auto &t : types)
			n += t.bytes;
		return n;
	}
	uint64_t object_count() const
	{
		uint64_t n = 0;
		for (auto &t : types)
			n += t.count;
		return n;
	}
	uint64_t overhead_bytes() const
	{
		uint64_t n = 0;
		for (auto &o : overheads)
			n += o.bytes;
		return n;
	}
	// g->gc.total minus what the census accounts for: 0 when it explains
	// every byte.
	int64_t unexplained() const
	{
		return int64_t(gc_total) - int64_t(object_bytes() + overhead_bytes());
	}
};

} // namespace ljcore
