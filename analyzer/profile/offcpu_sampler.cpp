#include "analyzer/profile/offcpu_sampler.h"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "analyzer/profile/bpf_support.h"
#include "analyzer/profile/remote_walk.h"
#include "offcpu.skel.h" // generated from luajit/bpf/offcpu.bpf.c
#include "readers/small_file.h"

namespace ljcore {

namespace {

const char *const needs = "root, or CAP_BPF and CAP_PERFMON";

// What a sample uses, in a few hundred bytes of its 25: its header, the
// frames walked, its registers, the stack copy as far as stack_len, the
// request and the off-CPU fields.
constexpr size_t head_bytes = offsetof(lj_profile_sample, frames);

std::vector<std::byte> pack(const lj_profile_sample &s)
{
	uint32_t n = s.nframes < LJ_PROFILE_MAX_FRAMES ? s.nframes : LJ_PROFILE_MAX_FRAMES;
	uint32_t stack = s.stack_len <= sizeof s.stack ? s.stack_len : 0;
	std::vector<std::byte> out;
	auto put = [&](const void *from, size_t size) {
		auto *b = static_cast<const std::byte *>(from);
		out.insert(out.end(), b, b + size);
	};
	out.reserve(head_bytes + n * sizeof s.frames[0] + sizeof s.regs + stack + sizeof s.request);
	put(&s, head_bytes);
	put(s.frames, n * sizeof s.frames[0]);
	put(s.regs, sizeof s.regs);
	put(s.stack, stack);
	put(&s.request, sizeof s.request);
	return out;
}

// The sample pack() kept, into to (its off-CPU fields the caller's).
void unpack(const std::vector<std::byte> &from, lj_profile_sample &to)
{
	const std::byte *at = from.data();
	auto get = [&](void *into, size_t size) {
		std::memcpy(into, at, size);
		at += size;
	};
	get(&to, head_bytes);
	get(to.frames, to.nframes * sizeof to.frames[0]);
	get(to.regs, sizeof to.regs);
	size_t stack = from.size() - (at - from.data()) - sizeof to.request;
	to.stack_len = uint32_t(stack);
	get(to.stack, stack);
	get(&to.request, sizeof to.request);
}

// The user registers of a thread off the CPU that the walk needs, as the
// kernel shows them without stopping it: "NR ARGS... SP PC" in a system
// call, "-1 SP PC" blocked outside one (a page fault, preempted), or
// "running" (none known: the walk then starts from the VM's state).
WalkRegs syscall_regs(int32_t pid, int32_t tid)
{
	WalkRegs regs;
	auto text = read_small_file("/proc/" + std::to_string(pid) + "/task/" +
				    std::to_string(tid) + "/syscall");
	if (!text)
		return regs;
	std::vector<uint64_t> fields;
	for (const char *at = text->c_str(); *at;) {
		char *end = nullptr;
		errno = 0;
		uint64_t v = strtoull(at, &end, 0);
		if (end == at || errno)
			return regs;
		fields.push_back(v);
		at = end + strspn(end, " \n");
		if (fields.size() > 9)
			return regs;
	}
	if (fields.size() != 3 && fields.size() != 9)
		return regs;
	regs.sp = fields[fields.size() - 2];
	regs.ip = fields.back();
	regs.user = true;
	return regs;
}

// bpf_ktime_get_ns()'s clock.
uint64_t monotonic_ns()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

} // namespace

Expected<std::unique_ptr<OffCpuSampler>> OffCpuSampler::open(uint64_t period_ns)
{
	quiet_libbpf();
	std::unique_ptr<OffCpuSampler> s(new OffCpuSampler);
	s->skel_ = lj_offcpu::open();
	if (!s->skel_)
		return fail("cannot open the off-CPU sampler: " + bpf_errno_text(errno, needs));
	// The end of __schedule() (recent kernels), where a thread back on the
	// CPU is walked only if chosen; else every switch out is.
	s->walk_at_return_ = libbpf_find_vmlinux_btf_id("sched_exit_tp", BPF_TRACE_RAW_TP) > 0;
	s->skel_->rodata->walk_at_return = s->walk_at_return_;
	s->skel_->rodata->period_ns = period_ns;
	bpf_program__set_autoload(s->skel_->progs.on_return, s->walk_at_return_);
	bpf_program__set_autoload(s->skel_->progs.on_wakeup, !s->walk_at_return_);
	if (lj_offcpu::load(s->skel_) != 0) {
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
			    "sched_exit_tp (or sched_wakeup): " +
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
	// The programs' filter before any map lookup (offcpu.bpf.c).
	constexpr uint32_t bits = sizeof skel_->bss->profiled * 8;
	skel_->bss->profiled[uint32_t(pid) % bits / 64] |= uint64_t(1) << (uint32_t(pid) % 64);
	vms_[pid] = vm;
	return give_process(skel_->maps.vms, pid, &vm, sizeof vm,
			    "process " + std::to_string(pid) + " to the off-CPU sampler", needs);
}

Expected<void> OffCpuSampler::add_nginx(int32_t pid, const lj_nginx_offsets &offsets)
{
	nginx_[pid] = offsets;
	return give_process(skel_->maps.nginx, pid, &offsets, sizeof offsets,
			    "nginx worker " + std::to_string(pid) + " to the off-CPU sampler",
			    needs);
}

void OffCpuSampler::keep(const lj_profile_sample &s)
{
	if (s.nframes <= LJ_PROFILE_MAX_FRAMES && s.stack_len <= sizeof s.stack)
		stacks_[s.offcpu_stack] = pack(s);
}

bool OffCpuSampler::weigh(const lj_offcpu_key &key, uint64_t ns, uint64_t switches, bool last)
{
	lj_profile_sample &s = *sample_;
	if (key.stack == LJ_OFFCPU_NO_STACK) {
		s = {};
		s.pid = key.pid;
		s.source = LJ_PROFILE_TOO_MANY_STACKS;
	} else if (auto it = stacks_.find(key.stack); it != stacks_.end()) {
		unpack(it->second, s);
	} else {
		// Sent before its time, the stack was lost to a full ring
		// buffer: it is sent again at its next switch out.
		if (last)
			unnamed_ += switches;
		return last;
	}
	s.offcpu_state = key.state;
	s.offcpu_stack = key.stack;
	s.offcpu_ns = ns;
	// The sums of a tenth of a second are far below 2^32 switches.
	s.offcpu_switches = uint32_t(switches);
	if (handler_ && switches)
		(*handler_)(s);
	return true;
}

void OffCpuSampler::drain(bool last)
{
	int fd = bpf_map__fd(skel_->maps.times);
	lj_offcpu_key key{}, next{};
	lj_offcpu_time now{};
	// The map only grows, and each key's sums only grow: a key added
	// while it is walked is read the next time.
	for (void *prev = nullptr; bpf_map_get_next_key(fd, prev, &next) == 0; prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &now) != 0)
			continue;
		lj_offcpu_time &before = read_[key];
		if (now.switches != before.switches &&
		    weigh(key, now.ns - before.ns, now.switches - before.switches, last))
			before = now;
	}
	drained_ = std::chrono::steady_clock::now();
}

