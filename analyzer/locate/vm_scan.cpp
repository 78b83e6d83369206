#include "analyzer/locate/vm_scan.h"

#include <cstring>

namespace ljcore {

std::vector<VmCandidate> scan_for_vms(const Target &target,
				      const std::vector<const lj_layout *> &layouts,
				      std::optional<Rejection> &closest)
{
	std::vector<VmCandidate> found;
	target.visit_writable([&](uint64_t vaddr, std::span<const std::byte> bytes) {
		for (const lj_layout *ly : layouts) {
			const size_t ref = ly->ptrsize;
			const size_t field = ly->g_mainthref;
			if (bytes.size() < field + ref)
				continue;
			// GG_State is allocated with at least pointer alignment.
			// The word size is a template argument so that the
			// inner loop compiles to plain loads.
			auto scan = [&]<typename Ref>() {
				for (size_t off = 0; off + field + sizeof(Ref) <= bytes.size();
				     off += sizeof(Ref)) {
					uint64_t g = vaddr + off;
					Ref main;
					memcpy(&main, bytes.data() + off + field, sizeof main);
					if (main != Ref(g - ly->gg_g) || settled(found, g))
						continue;
					auto c = check_global_state(Vm(target, *ly, g),
								    "scan of writable memory",
								    &closest);
					if (!c)
						continue;
					add_candidate(found, std::move(*c));
				}
			};
			if (ref == 8)
				scan.operator()<uint64_t>();
			else
				scan.operator()<uint32_t>();
		}
	});
	return found;
}

} // namespace ljcore
