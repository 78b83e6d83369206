// A TValue read as one raw 64-bit word (lj_obj.h): its type and payload,
// for both GC64 (17-bit itype above a 47-bit payload) and 32-bit refs
// (itype in the upper word, a 32-bit GCRef in the lower one).
#pragma once

#include <cstdint>
#include <cstring>

#include "luajit/layout.h"

namespace ljcore::tvalue {

// Type tags (LJ_T* of lj_obj.h), stored inverted as the itype.
constexpr uint32_t tag_nil = 0, tag_false = 1, tag_true = 2;
// The itype of an LJ_DUALNUM integer is ~tag_isnum; anything below it is a
// double.
constexpr uint32_t tag_isnum = 13;
constexpr uint64_t low47 = (uint64_t(1) << 47) - 1;

// The itype (~tag) of a raw TValue, as a 32-bit word in either layout.
inline uint32_t itype(const lj_layout &ly, uint64_t raw)
{
	return ly.gc64 ? uint32_t(raw >> 47) | 0xfffe0000u : uint32_t(raw >> 32);
}

inline bool is_nil(const lj_layout &ly, uint64_t raw)
{
	return itype(ly, raw) == ~tag_nil;
}

inline bool is_double(const lj_layout &ly, uint64_t raw)
{
	return itype(ly, raw) < ~tag_isnum;
}

// The GC object of a TValue whose tag is a GC type.
inline uint64_t gc_object(const lj_layout &ly, uint64_t raw)
{
	return ly.gc64 ? raw & low47 : raw & 0xffffffff;
}

// The raw TValue that holds the GC object gc of type tag (setgcV()).
inline uint64_t of_gc_object(const lj_layout &ly, uint32_t tag, uint64_t gc)
{
	return ly.gc64 ? uint64_t(~tag & 0x1ffff) << 47 | (gc & low47)
		       : uint64_t(~tag) << 32 | (gc & 0xffffffff);
}

// The raw TValue of nil, false or true (setpriV()): the itype alone.
inline uint64_t of_primitive(const lj_layout &ly, uint32_t tag)
{
	return ly.gc64 ? ~uint64_t(tag) << 47 | low47 : uint64_t(~tag) << 32;
}

// The GC object a raw TValue holds if it holds one of type tag, else 0.
inline uint64_t gc_object_of(const lj_layout &ly, uint64_t raw, uint32_t tag)
{
	return itype(ly, raw) == ~tag ? gc_object(ly, raw) : 0;
}

// lightuserdata on 64-bit hosts keeps 47 bits of pointer under 17 bits
// that are ~LJ_TLIGHTUD with GC64, 0x1fffe with 32-bit refs
// (tvislightud() in lj_obj.h).
inline bool is_lightuserdata(const lj_layout &ly, uint64_t raw)
{
	return uint32_t(raw >> 47) == (ly.gc64 ? 0x1fffcu : 0x1fffeu);
}

// A TValue as it lies in memory, from bytes read of a table, stack or
// upvalue.
inline uint64_t load(const unsigned char *p)
{
	uint64_t raw;
	memcpy(&raw, p, sizeof raw);
	return raw;
}

// A number: a double or, under LJ_DUALNUM, an integer (tvisnumber()).
inline bool is_number(const lj_layout &ly, uint64_t raw)
{
	return itype(ly, raw) <= ~tag_isnum;
}

// The GC object of a TValue, or 0 when it holds none: a number, nil, a
// boolean or a lightuserdata (tvisgcv()).
inline uint64_t gc_object_or_0(const lj_layout &ly, uint64_t raw)
{
	uint32_t it = itype(ly, raw);
	return it <= ~uint32_t(LJ_TSTR) && it >= ~uint32_t(LJ_TUDATA) ? gc_object(ly, raw) : 0;
}

} // namespace ljcore::tvalue
