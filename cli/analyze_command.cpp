// ljcore analyze: the whole report, native and Lua frames of every thread.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/render.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Analyze final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_);
		cmd->add_flag("--json", json_, "print the result model as JSON");
		cmd->add_flag("--explain", explain_,
			      "also print how the VMs were looked for and what was rejected");
		// Finding every coroutine walks the whole GC object list: on a
		// big heap that reads most of it, so it is asked for, not done
		// by default.
		cmd->add_flag("--all", all_,
			      "also every coroutine of every VM (walks the GC heap)");
		add_locals_options(cmd, locals_);
	}

	int run() override
	{
		AnalyzeOptions options = stack_options(input_, all_, locals_);
		return run_analysis(input_, options, [&](const Analysis &a) {
			if (json_)
				render_json(std::cout, a);
			else
				render_text(std::cout, a, {.explain = explain_, .all = all_});
			return status_of(a);
		});
	}

private:
	InputOptions input_;
	bool json_ = false;
	bool explain_ = false;
	bool all_ = false;
	LocalsFlags locals_;
};

} // namespace

const Subcommand analyze_subcommand{"analyze", "summary, native and Lua frames of every thread",
				    make_command<Analyze>};

} // namespace ljcore
