// Userdata of three kinds (lj_obj.h): full userdata (GCudata), the FFI's
// cdata (GCcdata) with its ctype (lj_ctype.h), and lightuserdata, a
// pointer kept in the TValue itself.
#pragma once

#include <cstdint>
#include <optional>

#include "analyzer/lua/vm.h"

namespace ljcore {

// GCudata.len: the bytes of its payload.
Read<uint32_t> udata_len(const Vm &vm, uint64_t ud);
// GCudata.metatable, which sits where GCtab's does.
Read<uint64_t> udata_metatable(const Vm &vm, uint64_t ud);

// GCcdata.ctypeid: its ctype, an index into the VM's CTState.
Read<uint16_t> cdata_ctypeid(const Vm &vm, uint64_t cd);
// Where the value of a cdata is: right after its header.
uint64_t cdata_payload(const Vm &vm, uint64_t cd);

// CType.info of ctype id in the VM's CTState: its kind in the top bits
// (CTSHIFT_NUM), nullopt without the FFI or when it cannot be read.
std::optional<uint32_t> ctype_info(const Vm &vm, uint16_t id);

// The pointer a lightuserdata TValue (tvalue::is_lightuserdata) holds:
// 39 bits of offset under a segment number whose upper 32 bits are in
// g->gc.lightudseg (lj_udata.h); segment 0xff stands for NULL. Builds
// before segments kept the 47 bits as they are.
uint64_t lightuserdata_pointer(const Vm &vm, uint64_t raw);

} // namespace ljcore
