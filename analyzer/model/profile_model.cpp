#include "analyzer/model/profile_model.h"

namespace ljcore {

const char *activity_name(VmActivity a)
{
	switch (a) {
	case VmActivity::unknown:
		return "";
	case VmActivity::interpreted:
		return "interpreted";
	case VmActivity::compiled:
		return "compiled";
	case VmActivity::c_function:
		return "C function";
	case VmActivity::gc:
		return "GC";
	case VmActivity::jit_compiler:
		return "JIT compiler";
	case VmActivity::trace_exit:
		return "trace exit";
	}
	return "";
}

} // namespace ljcore
