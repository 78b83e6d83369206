// LuaJIT's own limits on the sizes its objects can claim (lj_def.h,
// luaconf.h): a field past one is corruption, never data to follow.
#pragma once

#include <cstdint>

namespace ljcore::lj_limit {

// LJ_MAX_STR: characters of a GCstr.
constexpr uint32_t str_len = 0x7fffff00;
// LJ_MAX_ASIZE: slots of a table's array part.
constexpr uint64_t array_slots = (uint64_t(1) << 27) + 1;
// 2^LJ_MAX_HBITS: nodes of a table's hash part.
constexpr uint64_t hash_nodes = uint64_t(1) << 26;
// Slots of a thread's stack: LUAI_MAXSTACK (65500) plus the extra slots
// of an overflow, below 64 K; 2^20 leaves room for a build that raised it.
constexpr uint64_t stack_slots = uint64_t(1) << 20;

// Traces: LJ_MAX_TRACE, and IR refs and snapshot numbers of 16 bits; the
// snapshot map and machine code of one trace are far below these in
// practice (lj_jit.h, lj_mcode.c), and bounded here only for reading.
constexpr uint32_t traces = 65535;
constexpr uint32_t trace_ir = 65536;
constexpr uint32_t trace_snapmap = 1u << 24;
constexpr uint32_t trace_mcode = 1u << 26;

} // namespace ljcore::lj_limit
