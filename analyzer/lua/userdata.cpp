#include "analyzer/lua/userdata.h"

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/tvalue.h"

namespace ljcore {

namespace {

// LJ_LIGHTUD_BITS_LO, LJ_LIGHTUD_BITS_SEG.
constexpr unsigned lightud_bits_lo = 39;
constexpr uint64_t lightud_segmask = 0xff;

} // namespace

Read<uint32_t> udata_len(const Vm &vm, uint64_t ud)
{
	return vm.value<uint32_t>(ud + vm.layout().ud_len);
}

Read<uint64_t> udata_metatable(const Vm &vm, uint64_t ud)
{
	return vm.ref(ud + vm.layout().tab_metatable);
}

Read<uint16_t> cdata_ctypeid(const Vm &vm, uint64_t cd)
{
	return vm.value<uint16_t>(cd + vm.layout().cd_ctypeid);
}

uint64_t cdata_payload(const Vm &vm, uint64_t cd)
{
	return cd + vm.layout().cd_size;
}

std::optional<uint32_t> ctype_info(const Vm &vm, uint16_t id)
{
	const lj_layout &ly = vm.layout();
	auto cts = GlobalState(vm).ctype_state();
	if (!cts || !*cts)
		return std::nullopt;
	// CTState.tab is a native pointer whatever the GC ref size.
	auto tab = vm.value<uint64_t>(*cts + ly.cts_tab);
	auto sizetab = vm.value<uint32_t>(*cts + ly.cts_sizetab);
	if (!tab || !sizetab || id >= *sizetab)
		return std::nullopt;
	auto info = vm.value<uint32_t>(*tab + uint64_t(id) * ly.ctype_size);
	return info ? std::optional(*info) : std::nullopt;
}

uint64_t lightuserdata_pointer(const Vm &vm, uint64_t raw)
{
	uint64_t lo = raw & ((uint64_t(1) << lightud_bits_lo) - 1);
	uint64_t seg = (raw >> lightud_bits_lo) & lightud_segmask;
	if (seg == lightud_segmask)
		return 0;
	const lj_layout &ly = vm.layout();
	if (!ly.g_gc_lightudseg)
		return raw & tvalue::low47;
	auto segmap = vm.ref(vm.g() + ly.g_gc_lightudseg);
	if (!segmap)
		return raw & tvalue::low47;
	auto hi = vm.value<uint32_t>(*segmap + 4 * seg);
	if (!hi)
		return raw & tvalue::low47;
	return uint64_t(*hi) << 32 | lo;
}

} // namespace ljcore
