#include "analyzer/builtin_layouts.h"

#include "analyzer/dwarf_layout.h"
#include "luajit/layouts.h"
#include "luajit/trace_layouts.h"

namespace ljcore {

std::vector<const lj_layout *> builtin_layouts(Arch arch)
{
	if (arch == Arch::x86_64)
		return {&lj_layout_upstream_gc64_x64,       &lj_layout_luajit2_gc64_x64,
			&lj_layout_upstream_gc32_x64,       &lj_layout_luajit2_gc32_x64,
			&lj_layout_upstream_gc64_nojit_x64, &lj_layout_upstream_gc32_nojit_x64,
			&lj_layout_luajit2_gc64_nojit_x64,  &lj_layout_luajit2_gc32_nojit_x64};
	return {&lj_layout_upstream_gc64_arm64, &lj_layout_luajit2_gc64_arm64};
}

const lj_trace_layout *builtin_trace_layout(const lj_layout &ly)
{
	static const std::pair<const lj_layout *, const lj_trace_layout *> pairs[] = {
		{&lj_layout_upstream_gc64_x64, &lj_trace_layout_upstream_gc64_x64},
		{&lj_layout_luajit2_gc64_x64, &lj_trace_layout_luajit2_gc64_x64},
		{&lj_layout_upstream_gc32_x64, &lj_trace_layout_upstream_gc32_x64},
		{&lj_layout_luajit2_gc32_x64, &lj_trace_layout_luajit2_gc32_x64},
		{&lj_layout_upstream_gc64_arm64, &lj_trace_layout_upstream_gc64_arm64},
		{&lj_layout_luajit2_gc64_arm64, &lj_trace_layout_luajit2_gc64_arm64},
	};
	// A layout read from DWARF is a copy: it names its flavour by being
	// equal to one of the tables.
	for (auto &[object, trace] : pairs)
		if (&ly == object || layout_differences(ly, *object).empty())
			return trace;
	return nullptr;
}

} // namespace ljcore
