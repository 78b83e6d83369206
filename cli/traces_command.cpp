// ljcore traces: the table of every VM's JIT traces, or all of them as JSON.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/render_trace.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Traces final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_);
		cmd->add_flag("--json", json_, "every trace, IR and snapshots included, as JSON");
		cmd->add_flag("--mcode", mcode_,
			      "with --json: each trace's disassembled machine code too");
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		options.traces = true;
		// The table names each side trace's parent exit, found in the code.
		options.mcode = true;
		return run_analysis(input_, options, [&](const Analysis &a) {
			if (json_)
				render_traces_json(std::cout, a, mcode_);
			else
				render_trace_table(std::cout, a);
			print_problems(a);
			return status_of(a);
		});
	}

private:
	InputOptions input_;
	bool json_ = false;
	bool mcode_ = false;
};

} // namespace

const Subcommand traces_subcommand{"traces", "table of the JIT's traces of every VM",
				   make_command<Traces>};

} // namespace ljcore
