// libbpf prints the verifier's whole log on a rejection: what matters is in
// the error ljcore reports, and LJCORE_BPF_DEBUG=1 shows the rest.
#pragma once

namespace ljcore {

// Routes libbpf's messages through that rule; call before loading.
void quiet_libbpf();

} // namespace ljcore
