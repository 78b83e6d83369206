#include "analyzer/lua/luajit_arch.h"

namespace ljcore {

namespace {

// In the order of enum Arch.
constexpr const LuaJitArch *all_archs[] = {&luajit_x64, &luajit_arm64};

} // namespace

const LuaJitArch &luajit_arch(Arch arch)
{
	return *all_archs[size_t(arch)];
}

std::vector<std::string> register_names(const LuaJitArch &arch)
{
	std::vector<std::string> names(arch.gpr_names.begin(), arch.gpr_names.end());
	for (unsigned i = 0; i < arch.fpr_count; i++)
		names.push_back(arch.fpr_prefix + std::to_string(i));
	return names;
}

} // namespace ljcore
