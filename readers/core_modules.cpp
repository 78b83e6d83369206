#include "readers/core_modules.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <optional>
#include <span>

namespace ljcore {

namespace {

constexpr uint64_t page = 4096;
constexpr unsigned max_phdrs = 64;

struct Reader {
	const MappedFiles::CoreReader &read;

	template <typename T> bool get(uint64_t addr, T *out) const
	{
		return bool(read(addr, std::as_writable_bytes(std::span(out, 1))));
	}
};

// The GNU build-id note among the notes at [addr, addr+size), read from
// the core.
void find_build_id(const Reader &r, uint64_t addr, uint64_t size, CoreModule &m)
{
	std::vector<unsigned char> notes(size);
	if (!r.read(addr, std::as_writable_bytes(std::span(notes))))
		return;
	for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= notes.size();) {
		Elf64_Nhdr nh;
		memcpy(&nh, &notes[off], sizeof nh);
		size_t name_off = off + sizeof nh;
		size_t desc_off = name_off + ((uint64_t(nh.n_namesz) + 3) & ~uint64_t(3));
		size_t next = desc_off + ((uint64_t(nh.n_descsz) + 3) & ~uint64_t(3));
		if (next > notes.size() || desc_off + nh.n_descsz > notes.size())
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(&notes[name_off], "GNU", 4) == 0 && nh.n_descsz > 0) {
			m.build_id.assign(&notes[desc_off], &notes[desc_off + nh.n_descsz]);
			m.build_id_addr = addr + desc_off;
			return;
		}
		off = next;
	}
}

// The module whose ELF header the core holds where map starts, if any.
std::optional<CoreModule> module_at(const Reader &r, const FileMapping &map)
{
	Elf64_Ehdr eh;
	if (!r.get(map.start, &eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > max_phdrs || eh.e_phoff >= page)
		return std::nullopt;
	std::vector<Elf64_Phdr> phdrs(eh.e_phnum);
	if (!r.read(map.start + eh.e_phoff, std::as_writable_bytes(std::span(phdrs))))
		return std::nullopt;
	// The segment that maps the header (file offset 0) gives the load bias.
	auto first = std::find_if(phdrs.begin(), phdrs.end(), [](const Elf64_Phdr &ph) {
		return ph.p_type == PT_LOAD && ph.p_offset < page;
	});
	if (first == phdrs.end())
		return std::nullopt;
	const uint64_t bias = map.start - (first->p_vaddr - first->p_offset);
	CoreModule m;
	m.path = map.path;
	m.start = UINT64_MAX;
	for (const Elf64_Phdr &ph : phdrs) {
		if (ph.p_type == PT_LOAD) {
			m.start = std::min(m.start, bias + (ph.p_vaddr & ~(page - 1)));
			m.end = std::max(m.end, bias + ph.p_vaddr + ph.p_memsz);
		} else if (ph.p_type == PT_NOTE && m.build_id.empty() && ph.p_filesz <= page) {
			find_build_id(r, bias + ph.p_vaddr, ph.p_filesz, m);
		}
	}
	if (m.end <= m.start)
		return std::nullopt;
	return m;
}

} // namespace

std::vector<CoreModule> core_modules(const std::vector<FileMapping> &mappings,
				     const MappedFiles::CoreReader &read)
{
	const Reader r{read};
	std::vector<CoreModule> out;
	for (const FileMapping &map : mappings)
		if (map.file_offset == 0)
			if (auto m = module_at(r, map))
				out.push_back(std::move(*m));
	return out;
}

} // namespace ljcore
