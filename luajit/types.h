/*
 * Fixed-width integers without libc, so that the walker headers build the
 * same for the C++ analyzer and for clang -target bpf.
 */
#ifndef LJCORE_LUAJIT_TYPES_H
#define LJCORE_LUAJIT_TYPES_H

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

#endif
