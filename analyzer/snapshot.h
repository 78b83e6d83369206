// Minimized cores: keep only the memory that the full analysis reads, so a
// regression fixture is kilobytes instead of hundreds of megabytes.
#pragma once

#include <string>

#include "analyzer/analyze.h"
#include "analyzer/session.h"
#include "readers/core_writer.h"

namespace ljcore {

struct SnapshotResult {
	uint64_t pages = 0;        // memory pages kept
	uint64_t bytes = 0;        // size of the snapshot file
	uint64_t source_bytes = 0; // size of what it was made from
	uint64_t paused_us = 0;    // for a live process: how long it was stopped
};

// Analyzes the core (and its traces) while recording what is read, adds
// what native unwinding needs (thread stacks, ELF headers of mapped
// files), and writes those pages with the core's own notes. Every
// coroutine is kept only with options.all_coroutines: finding them walks
// the whole GC heap, and a page of each object is most of a big heap.
// out_path ending in ".zst" is written zstd-compressed.
// only_read_bytes: the bytes of a kept page the analysis did not read
// (in 4-byte words) are written as zeros, which compresses to nearly
// nothing, and of the modules only their ELF headers are kept. For
// regression fixtures, which only ljcore reads back; a debugger would take
// those zeros for the process's data.
Expected<SnapshotResult> snapshot_core(const std::string &core_path, const std::string &out_path,
				       const AnalyzeOptions &options, bool only_read_bytes = false);

// What snapshot_core writes, of a core already open (`ljcore catch`: a
// core's head over the dying process's memory), for the caller to change
// (catch --redact) and write where and how it must (core_image).
CoreContents snapshot_contents(const CoreSession &session, const AnalyzeOptions &options);

// The same for a running process: its threads stay stopped while the
// analysis runs and the pages it read are copied, then run on; the
// notes are those the kernel would write. Never writes to the process.
// With options.all_coroutines the heap walk also stops it much longer.
// source_bytes is the size of the process's mappings.
Expected<SnapshotResult> snapshot_pid(int32_t pid, const std::string &out_path,
				      const AnalyzeOptions &options);

} // namespace ljcore
