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

#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

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

constexpr bool is_x86 = std::string_view(LJCORE_MC_STR(LJCORE_MC_TARGET)) == "X86";
// x86's relative branches count from the end of the instruction, AArch64's
// from its start.
constexpr bool pcrel_from_next = is_x86;

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
	// Per opcode, whether describe's parts of it read as its text does
	// (parts_unknown until one was printed to see), and the bytes its
	// memory operands cover (width_unknown until its name was read).
	std::vector<uint8_t> parts_agree, memory_width;
};
enum : uint8_t { parts_unknown, parts_read, parts_printed };
enum : uint8_t { width_unreadable = 0xfe, width_unknown = 0xff };

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
	d->parts_agree.assign(d->instructions->getNumOpcodes(), parts_unknown);
	d->memory_width.assign(d->instructions->getNumOpcodes(), width_unknown);
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

// The instruction at bytes (size of them, at pc) into inst and its length:
// Fail when it does not decode, or decodes past size.
llvm::MCDisassembler::DecodeStatus instruction_at(Decoder *d, const uint8_t *bytes, size_t size,
						  uint64_t pc, llvm::MCInst &inst, uint64_t &length)
{
	length = 0;
	auto status = d->disassembler->getInstruction(
		inst, length, llvm::ArrayRef<uint8_t>(bytes, size), pc, llvm::nulls());
	return length == 0 || length > size ? llvm::MCDisassembler::Fail : status;
}

// inst, length bytes at pc, as text. Branch targets print as addresses, as
// the C interface prints them (through its symbolizer): the printer adds
// the immediate to the address given, which for x86 is that of the next
// instruction.
void print(Decoder *d, const llvm::MCInst &inst, uint64_t pc, uint64_t length,
	   char (&text)[sizeof(ljcore_mc_insn::text)])
{
	TextStream os(text);
	d->printer->printInst(&inst, pcrel_from_next ? pc + length : pc, "", *d->subtarget, os);
	os.finish();
}

// A direct branch or call's target, as the C interface reports it to its
// symbol callback: not an ADR's or a literal load's address.
template <class Out>
void branch_of(Decoder *d, const llvm::MCInst &inst, uint64_t pc, uint64_t length, Out *out)
{
	const llvm::MCInstrDesc &desc = d->instructions->get(inst.getOpcode());
	uint64_t target = 0;
	out->has_branch = (desc.isBranch() || desc.isCall()) && d->analysis &&
			  d->analysis->evaluateBranch(inst, pc, length, target);
	out->branch_to = out->has_branch ? target : 0;
}

size_t decode(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
	      struct ljcore_mc_insn *out)
{
	auto *d = static_cast<Decoder *>(decoder);
	llvm::MCInst inst;
	uint64_t length;
	// A soft failure (an encoding the architecture leaves unpredictable)
	// still decoded: printed, as the C interface does.
	if (instruction_at(d, bytes, size, pc, inst, length) == llvm::MCDisassembler::Fail)
		return 0;
	print(d, inst, pc, length, out->text);
	branch_of(d, inst, pc, length, out);
	return length;
}

// What describe knows of x86: LLVM's five parts of a memory operand (base,
// scale, index, displacement, segment: X86::AddrNumOperands), the operand
// type of a condition code (X86::OPERAND_COND_CODE) and the suffixes the
// Intel printer spells codes with (X86::CondCode's order), all from
// lib/Target/X86/MCTargetDesc/X86BaseInfo.h, which LLVM does not install.
constexpr unsigned x86_memory_parts = 5;
constexpr unsigned x86_condition_code = llvm::MCOI::OPERAND_FIRST_TARGET + 1;
constexpr const char *x86_conditions[] = {"o", "no", "b", "ae", "e", "ne", "be", "a",
					  "s", "ns", "p", "np", "l", "ge", "le", "g"};
// The instruction flags of the operand- and address-size prefixes
// (X86::IP_HAS_OP_SIZE, IP_HAS_AD_SIZE, same header), which print nothing
// of their own.
constexpr unsigned x86_size_prefixes = 1 | 2;

