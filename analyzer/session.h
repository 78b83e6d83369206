// A target opened for reading with its native unwinder: a core file, or a
// live process attached. What every command starts from, whatever it then
// does with the target.
#pragma once

#include <memory>
#include <string>

#include "analyzer/options.h"
#include "readers/elf_core.h"
#include "readers/error.h"
#include "readers/live_process.h"
#include "readers/mapped_files.h"
#include "readers/native_stack.h"

namespace ljcore {

// A core file opened for reading, with its native unwinder.
struct CoreSession {
	std::unique_ptr<ElfCore> core;
	std::unique_ptr<NativeSession> native;
};
Expected<CoreSession> open_core(const std::string &path, const FileLookup &lookup);

// /proc/PID/mem, opened read-only: a process's memory without ptrace (a
// process the kernel is dumping cannot be attached to). Opened while
// still privileged; read after.
Expected<std::unique_ptr<Memory>> open_process_memory(int32_t pid);

// The head of a core the kernel is writing (headers and notes, read from
// the pipe), with the rest read from the dying process's memory: what
// `ljcore catch` analyzes instead of spooling the whole core.
Expected<CoreSession> open_core_head(const std::string &path, const FileLookup &lookup,
				     const Memory &process_memory);

// A process attached for reading, with its native unwinder; its threads run
// again on process->resume() or when this goes away. What of its files can
// be read while it runs (the layout LuaJIT's code shows) is read before it
// is stopped.
struct LiveSession {
	std::unique_ptr<LiveProcess> process;
	std::unique_ptr<NativeSession> native;
};
// layout says whether LuaJIT's code is read (before the stop).
Expected<LiveSession> open_live(int32_t pid, LayoutChoice layout = LayoutChoice::automatic);

} // namespace ljcore
