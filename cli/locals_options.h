// The --locals options of bt and analyze.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "analyzer/values/lua_locals.h"

namespace ljcore {

struct LocalsFlags {
	std::string locals; // "", "on" or "all"
	ValueLimits limits;
};

inline void add_locals_options(CLI::App *cmd, LocalsFlags &f)
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

inline std::optional<LocalsOptions> locals_options(const LocalsFlags &f)
{
	if (f.locals.empty())
		return std::nullopt;
	return LocalsOptions{f.locals == "all", f.limits};
}

} // namespace ljcore
