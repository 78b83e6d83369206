#include "cli/common_options.h"

#include <CLI/CLI.hpp>

namespace ljcore {

const char *const core_help = "ELF core file (kernel or gdb gcore, plain or compressed "
			      "with zstd, xz or lz4), - for standard input";

void add_input_options(CLI::App *cmd, InputOptions &in, bool core_positional)
{
	auto *pid = cmd->add_option("--pid", in.pid,
				    "a running process instead: stopped only while "
				    "it is read, never written to")
			    ->check(CLI::PositiveNumber);
	if (core_positional) {
		auto *core = cmd->add_option("core", in.core, core_help)
				     ->check(CLI::ExistingFile | CLI::IsMember({"-"}));
		core->excludes(pid);
		pid->excludes(core);
	}
	cmd->add_option("--exe", in.exe,
			"the executable, when the path recorded in the core does "
			"not hold it on this machine");
	cmd->add_option("--sysroot", in.sysroot,
			"look up every file of the core under this directory")
		->check(CLI::ExistingDirectory);
	cmd->add_flag("--debuginfod", in.debuginfod,
		      "let libdw ask the debuginfod servers in DEBUGINFOD_URLS");
	cmd->add_option("--scan", in.scan,
			"scan writable memory for VMs: auto (when nothing else "
			"finds one), always (also finds idle VMs), never")
		->check(CLI::IsMember({"auto", "always", "never"}));
	cmd->add_option("--layout", in.layout,
			"LuaJIT's offsets: auto (DWARF, then derived from LuaJIT's "
			"code, then the built-in tables), derived (from the code only) "
			"or tables (DWARF, then the tables; the code is not read)")
		->check(CLI::IsMember({"auto", "derived", "tables"}));
}

void add_locals_options(CLI::App *cmd, LocalsFlags &f)
{
	// A flag that takes an optional value: --locals or --locals=all.
	cmd->add_flag("--locals{on}", f.locals,
		      "locals and upvalues under each Lua frame; --locals=all adds "
		      "(*temporary) and (*vararg) slots")
		->check(CLI::IsMember({"on", "all"}));
	cmd->add_option("--max-string", f.limits.max_string,
			"with --locals: bytes of a string shown (default 200)");
	cmd->add_option("--depth", f.limits.depth,
			"with --locals: levels of table entries shown (default 1)");
	cmd->add_option("--max-items", f.limits.max_items,
			"with --locals: entries shown per table (default 10)");
}

std::optional<LocalsOptions> locals_options(const LocalsFlags &f)
{
	if (f.locals.empty())
		return std::nullopt;
	return LocalsOptions{f.locals == "all", f.limits};
}

} // namespace ljcore
