#include "analyzer/traces/disasm.h"

#include <dlfcn.h>

#include <filesystem>

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

// Where the module of LLVM's disassembler for arch is (disasm_module.h):
// beside an installed ljcore, at LJCORE_MC_RELDIR from the directory of
// the executable; for the executables of a build tree (ljcore, tests),
// in the build tree. Never a directory compiled in for a binary that runs
// elsewhere: whoever could create it would choose the code we load.
Expected<std::string> module_path(Arch arch)
{
	std::error_code ec;
	std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
	if (ec)
		return fail("machine code needs LLVM: /proc/self/exe: " + ec.message());
	std::string name = std::string("ljcore-mc-") + arch_name(arch) + ".so";
	std::string build_dir = LJCORE_BUILD_DIR "/";
	if (exe.string().starts_with(build_dir))
		return build_dir + "mc/" + name;
	return (exe.parent_path() / LJCORE_MC_RELDIR / name).string();
}

// LLVM's disassembler for arch, loaded once per process on first use (a
// failure is kept too, to be reported by every Disassembler::create):
// linked into ljcore, its tables' relocations would cost every run some
// 2.5 ms at start-up, disassembling or not; the shared libLLVM, 15 ms on
// first use. Never unloaded: LLVM registers its targets in its globals.
Expected<const ljcore_mc *> load_module(Arch arch)
{
	auto path = module_path(arch);
	if (!path)
		return std::unexpected(path.error());
	void *lib = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(std::string("machine code needs LLVM: ") + dlerror());
	auto mc_open = reinterpret_cast<ljcore_mc_open_fn>(dlsym(lib, LJCORE_MC_OPEN));
	if (!mc_open)
		return fail(*path + " lacks " LJCORE_MC_OPEN);
	return mc_open();
}

const Expected<const ljcore_mc *> &llvm(Arch arch)
{
	if (arch == Arch::x86_64) {
		static const Expected<const ljcore_mc *> x86_64 = load_module(arch);
		return x86_64;
	}
	static const Expected<const ljcore_mc *> aarch64 = load_module(arch);
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
