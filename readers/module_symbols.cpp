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

ModuleSymbols::ModuleSymbols(Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);
	if (n <= 0 || first_global < 0)
		return;
	// Index 0 is the null symbol. Without a table of locals (first_global
	// 0: only .dynsym, read through the program headers) every entry is
	// searched as a global, and the locals' range is empty.
	size_t globals_from = size_t(std::max(first_global, 1));
	entries_.reserve(size_t(n));
	for (int i = 1; i < n; i++) {
		if (size_t(i) == globals_from)
			first_global_ = entries_.size();
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name =
			dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, nullptr, nullptr);
		// What no lookup could return, by name or address, is left out:
		// it cannot change any choice either.
		if (!name || !*name || sym.st_shndx == SHN_UNDEF)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		entries_.push_back({{name, value, sym.st_size},
				    shndx,
				    binding_rank(sym.st_info),
				    type != STT_SECTION && type != STT_FILE && type != STT_TLS});
	}
	if (globals_from >= size_t(n))
		first_global_ = entries_.size();
	GElf_Addr bias;
	if (Elf *elf = dwfl_module_getelf(mod, &bias))
		read_sections(elf, bias);
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
