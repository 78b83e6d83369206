// The one architecture ljcore profile samples: x86_64. Its samplers read
// x86_64 registers (the BPF programs from the perf event's or uprobe's
// context, the userspace one from user_regs_struct) and hand them over in
// x86_64's DWARF numbering (luajit/bpf/profile_sample.h). Code here that
// depends on the architecture asks this constant rather than naming one,
// so that sampling another starts from its uses.
#pragma once

#include "readers/arch/arch.h"

namespace ljcore {

inline constexpr Arch profiled_arch = Arch::x86_64;

} // namespace ljcore
