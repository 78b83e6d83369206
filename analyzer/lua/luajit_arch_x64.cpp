// LuaJIT on x86_64: vm_x64.dasc, lj_frame.h, lj_target_x86.h.
#include "analyzer/lua/luajit_arch.h"
#include "luajit/layouts.h"

namespace ljcore {

namespace {

// RID order eax, ecx, edx, ebx, esp, ebp, esi, edi, r8..r15.
constexpr int8_t gpr_dwarf[] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr const char *gpr_names[] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				     "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

// Which one fits is decided against memory: the order only says which is
// tried first (newest upstream, then the Debian snapshots, then the forks;
// builds without the JIT last), unless the version string in the binary
// suggests otherwise (locate/version_hint.h).
constexpr const lj_layout *layouts[] = {&lj_layout_upstream_20260720_gc64_x64,
					&lj_layout_upstream_2026_gc32_x64,
					&lj_layout_upstream_20251110_gc64_x64,
					&lj_layout_upstream_20251106_gc64_x64,
					&lj_layout_upstream_20240419_gc64_x64,
					&lj_layout_upstream_20251110_gc32_x64,
					&lj_layout_upstream_20251106_gc32_x64,
					&lj_layout_upstream_20240419_gc32_x64,
					&lj_layout_upstream_gc64_x64,
					&lj_layout_luajit2_gc64_x64,
					&lj_layout_upstream_gc32_x64,
					&lj_layout_luajit2_gc32_x64,
					&lj_layout_tarantool_gc32_x64,
					&lj_layout_tarantool_gc64_x64,
					&lj_layout_upstream_20260720_gc64_nojit_x64,
					&lj_layout_upstream_2026_gc32_nojit_x64,
					&lj_layout_upstream_20251110_gc64_nojit_x64,
					&lj_layout_upstream_20240419_gc64_nojit_x64,
					&lj_layout_upstream_20251110_gc32_nojit_x64,
					&lj_layout_upstream_20240419_gc32_nojit_x64,
					&lj_layout_upstream_gc64_nojit_x64,
					&lj_layout_upstream_gc32_nojit_x64,
					&lj_layout_luajit2_gc64_nojit_x64,
					&lj_layout_luajit2_gc32_nojit_x64,
					&lj_layout_tarantool_gc32_nojit_x64,
					&lj_layout_tarantool_gc64_nojit_x64};

} // namespace

constinit const LuaJitArch luajit_x64 = {
	// DISPATCH, r14.
	.vm_reg = 14,
	.vm_reg_name = "r14 (DISPATCH)",
	.vm_reg_dispatch = true,
	// BASE is rdx, PC rbx.
	.base_reg = 1,
	.pc_reg = 3,
	.cframe_gc64 = {.nres = 8, .prev = 32, .l = 16, .pc = 24, .prev_tarantool = 48},
	.cframe_gc32 = {.nres = 16, .prev = 32, .l = 24, .pc = 28, .prev_tarantool = 48},
	.cframe_fp_offset = -1,
	.gpr_dwarf = gpr_dwarf,
	.first_fpr = 16,
	.gpr_names = gpr_names,
	.fpr_prefix = "xmm",
	.fpr_count = 16,
	.exit_stubs = ExitStubs::shared_groups,
	.builtin_layouts = layouts,
	.dwarf_layout_name = "from DWARF, x86_64",
};

} // namespace ljcore
