// ljcore bt: the Lua backtraces, as ljcore or as debug.traceback prints them.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/render.h"
#include "cli/run_analysis.h"

namespace ljcore {

namespace {

class Bt final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		add_input_options(cmd, input_);
		cmd->add_option("--format", format_,
				"text, luajit (as debug.traceback prints it) or json")
			->check(CLI::IsMember({"text", "luajit", "json"}));
		cmd->add_flag(
			"--json", [this](int64_t) { format_ = "json"; }, "same as --format=json");
		cmd->add_flag("--all", all_, "every coroutine of every VM, with its state");
		cmd->add_option("--level", level_,
				"first Lua level to show (as debug.traceback's level)")
			->check(CLI::NonNegativeNumber);
		add_locals_options(cmd, locals_);
	}

	int run() override
	{
		AnalyzeOptions options = stack_options(input_, all_, locals_);
		return run_analysis(input_, options, [&](const Analysis &a) {
			render(a);
			return status_of(a);
		});
	}

private:
	void render(const Analysis &a) const
	{
		if (format_ == "json") {
			render_json(std::cout, a);
			return;
		}
		RenderOptions render{.level = level_, .all = all_};
		if (format_ == "luajit")
			render_luajit(std::cout, a, render);
		else
			render_lua_text(std::cout, a, render);
		print_problems(a);
	}

	InputOptions input_;
	std::string format_ = "text";
	bool all_ = false;
	int level_ = 0;
	LocalsFlags locals_;
};

} // namespace

const Subcommand bt_subcommand{"bt", "Lua backtrace of each VM's running coroutine",
			       make_command<Bt>};

} // namespace ljcore
