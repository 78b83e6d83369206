// GCHeader (lj_obj.h), the fields every GC object starts with, read
// through a field accessor: anything with at<T>(off) and ref(off,
// ptrsize) over one object's bytes, as the census's gc::ObjBytes.
#pragma once

#include <cstdint>

#include "luajit/layout.h"

namespace ljcore::gc_header {

// nextgc: the next object on the GC list the object is on.
template <typename Fields> uint64_t nextgc(const lj_layout &ly, Fields &o)
{
	return o.ref(0, ly.ptrsize);
}

// gct: the object's internal type tag (~LJ_T*).
template <typename Fields> uint8_t gct(const lj_layout &ly, Fields &o)
{
	return o.template at<uint8_t>(LJ_GCT_OFFSET(&ly));
}

// marked: the GC's colour bits and, for cdata, whether it is
// variable-sized.
template <typename Fields> uint8_t marked(const lj_layout &ly, Fields &o)
{
	return o.template at<uint8_t>(ly.ptrsize);
}

} // namespace ljcore::gc_header
