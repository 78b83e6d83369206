#include "analyzer/locate/layout_fields.h"

namespace ljcore {

std::vector<NamedField> named_fields(const lj_layout &ly)
{
	std::vector<NamedField> out;
#define LJ_NAMED(f) out.push_back({#f, uint64_t(ly.f)});
	LJ_LAYOUT_FIELDS(LJ_NAMED)
#undef LJ_NAMED
	if (ly.jit) {
#define LJ_NAMED_JIT(f) out.push_back({#f, uint64_t(ly.jit->f)});
		LJ_TRACE_LAYOUT_FIELDS(LJ_NAMED_JIT)
#undef LJ_NAMED_JIT
	}
	return out;
}

} // namespace ljcore
