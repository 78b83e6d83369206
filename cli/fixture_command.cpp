// ljcore fixture new | check | update: the regression fixtures
// (cli/fixture.cpp).
#include <cstdlib>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/fixture.h"

namespace ljcore {

namespace {

class Fixture final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		cmd->require_subcommand(1);
		new_ = cmd->add_subcommand("new", "make a fixture from a core");
		check_ = cmd->add_subcommand("check", "re-analyze fixtures, show changes");
		auto *update = cmd->add_subcommand("update", "accept the new analysis, on purpose");
		add_new_options(new_);
		check_->add_option("paths", roots_, "fixture directories or trees")->required();
		update->add_option("paths", roots_, "fixture directories or trees")->required();
	}

	int run() override
	{
		// What is expected must not depend on what a server has today.
		unsetenv("DEBUGINFOD_URLS");
		if (new_->parsed())
			return fixture_new(new_fixture_);
		if (check_->parsed())
			return fixture_check(roots_);
		return fixture_update(roots_);
	}

private:
	void add_new_options(CLI::App *cmd)
	{
		cmd->add_option("core", new_fixture_.core, "the core")
			->required()
			->check(CLI::ExistingFile);
		cmd->add_option("-o,--output", new_fixture_.dir, "the fixture directory")
			->required();
		cmd->add_option("--exe", new_fixture_.options.lookup.exe,
				"the executable, if moved");
		cmd->add_option("--sysroot", new_fixture_.options.lookup.sysroot,
				"where the core's library paths are rooted");
		cmd->add_option("--scenario", new_fixture_.scenario, "manifest: what crashed");
		cmd->add_option("--flavour", new_fixture_.flavour, "manifest: LuaJIT build");
		cmd->add_option("--made-by", new_fixture_.made_by,
				"manifest: how the core was made");
	}

	CLI::App *new_ = nullptr;
	CLI::App *check_ = nullptr;
	FixtureNew new_fixture_;
	std::vector<std::string> roots_;
};

} // namespace

const Subcommand fixture_subcommand{"fixture",
				    "regression fixtures: minimized core + expected analysis",
				    make_command<Fixture>};

} // namespace ljcore
