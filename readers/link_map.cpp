#include "readers/link_map.h"

#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ljcore {

namespace {

constexpr uint64_t page = 4096;

struct ElfFile {
	Elf64_Ehdr eh{};
	std::vector<Elf64_Phdr> phdrs;
	bool ok = false;
};

ElfFile read_headers(const std::string &path)
{
	ElfFile f;
	if (path.empty()) // the core alone is read (FileLookup::core_only)
		return f;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return f;
	if (pread(fd, &f.eh, sizeof f.eh, 0) == ssize_t(sizeof f.eh) &&
	    memcmp(f.eh.e_ident, ELFMAG, SELFMAG) == 0 && f.eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    f.eh.e_phnum < 256) {
		f.phdrs.resize(f.eh.e_phnum);
		size_t n = f.phdrs.size() * sizeof(Elf64_Phdr);
		f.ok = pread(fd, f.phdrs.data(), n, off_t(f.eh.e_phoff)) == ssize_t(n);
	}
	close(fd);
	return f;
}

// The file's PT_LOAD segments as mappings at load bias `bias`.
void add_segments(const ElfFile &f, uint64_t bias, const std::string &path,
		  std::vector<FileMapping> &out)
{
	for (auto &ph : f.phdrs)
		if (ph.p_type == PT_LOAD && ph.p_filesz) {
			uint64_t start = (bias + ph.p_vaddr) & ~(page - 1);
			uint64_t end = (bias + ph.p_vaddr + ph.p_filesz + page - 1) & ~(page - 1);
			out.push_back({start, end, ph.p_offset & ~(page - 1), path});
		}
}

std::string disk_path(const FileLookup &lookup, const std::string &path, bool is_exe)
{
	if (lookup.core_only)
		return {};
	if (is_exe && !lookup.exe.empty())
		return lookup.exe;
	return lookup.sysroot + path;
}

} // namespace

LinkMapResult mappings_from_link_map(const CoreOnlyRead &read, uint64_t at_entry,
				     const std::string &exe_path, const FileLookup &lookup)
{
	LinkMapResult r;
	r.exe_path = exe_path.empty() ? lookup.exe : exe_path;
	auto rd = [&](uint64_t addr, void *dst, size_t n) {
		return bool(read(addr, std::span(static_cast<std::byte *>(dst), n)));
	};
	ElfFile exe = read_headers(disk_path(lookup, r.exe_path, true));
	if (!exe.ok || !at_entry) {
		r.diagnostics.problem("core has no NT_FILE note and the executable '" + r.exe_path +
				     "' cannot be read: modules unknown (try --exe)");
		return r;
	}
	uint64_t bias = at_entry - exe.eh.e_entry;
	add_segments(exe, bias, r.exe_path, r.mappings);
	r.modules.push_back({r.exe_path, bias});

	// DT_DEBUG in the executable's dynamic section leads to r_debug.
	uint64_t dynamic = 0;
	for (auto &ph : exe.phdrs)
		if (ph.p_type == PT_DYNAMIC)
			dynamic = bias + ph.p_vaddr;
	uint64_t r_debug = 0;
	for (unsigned i = 0; dynamic && i < 256; i++) {
		Elf64_Dyn dyn;
		if (!rd(dynamic + i * sizeof dyn, &dyn, sizeof dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_DEBUG)
			r_debug = dyn.d_un.d_ptr;
	}
	uint64_t lm = 0;
	if (!r_debug || !rd(r_debug + 8, &lm, 8)) {
		r.diagnostics.problem("no r_debug in the core: shared libraries unknown");
		return r;
	}
	// struct link_map { l_addr; l_name; l_ld; l_next; l_prev; } (<link.h>)
	for (unsigned n = 0; lm && n < 1024; n++) {
		uint64_t l[4];
		if (!rd(lm, l, sizeof l))
			break;
		char name[512] = {};
		for (size_t i = 0; l[1] && i + 1 < sizeof name; i++)
			if (!rd(l[1] + i, &name[i], 1) || !name[i])
				break;
		if (name[0] == '/') {
			ElfFile lib = read_headers(disk_path(lookup, name, false));
			if (lib.ok) {
				add_segments(lib, l[0], name, r.mappings);
				r.modules.push_back({name, l[0]});
			} else
				r.diagnostics.problem(std::string("cannot read ") +
						     disk_path(lookup, name, false));
		}
		lm = l[3];
	}
	return r;
}

} // namespace ljcore
