/* The interface of ljcore's LLVM modules: LLVM's MC disassembler for one
 * architecture (ljcore-mc-x86_64.so, ljcore-mc-aarch64.so), linked from
 * LLVM's static libraries into a module of its own, which disasm.cpp
 * loads with dlopen on first use (disasm_module.cpp builds it). disasm.cpp
 * implements the same interface on the shared libLLVM's C interface, for
 * a binary without its module. Plain C types only. */
#ifndef LJCORE_DISASM_MODULE_H
#define LJCORE_DISASM_MODULE_H

#include <stddef.h>
#include <stdint.h>

/* The module's one export: its target registered with LLVM, then the
 * functions below. */
#define LJCORE_MC_OPEN "ljcore_mc_open"

/* One decoded instruction. */
struct ljcore_mc_insn {
	char text[256];     /* as LLVM prints it, NUL-terminated */
	int has_branch;     /* a direct branch or call, to branch_to */
	uint64_t branch_to; /* absolute */
};

struct ljcore_mc {
	/* A decoder for an LLVM triple, Intel syntax or the target's own;
	 * NULL when LLVM has none. */
	void *(*create)(const char *triple, int intel_syntax);
	/* Decodes the instruction at bytes (size of them, at address pc)
	 * into out and returns its length, or 0 when it does not decode. */
	size_t (*decode)(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
			 struct ljcore_mc_insn *out);
	void (*dispose)(void *decoder);
};

typedef const struct ljcore_mc *(*ljcore_mc_open_fn)(void);

#endif
