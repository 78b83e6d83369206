#include "cli/profile_command.h"

#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "cli/exit_codes.h"
#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

namespace {

std::atomic<bool> interrupted{false};

void on_interrupt(int)
{
	interrupted = true;
}

uint64_t failed(const Profile &p)
{
	uint64_t n = 0;
	for (const ProfileOutcome &o : p.outcomes)
		if (o.failure)
			n += o.samples;
	return n;
}

void print_summary(std::ostream &err, const Profile &p)
{
	for (const std::string &note : p.notes)
		err << "ljcore: " << printable(note) << "\n";
	const bool bytes = p.unit == "bytes";
	err << "ljcore: process";
	if (p.pids.size() > 1) {
		err << "es";
		for (int32_t pid : p.pids)
			err << " " << pid;
	} else {
		err << " " << p.pid;
	}
	err << ", " << p.samples;
	if (bytes)
		err << " sampled allocations in " << p.duration_s << " s, one per "
		    << p.sample_bytes << " bytes on average";
	else
		err << " samples in " << p.duration_s << " s at " << p.rate_hz << " Hz";
	err << " (" << p.backend << " backend; stopped " << double(p.paused_us) / 1000
	    << " ms to find the VM" << (p.pids.size() > 1 ? "s" : "") << ")\n";
	for (const ProfileOutcome &o : p.outcomes)
		err << "  " << o.samples << "\t" << printable(o.outcome) << "\n";
}

} // namespace

int profile_command(ProfileCommand c)
{
	if (c.options.blocking && c.options.backend == ProfileOptions::Backend::bpf) {
		std::cerr << "ljcore: --blocking is for the userspace backend; the BPF one never "
			     "stops the process\n";
		return exit_usage;
	}
	if (c.options.alloc != ProfileOptions::Alloc::off &&
	    (c.options.native || c.options.blocking ||
	     c.options.backend == ProfileOptions::Backend::userspace)) {
		std::cerr << "ljcore: --alloc probes the allocator with BPF uprobes: it has no "
			     "userspace backend, --blocking or --native\n";
		return exit_usage;
	}
	// Ctrl-C ends the profile early; what was sampled is still written.
	struct sigaction sa {};
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	c.options.stop = [] { return interrupted.load(); };
	if (isatty(STDERR_FILENO))
		c.options.progress = [](const Profile &p) {
			std::cerr << "\rljcore: " << p.samples << " samples, " << failed(p)
				  << " failed" << std::flush;
		};
	auto p = profile_process(c.options);
	if (isatty(STDERR_FILENO))
		std::cerr << "\r\033[K";
	if (!p) {
		std::cerr << "ljcore: " << printable(p.error().message) << "\n";
		switch (p.error().kind) {
		case ProfileFailure::no_vm:
			return exit_no_vm;
		case ProfileFailure::no_sampler:
			return exit_no_sampler;
		case ProfileFailure::unreadable:
			break;
		}
		return exit_unreadable;
	}
	std::ofstream file;
	if (!c.output.empty()) {
		file.open(c.output, std::ios::binary);
		if (!file) {
			std::cerr << "ljcore: cannot write " << printable(c.output) << "\n";
			return exit_usage;
		}
	}
	std::ostream &out = c.output.empty() ? std::cout : file;
	if (c.format == "speedscope")
		render_profile_speedscope(out, *p);
	else if (c.format == "top")
		render_profile_top(out, *p);
	else if (c.format == "svg")
		render_profile_svg(out, *p);
	else if (c.format == "pprof")
		render_profile_pprof(out, *p);
	else
		render_profile_folded(out, *p);
	print_summary(std::cerr, *p);
	return failed(*p) ? exit_partial : exit_ok;
}

} // namespace ljcore
