#include "analyzer/model/gc_model.h"

namespace ljcore {

const char *gc_type_name(GcType t)
{
	switch (t) {
	case GcType::string:
		return "string";
	case GcType::upvalue:
		return "upvalue";
	case GcType::thread:
		return "thread";
	case GcType::proto:
		return "proto";
	case GcType::lua_function:
		return "Lua function";
	case GcType::c_function:
		return "C function";
	case GcType::trace:
		return "trace";
	case GcType::cdata:
		return "cdata";
	case GcType::table:
		return "table";
	case GcType::userdata:
		return "userdata";
	}
	return "?";
}

} // namespace ljcore
