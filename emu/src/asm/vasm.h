/*
 * vasm.h — a small two-pass VAX assembler and a disassembler.
 *
 * Used by the CPU test suite (to write test programs as text), by the
 * benchmark and by the debugging tools (disassembly of traces).  Both read
 * the one opcode table in cpu/opcodes.h.  No global mutable state: every
 * call works on its own context, so the functions are re-entrant.
 *
 * The accepted syntax is documented at the top of vasm.c.
 */
#ifndef VAX_VASM_H
#define VAX_VASM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A symbol (label or `name = expr`) of an assembled program. */
typedef struct vasm_sym {
    char *name;
    uint32_t value;        /* low 32 bits of the value */
    int is_label;          /* 1 = label, 0 = assignment */
    int line;              /* source line of the (last) definition */
} vasm_sym;

/* One source line, for listings: the location counter at the start of the
 * line and the number of bytes the line emitted there. */
typedef struct vasm_line {
    int line;              /* 1-based source line number */
    uint32_t addr;
    uint32_t len;
} vasm_line;

typedef struct vasm_result {
    uint8_t *bytes;        /* image: bytes[i] belongs at address base + i */
    size_t len;            /* up to the highest address written (gaps are 0) */
    uint32_t base;
    char error[256];       /* message of the first error ("" if none) */
    int error_line;        /* its 1-based source line (0 if none) */
    vasm_sym *syms;        /* all defined symbols, in order of definition */
    size_t nsyms;
    vasm_line *lines;      /* one entry per source line */
    size_t nlines;
} vasm_result;

/* Assemble NUL-terminated source text with the location counter starting
 * at `base`.  Returns 0 on success, -1 on error (out->error, out->error_line
 * set; out->bytes may be NULL).  Always call vasm_free() afterwards. */
int vasm_assemble(const char *source, uint32_t base, vasm_result *out);

/* Value of a symbol (case-sensitive).  Returns 0 if found, -1 if not. */
int vasm_symbol(const vasm_result *r, const char *name, uint32_t *value);

/* Release what vasm_assemble() allocated; the struct may be reused. */
void vasm_free(vasm_result *r);

/* Disassemble one instruction at bytes[0..avail), located at address pc,
 * into out (always NUL-terminated when outsz > 0; cut short if too small).
 * Returns the instruction length in bytes (not counting a CASE table), or
 * -1 if the bytes are truncated (avail too small) or the encoding has no
 * defined length (index mode applied to an index specifier).
 * Reserved opcodes come out as ".BYTE 57" with length 1. */
int vdisasm(const uint8_t *bytes, size_t avail, uint32_t pc, char *out, size_t outsz);

#ifdef __cplusplus
}
#endif

#endif
