// One object's fields read through a Vm, for the readers that take a
// field accessor (object_size.h, gc_header.h) and for a few fields read
// together whose misses are told as one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analyzer/lua/vm.h"

namespace ljcore::object_size {

// The fields of the object at addr read through a Vm: 0 where
// unreadable, and then failed says so.
struct VmObject {
	const Vm &vm;
	uint64_t addr;
	bool failed = false;

	template <typename T> T at(size_t off) { return or_0(vm.value<T>(addr + off)); }
	uint64_t ref(size_t off, unsigned) { return or_0(vm.ref(addr + off)); }

private:
	template <typename T> T or_0(const Read<T> &v)
	{
		failed |= !v;
		return v.value_or(0);
	}
};

} // namespace ljcore::object_size
