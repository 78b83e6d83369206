// ljcore gc: each VM's GC heap census, or with --diff what grew between
// two cores (cli/gc_diff.cpp).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/gc_diff.h"
#include "cli/gc_watch.h"
#include "cli/render.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Gc final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_);
		cmd->add_flag("--json", json_, "print the census as JSON");
		cmd->add_option("--top", census_.top, "how many of the largest objects to list")
			->check(CLI::NonNegativeNumber);
		cmd->add_flag("--paths", census_.paths,
			      "a shortest path from a root to each of the largest objects");
		cmd->add_flag("--retained", census_.retained,
			      "the objects that keep the most memory alive (their retained size: "
			      "all only they reach), with a shortest path to each");
		cmd->add_option("--depth", census_.retained_depth,
				"with --retained: each table's largest dominated children, this "
				"many levels down")
			->check(CLI::NonNegativeNumber);
		cmd->add_option("--diff", before_,
				"a core of the same program from before: print what grew from "
				"it to CORE")
			->check(CLI::ExistingFile);
		add_watch_options(cmd);
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		census_.retained_top = census_.top;
		options.gc = census_;
		if (!every_.empty() || alloc_sites_)
			return run_live();
		if (!before_.empty()) {
			if (!input_given(input_))
				return exit_usage;
			// Growth by path prefix needs the paths, and of retained
			// size the dominator tree.
			options.gc->paths = true;
			options.gc->retained = true;
			return gc_diff_command(before_, input_.core, options, json_);
		}
		return run_analysis(input_, options, [&](const Analysis &a) {
			if (json_)
				render_gc_json(std::cout, a);
			else
				render_gc(std::cout, a);
			print_problems(a);
			return status_of(a);
		});
	}

private:
	static ProfileOptions alloc_defaults()
	{
		ProfileOptions o;
		o.duration_s = 60;
		return o;
	}

	// Live leak hunting (cli/gc_watch.cpp).
	void add_watch_options(CLI::App *cmd)
	{
		auto duration = [](const std::string &s) {
			return parse_duration(s) ? std::string() : "not a duration: " + s;
		};
		cmd->add_option("--every", every_,
				"with --pid: take a heap snapshot this often (30s, 500ms, 2m) "
				"and report the paths that grew in every interval")
			->check(duration);
		cmd->add_option("--count", watch_.count, "with --every: how many snapshots (5)")
			->check(CLI::Range(2, 100000));
		cmd->add_flag("--alloc-sites", alloc_sites_,
			      "with --pid: profile allocations, then place those not freed in "
			      "the heap: under the --top objects by retained size, by the Lua "
			      "stack that allocated them");
		cmd->add_option("--duration", alloc_.duration_s,
				"with --alloc-sites: seconds to sample allocations (60); Ctrl-C "
				"ends it early")
			->check(CLI::PositiveNumber);
		cmd->add_option("--sample-bytes", alloc_.sample_bytes,
				"with --alloc-sites: sample an allocation every this many bytes on "
				"average (512K)")
			->transform(CLI::AsSizeValue(false))
			->check(CLI::PositiveNumber);
		cmd->add_option("--path-depth", watch_.depth,
				"with --every: steps below a root that paths tell apart (4)")
			->check(CLI::Range(1, 64));
	}

	int run_live()
	{
		if (!input_.pid || !input_.core.empty() || (!every_.empty() && alloc_sites_)) {
			std::cerr << "ljcore: --every and --alloc-sites watch a running process: "
				     "give --pid, and one of them\n";
			return exit_usage;
		}
		if (alloc_sites_) {
			alloc_.pid = input_.pid;
			return gc_alloc_sites_command(alloc_, census_.top, json_);
		}
		watch_.pid = input_.pid;
		watch_.every_s = *parse_duration(every_);
		return gc_watch_command(watch_, json_);
	}

	InputOptions input_;
	bool json_ = false;
	GcCensusOptions census_;
	std::string before_;
	std::string every_;
	HeapWatchOptions watch_;
	bool alloc_sites_ = false;
	ProfileOptions alloc_ = alloc_defaults();
};

} // namespace

const Subcommand gc_subcommand{"gc", "GC heap of each VM: census by type, strings, largest objects",
			       make_command<Gc>};

} // namespace ljcore
