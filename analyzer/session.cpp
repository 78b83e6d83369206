#include "analyzer/session.h"

#include "analyzer/locate/derived_once.h"
#include "readers/proc_memory.h"

namespace ljcore {

namespace {

// A core opened either way, with the native session over it.
Expected<CoreSession> core_session(Expected<std::unique_ptr<ElfCore>> core, const std::string &path)
{
	if (!core)
		return std::unexpected(core.error());
	auto native = NativeSession::open_core(**core);
	if (!native)
		return std::unexpected(native.error().context(path));
	return CoreSession{std::move(*core), std::move(*native)};
}

} // namespace

Expected<CoreSession> open_core(const std::string &path, const FileLookup &lookup)
{
	return core_session(ElfCore::open(path, lookup), path);
}

Expected<std::unique_ptr<Memory>> open_process_memory(int32_t pid)
{
	auto memory = ProcMemory::open(pid);
	if (!memory)
		return std::unexpected(memory.error());
	return std::move(*memory);
}

Expected<CoreSession> open_core_head(const std::string &path, const FileLookup &lookup,
				     const Memory &process_memory)
{
	return core_session(ElfCore::open_head(path, lookup, process_memory), path);
}

Expected<LiveSession> open_live(int32_t pid, LayoutChoice layout)
{
	// Reading LuaJIT's code takes milliseconds: from its file, while the
	// process still runs, not in the window it is stopped for.
	derive_before_stopping(pid, layout);
	auto process = LiveProcess::attach(pid);
	if (!process)
		return std::unexpected(process.error());
	auto native = NativeSession::open_live(**process);
	if (!native)
		return std::unexpected(native.error().context("process " + std::to_string(pid)));
	return LiveSession{std::move(*process), std::move(*native)};
}

} // namespace ljcore
