// ljcore gc: each VM's GC heap census, or with --diff what grew between
// two cores (cli/gc_diff.cpp).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/gc_diff.h"
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
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		census_.retained_top = census_.top;
		options.gc = census_;
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
	InputOptions input_;
	bool json_ = false;
	GcCensusOptions census_;
	std::string before_;
};

} // namespace

const Subcommand gc_subcommand{"gc", "GC heap of each VM: census by type, strings, largest objects",
			       make_command<Gc>};

} // namespace ljcore