// The bytes an x86 memory operand covers, as LLVM's name of the
// instruction spells them: MOV64rm, CMP8mi, ADD32mi8, PUSH64rmm, and for
// a widening move the last number, MOVZX32rm8, MOVSX64rm32; lea's address
// none. This is what the Intel printer writes as "qword ptr", read without
// printing. Nothing for a name of another shape (SSE, x87, strings): those
// are printed.
std::optional<uint8_t> x86_memory_width(std::string_view name)
{
	auto letters = [&](bool upper) {
		size_t n = 0;
		while (n < name.size() &&
		       (upper ? isupper(uint8_t(name[n])) : islower(uint8_t(name[n]))))
			n++;
		std::string_view part = name.substr(0, n);
		name.remove_prefix(n);
		return part;
	};
	auto number = [&] {
		unsigned n = 0;
		size_t digits = 0;
		while (digits < name.size() && digits < 3 && isdigit(uint8_t(name[digits])))
			n = n * 10 + unsigned(name[digits++] - '0');
		name.remove_prefix(digits);
		return digits ? n : 0;
	};
	std::string_view base = letters(true);
	if (base == "LEA")
		return 0;
	if (base == "NOOPW" || base == "NOOPL" || base == "NOOPQ")
		return base == "NOOPW" ? 2 : base == "NOOPL" ? 4 : 8;
	unsigned bits = number();
	letters(false);
	unsigned widened = number();
	if (!name.empty())
		return std::nullopt;
	if (base == "MOVZX" || base == "MOVSX")
		bits = widened;
	if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
		return std::nullopt;
	return uint8_t(bits / 8);
}

// Whether parts read as the text of inst, length bytes at pc: the same
// mnemonic, and operand by operand the same kind (a register, an
// immediate, memory of the same width, a segment's memory as other). Not
// the values: those are the parts' own.
bool reads_as_text(Decoder *d, const llvm::MCInst &inst, uint64_t pc, uint64_t length,
		   const ljcore_mc_operation &parts)
{
	char buffer[sizeof(ljcore_mc_insn::text)];
	print(d, inst, pc, length, buffer);
	std::string_view text = buffer;
	auto trim = [](std::string_view s) {
		size_t first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
		return first == s.npos ? std::string_view() : s.substr(first, last - first + 1);
	};
	text = trim(text);
	size_t space = std::min(text.find_first_of(" \t"), text.size());
	if (text.substr(0, space) != parts.mnemonic)
		return false;
	text = trim(text.substr(space));
	unsigned n = 0;
	while (!text.empty()) {
		size_t end = ljcore_mc_operand_length(text.data(), text.size());
		std::string_view operand = trim(text.substr(0, end));
		text = end < text.size() ? trim(text.substr(end + 1)) : std::string_view();
		if (n >= parts.operand_count)
			return false;
		const ljcore_mc_operand &part = parts.operands[n++];
		size_t bracket = operand.find('[');
		if (bracket != operand.npos) {
			bool segment = operand.find(':') < bracket;
			if (part.kind != (segment ? LJCORE_MC_OTHER : LJCORE_MC_MEM) ||
			    part.width != ljcore_mc_x86_text_width(operand.data(), operand.size()))
				return false;
		} else if (!operand.empty() &&
			   (operand[0] == '-' || (operand[0] >= '0' && operand[0] <= '9'))) {
			if (part.kind != LJCORE_MC_IMM)
				return false;
		} else if (part.kind != LJCORE_MC_REG) {
			return false;
		}
	}
	return n == parts.operand_count;
}

// Whether parts are of a vector compare, whose text names its immediate
// ("cmpltps" of cmpps with 1) unless it is past those names: whichever
// the opcode's first instance was, its text decides.
bool names_immediate(const ljcore_mc_operation &parts)
{
	std::string_view m = parts.mnemonic;
	return (m.starts_with("cmp") || m.starts_with("vcmp") || m.starts_with("vpcmp")) &&
	       parts.operand_count >= 3 &&
	       parts.operands[parts.operand_count - 1].kind == LJCORE_MC_IMM;
}

