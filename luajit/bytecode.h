/*
 * Bytecode facts the symbolizer needs (lj_bc.h BCDEF): per opcode its name,
 * the mode of operand A and the metamethod it may call. Function names are
 * derived from the caller's bytecode (lj_debug.c), so these must match the
 * LuaJIT that wrote the core; the opcode list is the same in LuaJIT 2.1 and
 * OpenResty's luajit2.
 */
#ifndef LJCORE_LUAJIT_BYTECODE_H
#define LJCORE_LUAJIT_BYTECODE_H

#include "types.h"

/* One entry per line, in the order of lj_bc.h and lj_obj.h. */
/* clang-format off */
/* Mode of operand A (BCMode in lj_bc.h; only the ones we test are named). */
enum lj_bc_amode {
	LJ_BCM_NONE,
	LJ_BCM_DST,
	LJ_BCM_BASE,
	LJ_BCM_VAR,
	LJ_BCM_RBASE,
	LJ_BCM_UV
};

/* Metamethods in ORDER MM (MMDEF in lj_obj.h, FFI and 5.2 pairs on). */
enum lj_mm {
	LJ_MM_index,
	LJ_MM_newindex,
	LJ_MM_gc,
	LJ_MM_mode,
	LJ_MM_eq,
	LJ_MM_len,
	LJ_MM_lt,
	LJ_MM_le,
	LJ_MM_concat,
	LJ_MM_call,
	LJ_MM_add,
	LJ_MM_sub,
	LJ_MM_mul,
	LJ_MM_div,
	LJ_MM_mod,
	LJ_MM_pow,
	LJ_MM_unm,
	LJ_MM_metatable,
	LJ_MM_tostring,
	LJ_MM_new,
	LJ_MM_pairs,
	LJ_MM_ipairs,
	LJ_MM_NONE /* MM__MAX: the opcode calls no metamethod */
};

static const char *const lj_mm_names[] = {
	"__index",
	"__newindex",
	"__gc",
	"__mode",
	"__eq",
	"__len",
	"__lt",
	"__le",
	"__concat",
	"__call",
	"__add",
	"__sub",
	"__mul",
	"__div",
	"__mod",
	"__pow",
	"__unm",
	"__metatable",
	"__tostring",
	"__new",
	"__pairs",
	"__ipairs",
};

struct lj_bcdef {
	const char *name;
	u8 amode; /* enum lj_bc_amode */
	u8 mm;    /* enum lj_mm */
};

