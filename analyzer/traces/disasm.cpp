#include "analyzer/traces/disasm.h"

#include <dlfcn.h>

#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

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

// The part of LLVM's C interface we call. libLLVM is loaded only when
// machine code is disassembled: linked in, its size and relocations
// would be paid by every run of ljcore, most of which never disassemble.
struct Llvm {
	decltype(&LLVMCreateDisasm) create;
	decltype(&LLVMSetDisasmOptions) set_options;
	decltype(&LLVMDisasmInstruction) instruction;
	decltype(&LLVMDisasmDispose) dispose;
};

template <typename F> bool find(void *lib, const char *name, F &fn)
{
	fn = reinterpret_cast<F>(dlsym(lib, name));
	return fn != nullptr;
}

Expected<Llvm> load_llvm()
{
	// Never unloaded: LLVM registers its targets in its own globals.
	void *lib = dlopen(LJCORE_LLVM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(std::string("machine code needs LLVM: ") + dlerror());
	// The two targets whose code LuaJIT emits: x86_64 and arm64.
	for (const char *name :
	     {"LLVMInitializeX86TargetInfo", "LLVMInitializeX86TargetMC",
	      "LLVMInitializeX86Disassembler", "LLVMInitializeAArch64TargetInfo",
	      "LLVMInitializeAArch64TargetMC", "LLVMInitializeAArch64Disassembler"}) {
		void (*init)();
		if (!find(lib, name, init))
			return fail(std::string(LJCORE_LLVM_SONAME " lacks ") + name);
		init();
	}
	Llvm llvm;
	if (!find(lib, "LLVMCreateDisasm", llvm.create) ||
	    !find(lib, "LLVMSetDisasmOptions", llvm.set_options) ||
	    !find(lib, "LLVMDisasmInstruction", llvm.instruction) ||
	    !find(lib, "LLVMDisasmDispose", llvm.dispose))
		return fail(LJCORE_LLVM_SONAME " lacks its disassembler interface");
	return llvm;
}

// Loaded once per process, on first use; a failure is kept too, to be
// reported by every Disassembler::create.
const Expected<Llvm> &llvm()
{
	static const Expected<Llvm> loaded = load_llvm();
	return loaded;
}

} // namespace

Expected<std::unique_ptr<Disassembler>> Disassembler::create(Arch arch)
{
	auto &lib = llvm();
	if (!lib)
		return std::unexpected(lib.error());
	std::unique_ptr<Disassembler> d(new Disassembler(arch));
	const char *triple = arch_info(arch).llvm_triple;
	LLVMDisasmContextRef ctx =
		lib->create(triple, d.get(), 0, no_op_info, disasm_symbol_lookup);
	if (!ctx)
		return fail(std::string("LLVM has no disassembler for ") + triple);
	// Intel syntax as LuaJIT's own jit.dump prints x86, then hex
	// immediates: switching the variant makes a new printer, which would
	// drop options set before.
	if (arch_info(arch).intel_syntax)
		lib->set_options(ctx, LLVMDisassembler_Option_AsmPrinterVariant);
	lib->set_options(ctx, LLVMDisassembler_Option_PrintImmHex);
	d->context_ = ctx;
	return d;
}

Disassembler::~Disassembler()
{
	// A context exists only once LLVM was loaded.
	if (context_)
		llvm()->dispose(static_cast<LLVMDisasmContextRef>(context_));
}

std::vector<MachineInsn> Disassembler::disassemble(std::span<const uint8_t> code, uint64_t addr)
{
	std::vector<MachineInsn> out;
	auto ctx = static_cast<LLVMDisasmContextRef>(context_);
	auto disasm_instruction = llvm()->instruction;
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