// An x86 instruction's parts (disasm_module.h), what printing it would
// show: the mnemonic from the printer's own table of them, with its
// condition code if it has one, and the operands as Intel syntax orders
// them, which is LLVM's order less the sources tied to a destination
// ("add rax, rbx" of three). Printing and reading back the text cost
// twice what decoding did.
size_t describe(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
		struct ljcore_mc_operation *out)
{
	auto *d = static_cast<Decoder *>(decoder);
	llvm::MCInst inst;
	uint64_t length;
	if (instruction_at(d, bytes, size, pc, inst, length) != llvm::MCDisassembler::Success)
		return 0;
	// Prefixes the printer writes from this instruction's own flags (lock,
	// rep, repne, notrack), which the opcode's first instance may not have
	// had: printed instead.
	if (inst.getFlags() & ~x86_size_prefixes)
		return 0;
	// The printer's text begins with the mnemonic, then a tab; "lock\n\t"
	// and the like are printed instead.
	const char *text = d->printer->getMnemonic(&inst).first;
	size_t n = 0;
	while (text && ((text[n] >= 'a' && text[n] <= 'z') || (text[n] >= '0' && text[n] <= '9')))
		n++;
	if (n == 0 || n >= sizeof out->mnemonic || (text[n] != '\0' && text[n] != '\t'))
		return 0;
	memcpy(out->mnemonic, text, n);
	out->mnemonic[n] = '\0';
	const llvm::MCInstrDesc &desc = d->instructions->get(inst.getOpcode());
	// lea's address is an operand of no type, the parts of memory.
	bool lea = n == 3 && memcmp(out->mnemonic, "lea", 3) == 0;
	out->operand_count = 0;
	for (unsigned i = 0; i < inst.getNumOperands(); i++) {
		if (i >= desc.getNumOperands())
			return 0; // an operand LLVM does not describe
		if (desc.getOperandConstraint(i, llvm::MCOI::TIED_TO) != -1)
			continue;
		const llvm::MCOperand &op = inst.getOperand(i);
		unsigned type = desc.opInfo_begin()[i].OperandType;
		if (type == x86_condition_code) {
			if (!op.isImm() || uint64_t(op.getImm()) >= std::size(x86_conditions))
				return 0;
			std::string_view code = x86_conditions[op.getImm()];
			size_t at = strlen(out->mnemonic);
			if (at + code.size() >= sizeof out->mnemonic)
				return 0;
			memcpy(out->mnemonic + at, code.data(), code.size() + 1);
			continue;
		}
		ljcore_mc_operand o{};
		if (type == llvm::MCOI::OPERAND_MEMORY || (lea && out->operand_count == 1)) {
			if (i + x86_memory_parts > inst.getNumOperands())
				return 0;
			const llvm::MCOperand &scale = inst.getOperand(i + 1),
					      &index = inst.getOperand(i + 2),
					      &disp = inst.getOperand(i + 3),
					      &segment = inst.getOperand(i + 4);
			if (!op.isReg() || !scale.isImm() || !index.isReg() || !disp.isImm() ||
			    !segment.isReg())
				return 0;
			uint8_t &width = d->memory_width[inst.getOpcode()];
			if (width == width_unknown)
				width = x86_memory_width(d->instructions->getName(inst.getOpcode()))
						.value_or(width_unreadable);
			if (width == width_unreadable)
				return 0;
			// A segment's (fs:, gs:) is thread-local: not an object.
			o.kind = segment.getReg() ? LJCORE_MC_OTHER : LJCORE_MC_MEM;
			o.reg = op.getReg(), o.index = index.getReg();
			o.scale = uint8_t(scale.getImm()), o.value = disp.getImm();
			o.width = width;
			i += x86_memory_parts - 1;
		} else if (op.isReg()) {
			if (!op.getReg())
				return 0;
			o.kind = LJCORE_MC_REG, o.reg = op.getReg();
		} else if (op.isImm()) {
			// A branch's target as printed: from the next instruction.
			o.kind = LJCORE_MC_IMM;
			o.value = type == llvm::MCOI::OPERAND_PCREL
					  ? int64_t(pc + length + op.getImm())
					  : op.getImm();
		} else {
			return 0;
		}
		if (out->operand_count == std::size(out->operands))
			return 0;
		out->operands[out->operand_count++] = o;
	}

