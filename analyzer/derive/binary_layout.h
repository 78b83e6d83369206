// What `ljcore layout BINARY` reports: the layout derived from a LuaJIT
// binary's code, beside the nearest built-in table and, when the binary has
// DWARF, what its DWARF says, field by field. Plain data for cli/ to print.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "readers/error.h"

namespace ljcore {

struct LayoutFieldReport {
	std::string name;                // the lj_layout member
	std::optional<uint32_t> derived; // from the code, with its source
	std::string source;              // "lua_close+0x31"
	uint32_t table = 0;              // the nearest table's value
	std::optional<uint32_t> dwarf;   // the DWARF's, if it has any
};

struct BinaryLayoutReport {
	std::string path;
	std::string arch;
	std::string table;               // the nearest table's name (the first of equals)
	std::vector<std::string> equals; // other tables as near: the code does not tell them apart
	std::string dwarf_error;         // why there is no DWARF column, when there is none
	bool has_dwarf = false;
	std::vector<LayoutFieldReport> fields; // every derived field, then any other that differs
	std::vector<std::string> problems;     // "could not derive X: why"
	std::vector<std::string> unshown;      // "X: why", the code shows it not here
};

// Derives the layout of the LuaJIT binary at path (an executable, a
// libluajit-5.1.so or a host that links LuaJIT in).
Expected<BinaryLayoutReport> binary_layout(const std::string &path);

} // namespace ljcore
