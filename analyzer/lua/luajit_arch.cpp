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

} // namespace ljcore