	// Some opcodes print operands that are not LLVM's ("add rax, 0x10"
	// of ADD64i32, "shl eax, cl") or name their immediate in the mnemonic
	// ("cmpltsd"): the first of each opcode is printed, and an opcode
	// whose text shows another mnemonic or other operands (reads_as_text)
	// is printed from then on.
	uint8_t &agree = d->parts_agree[inst.getOpcode()];
	if (agree == parts_unknown)
		agree = !names_immediate(*out) && reads_as_text(d, inst, pc, length, *out)
				? parts_read
				: parts_printed;
	if (agree == parts_printed)
		return 0;
	branch_of(d, inst, pc, length, out);
	return length;
}

const char *register_name(void *decoder, unsigned reg)
{
	const llvm::MCRegisterInfo &registers = *static_cast<Decoder *>(decoder)->registers;
	return reg < registers.getNumRegs() ? registers.getName(reg) : nullptr;
}

const struct ljcore_mc mc = {
	decoder_create, decode, decoder_dispose, is_x86 ? describe : nullptr, register_name,
};

} // namespace

#ifdef LJCORE_X86_FEATURE_TABLE_BYTES
// X86's subtarget without its CPU models. LLVM's own creator
// (X86_MC::createX86MCSubtargetInfo, which the target's registration
// names) links the CPU models' scheduling tables: 114 pages that the
// loader relocates, a page copied for each (some 0.2 ms of every module
// load), which disassembling never reads. The module is linked with that
// creator's name bound to this one (CMakeLists.txt), and the tables go
// with it. It sets the features LLVM's sets for x86_64 and no CPU: the
// triple's (64-bit mode, SSE2) and the "generic" model's (x87, cx8,
// 64bit); the disassembler reads the mode (with none set, it has no
// mode at all). The features are looked up in LLVM's own table, whose
// size CMakeLists.txt reads from the library. test_disasm.cpp checks
// that the module decodes as the shared libLLVM does.
namespace llvm {
extern const SubtargetFeatureKV X86FeatureKV[];
}
static_assert(LJCORE_X86_FEATURE_TABLE_BYTES % sizeof(llvm::SubtargetFeatureKV) == 0);

extern "C" llvm::MCSubtargetInfo *
ljcore_mc_x86_subtarget(const llvm::Triple &triple, llvm::StringRef cpu, llvm::StringRef features)
{
	// decoder_create asks for neither a CPU nor features.
	if (triple.getArch() != llvm::Triple::x86_64 || !cpu.empty() || !features.empty())
		return nullptr;
	llvm::ArrayRef<llvm::SubtargetFeatureKV> table(llvm::X86FeatureKV,
						       LJCORE_X86_FEATURE_TABLE_BYTES /
							       sizeof(llvm::SubtargetFeatureKV));
	auto *subtarget = new llvm::MCSubtargetInfo(triple, "", "", "", table, {}, nullptr, nullptr,
						    nullptr, nullptr, nullptr, nullptr);
	// Set one by one: given no CPU models, the constructor sets none.
	for (const char *feature : {"+64bit-mode", "+sse2", "+x87", "+cx8", "+64bit"})
		subtarget->ApplyFeatureFlag(feature);
	return subtarget;
}
#endif

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
__attribute__((visibility("default"))) const struct ljcore_mc *LJCORE_MC_OPEN_FN(void)
{
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetInfo)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetMC)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, Disassembler)();
	return &mc;
}
}
