#include "readers/arch/thread_regs.h"

#include <cstring>

namespace ljcore {

namespace {

uint64_t load_word(const std::byte *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

} // namespace

ThreadRegs regs_from_prstatus(const ArchInfo &arch, const std::byte *pr_reg)
{
	ThreadRegs out;
	for (size_t i = 0; i < arch.prstatus_dwarf.size(); i++)
		if (int n = arch.prstatus_dwarf[i]; n >= 0)
			out.dwarf[size_t(n)] = load_word(pr_reg + 8 * i);
	out.pc = out.dwarf[size_t(arch.pc)];
	out.sp = out.dwarf[size_t(arch.sp)];
	if (arch.prstatus_thread_pointer >= 0)
		out.thread_pointer = load_word(pr_reg + 8 * size_t(arch.prstatus_thread_pointer));
	return out;
}

void read_vector_regs(const ArchInfo &arch, const std::byte *fpregs, ThreadRegs &regs)
{
	for (size_t i = 0; i < arch.vector_regs; i++)
		regs.fpr[i] = load_word(fpregs + arch.vector_offset + 16 * i);
	regs.has_fpr = true;
}

} // namespace ljcore
