// LuaJIT's own conventions on one architecture: where its interpreter
// keeps the VM, the layout of its C frame, how its traces number
// registers and exit. One description per architecture
// (luajit_arch_x64.cpp, luajit_arch_arm64.cpp: LuaJIT's names), beside
// the machine's own in readers/arch/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "luajit/layout.h"
#include "readers/arch/arch.h"

namespace ljcore {

// CFRAME_OFS_* (lj_frame.h): macros, so not in DWARF.
struct CframeOffsets {
	uint16_t nres, prev, l, pc;
	uint16_t prev_tarantool; // Tarantool's fork saves more registers
};

// Where a trace's exits jump (lj_asm_*.h): to stubs in groups that every
// trace shares (x86), or to stubs after each trace's code (arm64).
enum class ExitStubs { shared_groups, after_trace };

struct LuaJitArch {
	// The register the interpreter keeps the VM in, as a DWARF number,
	// and whether it holds the dispatch table (g follows by GG_State's
	// offsets) or g itself.
	int vm_reg;
	const char *vm_reg_name;
	bool vm_reg_dispatch;
	// The interpreter's BASE and PC, which L->base and the frame's pc
	// lag behind while it runs; -1 where not read.
	int base_reg, pc_reg;
	CframeOffsets cframe_gc64, cframe_gc32;
	// The interpreter's C frame, at L->cframe, keeps the frame pointer
	// its CFI computes the caller's frame from at this offset; -1 where
	// the CFI uses the stack pointer itself.
	int cframe_fp_offset;

	// lj_target_*.h: register ids from 0, the general ones as DWARF
	// numbers, the vector ones from first_fpr (RID_MIN_FPR).
	std::span<const int8_t> gpr_dwarf;
	uint8_t first_fpr;
	// How jit.dump names them: each general one, then the vector ones
	// as fpr_prefix and their number, fpr_count of them.
	std::span<const char *const> gpr_names;
	const char *fpr_prefix;
	uint8_t fpr_count;
	ExitStubs exit_stubs;

	// The layouts built in (luajit/layouts.h), in the order they are
	// tried, and the name of one read from DWARF.
	std::span<const lj_layout *const> builtin_layouts;
	const char *dwarf_layout_name;

	uint64_t g_from_vm_reg(uint64_t value, const lj_layout &ly) const
	{
		return vm_reg_dispatch ? value - ly.gg_dispatch + ly.gg_g : value;
	}
};

const LuaJitArch &luajit_arch(Arch arch);

// The names of its register ids in order, as jit.dump prints them.
std::vector<std::string> register_names(const LuaJitArch &arch);

// The descriptions, one per file.
extern const LuaJitArch luajit_x64;
extern const LuaJitArch luajit_arm64;

} // namespace ljcore
