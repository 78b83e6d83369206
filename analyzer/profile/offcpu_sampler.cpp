#include "analyzer/profile/offcpu_sampler.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "analyzer/profile/bpf_support.h"
#include "offcpu.skel.h" // generated from luajit/bpf/offcpu.bpf.c

namespace ljcore {

namespace {

const char *const needs = "root, or CAP_BPF and CAP_PERFMON";

// Copies what a sample uses: its header, the frames walked, and its
// registers and stack copy as far as stack_len; a record is 25 KB, of
// which a switch out of a shallow stack fills a few hundred bytes.
void copy_used(lj_profile_sample &to, const lj_profile_sample &from)
{
	uint32_t n = from.nframes < LJ_PROFILE_MAX_FRAMES ? from.nframes : LJ_PROFILE_MAX_FRAMES;
	std::memcpy(&to, &from, offsetof(lj_profile_sample, frames) + n * sizeof from.frames[0]);
	std::memcpy(to.regs, from.regs, sizeof from.regs);
	to.stack_len = from.stack_len < sizeof from.stack ? from.stack_len : 0;
	std::memcpy(to.stack, from.stack, to.stack_len);
	to.request = from.request;
	to.offcpu_state = from.offcpu_state;
	to.offcpu_since = from.offcpu_since;
	to.offcpu_ns = 0;
}

// bpf_ktime_get_ns()'s clock.
uint64_t monotonic_ns()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

} // namespace

Expected<std::unique_ptr<OffCpuSampler>> OffCpuSampler::open()
{
	quiet_libbpf();
	std::unique_ptr<OffCpuSampler> s(new OffCpuSampler);
	s->skel_ = lj_offcpu::open_and_load();
	if (!s->skel_) {
		int err = errno;
		return fail("cannot load the off-CPU sampler: " + bpf_errno_text(err, needs) +
			    (err == EACCES ? " (the kernel's verifier rejected it; "
					     "LJCORE_BPF_DEBUG=1 shows its log)"
					   : "") +
			    (err == ENOENT || err == ESRCH
				     ? " (it attaches to sched_switch through the kernel's BTF, "
				       "/sys/kernel/btf/vmlinux)"
				     : ""));
	}
	if (lj_offcpu::attach(s->skel_) != 0)
		return fail("cannot attach the off-CPU sampler to sched_switch and "
			    "sched_wakeup: " +
			    bpf_errno_text(errno, needs));
	s->ring_ =
		ring_buffer__new(bpf_map__fd(s->skel_->maps.samples), on_record, s.get(), nullptr);
	if (!s->ring_)
		return fail("cannot open the off-CPU ring buffer: " + bpf_errno_text(errno, needs));
	return s;
}

OffCpuSampler::~OffCpuSampler()
{
	if (ring_)
		ring_buffer__free(ring_);
	if (skel_)
		lj_offcpu::destroy(skel_);
}

Expected<void> OffCpuSampler::add(int32_t pid, const lj_profile_vm &vm)
{
	return give_process(skel_->maps.vms, pid, &vm, sizeof vm,
			    "process " + std::to_string(pid) + " to the off-CPU sampler", needs);
}

Expected<void> OffCpuSampler::add_nginx(int32_t pid, const lj_nginx_offsets &offsets)
{
	return give_process(skel_->maps.nginx, pid, &offsets, sizeof offsets,
			    "nginx worker " + std::to_string(pid) + " to the off-CPU sampler",
			    needs);
}

void OffCpuSampler::switched_out(const lj_profile_sample &s)
{
	auto &slot = away_[s.tid];
	if (!slot)
		slot = std::make_unique<lj_profile_sample>();
	copy_used(*slot, s);
}

void OffCpuSampler::resumed(const lj_offcpu_resume &r)
{
	auto it = away_.find(r.tid);
	if (it == away_.end())
		return; // its switch out was lost, and counted
	// Blocked, then woken and waiting for a CPU: two samples of one stack.
	lj_profile_sample &s = *it->second;
	uint64_t runqueue = r.runqueue_ns < r.ns ? r.runqueue_ns : r.ns;
	if (handler_ && s.offcpu_state == LJ_OFFCPU_BLOCKED && r.ns > runqueue) {
		s.offcpu_ns = r.ns - runqueue;
		(*handler_)(s);
	}
	if (handler_ && runqueue) {
		s.offcpu_state = LJ_OFFCPU_RUNQUEUE;
		s.offcpu_ns = runqueue;
		(*handler_)(s);
	}
	away_.erase(it);
}

int OffCpuSampler::on_record(void *self, void *data, size_t size)
{
	auto *s = static_cast<OffCpuSampler *>(self);
	if (size >= sizeof(lj_profile_sample))
		s->switched_out(*static_cast<const lj_profile_sample *>(data));
	else if (size == sizeof(lj_offcpu_resume))
		s->resumed(*static_cast<const lj_offcpu_resume *>(data));
	return 0;
}

Expected<void> OffCpuSampler::poll(int timeout_ms, const Handler &handler)
{
	handler_ = &handler;
	// The program wakes the reader only when much is waiting: after
	// the wait, read what there is anyway.
	int n = ring_buffer__poll(ring_, timeout_ms);
	if (n >= 0 || n == -EINTR)
		n = ring_buffer__consume(ring_);
	handler_ = nullptr;
	if (n < 0 && n != -EINTR)
		return fail("reading off-CPU samples: " + bpf_errno_text(-n, needs));
	return {};
}

void OffCpuSampler::finish(const Handler &handler)
{
	uint64_t now = monotonic_ns();
	for (auto &[tid, s] : away_) {
		s->offcpu_ns = now > s->offcpu_since ? now - s->offcpu_since : 0;
		handler(*s);
	}
	away_.clear();
}

uint64_t OffCpuSampler::dropped() const
{
	return per_cpu_sum(skel_->maps.lost);
}

} // namespace ljcore
