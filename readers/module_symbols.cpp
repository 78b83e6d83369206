#include "readers/module_symbols.h"

#include <algorithm>
#include <tuple>

#include <gelf.h>

namespace ljcore {

namespace {

// GELF_ST_BIND as libdwfl ranks it when two symbols cover an address.
uint8_t binding_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

} // namespace

ModuleSymbols::ModuleSymbols(Dwfl_Module *mod, Reader reader)
{
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	if (n <= 0 || first_global < 0)
		return;
	direct_ = reader == Reader::direct && read_table_data(mod, size_t(n), size_t(first_global));
	if (!direct_)
		read_through_libdwfl(mod, size_t(n), size_t(first_global));
	GElf_Addr bias;
	if (Elf *elf = dwfl_module_getelf(mod, &bias))
		read_sections(elf, bias);
}

void ModuleSymbols::add(const Symbol &sym, uint32_t shndx, unsigned char info)
{
	int type = GELF_ST_TYPE(info);
	entries_.push_back({sym, shndx, binding_rank(info),
			    type != STT_SECTION && type != STT_FILE && type != STT_TLS});
}

// Symbols 1 to n - 1 in table order, each through read_symbol(i), which
// adds it or not and returns false to give the table up. Index 0 is the
// null symbol. Without a table of locals (first_global 0: only .dynsym,
// read through the program headers) every entry is searched as a global,
// and the locals' range is empty. What no lookup could return, by name or
// address, is left out: it cannot change any choice either.
template <typename ReadSymbol>
bool ModuleSymbols::read_entries(size_t n, size_t first_global, ReadSymbol read_symbol)
{
	entries_.clear();
	entries_.reserve(n);
	const size_t globals_from = std::max<size_t>(first_global, 1);
	first_global_ = 0;
	for (size_t i = 1; i < n; i++) {
		if (i == globals_from)
			first_global_ = entries_.size();
		if (!read_symbol(i))
			return false;
	}
	if (globals_from >= n)
		first_global_ = entries_.size();
	return true;
}

void ModuleSymbols::read_through_libdwfl(Dwfl_Module *mod, size_t n, size_t first_global)
{
	read_entries(n, first_global, [&](size_t i) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, int(i), &sym, &value, &shndx,
							   nullptr, nullptr);
		if (name && *name && sym.st_shndx != SHN_UNDEF)
			add({name, value, sym.st_size}, shndx, sym.st_info);
		return true;
	});
}

// dwfl_module_getsym_info costs a section header lookup and a backend call
// per symbol, most of a backtrace's time with a debug build's table. In the
// plain case the table is read here from the same ELF data instead, by
// libdwfl's rules (libdwfl/dwfl_module_getsym.c, elfutils 0.188): one
// SHT_SYMTAB or else SHT_DYNSYM section, as load_symtab
// (dwfl_module_getdwarf.c) picks it, in the file symbol 1 comes from (the
// main file or its debug file), and no auxiliary .gnu_debugdata table
// merged in; no extended section indices; a 64-bit x86_64 or aarch64 file,
// whose symbol values need neither a mask nor a function descriptor
// resolved. Anything else is left to libdwfl.
bool ModuleSymbols::read_table_data(Dwfl_Module *mod, size_t n, size_t first_global)
{
	GElf_Sym first;
	GElf_Addr first_value;
	Elf *elf = nullptr;
	Dwarf_Addr bias;
	const char *first_name =
		n > 1 ? dwfl_module_getsym_info(mod, 1, &first, &first_value, nullptr, &elf, &bias)
		      : nullptr;
	GElf_Ehdr ehdr;
	if (!first_name || !elf || !gelf_getehdr(elf, &ehdr) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_type == ET_REL ||
	    (ehdr.e_machine != EM_X86_64 && ehdr.e_machine != EM_AARCH64))
		return false;

	Elf_Scn *table = nullptr, *dynsym = nullptr;
	std::vector<bool> alloc(1); // by section index; index 0 is SHN_UNDEF
	for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr))
			return false;
		alloc.resize(elf_ndxscn(scn) + 1, true);
		alloc[elf_ndxscn(scn)] = shdr.sh_flags & SHF_ALLOC;
		if (shdr.sh_type == SHT_SYMTAB_SHNDX)
			return false;
		// The last SHT_SYMTAB, or else the last SHT_DYNSYM, with entries.
		if (shdr.sh_entsize != 0 && shdr.sh_type == SHT_SYMTAB)
			table = scn;
		else if (shdr.sh_entsize != 0 && shdr.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	if (!table)
		table = dynsym;
	GElf_Shdr shdr;
	Elf_Data *syms = table ? elf_getdata(table, nullptr) : nullptr;
	if (!syms || !gelf_getshdr(table, &shdr) || shdr.sh_size / shdr.sh_entsize != n ||
	    shdr.sh_info != first_global || syms->d_type != ELF_T_SYM ||
	    syms->d_size / sizeof(Elf64_Sym) < n)
		return false;
	// libdwfl takes the string table only if elf_strptr accepts it (else
	// it reads .dynsym through the program headers); a name runs to a NUL
	// inside the data only if the data ends with one.
	Elf_Data *strings = elf_getdata(elf_getscn(elf, shdr.sh_link), nullptr);
	if (!elf_strptr(elf, shdr.sh_link, 0) || !strings || !strings->d_buf ||
	    strings->d_size == 0 || static_cast<const char *>(strings->d_buf)[strings->d_size - 1])
		return false;

	const auto *sym = static_cast<const Elf64_Sym *>(syms->d_buf);
	const char *names = static_cast<const char *>(strings->d_buf);
	// Where a symbol is, and whether it is in an SHF_ALLOC section. A
	// section index past the headers reads as SHF_ALLOC, as a missing
	// header does in libdwfl.
	auto place = [&](const Elf64_Sym &s) {
		bool in_alloc = s.st_shndx >= SHN_LORESERVE || s.st_shndx >= alloc.size() ||
				alloc[s.st_shndx];
		uint64_t value = s.st_value;
		if (in_alloc && s.st_shndx != SHN_UNDEF && s.st_shndx != SHN_ABS &&
		    s.st_shndx != SHN_COMMON)
			value += bias;
		return std::pair{value, in_alloc};
	};
	// The same data libdwfl read: symbol 1's name is the same pointer,
	// and its value the same.
	if (sym[1].st_name >= strings->d_size || names + sym[1].st_name != first_name ||
	    place(sym[1]).first != first_value)
		return false;
	return read_entries(n, first_global, [&](size_t i) {
		const Elf64_Sym &s = sym[i];
		if (s.st_shndx == SHN_XINDEX)
			return false;
		if (s.st_shndx == SHN_UNDEF || s.st_name >= strings->d_size || !names[s.st_name])
			return true;
		auto [value, in_alloc] = place(s);
		add({names + s.st_name, value, s.st_size}, in_alloc ? s.st_shndx : uint32_t(-1),
		    s.st_info);
		return true;
	});
}

