#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// In the order of enum Arch.
constexpr const ArchInfo *all_archs[] = {&x86_64_arch, &aarch64_arch};

} // namespace

const ArchInfo &arch_info(Arch arch)
{
	return *all_archs[size_t(arch)];
}

std::optional<Arch> arch_of_machine(uint16_t e_machine)
{
	for (const ArchInfo *a : all_archs)
		if (a->e_machine == e_machine)
			return a->arch;
	return std::nullopt;
}

const char *arch_name(Arch arch)
{
	return arch_info(arch).name;
}

} // namespace ljcore
