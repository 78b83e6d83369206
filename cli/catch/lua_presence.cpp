#include "cli/catch/lua_presence.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <set>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include "cli/catch/files.h"

namespace ljcore::catching {

namespace {

// Bounds on what a mapped file, which the crashed process may have made,
// can make the handler read: a .dynsym or .dynstr this big is no library's.
constexpr uint64_t max_table_bytes = 16 << 20;
constexpr unsigned max_sections = 1 << 14;
constexpr size_t max_maps_bytes = 16 << 20;
constexpr size_t max_files = 4096;
// And on all of them together: past it, the analysis (which the deadline
// bounds) decides. The root handler reads these before any deadline.
constexpr uint64_t max_total_bytes = 64 << 20;
// A file served by FUSE may be the crashed process's own server's, whose
// reads need never return.
constexpr long fuse_magic = 0x65735546;
constexpr int served_by_fuse = -2;

// Symbols only LuaJIT (and, for lua_close, other Luas) defines.
constexpr std::string_view luajit_api[] = {"luaJIT_setmode", "lua_close"};

bool read_all(int fd, void *to, uint64_t size, uint64_t offset)
{
	auto *p = static_cast<char *>(to);
	while (size > 0) {
		ssize_t r = pread(fd, p, size, off_t(offset));
		if (r <= 0)
			return false;
		p += r;
		size -= uint64_t(r);
		offset += uint64_t(r);
	}
	return true;
}

// Whether the dynamic symbol table sym (its strings in str) defines one of
// luajit_api.
bool table_defines_api(int fd, const Elf64_Shdr &sym, const Elf64_Shdr &str, uint64_t &budget)
{
	if (sym.sh_entsize != sizeof(Elf64_Sym) || sym.sh_size > max_table_bytes ||
	    str.sh_size > max_table_bytes || str.sh_size == 0)
		return false;
	if (sym.sh_size + str.sh_size > budget) {
		budget = 0;
		return false;
	}
	budget -= sym.sh_size + str.sh_size;
	std::vector<char> names(str.sh_size);
	if (!read_all(fd, names.data(), names.size(), str.sh_offset))
		return false;
	names.back() = '\0'; // every name ends inside the table
	std::vector<Elf64_Sym> syms(sym.sh_size / sizeof(Elf64_Sym));
	if (!read_all(fd, syms.data(), syms.size() * sizeof(Elf64_Sym), sym.sh_offset))
		return false;
	for (const Elf64_Sym &s : syms) {
		if (s.st_shndx == SHN_UNDEF || s.st_name >= names.size())
			continue;
		std::string_view name(names.data() + s.st_name);
		for (std::string_view api : luajit_api)
			if (name == api)
				return true;
	}
	return false;
}

// Whether the ELF file open at fd defines LuaJIT's API in its .dynsym;
// what it reads is taken from budget (0: it was not enough).
bool file_defines_api(int fd, uint64_t &budget)
{
	Elf64_Ehdr eh;
	if (!read_all(fd, &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shnum == 0 || eh.e_shnum > max_sections)
		return false;
	std::vector<Elf64_Shdr> sections(eh.e_shnum);
	if (!read_all(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr), eh.e_shoff))
		return false;
	for (const Elf64_Shdr &s : sections)
		if (s.sh_type == SHT_DYNSYM && s.sh_link < sections.size())
			return table_defines_api(fd, s, sections[s.sh_link], budget);
	return false;
}

// Opens path for reading when it is a regular file (opening a device
// node a process maps, a GPU or a frame buffer, may do something);
// served_by_fuse when FUSE serves it, unread.
int open_regular(const char *path)
{
	int at = open(path, O_PATH | O_CLOEXEC);
	if (at < 0)
		return -1;
	struct stat st;
	struct statfs fs;
	int fd = -1;
	if (fstatfs(at, &fs) == 0 && fs.f_type == fuse_magic)
		fd = served_by_fuse;
	else if (fstat(at, &st) == 0 && S_ISREG(st.st_mode)) {
		std::string self = "/proc/self/fd/" + std::to_string(at);
		fd = open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(at);
	return fd;
}

} // namespace

bool may_hold_luajit(int32_t pid)
{
	const std::string proc = "/proc/" + std::to_string(pid);
	auto maps = read_small_file(proc + "/maps", max_maps_bytes);
	if (!maps)
		return true;
	// Each file once, whatever number of mappings it has.
	std::set<std::pair<uint64_t, uint64_t>> seen; // (device, inode)
	bool opened_any = false;
	uint64_t budget = max_total_bytes;
	size_t at = 0;
	while (at < maps->size() && seen.size() < max_files) {
		size_t nl = maps->find('\n', at);
		std::string line = maps->substr(at, nl == std::string::npos ? nl : nl - at);
		at = nl == std::string::npos ? maps->size() : nl + 1;
		uint64_t start, end, inode;
		unsigned major, minor;
		if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %*s %*s %x:%x %" SCNu64,
				&start, &end, &major, &minor, &inode) != 5 ||
		    inode == 0 || !seen.insert({uint64_t(major) << 32 | minor, inode}).second)
			continue;
		// map_files names the very file mapped, in a container too, and
		// follows no path the process could have changed since.
		char name[64];
		std::snprintf(name, sizeof name, "/map_files/%" PRIx64 "-%" PRIx64, start, end);
		int fd = open_regular((proc + name).c_str());
		if (fd == served_by_fuse)
			return true;
		if (fd < 0)
			continue;
		opened_any = true;
		bool found = file_defines_api(fd, budget);
		close(fd);
		if (found || budget == 0)
			return true;
	}
	return !opened_any;
}

} // namespace ljcore::catching
