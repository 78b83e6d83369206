// Mapped files of a process whose core has no NT_FILE note (qemu-user
// writes none): the executable from AT_ENTRY and its ELF headers on disk,
// the shared libraries from the dynamic linker's r_debug/link_map chain.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "readers/diagnostics.h"
#include "readers/mapped_files.h"
#include "readers/memory.h"

namespace ljcore {

using CoreOnlyRead = std::function<std::expected<void, ReadMiss>(uint64_t, std::span<std::byte>)>;

struct LoadedModule {
	std::string path;  // as the process named it
	uint64_t bias = 0; // load bias: address = bias + p_vaddr
};

struct LinkMapResult {
	std::vector<FileMapping> mappings;
	std::vector<LoadedModule> modules;
	std::string exe_path; // as the process named it
	Diagnostics diagnostics;
};

// exe_path: the executable's path as the process saw it (AT_EXECFN), or
// empty. Files are looked up on disk through lookup (--exe, --sysroot).
LinkMapResult mappings_from_link_map(const CoreOnlyRead &read, uint64_t at_entry,
				     const std::string &exe_path, const FileLookup &lookup);

} // namespace ljcore
