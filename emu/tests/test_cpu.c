/*
 * test_cpu.c — the table-driven CPU test runner.  Reads `*.vt` files (the
 * format is tests/cpu/FORMAT.md), runs every test on a fresh machine and
 * checks its expectations.
 *
 *   test_cpu [-v] [DIR | FILE ...]
 *
 * Without arguments the tests come from $VAXLAB_CPU_TESTS, else tests/cpu
 * under the current directory, else <exe dir>/../../tests/cpu.  Prints a
 * `FAIL file:line test: ...` line per problem (-v: also `PASS file:line
 * test`) and ends with exactly one `N passed, M failed` line; exits 1 if a
 * test failed or a file could not be read or parsed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asm/vasm.h"
#include "cpu/cpu.h"
#include "vax.h"

enum { MEM_SIZE = 1 << 20, CODE_BASE = 0x1000, STUB_BASE = 0x400, SCB_BYTES = 0x200, MAX_FRAME = 32 };
#define DEFAULT_BUDGET 100000u
#define MAX_BUDGET 100000000u
#define MAX_FILE_BYTES (16L << 20)

static int verbose, n_passed, n_failed;

/* SCB vectors by name; nparam: longwords pushed before PC/PSL (-1: the
 * machine check's byte count says). */
static const struct { const char *name; uint32_t off; int nparam; } vectors[] = {
    {"MACHINE_CHECK", 0x04, -1}, {"KSNV", 0x08, 0}, {"RESERVED_INSTRUCTION", 0x10, 0}, {"XFC", 0x14, 0},
    {"RESERVED_OPERAND", 0x18, 0}, {"RESERVED_ADDRESSING_MODE", 0x1C, 0}, {"ACV", 0x20, 2}, {"TNV", 0x24, 2},
    {"TRACE", 0x28, 0}, {"BPT", 0x2C, 0}, {"COMPAT", 0x30, 1}, {"ARITHMETIC", 0x34, 1}, {"CHMK", 0x40, 1},
    {"CHME", 0x44, 1}, {"CHMS", 0x48, 1}, {"CHMU", 0x4C, 1},
};
#define NVECTORS (sizeof vectors / sizeof vectors[0])

static const char *const ipr_names[IPR_COUNT] = {
    [IPR_KSP] = "KSP", [IPR_ESP] = "ESP", [IPR_SSP] = "SSP", [IPR_USP] = "USP", [IPR_ISP] = "ISP",
    [IPR_P0BR] = "P0BR", [IPR_P0LR] = "P0LR", [IPR_P1BR] = "P1BR", [IPR_P1LR] = "P1LR", [IPR_SBR] = "SBR",
    [IPR_SLR] = "SLR", [IPR_PCBB] = "PCBB", [IPR_SCBB] = "SCBB", [IPR_IPL] = "IPL", [IPR_ASTLVL] = "ASTLVL",
    [IPR_SIRR] = "SIRR", [IPR_SISR] = "SISR", [IPR_ICCS] = "ICCS", [IPR_NICR] = "NICR", [IPR_ICR] = "ICR",
    [IPR_TODR] = "TODR", [IPR_RXCS] = "RXCS", [IPR_RXDB] = "RXDB", [IPR_TXCS] = "TXCS", [IPR_TXDB] = "TXDB",
    [IPR_ACCS] = "ACCS", [IPR_ACCR] = "ACCR", [IPR_WCSA] = "WCSA", [IPR_WCSD] = "WCSD", [IPR_SBIFS] = "SBIFS",
    [IPR_SBIS] = "SBIS", [IPR_SBISC] = "SBISC", [IPR_SBIMT] = "SBIMT", [IPR_SBIER] = "SBIER",
    [IPR_SBITA] = "SBITA", [IPR_SBIQC] = "SBIQC", [IPR_MAPEN] = "MAPEN", [IPR_TBIA] = "TBIA",
    [IPR_TBIS] = "TBIS", [IPR_MBRK] = "MBRK", [IPR_PMR] = "PMR", [IPR_SID] = "SID",
};

enum outcome { OUT_NONE, OUT_HALT, OUT_EXC, OUT_BUDGET, OUT_STOP };

typedef struct {
    const char *file, *name;
    char **lines;                 /* the whole file; lines[i] is line i + 1 */
    const unsigned char *in_code; /* per line: 1 inside a code block, 2 its `end` */
    int first, last;              /* the test's lines after `test`: [first, last) */
    int failed, pc_set, ran, skip_expects;
    vax_machine *m;
    vasm_result *code;            /* the assembled code blocks, in order */
    int ncode, loaded;
    enum outcome out;             /* how the last run/step ended */
    uint32_t halt_pc, vector;
    uint64_t budget;
    vax_stop_reason stop;
    char stop_detail[200];
} test_t;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(test_t *t, int line, const char *fmt, ...)
{
    va_list ap;
    printf("FAIL %s:%d %s: ", t->file, line, t->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    t->failed = 1;
    return -1;
}

/* ------------------------------------------------------------ lexing */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int at_end(const char *p) { return *skip_ws(p) == 0; }
static int ident_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '$'; }

