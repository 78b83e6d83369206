#include "readers/core_writer.h"

#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <zstd.h>

namespace ljcore {

namespace {

template <typename T> void put(std::vector<std::byte> &out, const T &v)
{
	auto *p = reinterpret_cast<const std::byte *>(&v);
	out.insert(out.end(), p, p + sizeof v);
}

void pad4(std::vector<std::byte> &out)
{
	while (out.size() % 4)
		out.push_back(std::byte{0});
}

} // namespace

void append_note(std::vector<std::byte> &notes, const std::string &name, uint32_t type,
		 std::span<const std::byte> desc)
{
	Elf64_Nhdr nh{uint32_t(name.size() + 1), uint32_t(desc.size()), type};
	put(notes, nh);
	auto *n = reinterpret_cast<const std::byte *>(name.c_str());
	notes.insert(notes.end(), n, n + name.size() + 1);
	pad4(notes);
	notes.insert(notes.end(), desc.begin(), desc.end());
	pad4(notes);
}

Expected<std::vector<std::byte>> core_image(const CoreContents &c, bool compress)
{
	const size_t nphdr = 1 + c.memory.size();
	const uint64_t page = 4096;
	Elf64_Ehdr eh{};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = arch_info(c.arch).e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof eh;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	if (nphdr >= PN_XNUM)
		return fail("snapshot needs " + std::to_string(nphdr) +
			    " segments, more than an ELF core header can count");
	eh.e_phnum = uint16_t(nphdr);

	// Layout as the kernel writes it: headers, notes, then page-aligned
	// memory.
	uint64_t notes_off = sizeof eh + nphdr * sizeof(Elf64_Phdr);
	uint64_t off = (notes_off + c.notes.size() + page - 1) / page * page;
	std::vector<Elf64_Phdr> ph;
	ph.push_back(Elf64_Phdr{PT_NOTE, 0, notes_off, 0, 0, c.notes.size(), 0, 4});
	for (auto &m : c.memory) {
		uint32_t flags = PF_R | (m.writable ? PF_W : 0) | (m.executable ? PF_X : 0);
		ph.push_back(Elf64_Phdr{PT_LOAD, flags, off, m.vaddr, 0, m.bytes.size(),
					m.bytes.size(), page});
		off += (m.bytes.size() + page - 1) / page * page;
	}

	std::vector<std::byte> image;
	put(image, eh);
	for (auto &p : ph)
		put(image, p);
	image.insert(image.end(), c.notes.begin(), c.notes.end());
	for (size_t i = 0; i < c.memory.size(); i++) {
		image.resize(ph[i + 1].p_offset);
		image.insert(image.end(), c.memory[i].bytes.begin(), c.memory[i].bytes.end());
	}
	if (compress) {
		std::vector<std::byte> packed(ZSTD_compressBound(image.size()));
		size_t n =
			ZSTD_compress(packed.data(), packed.size(), image.data(), image.size(), 19);
		if (ZSTD_isError(n))
			return fail(std::string("zstd: ") + ZSTD_getErrorName(n));
		packed.resize(n);
		image.swap(packed);
	}
	return image;
}

Expected<void> write_core(const std::string &path, const CoreContents &c, bool compress)
{
	auto image = core_image(c, compress);
	if (!image)
		return std::unexpected(image.error());
	std::ofstream out(path, std::ios::binary | std::ios::trunc);
	if (!out)
		return fail(path + ": " + strerror(errno));
	out.write(reinterpret_cast<const char *>(image->data()), std::streamsize(image->size()));
	out.flush();
	if (!out)
		return fail(path + ": write failed");
	return {};
}

} // namespace ljcore
