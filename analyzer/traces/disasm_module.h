/* The interface of ljcore's LLVM modules: LLVM's MC disassembler for one
 * architecture (ljcore-mc-x86_64.so, ljcore-mc-aarch64.so), linked from
 * LLVM's static libraries into a module of its own, which disasm.cpp
 * loads with dlopen on first use (disasm_module.cpp builds it). disasm.cpp
 * implements the same interface on the shared libLLVM's C interface, for
 * a binary without its module, all but describe and register_name (NULL
 * there). Plain C types only. */
#ifndef LJCORE_DISASM_MODULE_H
#define LJCORE_DISASM_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The module's one export: its target registered with LLVM, then the
 * functions below. Renamed whenever they change, so that a module of an
 * older ljcore found beside a newer one is not called wrongly. */
#define LJCORE_MC_OPEN_FN ljcore_mc_open2
#define LJCORE_MC_STRING(name) #name
#define LJCORE_MC_NAME(name) LJCORE_MC_STRING(name)
#define LJCORE_MC_OPEN LJCORE_MC_NAME(LJCORE_MC_OPEN_FN)

/* One decoded instruction. */
struct ljcore_mc_insn {
	char text[256];     /* as LLVM prints it, NUL-terminated */
	int has_branch;     /* a direct branch or call, to branch_to */
	uint64_t branch_to; /* absolute */
};

/* One operand of an instruction as LLVM decoded it, in the order the
 * Intel syntax prints them (describe checks that it does). Registers are
 * LLVM's numbers (0 is none), which register_name names. */
enum ljcore_mc_operand_kind {
	LJCORE_MC_OTHER, /* an operand of no kind below: a segment's memory */
	LJCORE_MC_REG,
	LJCORE_MC_IMM, /* a branch's target as its absolute address */
	LJCORE_MC_MEM,
};

struct ljcore_mc_operand {
	uint8_t kind;
	uint8_t scale;  /* mem: what the index is multiplied by */
	uint8_t width;  /* mem: the bytes accessed, 0 for an address (lea) */
	unsigned reg;   /* reg: the register; mem: the base */
	unsigned index; /* mem */
	int64_t value;  /* imm: the value; mem: the displacement */
};

/* An instruction as its parts: what the text would say, without printing
 * it. */
struct ljcore_mc_operation {
	char mnemonic[16]; /* NUL-terminated */
	unsigned operand_count;
	struct ljcore_mc_operand operands[6];
	int has_branch;
	uint64_t branch_to;
};

/* The bytes an x86 memory operand of Intel syntax covers, from the word
 * before "ptr" ("qword ptr [rax]"); 0 without one (lea's address). How
 * ljcore reads an operand's text (machine_operands.cpp), and so what
 * describe's parts are checked against. */
static inline uint8_t ljcore_mc_x86_text_width(const char *operand, size_t length)
{
	static const struct {
		const char *name;
		uint8_t bytes;
	} widths[] = {
		{"byte", 1},     {"word", 2},     {"dword", 4},  {"qword", 8},
		{"xmmword", 16}, {"ymmword", 32}, {"tbyte", 10},
	};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		size_t n = strlen(widths[i].name);
		if (length >= n + 5 && memcmp(operand, widths[i].name, n) == 0 &&
		    memcmp(operand + n, " ptr ", 5) == 0)
			return widths[i].bytes;
	}
	return 0;
}

/* The length of the operand an instruction's operand text starts with:
 * up to its first comma outside brackets and braces ("qword ptr [rax +
 * 8*rcx]", AArch64's "{v0.16b, v1.16b}"). How ljcore splits an
 * instruction's text (machine_operands.cpp), and so how describe's check
 * splits it. */
static inline size_t ljcore_mc_operand_length(const char *text, size_t length)
{
	int depth = 0;
	size_t i = 0;
	for (; i < length; i++) {
		if (text[i] == '[' || text[i] == '{')
			depth++;
		else if ((text[i] == ']' || text[i] == '}') && depth > 0)
			depth--;
		else if (text[i] == ',' && depth == 0)
			break;
	}
	return i;
}

struct ljcore_mc {
	/* A decoder for an LLVM triple, Intel syntax or the target's own;
	 * NULL when LLVM has none. */
	void *(*create)(const char *triple, int intel_syntax);
	/* Decodes the instruction at bytes (size of them, at address pc)
	 * into out and returns its length, or 0 when it does not decode. */
	size_t (*decode)(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
			 struct ljcore_mc_insn *out);
	void (*dispose)(void *decoder);
	/* Decodes the instruction at bytes into out as decode would, and
	 * returns its length; 0 when it does not decode, or when its parts
	 * might not read as its text, for decode to print. NULL when the
	 * target has no such reader (only x86_64 has: AArch64's text names
	 * aliases, "mov" for an orr, which its parts would not). */
	size_t (*describe)(void *decoder, const uint8_t *bytes, size_t size, uint64_t pc,
			   struct ljcore_mc_operation *out);
	/* The name of LLVM's register number reg, in capitals ("EAX"); NULL
	 * for a number the target has no register of. */
	const char *(*register_name)(void *decoder, unsigned reg);
};

typedef const struct ljcore_mc *(*ljcore_mc_open_fn)(void);

#endif
