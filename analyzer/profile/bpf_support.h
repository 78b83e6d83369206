// What the profiler's BPF programs (profile, alloc, offcpu .bpf.c) share on
// the userspace side: libbpf's messages, the errors, the drop counter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "readers/error.h"

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

// Puts a process's entry (its VM's offsets, an nginx worker's) into one
// of a program's maps keyed by pid; whom names the process and the program
// for the error: "process 12 to the BPF sampler".
Expected<void> give_process(bpf_map *map, int32_t pid, const void *value, size_t size,
			    const std::string &whom, const char *needs);

} // namespace ljcore
