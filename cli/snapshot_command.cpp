// ljcore snapshot: a minimized core, only the memory the analysis reads.
#include <iostream>

#include "analyzer/snapshot.h"
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/render_bytes.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Snapshot final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_);
		cmd->add_option("-o,--output", output_, "the core file to write")->required();
		cmd->add_flag("--all", all_,
			      "keep every coroutine too: walks the GC heap, so the snapshot "
			      "keeps a page of every heap object (and --pid stops the "
			      "process longer)");
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		options.all_coroutines = all_;
		if (!input_given(input_))
			return exit_usage;
		auto r = input_.pid ? snapshot_pid(input_.pid, output_, options)
				    : snapshot_core(input_.core, output_, options);
		if (!r) {
			std::cerr << "ljcore: " << printable(r.error().message) << "\n";
			return exit_unreadable;
		}
		print_summary(*r);
		return exit_ok;
	}

private:
	// "OUT: 12 pages, 49152 bytes (0.5% of CORE)".
	void print_summary(const SnapshotResult &r) const
	{
		std::string source =
			input_.pid ? "process " + std::to_string(input_.pid) + "'s mappings"
				   : input_.core;
		std::cout << output_ << ": " << r.pages << " pages, " << r.bytes << " bytes ("
			  << (r.source_bytes ? 100.0 * double(r.bytes) / double(r.source_bytes) : 0)
			  << "% of " << source << ")";
		if (input_.pid)
			std::cout << ", process paused " << r.paused_us << " us";
		std::cout << "\n";
	}

	InputOptions input_;
	std::string output_;
	bool all_ = false;
};

} // namespace

const Subcommand snapshot_subcommand{"snapshot",
				     "write a minimized core: only the memory the analysis reads",
				     make_command<Snapshot>};

} // namespace ljcore
