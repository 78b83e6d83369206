#include "analyzer/lua/frame.h"

namespace ljcore {

Read<int64_t> frame_ftsz(const Vm &vm, uint64_t f)
{
	// With FR2 the link is a whole slot; else the upper word of it.
	if (vm.layout().fr2) {
		auto v = vm.value<uint64_t>(f);
		if (!v)
			return std::unexpected(v.error());
		return int64_t(*v);
	}
	auto v = vm.value<int32_t>(f + 4);
	if (!v)
		return std::unexpected(v.error());
	return int64_t(*v);
}

Read<FrameLink> frame_link(const Vm &vm, uint64_t f)
{
	const lj_layout &ly = vm.layout();
	auto ftsz = frame_ftsz(vm, f);
	if (!ftsz)
		return std::unexpected(ftsz.error());
	FrameLink link{*ftsz, 0};
	if ((link.ftsz & LJ_FRAME_TYPE) == LJ_FRAME_LUA) {
		// frame_prevl(): the A operand of the call instruction.
		uint64_t pc = ly.fr2 ? uint64_t(link.ftsz) : uint32_t(link.ftsz);
		auto ins = vm.value<uint32_t>(pc - 4);
		if (!ins)
			return std::unexpected(ins.error());
		link.prev = f - 8 * (1 + ly.fr2 + ((*ins >> 8) & 0xff));
	} else {
		link.prev = f - uint64_t(link.ftsz & ~int64_t(LJ_FRAME_TYPEP));
	}
	return link;
}

Read<uint64_t> frame_contv(const Vm &vm, uint64_t f)
{
	bool fr2 = vm.layout().fr2;
	auto contv = vm.value<uint64_t>(f - 8 * (fr2 ? 3 : 1));
	if (!contv)
		return contv;
	return fr2 ? *contv : uint32_t(*contv);
}

Read<int32_t> cframe_nres(const Vm &vm, uint64_t cf)
{
	return vm.value<int32_t>(cf + vm.layout().cf_nres);
}

Read<uint64_t> cframe_prev(const Vm &vm, uint64_t cf)
{
	auto prev = vm.value<uint64_t>(cf + vm.layout().cf_prev);
	if (!prev)
		return prev;
	return cframe_raw(*prev);
}

Read<uint64_t> cframe_L(const Vm &vm, uint64_t cf)
{
	return vm.ref(cf + vm.layout().cf_l);
}

} // namespace ljcore
