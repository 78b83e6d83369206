// The FFI's CTState (lj_ctype.h): the table of C types, which says the
// size of each cdata's payload, and the bytes lj_ctype_freestate frees.
#pragma once

#include <cstdint>

#include "analyzer/lua/vm.h"

namespace ljcore {

class CTypeState {
public:
	CTypeState(const Vm &vm, uint64_t cts) : vm_(vm), cts_(cts) {}

	// CTState.tab: the CType array, a native pointer.
	Read<uint64_t> tab() const { return vm_.value<uint64_t>(cts_ + ly().cts_tab); }
	// How many CTypes tab has room for.
	Read<uint32_t> sizetab() const { return vm_.value<uint32_t>(cts_ + ly().cts_sizetab); }
	// cb.sizeid: the slots of the callback id table.
	Read<uint32_t> cb_sizeid() const { return vm_.value<uint32_t>(cts_ + ly().cts_cb_sizeid); }
	// What lj_ctype_freestate frees, given sizetab and cb.sizeid: the
	// state, its type table and the callbacks' CTypeID1 table.
	uint64_t bytes(uint32_t sizetab, uint32_t sizeid) const
	{
		constexpr uint64_t ctypeid1_size = 2;
		return ly().cts_size + uint64_t(sizetab) * ly().ctype_size +
		       uint64_t(sizeid) * ctypeid1_size;
	}

private:
	const lj_layout &ly() const { return vm_.layout(); }

	const Vm &vm_;
	uint64_t cts_;
};

// The size of the payload of a cdata of C type id, the CTypes being
// tab[0 .. sizetab): ctype_raw (lj_ctype.h) skips attributes to the type
// that has the size; kinds up to CT_ENUM keep it in CType.size, the rest
// are pointer-sized, as is a type that cannot be read.
inline uint32_t ctype_payload_size(const Vm &vm, uint64_t tab, uint32_t sizetab, uint16_t id)
{
	constexpr uint32_t ct_hassize_max = 5, ct_attrib = 8, ctsize_ptr = 8;
	const uint32_t ctype_size = vm.layout().ctype_size;
	uint32_t cur = id;
	for (int hops = 0; hops < 64 && cur < sizetab; hops++) {
		auto info = vm.value<uint32_t>(tab + uint64_t(cur) * ctype_size);
		auto sz = vm.value<uint32_t>(tab + uint64_t(cur) * ctype_size + 4);
		if (!info || !sz)
			break;
		uint32_t kind = *info >> 28;
		if (kind != ct_attrib)
			return kind <= ct_hassize_max ? *sz : ctsize_ptr;
		cur = *info & 0xffff;
	}
	return ctsize_ptr;
}

} // namespace ljcore
