#include "analyzer/traces/disasm.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <llvm-c/Disassembler.h>

#include "analyzer/traces/disasm_module.h"
#include "readers/arch/arch.h"

namespace ljcore {

namespace {

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

// The shared libLLVM's C interface (llvm-c/Disassembler.h), whose
// functions load_shared_llvm looks up.
struct SharedLlvm {
	LLVMDisasmContextRef (*create)(const char *triple, void *info, int tag_type,
				       LLVMOpInfoCallback op_info,
				       LLVMSymbolLookupCallback symbol_lookup);
	int (*set_options)(LLVMDisasmContextRef ctx, uint64_t options);
	size_t (*instruction)(LLVMDisasmContextRef ctx, uint8_t *bytes, uint64_t size, uint64_t pc,
			      char *out, size_t out_size);
	void (*dispose)(LLVMDisasmContextRef ctx);
};
SharedLlvm shared_llvm;

// A decoder of the shared libLLVM: its context and where the symbol
// callback puts a branch's target while an instruction decodes.
struct SharedDecoder {
	LLVMDisasmContextRef context = nullptr;
	std::optional<uint64_t> branch;
};

// No relocations to offer: the operand stays as LLVM decoded it.
int no_op_info(void *, uint64_t, uint64_t, uint64_t, int, void *)
{
	return 0;
}

// LLVM asks this for the name of every address an operand refers to; for
// a branch it passes the absolute target, which is all we want from it.
// Returning no name makes LLVM print the address itself.
const char *symbol_lookup(void *info, uint64_t value, uint64_t *type, uint64_t, const char **name)
{
	auto *decoder = static_cast<SharedDecoder *>(info);
	if (*type == LLVMDisassembler_ReferenceType_In_Branch)
		decoder->branch = value;
	*type = LLVMDisassembler_ReferenceType_InOut_None;
	*name = nullptr;
	return nullptr;
}

void *shared_create(const char *triple, int intel_syntax)
{
	auto decoder = std::make_unique<SharedDecoder>();
	decoder->context = shared_llvm.create(triple, decoder.get(), 0, no_op_info, symbol_lookup);
	if (!decoder->context)
		return nullptr;
	// Switching the variant makes a new printer, which would drop
	// options set before: hex immediates after it.
	if (intel_syntax)
		shared_llvm.set_options(decoder->context,
					LLVMDisassembler_Option_AsmPrinterVariant);
	shared_llvm.set_options(decoder->context, LLVMDisassembler_Option_PrintImmHex);
	return decoder.release();
}

size_t shared_decode(void *d, const uint8_t *bytes, size_t size, uint64_t pc, ljcore_mc_insn *out)
{
	auto *decoder = static_cast<SharedDecoder *>(d);
	decoder->branch.reset();
	// LLVM's interface is not const-correct; it does not write.
	size_t n = shared_llvm.instruction(decoder->context, const_cast<uint8_t *>(bytes), size, pc,
					   out->text, sizeof out->text);
	out->has_branch = decoder->branch.has_value();
	out->branch_to = decoder->branch.value_or(0);
	return n;
}

void shared_dispose(void *d)
{
	auto *decoder = static_cast<SharedDecoder *>(d);
	shared_llvm.dispose(decoder->context);
	delete decoder;
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
	// Looked up again for the second architecture: the same library.
	if (!find(lib, "LLVMCreateDisasm", shared_llvm.create) ||
	    !find(lib, "LLVMSetDisasmOptions", shared_llvm.set_options) ||
	    !find(lib, "LLVMDisasmInstruction", shared_llvm.instruction) ||
	    !find(lib, "LLVMDisasmDispose", shared_llvm.dispose))
		return fail(LJCORE_LLVM_SONAME " lacks its disassembler interface");
	static const ljcore_mc shared = {shared_create, shared_decode, shared_dispose, nullptr,
					 nullptr};
	return &shared;
}

// LLVM's disassembler for arch (loaded_once keeps it, a failure too, to
// be reported by every Disassembler::create): ljcore's module when it has one and it loads, else
// the shared libLLVM (whose failure reports the module's, if there was one). Linked into ljcore,
// LLVM's tables' relocations would cost every run some 2.5 ms at start-up, disassembling or not.
// Never unloaded: LLVM registers its targets in its globals.
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

// What load gives for arch, loaded on first use, once per process and
// architecture.
template <Expected<const ljcore_mc *> (*load)(Arch)>
const Expected<const ljcore_mc *> &loaded_once(Arch arch)
{
	if (arch == Arch::x86_64) {
		static const Expected<const ljcore_mc *> x86_64 = load(arch);
		return x86_64;
	}
	static const Expected<const ljcore_mc *> aarch64 = load(arch);
	return aarch64;
}

} // namespace

Expected<std::unique_ptr<Disassembler>>
Disassembler::create_from(Arch arch, const Expected<const ljcore_mc *> &lib)
{
	if (!lib)
		return std::unexpected(lib.error());
	std::unique_ptr<Disassembler> d(new Disassembler(arch, *lib));
	const char *triple = arch_info(arch).llvm_triple;
	d->decoder_ = (*lib)->create(triple, arch_info(arch).intel_syntax);
	if (!d->decoder_)
		return fail(std::string("LLVM has no disassembler for ") + triple);
	return d;
}

Expected<std::unique_ptr<Disassembler>> Disassembler::create(Arch arch)
{
	return create_from(arch, loaded_once<load_llvm>(arch));
}

Expected<std::unique_ptr<Disassembler>> Disassembler::create_shared(Arch arch)
{
	return create_from(arch, loaded_once<load_shared_llvm>(arch));
}

Disassembler::~Disassembler()
{
	if (decoder_)
		mc_->dispose(decoder_);
}

MachineInsn Disassembler::decode(std::span<const uint8_t> code, uint64_t addr)
{
	MachineInsn insn;
	decode(code, addr, insn);
	return insn;
}

void Disassembler::decode(std::span<const uint8_t> code, uint64_t addr, MachineInsn &insn)
{
	ljcore_mc_insn decoded;
	size_t n = mc_->decode(decoder_, code.data(), code.size(), addr, &decoded);
	insn.addr = addr;
	insn.branch_to.reset();
	insn.undecodable = n == 0;
	if (n == 0) {
		// A fixed instruction width (aarch64) skips a bad word whole.
		insn.size = uint32_t(std::min<size_t>(arch_info(arch_).insn_unit, code.size()));
		insn.text = "(bad)";
		return;
	}
	insn.size = uint32_t(n);
	std::string_view t = decoded.text;
	size_t first = t.find_first_not_of(" \t");
	// Assigned, not built anew: a decoder's MachineInsn reused keeps its
	// buffer.
	insn.text.assign(first == t.npos ? std::string_view() : t.substr(first));
	std::replace(insn.text.begin(), insn.text.end(), '\t', ' ');
	if (decoded.has_branch)
		insn.branch_to = decoded.branch_to;
}

size_t Disassembler::describe(std::span<const uint8_t> code, uint64_t addr,
			      ljcore_mc_operation &out)
{
	return mc_->describe ? mc_->describe(decoder_, code.data(), code.size(), addr, &out) : 0;
}

std::string_view Disassembler::register_name(unsigned reg) const
{
	const char *name = mc_->register_name ? mc_->register_name(decoder_, reg) : nullptr;
	return name ? name : "";
}

std::vector<MachineInsn> Disassembler::disassemble(std::span<const uint8_t> code, uint64_t addr)
{
	std::vector<MachineInsn> out;
	for (size_t off = 0; off < code.size(); off += out.back().size)
		out.push_back(decode(code.subspan(off), addr + off));
	return out;
}

} // namespace ljcore
