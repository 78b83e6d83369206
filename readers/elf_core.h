// An ELF core file (kernel or gdb gcore): its PT_LOAD segments, mapped and
// never copied, and what its notes say about the process and its threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <libelf.h>

#include "readers/core_image.h"
#include "readers/error.h"
#include "readers/link_map.h"
#include "readers/mapped_files.h"
#include "readers/memory.h"
#include "readers/target.h"

namespace ljcore {

struct CoreSegment {
	uint64_t vaddr = 0;
	uint64_t memsz = 0;
	uint64_t offset = 0;
	uint64_t filesz = 0;
	bool writable = false; // PF_W: data, heap, stacks, JIT code
};

class ElfCore final : public Target {
public:
	static Expected<std::unique_ptr<ElfCore>> open(const std::string &path, FileLookup lookup);
	// The head of a core the kernel is still writing (its headers and
	// notes, `ljcore catch`): what the file does not hold yet of each
	// segment's p_filesz bytes is read from the dying process's memory.
	static Expected<std::unique_ptr<ElfCore>>
	open_head(const std::string &path, FileLookup lookup, const Memory &unwritten);
	~ElfCore() override;
	ElfCore(const ElfCore &) = delete;
	ElfCore &operator=(const ElfCore &) = delete;

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override;

	MemoryView view(uint64_t addr) const override;
	// The core is mapped read-only; files behind it open under a lock. A
	// core's head reads the rest from a Memory that may not allow it.
	bool concurrent_reads() const override
	{
		return !unwritten_ || unwritten_->concurrent_reads();
	}

	// Only what the core file itself holds, never served from disk.
	std::expected<void, ReadMiss> read_core_only(uint64_t addr, std::span<std::byte> out) const;

	// The bytes of a segment that the file holds (fewer than filesz when
	// the core is truncated), for scans that look at every word.
	std::span<const std::byte> segment_bytes(const CoreSegment &seg) const;

	const std::string &path() const { return path_; }
	bool compressed() const { return image_->decompressed(); }
	Arch arch() const override { return arch_; }
	Elf *elf() const { return elf_; }
	const ProcessInfo &process() const override { return process_; }
	const std::optional<SignalInfo> &signal() const override { return signal_; }
	// In note order: the kernel writes the thread that crashed first.
	const std::vector<ThreadInfo> &threads() const override { return threads_; }
	void visit_writable(const Visitor &visit) const override;
	bool writable(uint64_t addr) const override;
	const Diagnostics &diagnostics() const override { return diagnostics_; }
	std::vector<FileStatus> file_statuses() const override { return files_->statuses(); }
	const std::vector<CoreSegment> &segments() const { return segments_; }
	const std::vector<std::pair<uint64_t, uint64_t>> &auxv() const { return auxv_; }
	std::optional<uint64_t> auxv_value(uint64_t type) const;
	const MappedFiles &files() const { return *files_; }
	// When the core had no NT_FILE note: the modules found through the
	// link_map chain instead (empty otherwise).
	const std::vector<LoadedModule> &modules_without_nt_file() const { return modules_; }
	// The note segments as they are in the file, for writing snapshots.
	const std::vector<std::byte> &raw_notes() const { return raw_notes_; }
	// Whether this is a core's head read with the process's memory.
	bool head_only() const { return unwritten_ != nullptr; }

private:
	ElfCore() = default;
	static Expected<std::unique_ptr<ElfCore>>
	open_with(const std::string &path, FileLookup lookup, const Memory *unwritten);
	Expected<void> load_segments();
	Expected<void> load_notes();
	void mappings_from_memory(const FileLookup &lookup);
	// Reads one note of the "CORE" owner; each kind by its own function.
	void parse_note(uint32_t type, const std::byte *desc, size_t size);
	void read_prstatus(const std::byte *desc, size_t size);
	void read_prfpreg(const std::byte *desc, size_t size);
	void read_prpsinfo(const std::byte *desc, size_t size);
	void read_siginfo(const std::byte *desc, size_t size);
	void read_auxv(const std::byte *desc, size_t size);
	void read_file_note(const std::byte *desc, size_t size);
	const CoreSegment *segment_at(uint64_t addr) const;
	void visit_unwritten(const Visitor &visit) const;

	std::string path_;
	std::unique_ptr<CoreImage> image_;
	Elf *elf_ = nullptr;
	Arch arch_ = Arch::x86_64;
	ProcessInfo process_;
	std::optional<SignalInfo> signal_;
	std::vector<ThreadInfo> threads_;
	std::vector<CoreSegment> segments_; // sorted by vaddr
	// Tells this core's segments from another's in segment_at()'s
	// per-thread memory of the last segment it found.
	uint64_t serial_ = 0;
	std::vector<std::pair<uint64_t, uint64_t>> auxv_;
	std::vector<FileMapping> file_mappings_;
	std::unique_ptr<MappedFiles> files_;
	Diagnostics diagnostics_;
	std::vector<std::byte> raw_notes_;
	std::vector<LoadedModule> modules_;
	const Memory *unwritten_ = nullptr; // open_head()'s process memory
};

} // namespace ljcore
