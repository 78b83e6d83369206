// The modules of a core as the core alone records them, for an analysis
// that must not depend on the files of the machine it runs on
// (FileLookup::core_only). libdwfl's own core reporting cannot do that: it
// opens every path that NT_FILE and the link_map chain name, and takes
// what it finds there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "readers/mapped_files.h"

namespace ljcore {

struct CoreModule {
	std::string path;                    // as recorded in NT_FILE
	uint64_t start = 0, end = 0;         // what its PT_LOAD segments span
	std::vector<unsigned char> build_id; // empty when the core has none
	uint64_t build_id_addr = 0;          // of the build-id bits, in the process
};

// Each file mapped from offset 0 whose ELF header the core kept, with its
// bounds from the program headers and its build-id from the notes in the
// same first page (where the kernel's and ljcore's own cores keep them).
std::vector<CoreModule> core_modules(const std::vector<FileMapping> &mappings,
				     const MappedFiles::CoreReader &read);

} // namespace ljcore
