#include "analyzer/locate/builtin_layouts.h"

#include "analyzer/lua/luajit_arch.h"

namespace ljcore {

std::vector<const lj_layout *> builtin_layouts(Arch arch)
{
	std::span<const lj_layout *const> all = luajit_arch(arch).builtin_layouts;
	return {all.begin(), all.end()};
}

} // namespace ljcore
