// ModuleSymbols reads a module's symbol table as libdwfl does and chooses
// the symbol covering an address as dwfl_module_addrinfo does. The oracle
// is libdwfl itself, asked about the modules of the bundled example core
// (the LuaJIT binary with its symbol table, whose interpreter labels have
// no size, and this machine's C library where its build-id matches) at
// every symbol's edges and across each module's whole range.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gelf.h>

#include "analyzer/analyze.h"

using namespace ljcore;

namespace {

std::string dwfl_answer(Dwfl_Module *mod, uint64_t addr)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, nullptr, nullptr, nullptr);
	if (!name)
		return "(none)";
	return std::string(name) + "@" + std::to_string(addr - off) + "+" +
	       std::to_string(sym.st_size);
}

std::string table_answer(const ModuleSymbols &table, uint64_t addr)
{
	auto sym = table.covering(addr);
	if (!sym)
		return "(none)";
	return std::string(sym->name) + "@" + std::to_string(sym->value) + "+" +
	       std::to_string(sym->size);
}

// Addresses where the choice can change: each symbol's first and last
// byte and the bytes around them, and a stride over the whole module.
std::vector<uint64_t> probe_addresses(Dwfl_Module *mod, const ModuleInfo &m)
{
	std::vector<uint64_t> out;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		if (!dwfl_module_getsym_info(mod, i, &sym, &value, nullptr, nullptr, nullptr))
			continue;
		for (uint64_t a :
		     {value - 1, value, value + 1, value + sym.st_size - 1, value + sym.st_size})
			if (a >= m.low && a < m.high)
				out.push_back(a);
	}
	for (uint64_t a = m.low; a < m.high; a += 61)
		out.push_back(a);
	return out;
}

} // namespace

TEST_CASE("a module's symbol table answers as dwfl_module_addrinfo does")
{
	const std::string dir = LJCORE_SOURCE_DIR "/testdata/example/";
	auto session =
		open_core(dir + "core.zst", FileLookup{.exe = dir + "luajit", .sysroot = {}});
	REQUIRE(session.has_value());
	const NativeSession &native = *session->native;
	size_t modules_with_symbols = 0, modules_read_directly = 0, compared = 0, labels = 0;
	bool luajit_read_directly = false;
	for (const ModuleInfo &m : native.modules()) {
		Dwfl_Module *mod = native.module_at(m.low);
		if (!mod || dwfl_module_getsymtab(mod) <= 0)
			continue;
		modules_with_symbols++;
		// Both ways of reading the table: from its ELF data, as a
		// backtrace does, and through dwfl_module_getsym_info.
		const ModuleSymbols &table = native.symbols_of(mod);
		const ModuleSymbols reference(mod, ModuleSymbols::Reader::libdwfl);
		modules_read_directly += table.read_directly();
		if (m.name.ends_with("luajit"))
			luajit_read_directly = table.read_directly();
		for (uint64_t addr : probe_addresses(mod, m)) {
			std::string want = dwfl_answer(mod, addr);
			INFO(m.name << " at " << addr);
			REQUIRE(table_answer(table, addr) == want);
			REQUIRE(table_answer(reference, addr) == want);
			compared++;
			labels += want.ends_with("+0");
		}
	}
	MESSAGE(compared << " addresses in " << modules_with_symbols << " modules ("
			 << modules_read_directly << " tables read from ELF data), " << labels
			 << " of them answered by a symbol without a size");
	// The example's luajit at least, with its sizeless interpreter labels,
	// and read from its ELF data (a C library with a .gnu_debugdata table,
	// as other distributions ship, would be read through libdwfl).
	CHECK(modules_with_symbols >= 1);
	CHECK(luajit_read_directly);
	CHECK(labels > 0);
	CHECK(compared > 10000);
}

TEST_CASE("a symbol by name is the table's first defined one")
{
	const std::string dir = LJCORE_SOURCE_DIR "/testdata/example/";
	auto session =
		open_core(dir + "core.zst", FileLookup{.exe = dir + "luajit", .sysroot = {}});
	REQUIRE(session.has_value());
	auto sym = session->native->symbol_by_name("lj_vm_asm_begin", "luajit");
	REQUIRE(sym.has_value());
	CHECK(sym->module == "luajit");
	auto at = session->native->symbol_at(sym->addr);
	REQUIRE(at.has_value());
	CHECK(at->addr == sym->addr);
	CHECK_FALSE(session->native->symbol_by_name("no_such_symbol_in_any_module").has_value());
}
