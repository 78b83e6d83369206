// The options several subcommands share, each defined once: what to read
// (a core or --pid, and where its files are) and how to show locals.
#pragma once

#include <optional>
#include <string>

#include "analyzer/options.h"

// Declared only: CLI11's header constructs its validators at start-up in
// every file that includes it, so only the files that add options do.
namespace CLI {
class App;
}

namespace ljcore {

// What a command reads: a core file or a running process, and where the
// files the core names are found.
struct InputOptions {
	std::string core;
	int32_t pid = 0;
	std::string exe;
	std::string sysroot;
	bool debuginfod = false;
	std::string scan = "auto";
	std::string layout = "auto";
};

// The core positional's help, also part of print's own positional.
extern const char *const core_help;

// A command's core is a positional argument, and --pid its alternative; a
// command with positionals of its own (print) takes the core itself.
void add_input_options(CLI::App *cmd, InputOptions &in, bool core_positional = true);

// The --locals options of bt and analyze.
struct LocalsFlags {
	std::string locals; // "", "on" or "all"
	ValueLimits limits;
};

void add_locals_options(CLI::App *cmd, LocalsFlags &f);
std::optional<LocalsOptions> locals_options(const LocalsFlags &f);

} // namespace ljcore
