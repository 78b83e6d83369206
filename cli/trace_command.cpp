// ljcore trace N: one trace as jit.dump prints it.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/render_trace.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class OneTrace final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		cmd->add_option("number", number_, "the trace number")->required();
		add_input_options(cmd, input_);
		cmd->add_flag("--mcode", mcode_,
			      "also the machine code, disassembled, with entry, loop, exits "
			      "and snapshots");
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		options.traces = true;
		options.mcode = mcode_;
		return run_analysis(input_, options, [&](const Analysis &a) {
			int status = render_one_trace(std::cout, a, number_, mcode_, status_of(a));
			print_problems(a);
			return status;
		});
	}

private:
	uint32_t number_ = 0;
	InputOptions input_;
	bool mcode_ = false;
};

} // namespace

const Subcommand trace_subcommand{"trace",
				  "one trace's IR and snapshots, as jit.dump with +rs prints them",
				  make_command<OneTrace>};

} // namespace ljcore
