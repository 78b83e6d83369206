// A target is what ljcore reads: a core file or a live process. Both give
// memory, threads with their registers, and what is known of the process.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

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
	// The low 64 bits of each vector register (x86_64 xmm0..15, aarch64
	// v0..31), where compiled Lua code keeps its doubles; from NT_PRFPREG.
	std::array<uint64_t, 32> fpr{};
	bool has_fpr = false;
};

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
	// piece may overlap the one before by a page, never less.
	using Visitor = std::function<void(uint64_t, std::span<const std::byte>)>;
	virtual void visit_writable(const Visitor &visit) const = 0;
	// Problems met while reading that did not stop the reading.
	virtual std::vector<std::string> warnings() const = 0;
	// Files whose bytes were (or could not be) used.
	virtual std::vector<FileStatus> file_statuses() const = 0;
};

} // namespace ljcore
