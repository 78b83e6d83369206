// ljcore's subcommands: each one's file defines its options next to the
// code that runs it; main.cpp only registers them and dispatches.
#pragma once

#include <memory>

// Declared only: CLI11's header constructs its validators at start-up in
// every file that includes it, so only the files that add options do.
namespace CLI {
class App;
}

namespace ljcore {

class Command {
public:
	virtual ~Command() = default;
	// Adds the command's options (and subcommands) to cmd, its CLI11 app.
	virtual void add_options(CLI::App *cmd) = 0;
	// Once parsed; returns the exit status (cli/exit_codes.h).
	virtual int run() = 0;
};

// A subcommand as `ljcore --help` lists it, and how to make it.
struct Subcommand {
	const char *name;
	const char *help;
	std::unique_ptr<Command> (*make)();
};

// In the order `ljcore --help` lists them.
extern const Subcommand analyze_subcommand;
extern const Subcommand bt_subcommand;
extern const Subcommand traces_subcommand;
extern const Subcommand trace_subcommand;
extern const Subcommand gc_subcommand;
extern const Subcommand print_subcommand;
extern const Subcommand profile_subcommand;
extern const Subcommand snapshot_subcommand;
extern const Subcommand layout_subcommand;
extern const Subcommand fixture_subcommand;
extern const Subcommand catch_subcommand;

// What a Subcommand's make is: a Command of type C, as the interface.
template <class C> std::unique_ptr<Command> make_command()
{
	return std::make_unique<C>();
}

} // namespace ljcore
