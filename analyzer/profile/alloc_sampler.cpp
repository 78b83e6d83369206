#include "analyzer/profile/alloc_sampler.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "alloc.skel.h" // generated from luajit/bpf/alloc.bpf.c
#include "analyzer/profile/bpf_support.h"

namespace ljcore {

namespace {

// What loading and attaching needs where the kernel says EPERM.
const char *const needs = "root, or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN for uprobes";

// The file mapped at addr in pid and addr's offset in it, for the uprobe:
// /proc/PID/map_files/START-END names the very file mapped there, also
// when it was deleted or lives in another mount namespace.
Expected<std::pair<std::string, uint64_t>> file_offset(int32_t pid, uint64_t addr)
{
	std::string proc = "/proc/" + std::to_string(pid);
	std::ifstream maps(proc + "/maps");
	std::string line;
	while (std::getline(maps, line)) {
		std::istringstream in(line);
		std::string range, perms, offset;
		if (!(in >> range >> perms >> offset))
			continue;
		size_t dash = range.find('-');
		if (dash == std::string::npos)
			continue;
		uint64_t start = std::stoull(range.substr(0, dash), nullptr, 16);
		uint64_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
		if (addr < start || addr >= end)
			continue;
		if (perms.size() < 3 || perms[2] != 'x')
			return fail("the allocator's address is not in code");
		return std::pair{proc + "/map_files/" + range,
				 addr - start + std::stoull(offset, nullptr, 16)};
	}
	return fail("the allocator's address is in no mapping of the process");
}

} // namespace

Expected<std::unique_ptr<AllocSampler>> AllocSampler::open(uint64_t sample_bytes)
{
	quiet_libbpf();
	std::unique_ptr<AllocSampler> s(new AllocSampler);
	s->skel_ = lj_alloc::open_and_load();
	if (!s->skel_) {
		int err = errno;
		return fail("profile --alloc needs uprobes, which need bpf(); it was refused: " +
			    bpf_errno_text(err, needs));
	}
	// The quantiles of an exponential distribution of mean sample_bytes:
	// the program draws one at random per sample, as tcmalloc draws its
	// geometric intervals.
	for (uint32_t i = 0; i < LJ_ALLOC_INTERVALS; i++) {
		double u = (i + 0.5) / LJ_ALLOC_INTERVALS;
		uint64_t v = std::max<uint64_t>(1, uint64_t(-std::log(u) * double(sample_bytes)));
		if (bpf_map__update_elem(s->skel_->maps.intervals, &i, sizeof i, &v, sizeof v,
					 BPF_ANY) != 0)
			return fail("cannot fill the sampling intervals: " +
				    bpf_errno_text(errno, needs));
	}
	s->ring_ =
		ring_buffer__new(bpf_map__fd(s->skel_->maps.events), on_record, s.get(), nullptr);
	if (!s->ring_)
		return fail("cannot open the allocation ring buffer: " +
			    bpf_errno_text(errno, needs));
	return s;
}

AllocSampler::~AllocSampler()
{
	if (ring_)
		ring_buffer__free(ring_);
	for (bpf_link *l : links_)
		bpf_link__destroy(l);
	if (skel_)
		lj_alloc::destroy(skel_);
}

Expected<void> AllocSampler::add(int32_t pid, const lj_profile_vm &vm, uint64_t allocf,
				 uint64_t allocd)
{
	auto where = file_offset(pid, allocf);
	if (!where)
		return fail("process " + std::to_string(pid) + ": " + where.error().message);
	auto &[path, offset] = *where;
	for (bool ret : {false, true}) {
		bpf_program *prog = ret ? skel_->progs.alloc_return : skel_->progs.alloc_enter;
		bpf_link *link = bpf_program__attach_uprobe(prog, ret, pid, path.c_str(), offset);
		if (!link)
			return fail("cannot probe the allocator of process " + std::to_string(pid) +
				    " (" + path + " + " + std::to_string(offset) +
				    "): " + bpf_errno_text(errno, needs));
		links_.push_back(link);
	}
	lj_alloc_vm config{vm, allocd};
	return give_process(skel_->maps.vms, pid, &config, sizeof config,
			    "process " + std::to_string(pid) + " to the allocation probe", needs);
}

int AllocSampler::on_record(void *self, void *data, size_t size)
{
	auto *s = static_cast<AllocSampler *>(self);
	if (!s->handlers_ || size < sizeof(uint32_t))
		return 0;
	uint32_t kind;
	memcpy(&kind, data, sizeof kind);
	if (kind == LJ_ALLOC_SAMPLED && size >= sizeof(lj_alloc_sample))
		s->handlers_->sampled(*static_cast<const lj_alloc_sample *>(data));
	else if (kind != LJ_ALLOC_SAMPLED && size >= sizeof(lj_alloc_note))
		s->handlers_->noted(*static_cast<const lj_alloc_note *>(data));
	return 0;
}

Expected<void> AllocSampler::poll(int timeout_ms, const Handlers &handlers)
{
	handlers_ = &handlers;
	int n = ring_buffer__poll(ring_, timeout_ms);
	handlers_ = nullptr;
	if (n < 0 && n != -EINTR)
		return fail("reading allocations: " + bpf_errno_text(-n, needs));
	return {};
}

void AllocSampler::stop_sampling()
{
	skel_->data->sampling = 0;
}

uint64_t AllocSampler::dropped() const
{
	return per_cpu_sum(skel_->maps.lost);
}

} // namespace ljcore
