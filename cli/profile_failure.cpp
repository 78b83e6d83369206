#include "cli/profile_failure.h"

#include <iostream>

#include "cli/exit_codes.h"
#include "cli/render_bytes.h"

namespace ljcore {

int report_profile_failure(const ProfileError &e)
{
	std::cerr << "ljcore: " << printable(e.message) << "\n";
	switch (e.kind) {
	case ProfileFailure::no_vm:
		return exit_no_vm;
	case ProfileFailure::no_sampler:
		return exit_no_sampler;
	case ProfileFailure::unreadable:
		break;
	}
	return exit_unreadable;
}

} // namespace ljcore
