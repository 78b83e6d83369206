// LuaJIT on arm64: vm_arm64.dasc, lj_frame.h, lj_target_arm64.h.
#include "analyzer/lua/luajit_arch.h"
#include "luajit/layouts.h"

namespace ljcore {

namespace {

// x0..x30, and 31 the stack pointer: the DWARF numbers themselves.
constexpr int8_t gpr_dwarf[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
				16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

constexpr const char *gpr_names[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
				     "x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
				     "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
				     "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp"};

constexpr const lj_layout *layouts[] = {&lj_layout_upstream_gc64_arm64,
					&lj_layout_luajit2_gc64_arm64};

constexpr CframeOffsets cframe = {.nres = 40, .prev = 0, .l = 16, .pc = 8, .prev_tarantool = 0};

} // namespace

constinit const LuaJitArch luajit_arm64 = {
	// GLREG, x22, holds g.
	.vm_reg = 22,
	.vm_reg_name = "x22 (GLREG)",
	.vm_reg_dispatch = false,
	// Not read yet (BASE is x19, PC x21): L->base stands.
	.base_reg = -1,
	.pc_reg = -1,
	.cframe_gc64 = cframe,
	.cframe_gc32 = cframe,
	// x29 at sp + SAVE_FP_LR_, 192 in both forks.
	.cframe_fp_offset = 192,
	.gpr_dwarf = gpr_dwarf,
	.first_fpr = 32,
	.gpr_names = gpr_names,
	.fpr_prefix = "d",
	.fpr_count = 32,
	.exit_stubs = ExitStubs::after_trace,
	.builtin_layouts = layouts,
	.dwarf_layout_name = "from DWARF, aarch64",
};

} // namespace ljcore
