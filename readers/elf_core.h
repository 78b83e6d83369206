// An ELF core file (kernel or gdb gcore): its PT_LOAD segments, mapped and
// never copied, and what its notes say about the process and its threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <libelf.h>

#include "readers/core_image.h"
#include "readers/error.h"
#include "readers/mapped_files.h"
#include "readers/memory.h"

namespace ljcore {

enum class Arch { x86_64, aarch64 };
const char *arch_name(Arch arch);

// Register file of one thread, indexed by DWARF register number (x86_64:
// rax=0 ... r15=15, rip=16; aarch64: x0..x30=0..30, sp=31, and pc kept at
// index 32 since DWARF gives it no number).
struct ThreadRegs {
	static constexpr int count = 33;
	std::array<uint64_t, count> dwarf{};
	uint64_t pc = 0;
	uint64_t sp = 0;
};

struct CoreThread {
	int32_t tid = 0;
	int cursig = 0; // signal that stopped this thread, 0 if none
	ThreadRegs regs;
};

struct CoreSignal {
	int signo = 0;
	int code = 0;
	uint64_t addr = 0; // si_addr: meaningful for SIGSEGV, SIGBUS, SIGILL, SIGFPE
};

struct CoreProcess {
	int32_t pid = 0;
	std::string name; // pr_fname
	std::string args; // pr_psargs
};

struct CoreSegment {
	uint64_t vaddr = 0;
	uint64_t memsz = 0;
	uint64_t offset = 0;
	uint64_t filesz = 0;
	bool writable = false; // PF_W: data, heap, stacks, JIT code
};

class ElfCore final : public Memory {
public:
	static Expected<std::unique_ptr<ElfCore>> open(const std::string &path,
						       FileLookup lookup);
	~ElfCore() override;
	ElfCore(const ElfCore &) = delete;
	ElfCore &operator=(const ElfCore &) = delete;

	std::expected<void, ReadMiss>
	read(uint64_t addr, std::span<std::byte> out) const override;

	// Only what the core file itself holds, never served from disk.
	std::expected<void, ReadMiss> read_core_only(uint64_t addr,
						     std::span<std::byte> out) const;

	// The bytes of a segment that the file holds (fewer than filesz when
	// the core is truncated), for scans that look at every word.
	std::span<const std::byte> segment_bytes(const CoreSegment &seg) const;

	const std::string &path() const { return path_; }
	bool compressed() const { return image_->decompressed(); }
	Arch arch() const { return arch_; }
	Elf *elf() const { return elf_; }
	const CoreProcess &process() const { return process_; }
	const std::optional<CoreSignal> &signal() const { return signal_; }
	// In note order: the kernel writes the thread that crashed first.
	const std::vector<CoreThread> &threads() const { return threads_; }
	const std::vector<CoreSegment> &segments() const { return segments_; }
	const std::vector<std::pair<uint64_t, uint64_t>> &auxv() const { return auxv_; }
	std::optional<uint64_t> auxv_value(uint64_t type) const;
	const MappedFiles &files() const { return *files_; }
	// Problems met while reading the notes that did not stop the reading.
	const std::vector<std::string> &warnings() const { return warnings_; }

private:
	ElfCore() = default;
	Expected<void> load_segments();
	Expected<void> load_notes();
	void parse_note(uint32_t type, const std::byte *desc, size_t size);
	const CoreSegment *segment_at(uint64_t addr) const;

	std::string path_;
	std::unique_ptr<CoreImage> image_;
	Elf *elf_ = nullptr;
	Arch arch_ = Arch::x86_64;
	CoreProcess process_;
	std::optional<CoreSignal> signal_;
	std::vector<CoreThread> threads_;
	std::vector<CoreSegment> segments_; // sorted by vaddr
	std::vector<std::pair<uint64_t, uint64_t>> auxv_;
	std::vector<FileMapping> file_mappings_;
	std::unique_ptr<MappedFiles> files_;
	std::vector<std::string> warnings_;
};

} // namespace ljcore
