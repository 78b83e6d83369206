// A module's symbol table, read once as libdwfl reads it, and the symbol that
// covers an address chosen over it as dwfl_module_addrinfo chooses.
//
// dwfl_module_addrinfo decodes the whole table (gelf_getsymshndx and a
// section header per symbol) on every call; with a few thousand symbols in
// a module that was half of a backtrace's time. Here each module's table
// is decoded once into plain entries in libdwfl's index order, and a
// lookup is one pass over them. The rules are elfutils 0.188's
// (libdwfl/dwfl_module_addrsym.c), kept exactly: the names a backtrace
// prints, which the fixtures pin, depend on them where several symbols
// cover an address (aliases) or none has a size (assembler labels, such as
// LuaJIT's interpreter entry points).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <elfutils/libdwfl.h>

namespace ljcore {

class ModuleSymbols {
public:
	struct Symbol {
		const char *name; // in libelf's string data, alive with the Dwfl
		uint64_t value;   // address in the process
		uint64_t size;
	};

	// How the table is read: from the ELF data where the table is plain,
	// or always through dwfl_module_getsym_info (the slow reference).
	enum class Reader { direct, libdwfl };

	explicit ModuleSymbols(Dwfl_Module *mod, Reader reader = Reader::direct);

	// Whether the table was read from the ELF data, not through libdwfl.
	bool read_directly() const { return direct_; }

	// The symbol dwfl_module_addrinfo(mod, addr) would give.
	std::optional<Symbol> covering(uint64_t addr) const;
	// The first defined symbol of that name in table order, as a pass of
	// dwfl_module_getsym_info over the table finds it.
	std::optional<Symbol> named(std::string_view name) const;

private:
	struct Entry {
		Symbol sym;
		uint32_t shndx;   // as dwfl_module_getsym_info gives it: -1 if not SHF_ALLOC
		uint8_t binding;  // GELF_ST_BIND ranked: global 3, weak 2, local 1, else 0
		bool addressable; // not a section, file or TLS symbol
	};
	// An SHF_ALLOC section of the main ELF file, where it is loaded.
	struct Section {
		uint64_t start, end;
		size_t index;
	};
	struct Search;

	void add(const Symbol &sym, uint32_t shndx, unsigned char info);
	template <typename ReadSymbol>
	bool read_entries(size_t n, size_t first_global, ReadSymbol read_symbol);
	void read_through_libdwfl(Dwfl_Module *mod, size_t n, size_t first_global);
	bool read_table_data(Dwfl_Module *mod, size_t n, size_t first_global);
	void read_sections(Elf *elf, uint64_t bias);
	// The index of the section addr lies in, 0 (SHN_UNDEF) if none: a
	// binary search over the sections sorted by start, end and index,
	// where a section's end belongs to it unless the next one starts
	// there (libdwfl/derelocate.c find_section).
	size_t section_of(uint64_t addr) const;

	std::vector<Entry> entries_;
	size_t first_global_ = 0; // entries_[first_global_..] are the globals
	std::vector<Section> sections_;
	bool direct_ = false;
};

} // namespace ljcore
