/* One ljcore LLVM module (see disasm_module.h): LJCORE_MC_TARGET names the
 * LLVM target it holds (X86, AArch64). Everything else in the module is
 * LLVM's, kept out of its dynamic symbols (--exclude-libs). */
#include "analyzer/traces/disasm_module.h"

#define LJCORE_MC_CAT(a, b, c) a##b##c
#define LJCORE_MC_INIT(target, part) LJCORE_MC_CAT(LLVMInitialize, target, part)

void LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetInfo)(void);
void LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetMC)(void);
void LJCORE_MC_INIT(LJCORE_MC_TARGET, Disassembler)(void);

static const struct ljcore_mc mc = {
	LLVMCreateDisasm,
	LLVMSetDisasmOptions,
	LLVMDisasmInstruction,
	LLVMDisasmDispose,
};

/* LLVM's support library asks terminfo whether a stream has colours, so
 * linking it needs libtinfo, which dlopen would load with the module (some
 * 0.15 ms). The module never writes to a terminal: these answer "no
 * terminal" (setupterm's ERR), and libtinfo stays unloaded. */
struct term;

int setupterm(const char *term, int fd, int *errret)
{
	(void)term;
	(void)fd;
	if (errret)
		*errret = -1;
	return -1;
}

struct term *set_curterm(struct term *term)
{
	(void)term;
	return 0;
}

int del_curterm(struct term *term)
{
	(void)term;
	return -1;
}

int tigetnum(const char *name)
{
	(void)name;
	return -2;
}

/* Called once per process (disasm.cpp keeps the result): registering a
 * target twice would be harmless, but is not needed. */
__attribute__((visibility("default"))) const struct ljcore_mc *ljcore_mc_open(void)
{
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetInfo)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, TargetMC)();
	LJCORE_MC_INIT(LJCORE_MC_TARGET, Disassembler)();
	return &mc;
}
