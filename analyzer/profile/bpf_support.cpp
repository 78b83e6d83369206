#include "analyzer/profile/bpf_support.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <bpf/libbpf.h>

namespace ljcore {

namespace {

int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	static const bool debug = getenv("LJCORE_BPF_DEBUG") != nullptr;
	return debug && level != LIBBPF_DEBUG ? vfprintf(stderr, fmt, args) : 0;
}

} // namespace

void quiet_libbpf()
{
	libbpf_set_print(libbpf_print);
}

std::string bpf_errno_text(int err, const char *needs)
{
	std::string s = strerror(err);
	if (err == EPERM)
		s += std::string(" (needs ") + needs + ")";
	return s;
}

uint64_t per_cpu_sum(const bpf_map *map)
{
	long cpus = libbpf_num_possible_cpus();
	if (cpus <= 0)
		return 0;
	std::vector<uint64_t> per_cpu(size_t(cpus), 0);
	uint32_t zero = 0;
	if (bpf_map__lookup_elem(map, &zero, sizeof zero, per_cpu.data(),
				 per_cpu.size() * sizeof(uint64_t), 0) != 0)
		return 0;
	uint64_t total = 0;
	for (uint64_t n : per_cpu)
		total += n;
	return total;
}

Expected<void> give_process(bpf_map *map, int32_t pid, const void *value, size_t size,
			    const std::string &whom, const char *needs)
{
	uint32_t key = uint32_t(pid);
	if (bpf_map__update_elem(map, &key, sizeof key, value, size, BPF_ANY) != 0)
		return fail("cannot give " + whom + ": " + bpf_errno_text(errno, needs));
	return {};
}

} // namespace ljcore
