// A target is what ljcore reads: a core file or a live process. Both give
// memory, threads with their registers, and what is known of the process.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "readers/arch/thread_regs.h"
#include "readers/diagnostics.h"
#include "readers/mapped_files.h"
#include "readers/memory.h"

namespace ljcore {

struct ThreadInfo {
	int32_t tid = 0;
	int cursig = 0; // signal that stopped this thread, 0 if none
	ThreadRegs regs;
};

struct SignalInfo {
	int signo = 0;
	int code = 0;
	uint64_t addr = 0; // si_addr: meaningful for SIGSEGV, SIGBUS, SIGILL, SIGFPE
};

struct ProcessInfo {
	int32_t pid = 0;
	std::string name; // comm
	std::string args; // command line, possibly shortened
};

class Target : public Memory {
public:
	virtual Arch arch() const = 0;
	virtual const ProcessInfo &process() const = 0;
	virtual const std::optional<SignalInfo> &signal() const = 0;
	// The thread that crashed (or was stopped first) comes first.
	virtual const std::vector<ThreadInfo> &threads() const = 0;
	// Visits the target's writable memory in pieces (vaddr, bytes); a
	// piece may overlap the one before by a page, never less. Memory a
	// core holds only as a hole of its file (zeros) may be left out.
	using Visitor = std::function<void(uint64_t, std::span<const std::byte>)>;
	virtual void visit_writable(const Visitor &visit) const = 0;
	// Whether addr is in writable memory (where heaps, stacks and every
	// LuaJIT object are): what tells a pointer to data from code and
	// numbers without reading it.
	virtual bool writable(uint64_t addr) const = 0;
	// Problems met while reading that did not stop the reading.
	virtual const Diagnostics &diagnostics() const = 0;
	// Files whose bytes were (or could not be) used.
	virtual std::vector<FileStatus> file_statuses() const = 0;
};

} // namespace ljcore
