/*
 * Frame link types (lj_frame.h): the low bits of a frame's link slot say
 * what kind of frame it is; a Lua frame's link is its caller's return pc.
 * Shared by the walker and by the frames rebuilt from trace snapshots.
 * Plain C, no libc, like layout.h.
 */
#ifndef LJCORE_LUAJIT_FRAME_H
#define LJCORE_LUAJIT_FRAME_H

enum lj_frame_type {
	LJ_FRAME_LUA,
	LJ_FRAME_C,
	LJ_FRAME_CONT,
	LJ_FRAME_VARG,
	LJ_FRAME_LUAP,
	LJ_FRAME_CP,
	LJ_FRAME_PCALL,
	LJ_FRAME_PCALLH
};
#define LJ_FRAME_TYPE 3
#define LJ_FRAME_TYPEP 7

#endif
