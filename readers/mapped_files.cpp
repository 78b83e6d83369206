#include "readers/mapped_files.h"

#include <algorithm>
#include <cstring>

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ljcore {

std::string hex_string(const void *data, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	std::string out;
	auto *p = static_cast<const unsigned char *>(data);
	for (size_t i = 0; i < size; i++) {
		out += digits[p[i] >> 4];
		out += digits[p[i] & 15];
	}
	return out;
}

struct MappedFiles::OpenFile {
	FileStatus status;
	const std::byte *image = nullptr;
	size_t size = 0;

	~OpenFile()
	{
		if (image)
			munmap(const_cast<std::byte *>(image), size);
	}
};

MappedFiles::MappedFiles(std::vector<FileMapping> mappings, FileLookup lookup, std::string exe_path,
			 CoreReader core_only)
    : mappings_(std::move(mappings)), lookup_(std::move(lookup)), exe_path_(std::move(exe_path)),
      core_only_(std::move(core_only))
{
	std::sort(mappings_.begin(), mappings_.end(),
		  [](auto &a, auto &b) { return a.start < b.start; });
}

MappedFiles::~MappedFiles() = default;

const FileMapping *MappedFiles::mapping_at(uint64_t addr) const
{
	auto it = std::upper_bound(mappings_.begin(), mappings_.end(), addr,
				   [](uint64_t a, const FileMapping &m) { return a < m.start; });
	if (it == mappings_.begin())
		return nullptr;
	--it;
	return addr < it->end ? &*it : nullptr;
}

std::string MappedFiles::disk_path(const std::string &core_path) const
{
	if (lookup_.core_only)
		return {};
	if (!lookup_.exe.empty() && core_path == exe_path_)
		return lookup_.exe;
	return lookup_.sysroot + core_path;
}

std::optional<std::string> MappedFiles::core_build_id(uint64_t base) const
{
	auto read = [&](uint64_t addr, void *dst, size_t n) {
		return bool(core_only_(addr, std::span(static_cast<std::byte *>(dst), n)));
	};
	Elf64_Ehdr eh;
	if (!read(base, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		return std::nullopt;
	// The notes of an ELF file sit in its first page, right after the
	// program headers, so base + p_offset is their address.
	for (unsigned i = 0; i < std::min<unsigned>(eh.e_phnum, 64); i++) {
		Elf64_Phdr ph;
		if (!read(base + eh.e_phoff + i * sizeof ph, &ph, sizeof ph))
			return std::nullopt;
		if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
			continue;
		std::vector<unsigned char> notes(ph.p_filesz);
		if (!read(base + ph.p_offset, notes.data(), notes.size()))
			continue;
		size_t off = 0;
		while (off + sizeof(Elf64_Nhdr) <= notes.size()) {
			Elf64_Nhdr nh;
			memcpy(&nh, &notes[off], sizeof nh);
			size_t name_off = off + sizeof nh;
			size_t desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
			size_t next = desc_off + ((nh.n_descsz + 3) & ~3u);
			if (next > notes.size() || desc_off + nh.n_descsz > notes.size())
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(&notes[name_off], "GNU", 4) == 0)
				return hex_string(&notes[desc_off], nh.n_descsz);
			off = next;
		}
	}
	return std::nullopt;
}

static std::optional<std::string> file_build_id(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
	if (!elf)
		return std::nullopt;
	const void *bits = nullptr;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
	std::optional<std::string> id;
	if (n > 0)
		id = hex_string(bits, size_t(n));
	elf_end(elf);
	return id;
}

const MappedFiles::OpenFile &MappedFiles::open(const std::string &core_path) const
{
	std::lock_guard lock(open_mutex_);
	auto &slot = open_[core_path];
	if (slot)
		return *slot;
	slot = std::make_unique<OpenFile>();
	OpenFile &f = *slot;
	f.status.core_path = core_path;
	f.status.disk_path = disk_path(core_path);
	if (f.status.disk_path.empty()) {
		f.status.detail = "not looked for: only the core is read";
		return f;
	}
	int fd = ::open(f.status.disk_path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		f.status.detail = f.status.disk_path + ": " + strerror(errno);
		return f;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		f.status.detail = f.status.disk_path + ": empty or unreadable";
		close(fd);
		return f;
	}
	std::optional<std::string> expected;
	for (auto &m : mappings_)
		if (m.path == core_path && m.file_offset == 0) {
			expected = core_build_id(m.start);
			break;
		}
	std::optional<std::string> actual = file_build_id(fd);
	if (expected && actual != expected) {
		f.status.check = BuildIdCheck::mismatched;
		f.status.detail = f.status.disk_path + ": build-id " + actual.value_or("none") +
				  " differs from the core's " + *expected;
		close(fd);
		return f;
	}
	void *image = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (image == MAP_FAILED) {
		f.status.detail = f.status.disk_path + ": mmap: " + strerror(errno);
		return f;
	}
	f.image = static_cast<const std::byte *>(image);
	f.size = size_t(st.st_size);
	f.status.check = expected ? BuildIdCheck::matched : BuildIdCheck::unverified;
	return f;
}

std::expected<void, ReadMiss> MappedFiles::read(uint64_t addr, std::span<std::byte> out) const
{
	size_t done = 0;
	while (done < out.size()) {
		uint64_t at = addr + done;
		const FileMapping *m = mapping_at(at);
		if (!m)
			return std::unexpected(ReadMiss{at, "not mapped in the process"});
		const OpenFile &f = open(m->path);
		if (!f.image)
			return std::unexpected(
				ReadMiss{at, "not in the core, and its file is unusable (" +
						     f.status.detail + ")"});
		uint64_t file_off = m->file_offset + (at - m->start);
		size_t n = std::min<uint64_t>(out.size() - done, m->end - at);
		if (file_off >= f.size || n > f.size - file_off)
			return std::unexpected(
				ReadMiss{at, "past the end of " + f.status.disk_path});
		memcpy(out.data() + done, f.image + file_off, n);
		done += n;
	}
	return {};
}

std::vector<FileStatus> MappedFiles::statuses() const
{
	std::vector<FileStatus> out;
	std::lock_guard lock(open_mutex_);
	for (auto &[path, f] : open_)
		out.push_back(f->status);
	return out;
}

} // namespace ljcore
