#include "analyzer/profile/bpf_sampler.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyzer/profile/libbpf_log.h"
#include "profile.skel.h" // generated from luajit/bpf/profile.bpf.c

namespace ljcore {

namespace {

std::string errno_text(int err)
{
	std::string s = strerror(err);
	if (err == EPERM)
		s += " (needs root, or CAP_BPF and CAP_PERFMON)";
	return s;
}

} // namespace

Expected<std::unique_ptr<BpfSampler>> BpfSampler::open(uint32_t rate_hz)
{
	quiet_libbpf();
	std::unique_ptr<BpfSampler> s(new BpfSampler);
	s->skel_ = lj_profile::open_and_load();
	if (!s->skel_) {
		int err = errno;
		return fail("cannot load the BPF sampler: " + errno_text(err) +
			    (err == EACCES ? " (the kernel's verifier rejected it; "
					     "LJCORE_BPF_DEBUG=1 shows its log)"
					   : ""));
	}
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	for (long cpu = 0; cpu < cpus; cpu++) {
		perf_event_attr attr{};
		attr.size = sizeof attr;
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.freq = 1;
		attr.sample_freq = rate_hz;
		int fd = int(syscall(__NR_perf_event_open, &attr, -1, int(cpu), -1,
				     PERF_FLAG_FD_CLOEXEC));
		if (fd < 0) {
			// A CPU that is offline has no event to open.
			if (errno == ENODEV)
				continue;
			return fail("perf_event_open on CPU " + std::to_string(cpu) + ": " +
				    errno_text(errno));
		}
		s->events_.push_back(fd);
		bpf_link *link = bpf_program__attach_perf_event(s->skel_->progs.sample_lua, fd);
		if (!link)
			return fail("cannot attach the BPF sampler to CPU " + std::to_string(cpu) +
				    ": " + errno_text(errno));
		s->links_.push_back(link);
	}
	s->ring_ =
		ring_buffer__new(bpf_map__fd(s->skel_->maps.samples), on_record, s.get(), nullptr);
	if (!s->ring_)
		return fail("cannot open the sample ring buffer: " + errno_text(errno));
	return s;
}

BpfSampler::~BpfSampler()
{
	if (ring_)
		ring_buffer__free(ring_);
	for (bpf_link *l : links_)
		bpf_link__destroy(l);
	for (int fd : events_)
		close(fd);
	if (skel_)
		lj_profile::destroy(skel_);
}

Expected<void> BpfSampler::add(int32_t pid, const lj_profile_vm &vm)
{
	uint32_t key = uint32_t(pid);
	if (bpf_map__update_elem(skel_->maps.vms, &key, sizeof key, &vm, sizeof vm, BPF_ANY) != 0)
		return fail("cannot give process " + std::to_string(pid) +
			    " to the BPF sampler: " + errno_text(errno));
	return {};
}

int BpfSampler::on_record(void *self, void *data, size_t size)
{
	auto *s = static_cast<BpfSampler *>(self);
	if (size >= sizeof(lj_profile_sample) && s->handler_)
		(*s->handler_)(*static_cast<const lj_profile_sample *>(data));
	return 0;
}

Expected<void> BpfSampler::poll(int timeout_ms, const Handler &handler)
{
	handler_ = &handler;
	int n = ring_buffer__poll(ring_, timeout_ms);
	handler_ = nullptr;
	if (n < 0 && n != -EINTR)
		return fail("reading samples: " + errno_text(-n));
	return {};
}

uint64_t BpfSampler::dropped() const
{
	long cpus = libbpf_num_possible_cpus();
	if (cpus <= 0)
		return 0;
	std::vector<uint64_t> per_cpu(size_t(cpus), 0);
	uint32_t zero = 0;
	if (bpf_map__lookup_elem(skel_->maps.lost, &zero, sizeof zero, per_cpu.data(),
				 per_cpu.size() * sizeof(uint64_t), 0) != 0)
		return 0;
	uint64_t total = 0;
	for (uint64_t n : per_cpu)
		total += n;
	return total;
}

} // namespace ljcore
