// Files the process had mapped (NT_FILE), used to serve reads of file-backed
// memory that a core leaves out (kernel cores keep only the first page of
// each ELF mapping, gcore keeps none). A file is only trusted when its
// build-id matches the one the core recorded.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "readers/memory.h"

namespace ljcore {

struct FileMapping {
	uint64_t start = 0;
	uint64_t end = 0;
	uint64_t file_offset = 0; // in bytes
	std::string path;         // as the process saw it
};

// Where to look for the files named in a core.
struct FileLookup {
	std::string exe;     // --exe: replaces the main executable's path
	std::string sysroot; // --sysroot: prefix for every other path
	// Read the core alone, no file of this machine: what a regression
	// fixture pins must not depend on which files the checker has.
	bool core_only = false;
};

enum class BuildIdCheck { matched, unverified, mismatched, unreadable };

struct FileStatus {
	std::string core_path; // path recorded in the core
	std::string disk_path; // where we looked on this machine
	BuildIdCheck check = BuildIdCheck::unreadable;
	std::string detail; // why a file is unusable
};

class MappedFiles {
public:
	// core_only reads memory the core itself holds (for the ELF headers
	// and build-id notes of each mapping). exe_path is the main
	// executable's path as recorded in the core, if known.
	using CoreReader =
		std::function<std::expected<void, ReadMiss>(uint64_t, std::span<std::byte>)>;
	MappedFiles(std::vector<FileMapping> mappings, FileLookup lookup, std::string exe_path,
		    CoreReader core_only);
	~MappedFiles();

	const std::vector<FileMapping> &mappings() const { return mappings_; }
	const FileMapping *mapping_at(uint64_t addr) const;
	const std::string &exe_path() const { return exe_path_; }

	// The path on this machine for a path recorded in the core; empty when
	// only the core is read (FileLookup::core_only).
	std::string disk_path(const std::string &core_path) const;
	bool core_only() const { return lookup_.core_only; }

	// Serves [addr, addr+out.size()) from the file behind its mapping.
	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const;

	// What was found for every file opened so far.
	std::vector<FileStatus> statuses() const;

	// The build-id the core recorded for the file mapped at base, if the
	// core holds its ELF header and notes.
	std::optional<std::string> core_build_id(uint64_t base) const;

private:
	struct OpenFile;
	const OpenFile &open(const std::string &core_path) const;

	std::vector<FileMapping> mappings_; // sorted by start
	FileLookup lookup_;
	std::string exe_path_;
	CoreReader core_only_;
	// Opened on first use, from any thread reading the core: an entry,
	// once made, does not change.
	mutable std::mutex open_mutex_;
	mutable std::map<std::string, std::unique_ptr<OpenFile>> open_;
};

std::string hex_string(const void *data, size_t size);

} // namespace ljcore
