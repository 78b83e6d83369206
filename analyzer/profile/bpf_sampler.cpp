#include "analyzer/profile/bpf_sampler.h"

#include <cerrno>
#include <string>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analyzer/profile/bpf_support.h"
#include "profile.skel.h" // generated from luajit/bpf/profile.bpf.c

namespace ljcore {

namespace {

// What loading and attaching needs where the kernel says EPERM.
const char *const needs = "root, or CAP_BPF and CAP_PERFMON";

} // namespace

Expected<std::unique_ptr<BpfSampler>> BpfSampler::open(uint32_t rate_hz)
{
	quiet_libbpf();
	std::unique_ptr<BpfSampler> s(new BpfSampler);
	s->skel_ = lj_profile::open_and_load();
	if (!s->skel_) {
		int err = errno;
		return fail("cannot load the BPF sampler: " + bpf_errno_text(err, needs) +
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
				    bpf_errno_text(errno, needs));
		}
		s->events_.push_back(fd);
		bpf_link *link = bpf_program__attach_perf_event(s->skel_->progs.sample_lua, fd);
		if (!link)
			return fail("cannot attach the BPF sampler to CPU " + std::to_string(cpu) +
				    ": " + bpf_errno_text(errno, needs));
		s->links_.push_back(link);
	}
	s->ring_ =
		ring_buffer__new(bpf_map__fd(s->skel_->maps.samples), on_record, s.get(), nullptr);
	if (!s->ring_)
		return fail("cannot open the sample ring buffer: " + bpf_errno_text(errno, needs));
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
	return give_process(skel_->maps.vms, pid, &vm, sizeof vm,
			    "process " + std::to_string(pid) + " to the BPF sampler", needs);
}

Expected<void> BpfSampler::add_nginx(int32_t pid, const lj_nginx_offsets &offsets)
{
	return give_process(skel_->maps.nginx, pid, &offsets, sizeof offsets,
			    "nginx worker " + std::to_string(pid) + " to the BPF sampler", needs);
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
		return fail("reading samples: " + bpf_errno_text(-n, needs));
	return {};
}

uint64_t BpfSampler::dropped() const
{
	return per_cpu_sum(skel_->maps.lost);
}

} // namespace ljcore