/* An identifier ([A-Za-z_.$][A-Za-z0-9_.$]*) into buf, cut to fit. */
static int get_ident(const char **pp, char *buf, size_t n)
{
    const char *p = skip_ws(*pp);
    size_t len = 0;
    if (!ident_char((unsigned char)*p) || isdigit((unsigned char)*p))
        return 0;
    for (; ident_char((unsigned char)*p); p++)
        if (len + 1 < n)
            buf[len++] = *p;
    buf[len] = 0;
    *pp = p;
    return 1;
}

static int word_is(const char *w, const char *s)
{
    while (*w && tolower((unsigned char)*w) == tolower((unsigned char)*s))
        w++, s++;
    return *w == 0 && *s == 0;
}

static int first_word_is(const char *p, const char *word)
{
    char w[16];
    return get_ident(&p, w, sizeof w) && word_is(w, word);
}

static int eat(const char **pp, char c)
{
    const char *p = skip_ws(*pp);
    if (*p != c)
        return 0;
    *pp = p + 1;
    return 1;
}

static int hexval(int c) { return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10; }

/* Decimal, 0x hex or 0o octal (the PDP-11's own notation, for the
 * compatibility-mode tables; a leading 0 alone is not octal), 64 bits, no
 * overflow. */
static int get_number(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    uint64_t acc = 0;
    int radix = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        radix = 16;
    else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
        radix = 8;
    int digits = 0;
    for (p += radix != 10 ? 2 : 0; radix == 16 ? isxdigit((unsigned char)*p) : *p >= '0' && *p < '0' + radix;
         p++, digits++) {
        uint64_t d = (uint64_t)hexval((unsigned char)*p);
        if (acc > (UINT64_MAX - d) / (uint64_t)radix)
            return 0;
        acc = acc * (uint64_t)radix + d;
    }
    if (!digits || ident_char((unsigned char)*p))
        return 0;
    *v = acc;
    *pp = p;
    return 1;
}

/* expr := [+-]* term {(+|-) [+-]* term}; term := number | label. */
static int get_expr(test_t *t, int line, const char **pp, uint64_t *out)
{
    const char *p = skip_ws(*pp);
    uint64_t acc = 0;
    for (;;) {
        int neg = 0;
        for (; *p == '+' || *p == '-'; p = skip_ws(p + 1))
            neg ^= *p == '-';
        uint64_t v;
        uint32_t s;
        char name[128];
        if (isdigit((unsigned char)*p)) {
            if (!get_number(&p, &v))
                return fail(t, line, "bad number near '%.20s'", p);
        } else if (get_ident(&p, name, sizeof name)) {
            int i = 0;
            while (i < t->ncode && vasm_symbol(&t->code[i], name, &s) != 0)
                i++;
            if (i == t->ncode)
                return fail(t, line, "unknown label '%s'", name);
            v = s;
        } else {
            return fail(t, line, "expected a number or label near '%.20s'", p);
        }
        acc = neg ? acc - v : acc + v;
        p = skip_ws(p);
        if (*p != '+' && *p != '-')
            break;
    }
    *pp = p;
    *out = acc;
    return 0;
}

/* An expression that fits `bytes` bytes, signed or unsigned; truncated to them. */
static int get_value(test_t *t, int line, const char **pp, int bytes, uint64_t *out)
{
    if (get_expr(t, line, pp, out))
        return -1;
    if (bytes < 8) {
        uint64_t lim = 1ull << (8 * bytes);
        if (*out >= lim && ((int64_t)*out >= 0 || (int64_t)*out < -(int64_t)(lim / 2)))
            return fail(t, line, "value 0x%" PRIX64 " does not fit in %d bytes", *out, bytes);
        *out &= lim - 1;
    }
    return 0;
}

static int reg_number(const char *w)
{
    static const char *const alias[] = {"ap", "fp", "sp", "pc"};
    for (int i = 0; i < 4; i++)
        if (word_is(w, alias[i]))
            return 12 + i;
    if ((w[0] == 'r' || w[0] == 'R') && isdigit((unsigned char)w[1]) && atoi(w + 1) <= 15 &&
        strspn(w + 1, "0123456789") == strlen(w + 1) && (w[1] != '0' || !w[2]))
        return atoi(w + 1);
    return -1;
}

static int mem_size(const char *w)
{
    static const char *const names[] = {"mem", "mem.b", "mem.w", "mem.l", "mem.q"};
    static const int sizes[] = {1, 1, 2, 4, 8};
    for (int i = 0; i < 5; i++)
        if (word_is(w, names[i]))
            return sizes[i];
    return 0;
}

