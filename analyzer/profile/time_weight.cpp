#include "analyzer/profile/time_weight.h"

#include "luajit/bpf/offcpu_event.h"

namespace ljcore {

uint64_t weigh_in_time(NamedSample &named, const lj_profile_sample &s, uint64_t period_ns)
{
	const char *where = s.offcpu_state == LJ_OFFCPU_BLOCKED    ? "off-cpu: blocked"
			    : s.offcpu_state == LJ_OFFCPU_RUNQUEUE ? "off-cpu: runqueue"
								   : "on-cpu";
	// A failed sample has no frames: its outcome counts it.
	if (!named.frames.empty())
		named.frames.insert(named.frames.begin(),
				    {ProfileFrameKind::state, where, "", -1, -1});
	return s.offcpu_state == LJ_OFFCPU_ON_CPU ? period_ns : s.offcpu_ns;
}

} // namespace ljcore
