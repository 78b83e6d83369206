// The ELF core reader alone: headers, program headers, every note (process,
// threads, signal, auxv, NT_FILE), zstd frames, and reads through what it
// found. Only the input is read: no file of this machine.
#include <array>
#include <cstddef>
#include <cstdint>

#include "readers/elf_core.h"
#include "tests/fuzz/memfd_file.h"

using namespace ljcore;

namespace {

// Reads around an address the core names, the way the analysis will.
void read_around(const ElfCore &core, uint64_t addr)
{
	std::array<std::byte, 64> buf;
	(void)core.read(addr, buf);
	(void)core.read_core_only(addr - 8, buf);
	(void)core.view(addr);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::MemfdFile file(data, size);
	FileLookup lookup;
	lookup.core_only = true;
	auto core = ElfCore::open(file.path(), lookup);
	if (!core)
		return 0;
	const ElfCore &c = **core;
	for (auto &t : c.threads())
		read_around(c, t.regs.sp);
	for (auto &seg : c.segments()) {
		(void)c.segment_bytes(seg);
		read_around(c, seg.vaddr + seg.memsz);
	}
	for (auto &[type, value] : c.auxv())
		read_around(c, value);
	for (auto &m : c.files().mappings()) {
		read_around(c, m.start);
		(void)c.files().core_build_id(m.start);
	}
	size_t pieces = 0;
	c.visit_writable([&](uint64_t, std::span<const std::byte>) { ++pieces; });
	(void)c.diagnostics();
	(void)c.file_statuses();
	return 0;
}
