#include "analyzer/traces/disasm.h"

#include <dlfcn.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "analyzer/traces/disasm_module.h"
#include "readers/arch/arch.h"

namespace ljcore {

// LLVM asks this for the name of every address an operand refers to; for
// a branch it passes the absolute target, which is all we want from it.
// Returning no name makes LLVM print the address itself.
const char *disasm_symbol_lookup(void *info, uint64_t value, uint64_t *type, uint64_t,
				 const char **name)
{
	auto *self = static_cast<Disassembler *>(info);
	if (*type == LLVMDisassembler_ReferenceType_In_Branch)
		self->branch_ = value;
	*type = LLVMDisassembler_ReferenceType_InOut_None;
	*name = nullptr;
	return nullptr;
}

namespace {

// No relocations to offer: the operand stays as LLVM decoded it.
int no_op_info(void *, uint64_t, uint64_t, uint64_t, int, void *)
{
	return 0;
}

// The LLVM target that decodes arch's code, as LLVM names its
// LLVMInitialize<Target>* functions.
const char *llvm_target(Arch arch)
{
	return arch == Arch::x86_64 ? "X86" : "AArch64";
}

// Where ljcore's own module of LLVM's disassembler for arch
// (disasm_module.h) may be: beside the executable, at LJCORE_MC_RELDIR
// from it (an installed ljcore), and, for the executables of a build tree
// (ljcore, tests), in that tree. Never a directory compiled in for a binary
// that runs elsewhere: whoever could create it would choose the code we
// load. The first that exists, if any (stat, not open: a binary copied
// elsewhere opens nothing it does not load).
std::optional<std::string> module_path(Arch arch)
{
	std::error_code ec;
	std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
	if (ec)
		return std::nullopt;
	std::string name = std::string("ljcore-mc-") + arch_name(arch) + ".so";
	std::vector<std::filesystem::path> candidates = {
		exe.parent_path() / name,
		(exe.parent_path() / LJCORE_MC_RELDIR / name).lexically_normal()};
	std::string build_dir = LJCORE_BUILD_DIR "/";
	if (exe.string().starts_with(build_dir))
		candidates.push_back(build_dir + "mc/" + name);
	for (const auto &path : candidates)
		if (std::filesystem::is_regular_file(path, ec))
			return path.string();
	return std::nullopt;
}

Expected<const ljcore_mc *> load_module(const std::string &path)
{
	void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(std::string("machine code needs LLVM: ") + dlerror());
	auto mc_open = reinterpret_cast<ljcore_mc_open_fn>(dlsym(lib, LJCORE_MC_OPEN));
	if (!mc_open)
		return fail(path + " lacks " LJCORE_MC_OPEN);
	return mc_open();
}

template <typename F> bool find(void *lib, const std::string &name, F &fn)
{
	fn = reinterpret_cast<F>(dlsym(lib, name.c_str()));
	return fn != nullptr;
}

// The same interface from the shared libLLVM, for a binary without its
// module (copied away from its install or build tree): correct, only
// slower, its 14000 symbol relocations cost some 15 ms.
Expected<const ljcore_mc *> load_shared_llvm(Arch arch)
{
	void *lib = dlopen(LJCORE_LLVM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(std::string("machine code needs LLVM: ") + dlerror());
	std::string target = llvm_target(arch);
	for (const char *part : {"TargetInfo", "TargetMC", "Disassembler"}) {
		void (*init)();
		std::string name = "LLVMInitialize" + target + part;
		if (!find(lib, name, init))
			return fail(LJCORE_LLVM_SONAME " lacks " + name);
		init();
	}
	// Called once per architecture (llvm() keeps the result).
	static ljcore_mc per_arch[2];
	ljcore_mc *mc = &per_arch[arch == Arch::x86_64 ? 0 : 1];
	if (!find(lib, "LLVMCreateDisasm", mc->create) ||
	    !find(lib, "LLVMSetDisasmOptions", mc->set_options) ||
	    !find(lib, "LLVMDisasmInstruction", mc->instruction) ||
	    !find(lib, "LLVMDisasmDispose", mc->dispose))
		return fail(LJCORE_LLVM_SONAME " lacks its disassembler interface");
	return mc;
}

// LLVM's disassembler for arch, loaded once per process on first use (a
// failure is kept too, to be reported by every Disassembler::create):
// ljcore's module when it has one and it loads, else the shared libLLVM
// (whose failure reports the module's, if there was one). Linked into
// ljcore, LLVM's tables' relocations would cost every run some 2.5 ms at
// start-up, disassembling or not. Never unloaded: LLVM registers its
// targets in its globals.
Expected<const ljcore_mc *> load_llvm(Arch arch)
{
	auto path = module_path(arch);
	if (!path)
		return load_shared_llvm(arch);
	auto module = load_module(*path);
	if (module)
		return module;
	auto shared = load_shared_llvm(arch);
	return shared ? shared : module;
}

const Expected<const ljcore_mc *> &llvm(Arch arch)
{
	if (arch == Arch::x86_64) {
		static const Expected<const ljcore_mc *> x86_64 = load_llvm(arch);
		return x86_64;
	}
	static const Expected<const ljcore_mc *> aarch64 = load_llvm(arch);
	return aarch64;
}

} // namespace

Expected<std::unique_ptr<Disassembler>> Disassembler::create(Arch arch)
{
	auto &lib = llvm(arch);
	if (!lib)
		return std::unexpected(lib.error());
	std::unique_ptr<Disassembler> d(new Disassembler(arch));
	const char *triple = arch_info(arch).llvm_triple;
	LLVMDisasmContextRef ctx =
		(*lib)->create(triple, d.get(), 0, no_op_info, disasm_symbol_lookup);
	if (!ctx)
		return fail(std::string("LLVM has no disassembler for ") + triple);
	// Intel syntax as LuaJIT's own jit.dump prints x86, then hex
	// immediates: switching the variant makes a new printer, which would
	// drop options set before.
	if (arch_info(arch).intel_syntax)
		(*lib)->set_options(ctx, LLVMDisassembler_Option_AsmPrinterVariant);
	(*lib)->set_options(ctx, LLVMDisassembler_Option_PrintImmHex);
	d->context_ = ctx;
	return d;
}

Disassembler::~Disassembler()
{
	// A context exists only once LLVM was loaded.
	if (context_)
		(*llvm(arch_))->dispose(static_cast<LLVMDisasmContextRef>(context_));
}

std::vector<MachineInsn> Disassembler::disassemble(std::span<const uint8_t> code, uint64_t addr)
{
	std::vector<MachineInsn> out;
	auto ctx = static_cast<LLVMDisasmContextRef>(context_);
	auto disasm_instruction = (*llvm(arch_))->instruction;
	// A fixed instruction width (aarch64) skips a bad word whole.
	size_t step_bad = arch_info(arch_).insn_unit;
	size_t off = 0;
	while (off < code.size()) {
		char text[256];
		branch_.reset();
		// LLVM's interface is not const-correct; it does not write.
		size_t n = disasm_instruction(ctx, const_cast<uint8_t *>(code.data() + off),
					      code.size() - off, addr + off, text, sizeof text);
		MachineInsn insn;
		insn.addr = addr + off;
		if (n == 0) {
			n = std::min(step_bad, code.size() - off);
			insn.undecodable = true;
			insn.text = "(bad)";
		} else {
			std::string t = text;
			size_t first = t.find_first_not_of(" \t");
			insn.text = first == std::string::npos ? "" : t.substr(first);
			for (char &c : insn.text)
				if (c == '\t')
					c = ' ';
			insn.branch_to = branch_;
		}
		insn.size = uint32_t(n);
		out.push_back(std::move(insn));
		off += n;
	}
	return out;
}

} // namespace ljcore
