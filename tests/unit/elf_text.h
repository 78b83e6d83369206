// The .text of an x86_64 ELF file, for tests that decode a whole binary.
#pragma once

#include <doctest/doctest.h>

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace ljcore {

// The bytes and address of an x86_64 ELF file's .text.
inline std::pair<std::vector<uint8_t>, uint64_t> text_of(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), {});
	REQUIRE(file.size() > sizeof(Elf64_Ehdr));
	Elf64_Ehdr eh;
	memcpy(&eh, file.data(), sizeof eh);
	REQUIRE(eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) <= file.size());
	auto section = [&](unsigned i) {
		Elf64_Shdr sh;
		memcpy(&sh, file.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
		return sh;
	};
	Elf64_Shdr names = section(eh.e_shstrndx);
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh = section(i);
		if (sh.sh_offset + sh.sh_size > file.size() ||
		    names.sh_offset + sh.sh_name >= file.size())
			continue;
		if (strcmp(reinterpret_cast<const char *>(file.data() + names.sh_offset +
							  sh.sh_name),
			   ".text") == 0)
			return {std::vector<uint8_t>(file.begin() + long(sh.sh_offset),
						     file.begin() +
							     long(sh.sh_offset + sh.sh_size)),
				sh.sh_addr};
	}
	FAIL("no .text in " << path);
	return {};
}

} // namespace ljcore
