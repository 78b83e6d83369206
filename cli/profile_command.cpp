// ljcore profile: samples a running process's Lua stacks
// (analyzer/profile/profiler.h) and writes them in one of the formats of
// cli/render_profile.h.
#include <atomic>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "analyzer/profile/profiler.h"

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/profile_diff.h"
#include "cli/profile_failure.h"
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
	// Notes and problems alike, in the order they were said.
	for (const Diagnostics::Entry &said : p.diagnostics.entries())
		err << "ljcore: " << printable(said.text) << "\n";
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
	if (!p.time.empty())
		err << " samples (" << (p.time == "wall" ? "on the CPU, and " : "")
		    << "periods off it walked) in " << p.duration_s << " s";
	else if (bytes)
		err << " sampled allocations in " << p.duration_s << " s, one per "
		    << p.sample_bytes << " bytes on average";
	else
		err << " samples in " << p.duration_s << " s at " << p.rate_hz << " Hz";
	err << " (" << p.backend << " backend; stopped " << double(p.paused_us) / 1000
	    << " ms to find the VM" << (p.pids.size() > 1 ? "s" : "") << ")\n";
	for (const ProfileOutcome &o : p.outcomes)
		err << "  " << o.samples << "\t" << printable(o.outcome) << "\n";
}

// The combinations of options the samplers cannot do; says why.
bool usable(const ProfileOptions &o)
{
	if (o.blocking && o.backend == ProfileOptions::Backend::bpf) {
		std::cerr << "ljcore: --blocking is for the userspace backend; the BPF one never "
			     "stops the process\n";
		return false;
	}
	if (o.alloc != ProfileOptions::Alloc::off &&
	    (o.native || o.blocking || o.backend == ProfileOptions::Backend::userspace)) {
		std::cerr << "ljcore: --alloc probes the allocator with BPF uprobes: it has no "
			     "userspace backend, --blocking or --native\n";
		return false;
	}
	if (o.time != ProfileOptions::Time::cpu &&
	    (o.alloc != ProfileOptions::Alloc::off || o.native || o.blocking ||
	     o.backend == ProfileOptions::Backend::userspace)) {
		std::cerr << "ljcore: --off-cpu and --wall take stacks at the scheduler's switch "
			     "with BPF: no userspace backend, --blocking, --native or --alloc\n";
		return false;
	}
	return true;
}

void render_profile(std::ostream &out, const Profile &p, const std::string &format, bool by_request)
{
	if (by_request && format == "top")
		render_profile_top_requests(out, p);
	else if (by_request)
		render_profile(out, profile_by_request(p), format, false);
	else if (format == "speedscope")
		render_profile_speedscope(out, p);
	else if (format == "top")
		render_profile_top(out, p);
	else if (format == "svg")
		render_profile_svg(out, p);
	else if (format == "pprof")
		render_profile_pprof(out, p);
	else
		render_profile_folded(out, p);
}