/* ------------------------------------------------------------ machine helpers */

static uint32_t le32(const uint8_t *b) { return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* Virtual to physical through the page tables when MAPEN is set (no
 * protection check): to look at the exception frame and the faulting code. */
static int v2p(vax_machine *m, uint32_t va, uint32_t *pa, int depth)
{
    uint32_t vpn = (va >> 9) & 0x1FFFFF, pte_pa, region = va >> 30;
    uint8_t b[4];
    if (!(vax_get_ipr(m, IPR_MAPEN) & 1))
        return *pa = va, 0;
    if (region == 2) {
        if (vpn >= vax_get_ipr(m, IPR_SLR))
            return -1;
        pte_pa = vax_get_ipr(m, IPR_SBR) + 4 * vpn;
    } else if (region < 2 && depth == 0) {
        uint32_t pte_va = vax_get_ipr(m, region ? IPR_P1BR : IPR_P0BR) + 4 * vpn;
        if ((region ? vpn < vax_get_ipr(m, IPR_P1LR) : vpn >= vax_get_ipr(m, IPR_P0LR)) || pte_va >> 30 != 2 ||
            v2p(m, pte_va, &pte_pa, 1))
            return -1;
    } else {
        return -1;
    }
    if (vax_phys_read(m, pte_pa, b, 4) || !(b[3] & 0x80))
        return -1;
    *pa = (le32(b) & 0x1FFFFFu) << 9 | (va & 511u);
    return 0;
}

/* Read n bytes at a virtual address; returns how many could be read. */
static size_t read_virt(vax_machine *m, uint32_t va, uint8_t *dst, size_t n)
{
    size_t i = 0;
    for (uint32_t pa; i < n && !v2p(m, va + (uint32_t)i, &pa, 0) && !vax_phys_read(m, pa, dst + i, 1); i++)
        ;
    return i;
}

/* The exception frame on the current stack: params, then PC and PSL. */
static int read_frame(test_t *t, uint32_t *params, int *np, uint32_t *pc, uint32_t *psl)
{
    uint32_t sp = vax_get_reg(t->m, 14), all[MAX_FRAME + 2];
    uint8_t b[4];
    int n = 0;
    for (size_t i = 0; i < NVECTORS; i++)
        if (vectors[i].off == t->vector)
            n = vectors[i].nparam;
    if (n < 0) {   /* machine check: a byte count, then that many bytes */
        if (read_virt(t->m, sp, b, 4) != 4)
            return -1;
        n = 1 + (int)(le32(b) / 4 > MAX_FRAME - 1 ? MAX_FRAME - 1 : le32(b) / 4);
    }
    for (int i = 0; i < n + 2; i++) {
        if (read_virt(t->m, sp + 4u * (uint32_t)i, b, 4) != 4)
            return -1;
        all[i] = le32(b);
    }
    memcpy(params, all, (size_t)n * 4);
    *np = n;
    *pc = all[n];
    *psl = all[n + 1];
    return 0;
}

static const char *vector_name(uint32_t off, char *buf, size_t n)
{
    for (size_t i = 0; i < NVECTORS; i++)
        if (vectors[i].off == off)
            return vectors[i].name;
    snprintf(buf, n, "SCB 0x%02" PRIX32, off);
    return buf;
}

/* A one-line account of how the last run ended. */
static void describe_outcome(test_t *t, char *buf, size_t n)
{
    char vb[16], dis[100] = "(PC not readable)";
    uint32_t params[MAX_FRAME], pc, psl;
    uint8_t code[64];
    int np;
    if (t->out == OUT_HALT) {
        snprintf(buf, n, "HALT at PC 0x%08" PRIX32, t->halt_pc);
    } else if (t->out == OUT_EXC && read_frame(t, params, &np, &pc, &psl)) {
        snprintf(buf, n, "exception %s (frame not readable at SP 0x%08" PRIX32 ")",
                 vector_name(t->vector, vb, sizeof vb), vax_get_reg(t->m, 14));
    } else if (t->out == OUT_EXC) {
        size_t avail = read_virt(t->m, pc, code, sizeof code);
        if (avail && vdisasm(code, avail, pc, dis, sizeof dis) < 0)
            snprintf(dis, sizeof dis, "(cannot disassemble %02X ...)", code[0]);
        int len = snprintf(buf, n, "exception %s at PC 0x%08" PRIX32 ": %s",
                           vector_name(t->vector, vb, sizeof vb), pc, dis);
        for (int i = 0; i < np && i < 4 && len > 0 && (size_t)len < n; i++)
            len += snprintf(buf + len, n - (size_t)len, "%s0x%" PRIX32 "%s", i ? " " : " (params ", params[i],
                            i + 1 == np ? ")" : i == 3 ? " ...)" : "");
    } else if (t->out == OUT_BUDGET) {
        snprintf(buf, n, "no HALT within %" PRIu64 " instructions (PC 0x%08" PRIX32 ")", t->budget,
                 vax_get_reg(t->m, 15));
    } else {
        snprintf(buf, n, "machine stopped (%s): %s", vax_stop_reason_name(t->stop), t->stop_detail);
    }
}

/* The machine of FORMAT.md. */
static int setup(test_t *t)
{
    vax_config cfg = {MEM_SIZE};
    uint8_t scb[SCB_BYTES], stubs[SCB_BYTES] = {0};   /* HALTs */
    if (!(t->m = vax_create(&cfg)))
        return fail(t, t->first, "vax_create failed");
    for (uint32_t v = 0; v < SCB_BYTES; v += 4)
        for (int i = 0; i < 4; i++)
            scb[v + (uint32_t)i] = (uint8_t)((STUB_BASE + v + (v == 0x04 || v == 0x08)) >> (8 * i));
    vax_phys_write(t->m, 0, scb, sizeof scb);
    vax_phys_write(t->m, STUB_BASE, stubs, sizeof stubs);
    vax_set_ipr(t->m, IPR_SCBB, 0);
    vax_set_reg(t->m, 14, 0xA000);   /* the machine starts on the interrupt stack */
    vax_set_ipr(t->m, IPR_ISP, 0xA000);
    vax_set_ipr(t->m, IPR_KSP, 0x9000);
    vax_set_ipr(t->m, IPR_ESP, 0x6000);
    vax_set_ipr(t->m, IPR_SSP, 0x5000);
    vax_set_ipr(t->m, IPR_USP, 0x7000);
    vax_set_psl(t->m, 0);
    vax_set_reg(t->m, 15, CODE_BASE);
    if (vax_get_reg(t->m, 14) != 0x9000 || vax_get_psl(t->m) != 0)
        return fail(t, t->first, "setup: SP 0x%08" PRIX32 " PSL 0x%08" PRIX32 " (expected 0x9000 and 0)",
                    vax_get_reg(t->m, 14), vax_get_psl(t->m));
    return 0;
}

/* ------------------------------------------------------------ directives */

/* `TARGET = VALUE {, TARGET = VALUE}`: registers, psl, cc, ipr NAME, scb
 * OFFSET; or `mem[.bwlq] ADDR = V V ...`.  Sets them, or with `check`
 * compares them with the machine. */
static int assign_list(test_t *t, int line, const char *p, int check)
{
    for (;;) {
        char w[16], e[8] = "", g[8] = "";
        const char *name = skip_ws(p);
        uint64_t a = 0, v;
        int r = -1, size = 0, ipr = 0;
        if (!get_ident(&p, w, sizeof w))
            return fail(t, line, "expected a register, psl, cc, ipr, scb or mem near '%.20s'", name);
        if ((size = mem_size(w)) != 0 || word_is(w, "scb")) {
            if (get_value(t, line, &p, 4, &a))
                return -1;
            if (!size && (a >= SCB_BYTES || (a & 3)))
                return fail(t, line, "SCB offset 0x%" PRIX64 " (0..0x1FC, a multiple of 4)", a);
        } else if (word_is(w, "ipr")) {
            char n[16];
            p = skip_ws(p);
            if (isdigit((unsigned char)*p)) {
                if (!get_number(&p, &v) || v >= IPR_COUNT)
                    return fail(t, line, "bad processor register number");
                ipr = (int)v;
            } else if (get_ident(&p, n, sizeof n)) {
                while (ipr < IPR_COUNT && !(ipr_names[ipr] && word_is(n, ipr_names[ipr])))
                    ipr++;
                if (ipr == IPR_COUNT)
                    return fail(t, line, "unknown processor register '%s'", n);
            } else {
                return fail(t, line, "expected a processor register name or number");
            }
        } else if ((r = reg_number(w)) < 0 && !word_is(w, "psl") && !word_is(w, "cc")) {
            return fail(t, line, "unknown register or directive '%s'", w);
        }
        int nlen = (int)(p - name);
        if (!eat(&p, '='))
            return fail(t, line, "expected '=' after '%.*s'", nlen, name);
        if (size) {   /* memory: the rest of the line */
            int n = 0, reported = 0;
            for (;; a += (uint64_t)size, n++) {
                uint8_t b[8];
                if (eat(&p, ','), at_end(p))
                    break;
                p = skip_ws(p);
                if (size == 1) {   /* bytes: 1-2 hex digits */
                    int d = 0;
                    for (v = 0, p += p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 2 : 0;
                         isxdigit((unsigned char)*p); p++, d++)
                        v = v << 4 | (uint64_t)hexval((unsigned char)*p);
                    if (d < 1 || d > 2 || ident_char((unsigned char)*p))
                        return fail(t, line, "bad byte (1-2 hex digits) near '%.20s'", p - d);
                } else if (get_value(t, line, &p, size, &v)) {
                    return -1;
                }
                if (a + (uint64_t)size > MEM_SIZE)
                    return fail(t, line, "address 0x%08" PRIX64 " is outside memory", a);
                if (!check) {
                    for (int k = 0; k < size; k++)
                        b[k] = (uint8_t)(v >> (8 * k));
                    vax_phys_write(t->m, (uint32_t)a, b, (size_t)size);
                    continue;
                }
                uint64_t got = 0;
                vax_phys_read(t->m, (uint32_t)a, b, (size_t)size);
                for (int k = size - 1; k >= 0; k--)
                    got = got << 8 | b[k];
                if (got != v && !reported++)
                    fail(t, line, "%.*s 0x%08" PRIX64 " (expected 0x%0*" PRIX64 ", got 0x%0*" PRIX64 ")",
                         (int)strcspn(name, " \t"), name, a, 2 * size, v, 2 * size, got);
            }
            return n ? 0 : fail(t, line, "expected values after '='");
        }
        uint32_t psl = vax_get_psl(t->m), cur, x;
        if (word_is(w, "cc")) {   /* letters NZVC, or - */
            p = skip_ws(p);
            for (v = 0, p += *p == '-'; *p && !isspace((unsigned char)*p) && *p != ','; p++) {
                const char *f = strchr("CVZN", toupper((unsigned char)*p));
                if (!f || !*f)
                    return fail(t, line, "cc: letters N, Z, V, C or '-'");
                v |= 1u << (f - "CVZN");
            }
        } else if (get_value(t, line, &p, 4, &v)) {
            return -1;
        }
        x = (uint32_t)v;
        uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
        uint32_t scb_pa = (vax_get_ipr(t->m, IPR_SCBB) & ~3u) + (uint32_t)a;
        if (!check) {
            if (r >= 0)
                vax_set_reg(t->m, r, x), t->pc_set |= r == 15;
            else if (word_is(w, "psl") || word_is(w, "cc"))
                vax_set_psl(t->m, word_is(w, "cc") ? (psl & ~PSL_CC) | x : x);
            else if (word_is(w, "ipr"))
                vax_set_ipr(t->m, ipr, x);
            else if (vax_phys_write(t->m, scb_pa, b, 4))
                return fail(t, line, "SCB is outside memory");
        } else {
            cur = r >= 0 ? vax_get_reg(t->m, r) : word_is(w, "psl") ? psl : word_is(w, "cc") ? psl & PSL_CC
                : word_is(w, "ipr") ? vax_get_ipr(t->m, ipr) : vax_phys_read(t->m, scb_pa, b, 4) ? 0 : le32(b);
            if (cur != x && word_is(w, "cc")) {
                for (int i = 0; i < 4; i++)
                    e[i] = x >> (3 - i) & 1 ? "NZVC"[i] : '-', g[i] = cur >> (3 - i) & 1 ? "NZVC"[i] : '-';
                fail(t, line, "cc (expected %s, got %s)", e, g);
            } else if (cur != x) {
                fail(t, line, "%.*s (expected 0x%08" PRIX32 ", got 0x%08" PRIX32 ")", nlen, name, x, cur);
            }
        }
        if (at_end(p))
            return 0;
        if (!eat(&p, ','))
            return fail(t, line, "junk at end of line: '%.20s'", skip_ws(p));
    }
}

/* Run (or step) from directive index idx; the expectations up to the next
 * run/step decide which endings are failures of the run itself. */
static void do_run(test_t *t, int idx, int line, uint64_t budget, int is_step)
{
    int exc = 0, stop = 0;
    char what[300], w[16];
    for (int i = idx; i < t->last; i++) {
        const char *p = t->lines[i];
        if (t->in_code[i] || !get_ident(&p, w, sizeof w))
            continue;
        if (word_is(w, "run") || word_is(w, "step"))
            break;
        exc |= word_is(w, "expect") && first_word_is(p, "exception");
        stop |= word_is(w, "expect") && first_word_is(p, "stop");
    }
    t->ran = 1;
    t->budget = budget;
    t->out = OUT_BUDGET;
    for (uint64_t i = 0; i < budget && t->out == OUT_BUDGET; i++) {
        vax_stop_reason r = vax_run(t->m, 1);
        uint32_t pc = vax_get_reg(t->m, 15);
        unsigned hp;
        if (r == VAX_STOP_HALT) {
            const char *d = vax_stop_detail(t->m);
            t->halt_pc = sscanf(d, "HALT at PC %x", &hp) == 1 ? hp : pc - 1;
            pc = t->halt_pc;
            t->out = OUT_HALT;
        } else if (r != VAX_STOP_BUDGET) {
            t->out = OUT_STOP;
            t->stop = r;
            snprintf(t->stop_detail, sizeof t->stop_detail, "%s", vax_stop_detail(t->m));
        }
        if (r != VAX_STOP_BUDGET && r != VAX_STOP_HALT)
            break;
        uint32_t pa;   /* in a stub? (its physical address, when MAPEN is set) */
        if (!v2p(t->m, pc, &pa, 0) && pa >= STUB_BASE && pa < STUB_BASE + SCB_BYTES && !(pa & 3)) {
            t->out = OUT_EXC;
            t->vector = pa - STUB_BASE;
        }
    }
    t->skip_expects = (t->out == OUT_EXC && !exc) || (t->out == OUT_BUDGET && !is_step) ||
                      (t->out == OUT_STOP && !stop);
    if (t->skip_expects) {
        describe_outcome(t, what, sizeof what);
        fail(t, line, "%s%s", t->out == OUT_EXC ? "unexpected " : "", what);
    }
}

static int expect_exception(test_t *t, int line, const char *p)
{
    char w[40] = "", vb[16], kw[8], what[300];
    const char *q = skip_ws(p);
    uint32_t want = 0, params[MAX_FRAME], pc, psl;
    uint64_t v;
    int np, i = 0;
    if (get_ident(&p, w, sizeof w))
        while (i < (int)NVECTORS && !word_is(w, vectors[i].name))
            i++;
    if (i < (int)NVECTORS && *w) {
        want = vectors[i].off;
    } else {   /* a hex offset, 0x optional */
        int d = 0;
        for (p = q + (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') ? 2 : 0); isxdigit((unsigned char)*p) && d < 4;
             p++, d++)
            want = want << 4 | (uint32_t)hexval((unsigned char)*p);
        if (!d || ident_char((unsigned char)*p) || want >= SCB_BYTES || (want & 3))
            return fail(t, line, "unknown exception '%.30s'", q);
    }
    describe_outcome(t, what, sizeof what);
    if (t->out != OUT_EXC || t->vector != want)
        return fail(t, line, "exception (expected %s, got %s)", vector_name(want, vb, sizeof vb), what), 0;
    if (read_frame(t, params, &np, &pc, &psl))
        return fail(t, line, "%s", what), 0;
    while (get_ident(&p, kw, sizeof kw)) {
        if (word_is(kw, "params")) {
            for (int k = 0; !at_end(p) && !first_word_is(p, "pc") && !first_word_is(p, "psl"); k++) {
                if (get_value(t, line, &p, 4, &v))
                    return -1;
                if (k >= np)
                    return fail(t, line, "more params than the %d of the %s frame", np, vector_name(want, vb, sizeof vb));
                if ((uint32_t)v != params[k])
                    fail(t, line, "exception param %d (expected 0x%08" PRIX64 ", got 0x%08" PRIX32 ")", k, v, params[k]);
            }
        } else if (word_is(kw, "pc") || word_is(kw, "psl")) {
            uint32_t got = word_is(kw, "pc") ? pc : psl;
            if (get_value(t, line, &p, 4, &v))
                return -1;
            if ((uint32_t)v != got)
                fail(t, line, "exception %s (expected 0x%08" PRIX64 ", got 0x%08" PRIX32 ")", kw, v, got);
        } else {
            return fail(t, line, "'%s'? expected params, pc or psl", kw);
        }
    }
    return at_end(p) ? 0 : fail(t, line, "junk at end of line: '%.20s'", skip_ws(p));
}

static int do_expect(test_t *t, int idx, const char *p)
{
    char w[16], what[300];
    const char *q = p;
    uint64_t v = 0;
    int line = idx + 1, have_pc;
    if (!t->ran)   /* an implied `run` */
        do_run(t, idx, line, DEFAULT_BUDGET, 0);
    if (t->skip_expects)
        return 0;
    if (!get_ident(&q, w, sizeof w))
        return fail(t, line, "expect what?");
    if (word_is(w, "exception"))
        return expect_exception(t, line, q);
    describe_outcome(t, what, sizeof what);
    if (word_is(w, "halt")) {
        if ((have_pc = !at_end(q)) && (!get_ident(&q, w, sizeof w) || !word_is(w, "pc")))
            return fail(t, line, "expected 'halt [pc V]'");
        if (have_pc && get_value(t, line, &q, 4, &v))
            return -1;
        if (!at_end(q))
            return fail(t, line, "junk at end of line: '%.20s'", skip_ws(q));
        if (t->out != OUT_HALT)
            fail(t, line, "halt (expected HALT, got %s)", what);
        else if (have_pc && (uint32_t)v != t->halt_pc)
            fail(t, line, "halt pc (expected 0x%08" PRIX64 ", got 0x%08" PRIX32 ")", v, t->halt_pc);
        return 0;
    }
    if (word_is(w, "stop")) {
        size_t n = strspn(q = skip_ws(q), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_");
        if (n == 0 || n >= sizeof w || !at_end(q + n))
            return fail(t, line, "expected 'stop REASON'");
        for (size_t k = 0; k <= n; k++)
            w[k] = k == n ? 0 : q[k] == '_' ? '-' : q[k];
        if (t->out != OUT_STOP || !word_is(w, vax_stop_reason_name(t->stop)))
            fail(t, line, "stop (expected %s, got %s)", w, what);
        return 0;
    }
    return assign_list(t, line, p, 1);
}

static int do_directive(test_t *t, int idx)
{
    const char *p = t->lines[idx], *q = p;
    char w[16];
    uint64_t v = DEFAULT_BUDGET;
    if (!get_ident(&q, w, sizeof w))
        return fail(t, idx + 1, "expected a directive near '%.20s'", skip_ws(p));
    if (word_is(w, "expect"))
        return do_expect(t, idx, q);
    if (word_is(w, "run") || word_is(w, "step")) {
        if (word_is(w, "step") && at_end(q))
            return fail(t, idx + 1, "expected 'step N'");
        if (!at_end(q) && get_value(t, idx + 1, &q, 8, &v))
            return -1;
        if (!at_end(q) || v > MAX_BUDGET)
            return fail(t, idx + 1, "expected '%s N' with N <= %u", w, MAX_BUDGET);
        do_run(t, idx + 1, idx + 1, v, word_is(w, "step"));
        return 0;
    }
    return assign_list(t, idx + 1, word_is(w, "reg") ? q : p, 0);
}

/* Load the next assembled block: only the bytes its lines emitted. */
static int load_code(test_t *t, int line)
{
    vasm_result *r = &t->code[t->loaded++];
    uint32_t entry = r->base;
    int have_entry = vasm_symbol(r, "start", &entry) == 0;
    for (size_t i = 0; i < r->nlines; i++) {
        const vasm_line *l = &r->lines[i];
        if (l->len == 0)
            continue;
        if (l->addr < r->base || l->addr - r->base > r->len || l->len > r->len - (l->addr - r->base) ||
            vax_phys_write(t->m, l->addr, r->bytes + (l->addr - r->base), l->len))
            return fail(t, line + l->line, "code at 0x%08" PRIX32 " is outside memory", l->addr);
        if (!have_entry)
            entry = l->addr, have_entry = 1;
    }
    if (!t->pc_set)
        vax_set_reg(t->m, 15, entry);
    return 0;
}

/* Assemble every code block first, so labels can be used anywhere. */
static int assemble_all(test_t *t)
{
    for (int i = t->first; i < t->last; i++) {
        if (t->in_code[i] || !first_word_is(t->lines[i], "code"))
            continue;
        int j = i + 1;
        size_t len = 1;
        for (; j < t->last && t->in_code[j] == 1; j++)
            len += strlen(t->lines[j]) + 1;
        if (j == t->last)
            return fail(t, i + 1, "'code' without 'end'");
        char *src = malloc(len), *o = src;
        if (!src)
            return fail(t, i + 1, "out of memory");
        for (int k = i + 1; k < j; k++)
            o += sprintf(o, "%s\n", t->lines[k]);
        *o = 0;
        vasm_result *r = &t->code[t->ncode++];
        int rc = vasm_assemble(src, CODE_BASE, r);
        free(src);
        if (rc != 0)
            return fail(t, i + 1 + (r->error_line > 0 ? r->error_line : 0), "assembler: %s", r->error);
        i = j;
    }
    return 0;
}

static void run_test(test_t *t)
{
    int rc = 0, nblocks = 0;
    for (int k = t->first; k < t->last; k++)
        nblocks += t->in_code[k] == 2;
    if (!(t->code = calloc((size_t)nblocks + 1, sizeof *t->code)))
        fail(t, t->first, "out of memory");
    else if (assemble_all(t) == 0 && setup(t) == 0) {
        for (int i = t->first; i < t->last && rc == 0; i++) {
            const char *p = t->lines[i];
            if (t->in_code[i] || at_end(p))
                continue;
            if (!first_word_is(p, "code"))
                rc = do_directive(t, i);
            else if (!at_end(skip_ws(p) + 4))
                rc = fail(t, i + 1, "junk after 'code'");
            else
                rc = load_code(t, i + 1);
        }
        if (rc == 0 && !t->ran)
            do_run(t, t->last, t->first, DEFAULT_BUDGET, 0);
    }
    for (int k = 0; k < t->ncode; k++)
        vasm_free(&t->code[k]);
    free(t->code);
    vax_destroy(t->m);
    if (t->failed)
        n_failed++;
    else if (n_passed++, verbose)
        printf("PASS %s:%d %s\n", t->file, t->first, t->name);
}

/* ------------------------------------------------------------ files */

static void file_error(const char *file, int line, const char *msg)
{
    printf("FAIL %s:%d (file): %s\n", file, line, msg);
    n_failed++;
}

static char *read_file(const char *file, const char **err)
{
    FILE *f = fopen(file, "rb");
    long size = -1;
    char *buf = NULL;
    *err = "cannot open";
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        *err = size > MAX_FILE_BYTES ? "too large" : "cannot read";
        if (size <= MAX_FILE_BYTES && (buf = malloc((size_t)size + 1)) != NULL &&
            fread(buf, 1, (size_t)size, f) == (size_t)size) {
            buf[size] = 0;
            *err = memchr(buf, 0, (size_t)size) ? "NUL byte in file" : NULL;
        }
    }
    if (f)
        fclose(f);
    if (*err)
        free(buf), buf = NULL;
    return buf;
}

static void run_file(const char *file)
{
    const char *err;
    char *buf = read_file(file, &err);
    if (!buf) {
        file_error(file, 0, err);
        return;
    }
    int n = 1, in_block = 0;
    for (char *c = buf; *c; c++)
        n += *c == '\n';
    char **lines = malloc((size_t)n * sizeof *lines);
    unsigned char *in_code = calloc((size_t)n, 1);
    if (!lines || !in_code) {
        file_error(file, 0, "out of memory");
        n = 0;
    }
    char *s = buf;
    for (int i = 0; i < n; i++) {   /* split; directive lines lose comments and trailing blanks */
        char *nl = strchr(s, '\n'), *e = nl ? nl : s + strlen(s);
        lines[i] = s;
        s = nl ? nl + 1 : e;
        *e = 0;
        if (e > lines[i] && e[-1] == '\r')
            e[-1] = 0;
        if (in_block) {   /* code lines stay as they are, for the assembler */
            const char *q = lines[i];
            char w[8];
            in_code[i] = get_ident(&q, w, sizeof w) && word_is(w, "end") && (at_end(q) || *skip_ws(q) == ';') ? 2 : 1;
            in_block = in_code[i] == 1;
            continue;
        }
        char *c = strchr(lines[i], ';');
        e = c ? c : lines[i] + strlen(lines[i]);
        while (e > lines[i] && isspace((unsigned char)e[-1]))
            e--;
        *e = 0;
        in_block = first_word_is(lines[i], "code");
    }
    for (int i = 0; i < n;) {
        const char *p = skip_ws(lines[i]);
        if (in_code[i] || !*p) {
            i++;
            continue;
        }
        int j = i + 1;
        while (j < n && (in_code[j] || !first_word_is(lines[j], "test")))
            j++;
        if (!first_word_is(p, "test") || !isspace((unsigned char)p[4]) || at_end(p + 4)) {
            file_error(file, i + 1, first_word_is(p, "test") ? "expected 'test NAME'" : "directive outside a test");
        } else {
            test_t t = {.file = file, .name = skip_ws(p + 4), .lines = lines, .in_code = in_code,
                        .first = i + 1, .last = j};
            run_test(&t);
        }
        i = j;
    }
    free(lines);
    free(in_code);
    free(buf);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.vt file of a directory, in name order. */
static void run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    if (!d) {
        file_error(dir, 0, "cannot open directory");
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name), sz = strlen(dir) + l + 2;
        if (l < 4 || strcmp(e->d_name + l - 3, ".vt") != 0)
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        if ((names[n] = malloc(sz)) != NULL)
            snprintf(names[n++], sz, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    }
    closedir(d);
    if (n == 0)
        file_error(dir, 0, "no *.vt files");
    else
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        run_file(names[i]);
        free(names[i]);
    }
    free(names);
}

/* $VAXLAB_CPU_TESTS, ./tests/cpu, or <exe dir>/../../tests/cpu. */
static int default_dir(const char *argv0, char *out, size_t n)
{
    const char *env = getenv("VAXLAB_CPU_TESTS");
    char exe[4096];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (env && *env)
        return snprintf(out, n, "%s", env), 1;
    if (is_dir("tests/cpu"))
        return snprintf(out, n, "tests/cpu"), 1;
    if (l > 0)
        exe[l] = 0;
    else
        snprintf(exe, sizeof exe, "%s", argv0 ? argv0 : "");
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(out, n, "%s/../../tests/cpu", slash ? exe : ".");
    return is_dir(out);
}

int main(int argc, char **argv)
{
    int nargs = 0;
    char dir[4200];
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [-v] [DIR | FILE.vt ...]\n", argv[0]);
            return 0;
        }
        verbose |= strcmp(argv[i], "-v") == 0;
        nargs += strcmp(argv[i], "-v") != 0;
    }
    if (nargs == 0 && default_dir(argc > 0 ? argv[0] : NULL, dir, sizeof dir))
        run_dir(dir);
    else if (nargs == 0)
        file_error("tests/cpu", 0, "test directory not found (set VAXLAB_CPU_TESTS)");
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-v") != 0)
            is_dir(argv[i]) ? run_dir(argv[i]) : run_file(argv[i]);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed > 0;
}
