#include "analyzer/disasm.h"

#include <mutex>

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

void init_llvm_targets()
{
	static std::once_flag once;
	std::call_once(once, [] {
		LLVMInitializeX86TargetInfo();
		LLVMInitializeX86TargetMC();
		LLVMInitializeX86Disassembler();
		LLVMInitializeAArch64TargetInfo();
		LLVMInitializeAArch64TargetMC();
		LLVMInitializeAArch64Disassembler();
	});
}

} // namespace

Expected<std::unique_ptr<Disassembler>> Disassembler::create(Arch arch)
{
	init_llvm_targets();
	std::unique_ptr<Disassembler> d(new Disassembler(arch));
	const char *triple =
		arch == Arch::x86_64 ? "x86_64-unknown-linux-gnu" : "aarch64-unknown-linux-gnu";
	LLVMDisasmContextRef ctx =
		LLVMCreateDisasm(triple, d.get(), 0, no_op_info, disasm_symbol_lookup);
	if (!ctx)
		return fail(std::string("LLVM has no disassembler for ") + triple);
	// Intel syntax as LuaJIT's own jit.dump prints x86, then hex
	// immediates: switching the variant makes a new printer, which would
	// drop options set before.
	if (arch == Arch::x86_64)
		LLVMSetDisasmOptions(ctx, LLVMDisassembler_Option_AsmPrinterVariant);
	LLVMSetDisasmOptions(ctx, LLVMDisassembler_Option_PrintImmHex);
	d->context_ = ctx;
	return d;
}

Disassembler::~Disassembler()
{
	if (context_)
		LLVMDisasmDispose(static_cast<LLVMDisasmContextRef>(context_));
}

std::vector<MachineInsn> Disassembler::disassemble(std::span<const uint8_t> code, uint64_t addr)
{
	std::vector<MachineInsn> out;
	auto ctx = static_cast<LLVMDisasmContextRef>(context_);
	// A fixed instruction width (aarch64) skips a bad word whole.
	size_t step_bad = arch_ == Arch::aarch64 ? 4 : 1;
	size_t off = 0;
	while (off < code.size()) {
		char text[256];
		branch_.reset();
		// LLVM's interface is not const-correct; it does not write.
		size_t n = LLVMDisasmInstruction(ctx, const_cast<uint8_t *>(code.data() + off),
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
