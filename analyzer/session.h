// A target opened for reading with its native unwinder: a core file, or a
// live process attached. What every command starts from, whatever it then
// does with the target.
#pragma once

#include <memory>
#include <string>

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

// A process attached for reading, with its native unwinder; its threads run
// again on process->resume() or when this goes away.
struct LiveSession {
	std::unique_ptr<LiveProcess> process;
	std::unique_ptr<NativeSession> native;
};
Expected<LiveSession> open_live(int32_t pid);

} // namespace ljcore
