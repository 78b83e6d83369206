/* The interface of ljcore's LLVM modules: LLVM's MC disassembler for one
 * architecture (ljcore-mc-x86_64.so, ljcore-mc-aarch64.so), linked from
 * LLVM's static libraries into a module of its own, which disasm.cpp
 * loads with dlopen on first use. Plain C: the module is built from
 * disasm_module.c. */
#ifndef LJCORE_DISASM_MODULE_H
#define LJCORE_DISASM_MODULE_H

#include <llvm-c/Disassembler.h>

/* The module's one export: its target registered with LLVM, then the four
 * functions of LLVM's C interface that disasm.cpp calls. */
#define LJCORE_MC_OPEN "ljcore_mc_open"

struct ljcore_mc {
	LLVMDisasmContextRef (*create)(const char *triple, void *info, int tag_type,
				       LLVMOpInfoCallback op_info,
				       LLVMSymbolLookupCallback symbol_lookup);
	int (*set_options)(LLVMDisasmContextRef ctx, uint64_t options);
	size_t (*instruction)(LLVMDisasmContextRef ctx, uint8_t *bytes, uint64_t size, uint64_t pc,
			      char *out, size_t out_size);
	void (*dispose)(LLVMDisasmContextRef ctx);
};

typedef const struct ljcore_mc *(*ljcore_mc_open_fn)(void);

#endif
