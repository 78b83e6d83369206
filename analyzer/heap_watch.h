// Live leak hunting: a few heap snapshots of a running process, and the
// paths from the roots whose bytes grew in every interval between them.
// Each snapshot stops the process only while its writable memory is
// copied (readers/frozen_memory.h); the heap is walked in the copy while
// the process runs on. Never writes to the process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/gc/big_array.h"
#include "analyzer/lua/vm.h"
#include "analyzer/profile/profiled_process.h"
#include "readers/frozen_memory.h"

namespace ljcore {

// Writable memory copied per snapshot, at most: past it the walk reads the
// running process and the snapshot is no longer one instant.
constexpr uint64_t max_copy_bytes = uint64_t(4) << 30;

struct HeapWatchOptions {
	int32_t pid = 0;
	bool children = false; // also pid's children (automatic for an nginx master)
	double every_s = 30;   // between the starts of two snapshots
	uint32_t count = 5;    // snapshots
	// Path steps below a root that are told apart: "_G.app.cache" at 2.
	uint32_t depth = 4;
	// Polled while waiting: true ends the watch after the snapshots taken.
	std::function<bool()> stop;
	// Called after each snapshot of each process: (pid, snapshot number).
	std::function<void(int32_t, size_t)> progress;
};

// One snapshot of one VM.
struct HeapSnapshot {
	double at_s = 0;        // since the first snapshot
	uint64_t paused_us = 0; // how long the process was stopped for it
	uint64_t copied_bytes = 0;
	uint64_t gc_total = 0; // g->gc.total
	bool complete = true;  // the walk reached everything, in one instant
	// The measure: the retained bytes of the object at each path
	// prefix (what the GC would free if it went away).
	std::map<std::string, uint64_t> bytes_by_path;
};

// A path whose bytes grew in every interval, with its bytes at each snapshot.
struct GrowingPath {
	std::string path;
	std::vector<uint64_t> bytes;
	int64_t growth() const { return int64_t(bytes.back()) - int64_t(bytes.front()); }
};

struct WatchedVm {
	int32_t pid = 0;
	uint64_t global_state = 0;
	std::vector<HeapSnapshot> snapshots;
	// Most grown first; of a path and a longer one under it that both
	// grew, only the longer: it says where the growth is.
	std::vector<GrowingPath> growing;
};

struct HeapWatch {
	std::vector<WatchedVm> vms;
	std::string measure; // what bytes_by_path counts, for the reader
	bool stopped_early = false;
	Diagnostics diagnostics;
};

// A process stopped just long enough to copy its writable memory, a Vm
// that reads the copy, and the census of its objects (what a RetainedHeap
// is built over).
struct FrozenHeap {
	std::unique_ptr<LiveProcess> process; // resumed
	std::unique_ptr<FrozenMemory> memory;
	std::unique_ptr<Vm> vm;
	gc::BigArray<uint64_t> objects;
	bool objects_complete = true;
	uint64_t paused_us = 0; // all the stops together
};
// A stop can land where LuaJIT is moving strings between chains of its
// string table (lj_str_resize; gc_sweepstr, whose chain hangs off the C
// stack while it frees strings): the copy then lists fewer strings than
// g->str.num and misses objects that live ones reference. Such a copy is
// dropped and another taken once the VM's thread has run on, a few times
// at most; what the last one still misses is said in diagnostics.
Expected<FrozenHeap> freeze_heap(const ProfiledProcess &proc, Diagnostics &diagnostics);

// The one measure the watch compares between snapshots: the retained
// bytes (gc/retained.h) of the object at the end of each path prefix, to
// depth steps below a root. complete becomes false if the walk was not.
// Takes the heap's census objects.
std::map<std::string, uint64_t> retained_by_path(FrozenHeap &heap, uint32_t depth, bool &complete,
						 Diagnostics &diagnostics);

// The paths that grew in every interval of snapshots (two at least).
std::vector<GrowingPath> growing_paths(const std::vector<HeapSnapshot> &snapshots);

std::expected<HeapWatch, ProfileError> watch_heap(const HeapWatchOptions &options);

} // namespace ljcore
