// Writing an ELF core: notes plus the memory pieces given, nothing else.
// Used for minimized snapshots that gdb and eu-stack can still open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "readers/arch/arch.h"
#include "readers/error.h"
#include "readers/target.h"

namespace ljcore {

struct CorePiece {
	uint64_t vaddr = 0;
	std::vector<std::byte> bytes;
	bool writable = false;
	bool executable = false;
};

struct CoreContents {
	Arch arch = Arch::x86_64;
	std::vector<std::byte> notes;  // encoded notes (see append_note)
	std::vector<CorePiece> memory; // sorted by vaddr, not overlapping
};

// Appends one ELF note (4-byte aligned name and descriptor).
void append_note(std::vector<std::byte> &notes, const std::string &name, uint32_t type,
		 std::span<const std::byte> desc);

// The bytes of the core file; zstd-compressed when compress is set.
Expected<std::vector<std::byte>> core_image(const CoreContents &contents, bool compress = false);

// Writes the core; compressed with zstd (which ljcore reads back directly)
// when compress is set.
Expected<void> write_core(const std::string &path, const CoreContents &contents,
			  bool compress = false);

} // namespace ljcore
