/*
 * opcodes.h — the VAX instruction table: mnemonic and operand specifiers of
 * every one-byte opcode.  The decoder, the disassembler, the test assembler
 * and the fuzzer all read this one table, so a mistake shows up everywhere
 * at once instead of hiding in one of them.
 */
#ifndef VAX_OPCODES_H
#define VAX_OPCODES_H

#include <stdint.h>

/* Operand access types (high nibble of a specifier code). */
enum {
    ACC_R = 1,   /* read */
    ACC_M = 2,   /* modify */
    ACC_W = 3,   /* write */
    ACC_A = 4,   /* address */
    ACC_V = 5,   /* bit-field base: address, or register */
    ACC_B = 6    /* branch displacement in the instruction stream */
};

/* Operand data types (low nibble). */
enum { DT_B = 1, DT_W = 2, DT_L = 3, DT_Q = 4, DT_F = 5, DT_D = 6 };

#define SPEC(acc, dt) ((uint8_t)(((acc) << 4) | (dt)))
#define SPEC_ACC(s) ((s) >> 4)
#define SPEC_DT(s) ((s)&0xF)

/* Size in bytes of a data type. */
static inline int dt_size(int dt)
{
    static const uint8_t sz[7] = {0, 1, 2, 4, 8, 4, 8};
    return sz[dt];
}

/* Instruction classes that need special handling by tools. */
enum {
    OPF_NONE = 0,
    OPF_CASE = 1,       /* followed by a table of (limit+1) word displacements */
    OPF_RESERVED = 2,   /* reserved opcode: reserved-instruction fault */
    OPF_PRIV = 4,       /* privileged */
    OPF_PACKED = 8,     /* packed decimal / EDITPC (exec_decimal.c) */
    OPF_ESCAPE = 16     /* FD/FE/FF escape (two-byte opcodes, G/H floating) */
};

/* Which part of the processor executes an opcode: one exec_*.c file each
 * (cpu/exec.h); execute.c dispatches on this column, so the table is the one
 * place that says where an instruction is implemented. */
enum {
    OPG_RESERVED = 0,   /* reserved or escape: reserved-instruction fault */
    OPG_INTEGER,        /* exec_integer.c */
    OPG_BRANCH,         /* exec_branch.c: branches, loops, CASE, BSB/JSB/RSB */
    OPG_FIELD,          /* exec_field.c: bit fields and bit branches */
    OPG_CALL,           /* exec_call.c: CALLS/CALLG/RET, PUSHR/POPR */
    OPG_QUEUE,          /* exec_queue.c */
    OPG_STRING,         /* exec_string.c: character strings, CRC */
    OPG_FLOAT,          /* exec_float.c: F and D floating */
    OPG_PRIVILEGED,     /* privileged.c: HALT, REI, CHMx, MTPR... */
    OPG_DECIMAL,        /* exec_decimal.c: packed decimal, EDITPC */
    OPG_COUNT
};

typedef struct {
    const char *name;   /* mnemonic, upper case; "" for reserved */
    uint8_t nspec;      /* number of operand specifiers */
    uint8_t spec[6];    /* SPEC(access, datatype) for each */
    uint8_t flags;      /* OPF_* */
    uint8_t group;      /* OPG_*: where it is executed */
} vax_opinfo;

extern const vax_opinfo vax_opcodes[256];

/* Look up an opcode by mnemonic (case-insensitive); -1 if unknown.
 * Accepts the usual aliases (CLRF, MOVAF, BCC, BCS, ...). */
int vax_opcode_lookup(const char *name);

#endif