class ProfileCommand final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		auto *pid = cmd->add_option("--pid", options_.pid, "the process to profile")
				    ->check(CLI::PositiveNumber);
		auto *diff =
			cmd->add_option("--diff", diff_,
					"BEFORE AFTER: compare two saved profiles (folded or "
					"pprof) instead: the biggest changes (--format top, the "
					"default), a differential flame graph (svg), or "
					"difffolded.pl's columns (folded)")
				->expected(2);
		pid->excludes(diff);
		cmd->add_option("--rate", options_.rate_hz, "samples per second per CPU (99)")
			->check(CLI::Range(1, 10000));
		cmd->add_option("--duration", options_.duration_s,
				"seconds to sample (10); Ctrl-C ends it early")
			->check(CLI::PositiveNumber);
		cmd->add_option("-o,--output", output_, "write the profile here, not to stdout");
		format_opt_ =
			cmd->add_option(
				   "--format", format_,
				   "folded (flamegraph.pl, inferno), svg (a flame graph), "
				   "speedscope, pprof (gzipped profile.proto), or top (a table)")
				->check(CLI::IsMember(
					{"folded", "svg", "speedscope", "pprof", "top"}));
		cmd->add_flag("--children", options_.children,
			      "also sample the process's children (automatic for an nginx "
			      "master: its workers)");
		cmd->add_option("--backend", backend_,
				"bpf, userspace (process_vm_readv; for machines that refuse "
				"bpf()), or auto (bpf where allowed: the default)")
			->check(CLI::IsMember({"auto", "bpf", "userspace"}));
		cmd->add_flag("--native", options_.native,
			      "the native frames around the Lua frames, as analyze places "
			      "them (unwound from a copy of the stack)");
		alloc_opt_ = cmd->add_option("--alloc", alloc_,
					     "allocations, not CPU time: outstanding (bytes "
					     "not freed by the end, after a full GC cycle: the "
					     "leak view; the default) or all (every byte "
					     "allocated: the churn view)")
				     ->expected(0, 1)
				     ->check(CLI::IsMember({"", "outstanding", "all"}));
		cmd->add_option("--sample-bytes", options_.sample_bytes,
				"--alloc: sample an allocation every this many bytes on "
				"average (512K)")
			->transform(CLI::AsSizeValue(false))
			->check(CLI::PositiveNumber);
		cmd->add_flag("--by-request", by_request_,
			      "nginx workers: each sample under the request its coroutine "
			      "served (\"GET /path\", \"[no request]\"): a root frame in "
			      "folded, svg and speedscope, a table of requests with top "
			      "(pprof always has them as labels)")
			->excludes(diff);
		auto *off_cpu = cmd->add_flag(
			"--off-cpu", off_cpu_,
			"time off the CPU, not on it: the stacks the VM's thread leaves the "
			"CPU in, in nanoseconds until it runs again, under [off-cpu: blocked] "
			"or [off-cpu: runqueue] (BPF, at sched_switch)");
		auto *wall = cmd->add_flag("--wall", wall_,
					   "wall-clock time: --off-cpu's stacks and the CPU "
					   "samples (each worth the period, under [on-cpu]) "
					   "in one profile, in nanoseconds");
		off_cpu->excludes(wall);
		cmd->add_option("--off-cpu-period", off_cpu_period_ms_,
				"--off-cpu, --wall: the time off the CPU a walk of the stack "
				"stands for, in ms (1): a shorter period off it is walked with "
				"probability its length / this, and weighs this")
			->check(CLI::Range(0.001, 1000.0));
		cmd->add_flag("--blocking", options_.blocking,
			      "userspace backend: stop the VM's thread for each sample, so "
			      "its frames are exact (the default never stops it)");
	}

	int run() override
	{
		if (!diff_.empty())
			return run_diff();
		if (!options_.pid) {
			std::cerr << "ljcore: profile needs --pid PID (or --diff BEFORE AFTER)\n";
			return exit_usage;
		}
		using Backend = ProfileOptions::Backend;
		options_.backend = backend_ == "bpf"         ? Backend::bpf
				   : backend_ == "userspace" ? Backend::userspace
							     : Backend::automatic;
		using Alloc = ProfileOptions::Alloc;
		if (alloc_opt_->count())
			options_.alloc = alloc_ == "all" ? Alloc::all : Alloc::outstanding;
		using Time = ProfileOptions::Time;
		options_.time = wall_ ? Time::wall : off_cpu_ ? Time::off_cpu : Time::cpu;
		// CLI::Range lets "nan" through: no comparison refuses it.
		if (!std::isfinite(off_cpu_period_ms_)) {
			std::cerr << "ljcore: --off-cpu-period: not a number of ms\n";
			return exit_usage;
		}
		options_.off_cpu_period_ns = uint64_t(off_cpu_period_ms_ * 1e6);
		if (!usable(options_) || !usable_by_request())
			return exit_usage;
		auto p = sample();
		if (!p)
			return report_profile_failure(p.error());
		std::ofstream file;
		if (!output_.empty()) {
			file.open(output_, std::ios::binary);
			if (!file) {
				std::cerr << "ljcore: cannot write " << printable(output_) << "\n";
				return exit_usage;
			}
		}
		render_profile(output_.empty() ? std::cout : file, *p, format_, by_request_);
		print_summary(std::cerr, *p);
		return failed(*p) ? exit_partial : exit_ok;
	}

private:
	// --by-request is a view of CPU samples in a format that can show it.
	bool usable_by_request() const
	{
		if (!by_request_)
			return true;
		if (options_.alloc != ProfileOptions::Alloc::off) {
			std::cerr << "ljcore: --by-request is for CPU profiles, not --alloc\n";
			return false;
		}
		if (format_ == "pprof") {
			std::cerr << "ljcore: pprof always carries the request as the label "
				     "\"request\" (pprof -tagroot request): no --by-request\n";
			return false;
		}
		return true;
	}

	int run_diff()
	{
		std::string format = format_opt_->count() ? format_ : "top";
		if (format != "top" && format != "svg" && format != "folded") {
			std::cerr << "ljcore: --diff writes top, svg or folded, not " << format
				  << "\n";
			return exit_usage;
		}
		return profile_diff_command(diff_[0], diff_[1], format, output_);
	}

	// Until the duration is over or Ctrl-C, which ends the profile early:
	// what was sampled is still written.
	std::expected<Profile, ProfileError> sample()
	{
		struct sigaction sa {};
		sa.sa_handler = on_interrupt;
		sigaction(SIGINT, &sa, nullptr);
		sigaction(SIGTERM, &sa, nullptr);
		options_.stop = [] { return interrupted.load(); };
		if (isatty(STDERR_FILENO))
			options_.progress = [](const Profile &p) {
				std::cerr << "\rljcore: " << p.samples << " samples, " << failed(p)
					  << " failed" << std::flush;
			};
		auto p = profile_process(options_);
		if (isatty(STDERR_FILENO))
			std::cerr << "\r\033[K";
		return p;
	}

	ProfileOptions options_;
	std::string output_; // -o FILE, empty: standard output
	std::string format_ = "folded";
	std::string backend_ = "auto";
	std::string alloc_;
	bool by_request_ = false;
	bool off_cpu_ = false, wall_ = false;
	double off_cpu_period_ms_ = 1;
	CLI::Option *alloc_opt_ = nullptr;
	CLI::Option *format_opt_ = nullptr;
	std::vector<std::string> diff_; // --diff BEFORE AFTER
};

} // namespace

const Subcommand profile_subcommand{
	"profile", "sample a running process's Lua stacks: folded stacks for flame graphs",
	make_command<ProfileCommand>};

} // namespace ljcore