/* Indexed by opcode (the low byte of an instruction). */
static const struct lj_bcdef lj_bcdefs[] = {
	{"ISLT", LJ_BCM_VAR, LJ_MM_lt},
	{"ISGE", LJ_BCM_VAR, LJ_MM_lt},
	{"ISLE", LJ_BCM_VAR, LJ_MM_le},
	{"ISGT", LJ_BCM_VAR, LJ_MM_le},
	{"ISEQV", LJ_BCM_VAR, LJ_MM_eq},
	{"ISNEV", LJ_BCM_VAR, LJ_MM_eq},
	{"ISEQS", LJ_BCM_VAR, LJ_MM_eq},
	{"ISNES", LJ_BCM_VAR, LJ_MM_eq},
	{"ISEQN", LJ_BCM_VAR, LJ_MM_eq},
	{"ISNEN", LJ_BCM_VAR, LJ_MM_eq},
	{"ISEQP", LJ_BCM_VAR, LJ_MM_eq},
	{"ISNEP", LJ_BCM_VAR, LJ_MM_eq},
	{"ISTC", LJ_BCM_DST, LJ_MM_NONE},
	{"ISFC", LJ_BCM_DST, LJ_MM_NONE},
	{"IST", LJ_BCM_NONE, LJ_MM_NONE},
	{"ISF", LJ_BCM_NONE, LJ_MM_NONE},
	{"ISTYPE", LJ_BCM_VAR, LJ_MM_NONE},
	{"ISNUM", LJ_BCM_VAR, LJ_MM_NONE},
	{"MOV", LJ_BCM_DST, LJ_MM_NONE},
	{"NOT", LJ_BCM_DST, LJ_MM_NONE},
	{"UNM", LJ_BCM_DST, LJ_MM_unm},
	{"LEN", LJ_BCM_DST, LJ_MM_len},
	{"ADDVN", LJ_BCM_DST, LJ_MM_add},
	{"SUBVN", LJ_BCM_DST, LJ_MM_sub},
	{"MULVN", LJ_BCM_DST, LJ_MM_mul},
	{"DIVVN", LJ_BCM_DST, LJ_MM_div},
	{"MODVN", LJ_BCM_DST, LJ_MM_mod},
	{"ADDNV", LJ_BCM_DST, LJ_MM_add},
	{"SUBNV", LJ_BCM_DST, LJ_MM_sub},
	{"MULNV", LJ_BCM_DST, LJ_MM_mul},
	{"DIVNV", LJ_BCM_DST, LJ_MM_div},
	{"MODNV", LJ_BCM_DST, LJ_MM_mod},
	{"ADDVV", LJ_BCM_DST, LJ_MM_add},
	{"SUBVV", LJ_BCM_DST, LJ_MM_sub},
	{"MULVV", LJ_BCM_DST, LJ_MM_mul},
	{"DIVVV", LJ_BCM_DST, LJ_MM_div},
	{"MODVV", LJ_BCM_DST, LJ_MM_mod},
	{"POW", LJ_BCM_DST, LJ_MM_pow},
	{"CAT", LJ_BCM_DST, LJ_MM_concat},
	{"KSTR", LJ_BCM_DST, LJ_MM_NONE},
	{"KCDATA", LJ_BCM_DST, LJ_MM_NONE},
	{"KSHORT", LJ_BCM_DST, LJ_MM_NONE},
	{"KNUM", LJ_BCM_DST, LJ_MM_NONE},
	{"KPRI", LJ_BCM_DST, LJ_MM_NONE},
	{"KNIL", LJ_BCM_BASE, LJ_MM_NONE},
	{"UGET", LJ_BCM_DST, LJ_MM_NONE},
	{"USETV", LJ_BCM_UV, LJ_MM_NONE},
	{"USETS", LJ_BCM_UV, LJ_MM_NONE},
	{"USETN", LJ_BCM_UV, LJ_MM_NONE},
	{"USETP", LJ_BCM_UV, LJ_MM_NONE},
	{"UCLO", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FNEW", LJ_BCM_DST, LJ_MM_gc},
	{"TNEW", LJ_BCM_DST, LJ_MM_gc},
	{"TDUP", LJ_BCM_DST, LJ_MM_gc},
	{"GGET", LJ_BCM_DST, LJ_MM_index},
	{"GSET", LJ_BCM_VAR, LJ_MM_newindex},
	{"TGETV", LJ_BCM_DST, LJ_MM_index},
	{"TGETS", LJ_BCM_DST, LJ_MM_index},
	{"TGETB", LJ_BCM_DST, LJ_MM_index},
	{"TGETR", LJ_BCM_DST, LJ_MM_index},
	{"TSETV", LJ_BCM_VAR, LJ_MM_newindex},
	{"TSETS", LJ_BCM_VAR, LJ_MM_newindex},
	{"TSETB", LJ_BCM_VAR, LJ_MM_newindex},
	{"TSETM", LJ_BCM_BASE, LJ_MM_newindex},
	{"TSETR", LJ_BCM_VAR, LJ_MM_newindex},
	{"CALLM", LJ_BCM_BASE, LJ_MM_call},
	{"CALL", LJ_BCM_BASE, LJ_MM_call},
	{"CALLMT", LJ_BCM_BASE, LJ_MM_call},
	{"CALLT", LJ_BCM_BASE, LJ_MM_call},
	{"ITERC", LJ_BCM_BASE, LJ_MM_call},
	{"ITERN", LJ_BCM_BASE, LJ_MM_call},
	{"VARG", LJ_BCM_BASE, LJ_MM_NONE},
	{"ISNEXT", LJ_BCM_BASE, LJ_MM_NONE},
	{"RETM", LJ_BCM_BASE, LJ_MM_NONE},
	{"RET", LJ_BCM_RBASE, LJ_MM_NONE},
	{"RET0", LJ_BCM_RBASE, LJ_MM_NONE},
	{"RET1", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FORI", LJ_BCM_BASE, LJ_MM_NONE},
	{"JFORI", LJ_BCM_BASE, LJ_MM_NONE},
	{"FORL", LJ_BCM_BASE, LJ_MM_NONE},
	{"IFORL", LJ_BCM_BASE, LJ_MM_NONE},
	{"JFORL", LJ_BCM_BASE, LJ_MM_NONE},
	{"ITERL", LJ_BCM_BASE, LJ_MM_NONE},
	{"IITERL", LJ_BCM_BASE, LJ_MM_NONE},
	{"JITERL", LJ_BCM_BASE, LJ_MM_NONE},
	{"LOOP", LJ_BCM_RBASE, LJ_MM_NONE},
	{"ILOOP", LJ_BCM_RBASE, LJ_MM_NONE},
	{"JLOOP", LJ_BCM_RBASE, LJ_MM_NONE},
	{"JMP", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FUNCF", LJ_BCM_RBASE, LJ_MM_NONE},
	{"IFUNCF", LJ_BCM_RBASE, LJ_MM_NONE},
	{"JFUNCF", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FUNCV", LJ_BCM_RBASE, LJ_MM_NONE},
	{"IFUNCV", LJ_BCM_RBASE, LJ_MM_NONE},
	{"JFUNCV", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FUNCC", LJ_BCM_RBASE, LJ_MM_NONE},
	{"FUNCCW", LJ_BCM_RBASE, LJ_MM_NONE},
};
/* clang-format on */

#define LJ_BC_COUNT (sizeof(lj_bcdefs) / sizeof(lj_bcdefs[0]))

/* Instruction fields (lj_bc.h): op:8 a:8 c:8 b:8, or op:8 a:8 d:16. */
#define LJ_BC_OP(i) ((i)&0xff)
#define LJ_BC_A(i) (((i) >> 8) & 0xff)
#define LJ_BC_B(i) ((i) >> 24)
#define LJ_BC_C(i) (((i) >> 16) & 0xff)
#define LJ_BC_D(i) ((i) >> 16)

#endif
