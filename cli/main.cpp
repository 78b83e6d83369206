// ljcore: what was this LuaJIT process doing when it died?
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/render_bytes.h"

using namespace ljcore;

namespace {

// In the order `ljcore --help` lists them.
const Subcommand *const subcommands[] = {
	&analyze_subcommand, &bt_subcommand,      &traces_subcommand,  &trace_subcommand,
	&gc_subcommand,      &print_subcommand,   &profile_subcommand, &snapshot_subcommand,
	&layout_subcommand,  &fixture_subcommand, &catch_subcommand,
};

// The subcommand argv names: its first argument that is not an option
// (ljcore's own options take no value), "" if none.
std::string_view subcommand_named(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			return argv[i];
	return "";
}

int run(int argc, char **argv)
{
	CLI::App app{"ljcore: Lua backtraces and VM state from cores of LuaJIT processes"};
	app.require_subcommand(1);
	app.set_version_flag("--version", "ljcore " LJCORE_VERSION);
	app.footer(exit_codes_help);

	// Every subcommand is named, for the list --help prints, but only the
	// one run is made and gets its options: CLI11 builds each option's
	// checks and help text as it is added, which for all of them took a
	// tenth of a backtrace's run time.
	const std::string_view invoked = subcommand_named(argc, argv);
	std::unique_ptr<Command> command;
	for (const Subcommand *s : subcommands) {
		CLI::App *cmd = app.add_subcommand(s->name, s->help);
		if (invoked == s->name) {
			command = s->make();
			command->add_options(cmd);
		}
	}

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		int code = app.exit(e);
		return code == 0 ? exit_ok : exit_usage;
	}
	// A parse that succeeds has run one subcommand (require_subcommand),
	// which is the one argv names: ljcore's own options take no value.
	return command->run();
}

} // namespace

// Whatever a hostile input or a bug throws ends as a message and a status
// from the documented set, never in std::terminate.
int main(int argc, char **argv)
{
#ifdef __GLIBC__
	// Arrays of an element an object (gc --retained's) are freed as soon
	// as they are done with, and that must give their memory back: glibc
	// would raise its mmap threshold past the first one freed (up to 32
	// MB) and keep the next ones on a heap it seldom shrinks. A fixed
	// threshold keeps every large block a mapping of its own.
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	std::string what = "an unknown exception";
	try {
		return run(argc, argv);
	} catch (const std::bad_alloc &) {
		// Nothing to allocate a message with: a constant one.
		std::cerr << "ljcore: out of memory\n";
		return exit_internal;
	} catch (const std::exception &e) {
		what = e.what();
	} catch (...) {
	}
	std::cout.flush();
	std::cerr << "ljcore: internal error: " << printable(what) << "\n";
	return exit_internal;
}
