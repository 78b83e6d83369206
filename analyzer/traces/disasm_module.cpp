// One ljcore LLVM module (see disasm_module.h): LJCORE_MC_TARGET names the
// LLVM target it holds (X86, AArch64). Everything else in the module is
// LLVM's, kept out of its dynamic symbols (--exclude-libs).
#include "analyzer/traces/disasm_module.h"

#include <llvm/ADT/Triple.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string_view>

#define LJCORE_MC_CAT(a, b, c) a##b##c
#define LJCORE_MC_INIT(target, part) LJCORE_MC_CAT(LLVMInitialize, target, part)
#define LJCORE_MC_STR(target) LJCORE_MC_STR2(target)
#define LJCORE_MC_STR2(target) #target

extern "C" {
void LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetInfo)();
void LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetMC)();
void LJCORE_MC_INIT(LJCORE_MC_TARGET, Disassembler)();
}

namespace {

// x86's relative branches count from the end of the instruction, AArch64's
// from its start.
constexpr bool pcrel_from_next = std::string_view(LJCORE_MC_STR(LJCORE_MC_TARGET)) == "X86";

// The decoder behind ljcore_mc's decode: LLVM's MC objects for one
// triple, as LLVMCreateDisasm makes them, but printing straight into a
// plain stream. LLVM's C interface wraps its output in a
// formatted_raw_ostream that counts columns (UTF-8 widths) of every byte
// to align comments the disassembler never has, and reports branch
// targets through a symbolizer callback per operand: together about half
// of what decoding an instruction cost. MCInstrAnalysis finds the branch
// target from the decoded instruction instead.
struct Decoder {
	std::unique_ptr<llvm::MCRegisterInfo> registers;
	std::unique_ptr<llvm::MCAsmInfo> asm_info;
	std::unique_ptr<llvm::MCInstrInfo> instructions;
	std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
	std::unique_ptr<llvm::MCContext> context;
	std::unique_ptr<llvm::MCDisassembler> disassembler;
	std::unique_ptr<llvm::MCInstPrinter> printer;
	std::unique_ptr<llvm::MCInstrAnalysis> analysis;
};

void *decoder_create(const char *triple, int intel_syntax)
{
	std::string error;
	const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
	if (!target)
		return nullptr;
	auto d = std::make_unique<Decoder>();
	d->registers.reset(target->createMCRegInfo(triple));
	if (!d->registers)
		return nullptr;
	llvm::MCTargetOptions options;
	d->asm_info.reset(target->createMCAsmInfo(*d->registers, triple, options));
	d->instructions.reset(target->createMCInstrInfo());
	d->subtarget.reset(target->createMCSubtargetInfo(triple, "", ""));
	if (!d->asm_info || !d->instructions || !d->subtarget)
		return nullptr;
	d->context = std::make_unique<llvm::MCContext>(llvm::Triple(triple), d->asm_info.get(),
						       d->registers.get(), d->subtarget.get());
	d->disassembler.reset(target->createMCDisassembler(*d->subtarget, *d->context));
	// The printer variant LLVMSetDisasmOptions picks: Intel syntax on
	// x86 (as LuaJIT's own jit.dump prints it), else the target's own.
	unsigned variant = intel_syntax ? 1 : d->asm_info->getAssemblerDialect();
	d->printer.reset(target->createMCInstPrinter(llvm::Triple(triple), variant, *d->asm_info,
						     *d->instructions, *d->registers));
	d->analysis.reset(target->createMCInstrAnalysis(d->instructions.get()));
	if (!d->disassembler || !d->printer)
		return nullptr;
	d->printer->setPrintImmHex(true);
	d->printer->setPrintBranchImmAsAddress(true);
	return d.release();
}

// A stream printing into an instruction's text, its own buffer: nothing
// copied, no stream flushed per operand. What does not fit is dropped, as
// the C interface truncates (no instruction comes near 255 characters).
class TextStream final : public llvm::raw_ostream {
public:
	explicit TextStream(char (&text)[sizeof(ljcore_mc_insn::text)]) : text_(text)
	{
		SetBuffer(text_, sizeof text - 1);
	}
	// Ends the text with a NUL.
	void finish()
	{
		flush();
		text_[length_] = '\0';
	}

private:
	// Called when the buffer is full (or flushed): the text stays where
	// it is, and anything after it goes to a scratch buffer.
	void write_impl(const char *ptr, size_t size) override
	{
		if (ptr == text_)
			length_ = size;
		SetBuffer(overflow_, sizeof overflow_);
	}
	uint64_t current_pos() const override { return length_; }

	char *text_;
	size_t length_ = 0;
	char overflow_[64];
};

void decoder_dispose(void *decoder)
{
	delete static_cast<Decoder *>(decoder);
}

size_t decode(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
	      struct ljcore_mc_insn *out)
{
	auto *d = static_cast<Decoder *>(decoder);
	llvm::MCInst inst;
	uint64_t length = 0;
	auto status = d->disassembler->getInstruction(
		inst, length, llvm::ArrayRef<uint8_t>(bytes, size), pc, llvm::nulls());
	// A soft failure (an encoding the architecture leaves unpredictable)
	// still decoded: printed, as the C interface does.
	if (status == llvm::MCDisassembler::Fail || length == 0 || length > size)
		return 0;
	// Branch targets print as addresses, as the C interface prints them
	// (through its symbolizer): the printer adds the immediate to the
	// address given, which for x86 is that of the next instruction.
	uint64_t pcrel_base = pcrel_from_next ? pc + length : pc;
	TextStream os(out->text);
	d->printer->printInst(&inst, pcrel_base, "", *d->subtarget, os);
	os.finish();
	// A direct branch or call's target, as the C interface reports it to
	// its symbol callback: not an ADR's or a literal load's address.
	const llvm::MCInstrDesc &desc = d->instructions->get(inst.getOpcode());
	uint64_t target = 0;
	out->has_branch = (desc.isBranch() || desc.isCall()) && d->analysis &&
			  d->analysis->evaluateBranch(inst, pc, length, target);
	out->branch_to = out->has_branch ? target : 0;
	return length;
}

const struct ljcore_mc mc = {
	decoder_create,
	decode,
	decoder_dispose,
};

} // namespace

// LLVM's support library asks terminfo whether a stream has colours, so
// linking it needs libtinfo, which dlopen would load with the module (some
// 0.15 ms). The module never writes to a terminal: these answer "no
// terminal" (setupterm's ERR), and libtinfo stays unloaded.
extern "C" {
struct term;

int setupterm(const char *, int, int *errret)
{
	if (errret)
		*errret = -1;
	return -1;
}

struct term *set_curterm(struct term *)
{
	return nullptr;
}

int del_curterm(struct term *)
{
	return -1;
}

int tigetnum(const char *)
{
	return -2;
}

// Called once per process (disasm.cpp keeps the result): registering a
// target twice would be harmless, but is not needed.
__attribute__((visibility("default"))) const struct ljcore_mc *ljcore_mc_open(void)
{
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetInfo)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetMC)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, Disassembler)();
	return &mc;
}
}
