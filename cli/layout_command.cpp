// ljcore layout BINARY: the offsets read from a LuaJIT binary's own code,
// beside the nearest built-in table (and the binary's DWARF, if it has
// any), so that a new release or a patched fork is one command and a diff.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "analyzer/derive/binary_layout.h"
#include "cli/command.h"
#include "cli/exit_codes.h"

namespace ljcore {

namespace {

class LayoutCommand final : public Command {
public:
	void add_options(CLI::App *cmd) override
	{
		cmd->add_option("binary", binary_,
				"a LuaJIT executable, libluajit-5.1.so, or a program "
				"that links LuaJIT in (stripped is fine)")
			->required()
			->check(CLI::ExistingFile);
		cmd->add_flag("--explain", explain_, "the instruction each offset was read from");
		cmd->add_flag("--json", json_, "the same as JSON");
	}

	int run() override
	{
		auto r = binary_layout(binary_);
		if (!r) {
			std::cerr << "ljcore: " << r.error().message << "\n";
			return exit_unreadable;
		}
		json_ ? print_json(*r) : print_text(*r);
		for (auto &p : r->problems)
			std::cerr << "ljcore: " << p << "\n";
		return r->problems.empty() ? exit_ok : exit_partial;
	}

private:
	void print_text(const BinaryLayoutReport &r) const
	{
		printf("%s (%s): layout derived from its code\n", r.path.c_str(), r.arch.c_str());
		printf("nearest table: %s\n", r.table.c_str());
		for (const std::string &t : r.equals)
			printf("  as near: %s\n", t.c_str());
		if (!r.has_dwarf)
			printf("DWARF: %s\n", r.dwarf_error.c_str());
		printf("%-12s %8s %8s%s%s\n", "field", "derived", "table",
		       r.has_dwarf ? "    DWARF" : "", explain_ ? "  source" : "");
		size_t differ = 0;
		for (const LayoutFieldReport &f : r.fields) {
			bool diff = f.derived && *f.derived != f.table;
			differ += diff;
			printf("%-12s %8u %8u", f.name.c_str(), *f.derived, f.table);
			if (r.has_dwarf)
				f.dwarf ? printf(" %8u", *f.dwarf) : printf(" %8s", "-");
			if (explain_)
				printf("  %s", f.source.c_str());
			printf("%s\n", diff ? "  differs from the table" : "");
		}
		printf("%zu of %zu derived fields differ from the table\n", differ,
		       r.fields.size());
		for (const std::string &u : r.unshown)
			printf("not shown by this build's code (the table's): %s\n", u.c_str());
	}

	void print_json(const BinaryLayoutReport &r) const
	{
		nlohmann::json fields = nlohmann::json::array();
		for (const LayoutFieldReport &f : r.fields) {
			nlohmann::json j = {{"name", f.name},
					    {"derived", *f.derived},
					    {"source", f.source},
					    {"table", f.table}};
			if (f.dwarf)
				j["dwarf"] = *f.dwarf;
			fields.push_back(j);
		}
		nlohmann::json j = {{"binary", r.path},         {"arch", r.arch},
				    {"nearest_table", r.table}, {"fields", fields},
				    {"problems", r.problems},   {"unshown", r.unshown}};
		std::cout << j.dump(2) << "\n";
	}

	std::string binary_;
	bool explain_ = false;
	bool json_ = false;
};

} // namespace

const Subcommand layout_subcommand{"layout",
				   "LuaJIT's layout derived from a binary's code, beside the "
				   "nearest built-in table",
				   make_command<LayoutCommand>};

} // namespace ljcore
