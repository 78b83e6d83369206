// ljcore catch: the kernel's core handler. --install points
// kernel.core_pattern at it, --uninstall puts back what was there,
// --list shows what it caught; the kernel runs it with --handle.
#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cli/catch/handler.h"
#include "cli/catch/install.h"
#include "cli/catch/list.h"
#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/render_bytes.h"

namespace ljcore {

namespace {

class Catch final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		auto *install =
			cmd->add_flag("--install", install_,
				      "set kernel.core_pattern to run ljcore catch at every "
				      "crash (and core_pipe_limit, if 0, to 16)");
		auto *uninstall = cmd->add_flag(
			"--uninstall", uninstall_,
			"put back the core_pattern and core_pipe_limit --install replaced");
		auto *list = cmd->add_flag(
			"--list", list_, "the caught crashes, newest first (DIR: --dir's default)");
		auto *handle = cmd->add_option("--handle", handle_,
					       "what the kernel runs: the crash directory, then "
					       "-- %P %p %s %c and the previous handler");
		install->excludes(uninstall)->excludes(list)->excludes(handle);
		uninstall->excludes(list)->excludes(handle);
		list->excludes(handle);
		cmd->add_option("--dir", settings_.dir,
				"where crashes go (default " + settings_.dir + ")");
		cmd->add_option("--keep-core", keep_core_,
				"also keep the whole core: never (default), lua (crashes with "
				"a LuaJIT VM), always")
			->check(CLI::IsMember({"never", "lua", "always"}));
		cmd->add_flag("--chain", settings_.chain,
			      "pass every core on to the handler core_pattern named before "
			      "(a program such as systemd-coredump, or a file)");
		cmd->add_option("--size-cap", settings_.size_cap,
				"bytes written per crash, the whole core aside (default 16 MiB)");
		cmd->add_option("--quota", settings_.quota,
				"bytes the directory may hold: the oldest crashes go first "
				"(default 1 GiB)");
		cmd->add_option("--rate", settings_.rate,
				"reports a minute per executable; the rest are counted "
				"(default 10)");
		cmd->add_option("--deadline", settings_.deadline_seconds,
				"seconds one crash's analysis may take (default 30)");
		cmd->add_flag("--redact", settings_.redact,
			      "string values (locals, the nginx request) as their lengths, in "
			      "reports and snapshots");
		cmd->add_option("args", args_, "--list: the directory; --handle: the kernel's");
	}

	int run() override
	{
		if (!handle_.empty())
			return catching::handle_crash(handle_, args_);
		if (list_)
			return catching::list_crashes(std::cout,
						      args_.empty() ? settings_.dir : args_[0]);
		if (!args_.empty()) {
			std::cerr << "ljcore: catch takes no arguments but --list's directory\n";
			return exit_usage;
		}
		if (install_)
			return install();
		if (uninstall_) {
			auto r = catching::uninstall(settings_.dir);
			if (!r)
				return fails(r.error().message);
			std::cout << "core_pattern: " << printable(*r) << "\n";
			return exit_ok;
		}
		std::cerr << "ljcore: catch: give --install, --uninstall or --list\n";
		return exit_usage;
	}

private:
	int install()
	{
		settings_.keep_core = *catching::keep_core_named(keep_core_);
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			return fails("cannot tell where ljcore is (/proc/self/exe)");
		auto r = catching::install(settings_, std::string(self, size_t(n)));
		if (!r)
			return fails(r.error().message);
		std::cout << "core_pattern: " << printable(*r) << "\n";
		return exit_ok;
	}

	static int fails(const std::string &message)
	{
		std::cerr << "ljcore: catch: " << printable(message) << "\n";
		return exit_unreadable;
	}

	catching::Settings settings_;
	std::string keep_core_ = "never";
	std::string handle_;
	bool install_ = false, uninstall_ = false, list_ = false;
	std::vector<std::string> args_;
};

} // namespace

const Subcommand catch_subcommand{"catch",
				  "the kernel's core handler: keep what matters of LuaJIT crashes",
				  make_command<Catch>};

} // namespace ljcore
