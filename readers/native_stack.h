// Modules, symbols and native stacks of a core, through libdwfl: CFI
// unwinding that also recovers the callee-saved registers at every frame.
// The session opens here (native_stack.cpp), unwinds in native_unwind.cpp
// and answers for symbols in native_symbols.cpp; dwfl_report.h says which
// modules there are and dwfl_files.h where their files are.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <elfutils/libdwfl.h>

#include "readers/elf_core.h"
#include "readers/error.h"
#include "readers/live_process.h"
#include "readers/module_symbols.h"

namespace ljcore {

struct NativeFrame {
	uint64_t pc = 0;         // as unwound: a return address above frame 0
	bool activation = false; // pc is exact (frame 0, signal frame)
	std::string function;    // symbol, empty if none covers pc
	uint64_t offset = 0;     // pc - symbol start
	std::string module;      // file name of the module, empty if none
	ThreadRegs regs;         // valid where known_regs has the bit
	uint64_t known_regs = 0; // bit n: regs.dwarf[n] was recovered

	bool has_reg(int n) const { return known_regs >> n & 1; }
	// The pc to symbolize: a return address points after the call.
	uint64_t lookup_pc() const { return activation ? pc : pc - 1; }
};

struct NativeStack {
	int32_t tid = 0;
	std::vector<NativeFrame> frames;
	std::string stop_reason; // why unwinding ended early, empty if it did not
};

struct ModuleInfo {
	std::string name; // path as recorded in the core
	uint64_t low = 0, high = 0;
	std::string file;     // file opened on this machine, empty if none
	std::string build_id; // hex, empty if unknown
	bool has_symbols = false;
	bool has_dwarf = false;
};

struct SymbolInfo {
	std::string name;
	uint64_t addr = 0;
	uint64_t size = 0;
	std::string module;
};

struct GivenFrame; // unwind_from() and unwind_sample()'s thread: given_frame.h

class NativeSession {
public:
	static Expected<std::unique_ptr<NativeSession>> open_core(const ElfCore &core);
	// The process must stay ptrace-stopped while the session unwinds.
	static Expected<std::unique_ptr<NativeSession>> open_live(const LiveProcess &process);
	// A running process's modules as /proc/PID/maps lists them, for their
	// symbols, files and DWARF only: nothing stops pid, so nothing is
	// unwound (the unwinders say so). What ljcore reads of a process's
	// files before stopping it.
	static Expected<std::unique_ptr<NativeSession>> open_modules(int32_t pid);
	~NativeSession();
	NativeSession(const NativeSession &) = delete;
	NativeSession &operator=(const NativeSession &) = delete;

	static constexpr size_t max_frames = 256;
	static constexpr size_t max_cached_symbols = 1 << 16;
	NativeStack unwind(int32_t tid) const;
	// Unwinds thread tid on from a frame the unwinder could not step past
	// (code without CFI, such as JIT-compiled code) given the pc and the
	// registers its CFI computes the frame from (DWARF number, value) of
	// the frame below it. The CFI recovers the rest from the stack.
	NativeStack unwind_from(int32_t tid, uint64_t pc,
				const std::vector<std::pair<unsigned, uint64_t>> &regs) const;
	// Unwinds a live thread as a profile sample caught it: its registers
	// (DWARF numbers; x86_64 only), reading memory the sample gives (a
	// copy of its stack over the process as it is now), as perf's
	// --call-graph=dwarf does. One libdwfl session serves every sample.
	NativeStack unwind_sample(int32_t tid, const ThreadRegs &regs, const Memory &memory) const;

	// Symbol covering addr (the pc as given, not adjusted). Answers are
	// remembered: a profile, or every coroutine's stack, asks for the
	// same few addresses again and again, each a pass over a symbol table.
	std::optional<SymbolInfo> symbol_at(uint64_t addr) const;
	// The name of the function that starts at addr (a C function's entry),
	// empty if no symbol starts there.
	std::string function_at(uint64_t addr) const;
	// A symbol by name, in module_hint when given (substring of the
	// module path), else in any module.
	std::optional<SymbolInfo> symbol_by_name(const std::string &name,
						 const std::string &module_hint = "") const;
	std::vector<ModuleInfo> modules() const;
	// A module's symbol table, read the first time it is asked for.
	const ModuleSymbols &symbols_of(Dwfl_Module *mod) const;
	// The module whose address range covers addr.
	Dwfl_Module *module_at(uint64_t addr) const;
	// DWARF of a module, with the bias to add to its addresses.
	Dwarf *module_dwarf(Dwfl_Module *mod, uint64_t *bias) const;

private:
	NativeSession() = default;
	Dwfl *dwfl_ = nullptr;
	Arch arch_ = Arch::x86_64;
	const Target *target_ = nullptr; // the memory unwind_from() reads; none for open_modules
	const ElfCore *core_ = nullptr;  // set for a core, else live
	bool attached_ = false;
	bool from_registers_ = false; // unwind() through unwind_from()
	std::string attach_error_;
	// unwind_sample(): its own Dwfl (a thread state can be attached once).
	mutable Dwfl *sample_dwfl_ = nullptr;
	mutable std::unique_ptr<GivenFrame> sample_;
	mutable std::string sample_error_;
	// symbol_at()'s answers, by address.
	mutable std::unordered_map<uint64_t, std::optional<SymbolInfo>> symbols_;
	// Each module's symbol table, read when first looked at.
	mutable std::unordered_map<Dwfl_Module *, std::unique_ptr<ModuleSymbols>> tables_;
};

} // namespace ljcore
