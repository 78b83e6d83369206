// ljcore print: one Lua value by its path.
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/render_bytes.h"
#include "cli/render_print.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Print final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_, false);
		cmd->add_option("core-and-expression", args_,
				std::string("CORE (") + core_help +
					") and the value's path (the README "
					"lists the forms); the path alone with --pid")
			->required()
			->expected(1, 2);
		cmd->add_flag("--json", json_, "print the value as JSON");
		cmd->add_option("--max-string", limits_.max_string,
				"bytes of a string shown (default 200)");
		cmd->add_option("--depth", limits_.depth,
				"levels of table entries shown (default 1)");
		cmd->add_option("--max-items", limits_.max_items,
				"entries shown per table (default 10)");
	}

	int run() override
	{
		AnalyzeOptions options = analyze_options(input_);
		if (args_.size() != (input_.pid ? 1u : 2u)) {
			std::cerr << "ljcore: print takes CORE EXPR, or --pid PID EXPR\n";
			return exit_usage;
		}
		if (!input_.pid) {
			input_.core = args_[0];
			if (input_.core != "-" && access(input_.core.c_str(), R_OK) != 0) {
				std::cerr << "ljcore: " << printable(input_.core)
					  << ": cannot read it\n";
				return exit_usage;
			}
		}
		auto path = parse_lua_path(args_.back());
		if (!path) {
			std::cerr << "ljcore: " << printable(path.error().message) << "\n";
			return exit_usage;
		}
		options.print = PrintRequest{args_.back(), *path, limits_};
		// Locals and upvalues come from the frames' variables.
		if (path->root == LuaPath::Root::local || path->root == LuaPath::Root::upvalue)
			options.locals = LocalsOptions{true, limits_};
		return run_analysis(input_, options, [&](const Analysis &a) {
			if (json_)
				render_printed_json(std::cout, a);
			else
				render_printed(std::cout, std::cerr, a);
			print_problems(a);
			if (a.vms.empty())
				return exit_no_vm;
			return printed_everywhere(a) && !a.diagnostics.has_problems()
				       ? exit_ok
				       : exit_partial;
		});
	}

private:
	InputOptions input_;
	// CORE EXPR, or EXPR alone with --pid.
	std::vector<std::string> args_;
	bool json_ = false;
	ValueLimits limits_;
};

} // namespace

const Subcommand print_subcommand{
	"print",
	"one Lua value by its path: _G.app.cache, package.loaded[\"x\"], registry[2], "
	"frame 3 local tag, upvalue 1 of frame 2, 0x7f...",
	make_command<Print>};

} // namespace ljcore
