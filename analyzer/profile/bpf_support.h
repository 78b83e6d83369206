// What the profiler's two BPF programs (profile.bpf.c, alloc.bpf.c) share on
// the userspace side: libbpf's messages, the errors, the drop counter.
#pragma once

#include <cstdint>
#include <string>

struct bpf_map;

namespace ljcore {

// libbpf prints the verifier's whole log on a rejection: what matters is
// in the error ljcore reports, and LJCORE_BPF_DEBUG=1 shows the rest. Call
// before loading.
void quiet_libbpf();

// strerror(err), and for EPERM what the program needs ("root, or ...").
std::string bpf_errno_text(int err, const char *needs);

// The sum over every CPU of key 0 of a per-CPU array of u64 (a program's
// count of records the ring buffer had no room for); 0 if unreadable.
uint64_t per_cpu_sum(const bpf_map *map);

} // namespace ljcore