int OffCpuSampler::on_record(void *self, void *data, size_t size)
{
	auto *s = static_cast<OffCpuSampler *>(self);
	if (size >= sizeof(lj_profile_sample)) {
		s->keep(*static_cast<const lj_profile_sample *>(data));
	} else if (size == sizeof(lj_offcpu_unsummed)) {
		// The map of times was full: this one switch's time. Its
		// stack came before it, unless the ring buffer lost it.
		auto &u = *static_cast<const lj_offcpu_unsummed *>(data);
		s->weigh(u.key, u.time.ns, u.time.switches, true);
	}
	return 0;
}

Expected<void> OffCpuSampler::read_ring(int timeout_ms)
{
	// The program wakes the reader only when much is waiting: after
	// the wait, read what there is anyway.
	int n = ring_buffer__poll(ring_, timeout_ms);
	if (n >= 0 || n == -EINTR)
		n = ring_buffer__consume(ring_);
	if (n < 0 && n != -EINTR)
		return fail("reading off-CPU samples: " + bpf_errno_text(-n, needs));
	return {};
}

Expected<void> OffCpuSampler::poll(int timeout_ms, const Handler &handler)
{
	handler_ = &handler;
	auto r = read_ring(timeout_ms);
	// The stacks came first: a switch out sends its stack before its
	// time is summed.
	if (r && std::chrono::steady_clock::now() - drained_ >= std::chrono::milliseconds(100))
		drain(false);
	handler_ = nullptr;
	return r;
}

void OffCpuSampler::finish(const Handler &handler)
{
	handler_ = &handler;
	// Stopped first, the programs leave off_since as it is now: each
	// thread in it with a time is still away, and the map of times holds
	// every period that ended.
	lj_offcpu::detach(skel_);
	uint64_t now = monotonic_ns();
	(void)read_ring(0);
	drain(true);
	int fd = bpf_map__fd(skel_->maps.off_since);
	uint32_t tid = 0, next = 0;
	lj_offcpu_away away{};
	for (void *prev = nullptr; bpf_map_get_next_key(fd, prev, &next) == 0; prev = &tid) {
		tid = next;
		if (bpf_map_lookup_elem(fd, &tid, &away) != 0 || !away.since)
			continue;
		uint64_t ns = now > away.since ? now - away.since : 0;
		if (walk_at_return_)
			weigh_away(tid, away, ns);
		else
			weigh({away.stack, away.pid, away.state}, ns, 1, true);
	}
	handler_ = nullptr;
}

void OffCpuSampler::weigh_away(uint32_t tid, const lj_offcpu_away &away, uint64_t ns)
{
	auto vm = vms_.find(int32_t(away.pid));
	if (vm == vms_.end() || !handler_)
		return;
	auto nginx = nginx_.find(int32_t(away.pid));
	lj_profile_sample &s = *sample_;
	s.stack_len = 0;
	walk_remote(int32_t(away.pid), int32_t(tid), vm->second,
		    nginx != nginx_.end() ? nginx->second : lj_nginx_offsets{},
		    syscall_regs(int32_t(away.pid), int32_t(tid)), true, s);
	s.offcpu_state = away.state;
	s.offcpu_stack = LJ_OFFCPU_NO_STACK;
	s.offcpu_ns = ns;
	s.offcpu_switches = 1;
	(*handler_)(s);
}

uint64_t OffCpuSampler::dropped() const
{
	return per_cpu_sum(skel_->maps.lost) + unnamed_;
}

} // namespace ljcore
