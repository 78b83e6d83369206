#include "analyzer/profile/libbpf_log.h"

#include <cstdio>
#include <cstdlib>

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

} // namespace ljcore
