/*
 * vdisasm.c — one-instruction VAX disassembler (declared in vasm.h).
 *
 * Output conventions (upper case, operands separated by ',' only):
 *   ADDL3 #5,R1,R2              short literal (decimal, 0..63)
 *   MOVF S^#8,R0                floating short literal: the raw 6-bit field
 *   MOVL #0x12345678,R0         immediate (8F); an immediate holding 0..63 is
 *   MOVL I^#5,R0                shown with I^ so it differs from a literal
 *   MOVL 8(R2),@#00001000       displacement; absolute (9F) as 8 hex digits
 *   MOVL -0x10(FP),R0           displacements are signed: decimal if -9..9,
 *                               else 0x hex; W^ or L^ is shown only when the
 *                               encoding is longer than the value needs
 *   MOVAB 0x200(R2)[R3],R4      index mode
 *   BRB 00001000                branch targets: absolute, 8 hex digits
 *   MOVL 00001234,R0            PC-relative: the target address (B^/W^ shown
 *   MOVL @W^00001234,R0         when the displacement is not a longword)
 *   .BYTE 57                    reserved opcode (length 1)
 * CASEx shows its three operands; the displacement table that follows is
 * not part of the returned length.
 */
#include "asm/vasm.h"

#include "cpu/opcodes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char *out;
    size_t size;
    size_t n;
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sb_printf(sbuf *sb, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    size_t len = (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
    for (size_t i = 0; i < len; i++) {
        if (sb->size && sb->n + 1 < sb->size) {
            sb->out[sb->n] = tmp[i];
            sb->out[sb->n + 1] = 0;
        }
        sb->n++;
    }
}

static const char *const regname[16] = {"R0", "R1", "R2", "R3", "R4",  "R5", "R6", "R7",
                                        "R8", "R9", "R10", "R11", "AP", "FP", "SP", "PC"};

static uint64_t read_le(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

static int64_t sext(uint64_t v, int n)
{
    if (n >= 8)
        return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (8 * n - 1);
    v &= (sign << 1) - 1;
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

static int min_disp_size(int64_t v)
{
    if (v >= -128 && v <= 127)
        return 1;
    if (v >= -32768 && v <= 32767)
        return 2;
    return 4;
}

static void put_signed(sbuf *sb, int64_t v)
{
    if (v >= -9 && v <= 9)
        sb_printf(sb, "%d", (int)v);
    else if (v < 0)
        sb_printf(sb, "-0x%llX", (unsigned long long)(0 - (uint64_t)v));
    else
        sb_printf(sb, "0x%llX", (unsigned long long)v);
}

/* Decode the operand specifier at b[*pos].  Returns 0, or -1 if truncated
 * or undecodable (index of index). */
static int spec_decode(const uint8_t *b, size_t avail, size_t *pos, uint32_t pc, uint8_t spec, sbuf *sb,
                       int in_index)
{
    if (*pos >= avail)
        return -1;
    int acc = SPEC_ACC(spec), dt = SPEC_DT(spec);
    int isfloat = dt == DT_F || dt == DT_D;
    uint8_t m = b[(*pos)++];
    int mode = m >> 4, reg = m & 15;
    switch (mode) {
    case 0: case 1: case 2: case 3:
        sb_printf(sb, isfloat ? "S^#%d" : "#%d", m & 63);
        return 0;
    case 4:
        if (in_index)
            return -1;
        if (spec_decode(b, avail, pos, pc, spec, sb, 1) < 0)
            return -1;
        sb_printf(sb, "[%s]", regname[reg]);
        return 0;
    case 5:
        sb_printf(sb, "%s", regname[reg]);
        return 0;
    case 6:
        sb_printf(sb, "(%s)", regname[reg]);
        return 0;
    case 7:
        sb_printf(sb, "-(%s)", regname[reg]);
        return 0;
    case 8:
        if (reg == 15) {
            int n = acc == ACC_V ? 1 : dt_size(dt);
            if (*pos + (size_t)n > avail)
                return -1;
            uint64_t v = read_le(b + *pos, n);
            *pos += (size_t)n;
            if (!isfloat && v <= 63)
                sb_printf(sb, "I^#%d", (int)v);
            else if (v <= 9)
                sb_printf(sb, "#%d", (int)v);
            else
                sb_printf(sb, "#0x%llX", (unsigned long long)v);
        } else {
            sb_printf(sb, "(%s)+", regname[reg]);
        }
        return 0;
    case 9:
        if (reg == 15) {
            if (*pos + 4 > avail)
                return -1;
            sb_printf(sb, "@#%08X", (unsigned)read_le(b + *pos, 4));
            *pos += 4;
        } else {
            sb_printf(sb, "@(%s)+", regname[reg]);
        }
        return 0;
    default: {
        int n = mode < 0xC ? 1 : mode < 0xE ? 2 : 4;
        const char *at = (mode & 1) ? "@" : "";
        if (*pos + (size_t)n > avail)
            return -1;
        int64_t d = sext(read_le(b + *pos, n), n);
        *pos += (size_t)n;
        const char *prefix = n == 1 ? "B^" : n == 2 ? "W^" : "L^";
        if (reg == 15) {
            uint32_t target = (uint32_t)(pc + (uint32_t)*pos + (uint32_t)d);
            sb_printf(sb, "%s%s%08X", at, n < 4 ? prefix : "", (unsigned)target);
        } else {
            sb_printf(sb, "%s%s", at, n > min_disp_size(d) ? prefix : "");
            put_signed(sb, d);
            sb_printf(sb, "(%s)", regname[reg]);
        }
        return 0;
    }
    }
}

int vdisasm(const uint8_t *bytes, size_t avail, uint32_t pc, char *out, size_t outsz)
{
    sbuf sb = {out, outsz, 0};
    if (out && outsz)
        out[0] = 0;
    else
        sb.size = 0;
    if (!bytes || avail < 1)
        return -1;
    const vax_opinfo *info = &vax_opcodes[bytes[0]];
    if ((info->flags & OPF_RESERVED) || !info->name || !info->name[0]) {
        sb_printf(&sb, ".BYTE %02X", bytes[0]);
        return 1;
    }
    sb_printf(&sb, "%s", info->name);
    size_t pos = 1;
    for (int i = 0; i < info->nspec; i++) {
        uint8_t spec = info->spec[i];
        sb_printf(&sb, i == 0 ? " " : ",");
        if (SPEC_ACC(spec) == ACC_B) {
            int n = SPEC_DT(spec) == DT_B ? 1 : 2;
            if (pos + (size_t)n > avail)
                return -1;
            int64_t d = sext(read_le(bytes + pos, n), n);
            pos += (size_t)n;
            sb_printf(&sb, "%08X", (unsigned)(pc + (uint32_t)pos + (uint32_t)d));
        } else if (spec_decode(bytes, avail, &pos, pc, spec, &sb, 0) < 0) {
            return -1;
        }
    }
    return (int)pos;
}
