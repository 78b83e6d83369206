#include "analyzer/locate/layout_versions.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "luajit/layouts.h"

namespace ljcore {

namespace {

// The version strings of one table's builds. Rolling versions are the
// commit times (`git log -1 --format=%ct REV` in LuaJIT/LuaJIT) of the
// first revision of the table's epoch and of the next epoch's (see the
// revisions each generated table in luajit/layouts.h lists).
struct TableVersions {
	const lj_layout *layout;
	bool beta3;                 // "LuaJIT 2.1.0-beta3"
	uint64_t rolling_first = 0; // "LuaJIT 2.1.<time>", first <= time < end
	uint64_t rolling_end = 0;
};

// 50e0fa03 "Switch build system to rolling releases." (2023-08-21).
constexpr uint64_t rolling_start = 1692579986;
constexpr uint64_t t_f5affaa6 = 1713483199; // 2024-04-19
constexpr uint64_t t_68354f44 = 1762386122; // 2025-11-06
constexpr uint64_t t_5c647754 = 1762794686; // 2025-11-10
constexpr uint64_t t_a2ce8114 = 1784535649; // 2026-07-20
constexpr uint64_t no_end = UINT64_MAX;
// OpenResty's luajit2 took the rolling releases in 58b44276 (2023-09-07,
// "Merge branch 'v2.1' into v2.1-agentzh"): its tags from v2.1-20230911
// say "LuaJIT 2.1.<time of the tagged commit>" (its .relver). The newest
// built here, v2.1-20240314 (15f58c96), has the layout of the 2023
// luajit2 tables; later ones are not named until one is built.
constexpr uint64_t t_luajit2_58b44276 = 1694073238;
constexpr uint64_t t_luajit2_15f58c96 = 1710398010;
constexpr uint64_t luajit2_end = t_luajit2_15f58c96 + 1;

// Debian's 2022 snapshot (built here from its source) says beta3; the
// same layout holds up to Ubuntu 24.04's c525bcb9 (2023-12-23), rolling.
// OpenResty's luajit2 up to its 2023-04 release (Debian's is 20230119)
// and Tarantool's fork at b52fe979 keep beta3 (their luajit.h). A rolling
// time in luajit2's range names both forks' tables: the string does not
// say which fork it is.
const TableVersions table_versions[] = {
	{&lj_layout_upstream_gc64_x64, true, rolling_start, t_f5affaa6},
	{&lj_layout_upstream_gc64_nojit_x64, true, rolling_start, t_f5affaa6},
	{&lj_layout_upstream_gc32_x64, true, rolling_start, t_f5affaa6},
	{&lj_layout_upstream_gc32_nojit_x64, true, rolling_start, t_f5affaa6},
	{&lj_layout_upstream_gc64_arm64, true, rolling_start, t_f5affaa6},
	{&lj_layout_luajit2_gc64_x64, true, t_luajit2_58b44276, luajit2_end},
	{&lj_layout_luajit2_gc64_nojit_x64, true, t_luajit2_58b44276, luajit2_end},
	{&lj_layout_luajit2_gc32_x64, true, t_luajit2_58b44276, luajit2_end},
	{&lj_layout_luajit2_gc32_nojit_x64, true, t_luajit2_58b44276, luajit2_end},
	{&lj_layout_luajit2_gc64_arm64, true, t_luajit2_58b44276, luajit2_end},
	{&lj_layout_upstream_20240419_gc64_x64, false, t_f5affaa6, t_68354f44},
	{&lj_layout_upstream_20251106_gc64_x64, false, t_68354f44, t_5c647754},
	{&lj_layout_upstream_20251110_gc64_x64, false, t_5c647754, t_a2ce8114},
	{&lj_layout_upstream_20260720_gc64_x64, false, t_a2ce8114, no_end},
	{&lj_layout_upstream_20240419_gc32_x64, false, t_f5affaa6, t_68354f44},
	{&lj_layout_upstream_20251106_gc32_x64, false, t_68354f44, t_5c647754},
	{&lj_layout_upstream_20251110_gc32_x64, false, t_5c647754, t_a2ce8114},
	// Without the JIT, 68354f44 (jit_State only) changed nothing.
	{&lj_layout_upstream_20240419_gc64_nojit_x64, false, t_f5affaa6, t_5c647754},
	{&lj_layout_upstream_20251110_gc64_nojit_x64, false, t_5c647754, t_a2ce8114},
	{&lj_layout_upstream_20260720_gc64_nojit_x64, false, t_a2ce8114, no_end},
	{&lj_layout_upstream_20240419_gc32_nojit_x64, false, t_f5affaa6, t_5c647754},
	{&lj_layout_upstream_20251110_gc32_nojit_x64, false, t_5c647754, t_a2ce8114},
	// Built at a2ce8114 and the head (1ee778a4).
	{&lj_layout_upstream_2026_gc32_x64, false, t_a2ce8114, no_end},
	{&lj_layout_upstream_2026_gc32_nojit_x64, false, t_a2ce8114, no_end},
	{&lj_layout_tarantool_gc32_x64, true},
	{&lj_layout_tarantool_gc64_x64, true},
	{&lj_layout_tarantool_gc32_nojit_x64, true},
	{&lj_layout_tarantool_gc64_nojit_x64, true},
};

bool carries(const TableVersions &t, const LuaJITVersion &v)
{
	switch (v.kind) {
	case LuaJITVersion::Kind::beta3:
		return t.beta3;
	case LuaJITVersion::Kind::rolling:
		return t.rolling_first <= v.timestamp && v.timestamp < t.rolling_end;
	default:
		return false;
	}
}

// By name: layouts.h gives each translation unit its own copy of the
// tables, and a layout read from DWARF that equals a table takes its name.
bool for_version(const lj_layout *ly, const LuaJITVersion &v)
{
	return ly->name && std::ranges::any_of(table_versions, [&](const TableVersions &t) {
		       return std::string_view(t.layout->name) == ly->name && carries(t, v);
	       });
}

} // namespace

std::vector<const lj_layout *> layouts_for_version(const std::vector<const lj_layout *> &layouts,
						   const LuaJITVersion &v)
{
	std::vector<const lj_layout *> out;
	std::ranges::copy_if(layouts, std::back_inserter(out),
			     [&](const lj_layout *ly) { return for_version(ly, v); });
	return out;
}

void order_by_version(std::vector<const lj_layout *> &layouts, const LuaJITVersion &v)
{
	std::ranges::stable_partition(layouts,
				      [&](const lj_layout *ly) { return for_version(ly, v); });
}

} // namespace ljcore
