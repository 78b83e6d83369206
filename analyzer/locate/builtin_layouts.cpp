#include "analyzer/locate/builtin_layouts.h"

#include "luajit/layouts.h"

namespace ljcore {

std::vector<const lj_layout *> builtin_layouts(Arch arch)
{
	// Which one fits is decided against memory: the order only says
	// which is tried first (newest upstream, then the Debian snapshots,
	// then the forks; builds without the JIT last), unless the version
	// string in the binary suggests otherwise (locate/version_hint.h).
	if (arch == Arch::x86_64)
		return {&lj_layout_upstream_20260720_gc64_x64,
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
	return {&lj_layout_upstream_gc64_arm64, &lj_layout_luajit2_gc64_arm64};
}

} // namespace ljcore