// The modules of a core or a process are ET_EXEC or ET_DYN: their
// sections are where sh_addr plus the load bias says (libdwfl relocates
// ET_REL ones first, which never occur here).
void ModuleSymbols::read_sections(Elf *elf, uint64_t bias)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr) ||
		    ((shdr.sh_flags & SHF_ALLOC) && !elf_strptr(elf, shstrndx, shdr.sh_name))) {
			// libdwfl gives up on the whole table: no address has a section.
			sections_.clear();
			return;
		}
		if (shdr.sh_flags & SHF_ALLOC)
			sections_.push_back({shdr.sh_addr + bias,
					     shdr.sh_addr + bias + shdr.sh_size, elf_ndxscn(scn)});
	}
	std::sort(sections_.begin(), sections_.end(), [](const Section &a, const Section &b) {
		return std::tie(a.start, a.end, a.index) < std::tie(b.start, b.end, b.index);
	});
}

size_t ModuleSymbols::section_of(uint64_t addr) const
{
	size_t lo = 0, hi = sections_.size();
	while (lo < hi) {
		size_t i = (lo + hi) / 2;
		if (addr < sections_[i].start) {
			hi = i;
		} else if (addr > sections_[i].end) {
			lo = i + 1;
		} else {
			if (addr == sections_[i].end && i + 1 < sections_.size() &&
			    addr == sections_[i + 1].start)
				i++;
			return sections_[i].index;
		}
	}
	return SHN_UNDEF;
}

// One lookup's state: the best symbol with a size that covers addr, the
// best sizeless one (a label) as a fallback, and the lowest address a
// label may have, raised past the end of every symbol seen.
struct ModuleSymbols::Search {
	const ModuleSymbols &table;
	uint64_t addr;
	const Entry *closest = nullptr;
	const Entry *sizeless = nullptr;
	uint64_t min_label = 0;

	void scan(size_t from, size_t to)
	{
		for (size_t i = from; i < to; i++) {
			const Entry &e = table.entries_[i];
			if (e.addressable && e.sym.value <= addr)
				consider(e);
		}
	}

	void consider(const Entry &e)
	{
		const uint64_t value = e.sym.value, size = e.sym.size;
		// Even a symbol not chosen hides the labels it spans.
		min_label = std::max(min_label, value + size);
		if (size != 0 && addr - value >= size)
			return;
		if (!closest || closest->sym.value < value || closest->binding < e.binding) {
			// Closer to addr, or of a stronger binding.
			if (size != 0)
				closest = &e;
			else if (!closest && value >= min_label && same_section(e))
				sizeless = &e;
		} else if (size != 0 && closest->sym.value == value && closest->sym.size > size &&
			   closest->binding == e.binding) {
			// The same start and binding: the shorter one; on a tie, the first.
			closest = &e;
		}
	}

	bool same_section(const Entry &e) const
	{
		// Absolute symbols (and those outside SHF_ALLOC sections) only
		// match exactly.
		if (e.shndx >= SHN_LORESERVE)
			return e.sym.value == addr;
		return table.section_of(e.sym.value) == table.section_of(addr);
	}
};

std::optional<ModuleSymbols::Symbol> ModuleSymbols::covering(uint64_t addr) const
{
	Search s{*this, addr};
	s.scan(first_global_, entries_.size());
	// Locals only when no global covers addr, unless a global label sits
	// right at it.
	if (!s.closest && (!s.sizeless || s.sizeless->sym.value != addr))
		s.scan(0, first_global_);
	if (s.closest)
		return s.closest->sym;
	if (s.sizeless && s.sizeless->sym.value >= s.min_label)
		return s.sizeless->sym;
	return std::nullopt;
}

std::optional<ModuleSymbols::Symbol> ModuleSymbols::named(std::string_view name) const
{
	for (const Entry &e : entries_)
		if (name == e.sym.name)
			return e.sym;
	return std::nullopt;
}

} // namespace ljcore
