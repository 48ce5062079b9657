/*
 * vasm.c — a small two-pass VAX assembler (DEC/BSD flavoured syntax).
 *
 * SYNTAX
 *
 * Lines:  [label: ...] [statement] [; comment]
 *   - Comments: `;` starts a comment that runs to the end of the line
 *     (except inside "strings" and 'c' character constants).  A line whose
 *     first non-blank character is `#` is a comment line.  A `#` anywhere
 *     else is NOT a comment: it is the immediate prefix (see below).
 *   - Labels: `name:` (also `name::`), several allowed before a statement.
 *   - Assignment: `name = expr` (may be redefined; `. = expr` is `.org`).
 *   - Mnemonics, register names and directive names are case-insensitive;
 *     symbol names are case-sensitive.  Symbols are [A-Za-z_.][A-Za-z0-9_.$]*
 *     and may not be register names.
 *
 * Directives:
 *   .org EXPR          set the location counter (>= base; may go backwards)
 *   .align N           N bytes, a power of two (1..65536); pads with zeros
 *   .byte/.word/.long/.quad  E, E, ...   (value range checked, ".": the
 *                      address of the item being emitted)
 *   .ascii "s"[, "s"...]   .asciz (adds a NUL to each string)
 *                      escapes: \n \t \r \\ \" \' \0 \NNN (octal) \xHH
 *   .space N[, FILL]   N bytes of FILL (default 0)
 *   Floating-point constants are not parsed: write F/D data as raw bits
 *   with .long/.quad (F_floating 1.0 is .long 0x4080).
 *
 * Expressions (64-bit integer arithmetic):
 *   numbers: 123 (decimal; a leading 0 does NOT mean octal), 0x1F, 0b101,
 *            ^X1F, ^O17, ^B101, ^D99, 'c' (character, with the escapes above)
 *   symbols, labels (forward references allowed), `.` (current address)
 *   operators, loosest first: |  &  << >>  + -  * / %  unary - + ~  ( )
 *
 * Operands (R = r0..r15, ap, fp, sp, pc; any case):
 *   R                 register                        5n
 *   $E or #E          immediate: a short literal (0n..3n) when E is known in
 *                     pass 1, is 0..63 and the operand is an integer read
 *                     operand; otherwise immediate mode 8F followed by the
 *                     operand's data size (1/2/4/8 bytes; F: 4, D: 8, field
 *                     base: 1) holding E as raw bits.
 *   s^$E, s^#E        force short literal (E = the raw 6-bit field, also
 *                     for F/D operands, where it is the floating literal)
 *   i^$E, i^#E        force immediate mode
 *   (R)  or  @R       register deferred                6n
 *   (R)+   -(R)       autoincrement / autodecrement    8n / 7n
 *   @(R)+             autoincrement deferred           9n
 *   E(R)              displacement: byte/word/long (An/Cn/En) chosen by the
 *                     value when it is known in pass 1, long for forward
 *                     references; force with b^E(R), w^E(R), l^E(R)
 *   @E(R)             displacement deferred (Bn/Dn/Fn); @(R) is @0(R)
 *   E                 PC-relative to address E (long, EF, unless b^/w^)
 *   @E                PC-relative deferred (FF, or b^/w^: BF/DF)
 *   @#E  (or @$E)     absolute                         9F
 *   any of the memory modes above followed by [R]: index mode 4n
 *   Branch operands (ACC_B) are a target expression; the byte or word
 *   displacement is computed from the address after it; out of range is
 *   an error.
 *   CASEB/W/L take their three operands; write the displacement table
 *   yourself with `.word target-table` lines.
 *
 * Two passes: pass 1 assigns addresses and records every size decision
 * (literal vs immediate, displacement size); pass 2 replays the decisions,
 * so sizes never change between passes.
 */
#include "asm/vasm.h"

#include "cpu/opcodes.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IMAGE (64u << 20) /* largest image, bytes */
#define MAX_INSN 64           /* longest instruction we can build */

typedef struct {
    char *name;
    int64_t value;
    int defined;
    int is_label;
    int line;
} sym_t;

typedef struct {
    uint32_t base;
    int pass;
    int line;
    uint64_t lc; /* location counter (< 2^32) */

    uint8_t *img;
    size_t img_len, img_cap;
    uint32_t emitted; /* bytes emitted by the current line */

    sym_t *syms;
    size_t nsyms, syms_cap;
    int32_t *hash; /* open addressing: index into syms, -1 empty */
    size_t hash_cap;

    uint8_t *dec; /* size decisions of pass 1, replayed in pass 2 */
    size_t ndec, dec_cap, dec_pos;

    vasm_line *lines;
    size_t nlines, lines_cap;

    char *linebuf;
    size_t linebuf_cap;

    char err[256];
    int err_line;
} actx;

/* ------------------------------------------------------------------ errors */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(actx *c, const char *fmt, ...)
{
    if (c->err[0] == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, sizeof c->err, fmt, ap);
        va_end(ap);
        if (c->err[0] == 0)
            snprintf(c->err, sizeof c->err, "error");
        c->err_line = c->line;
    }
    return -1;
}

/* ----------------------------------------------------------------- helpers */

static char *skipws(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *cskipws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Trim blanks at both ends, in place. */
static char *trim(char *s)
{
    s = skipws(s);
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

static int is_ident_start(int ch)
{
    return isalpha(ch) || ch == '_' || ch == '.';
}

static int is_ident_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '.' || ch == '$';
}

static int ieq_n(const char *a, size_t n, const char *b)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] == 0 || tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return 0;
    }
    return b[n] == 0;
}

/* Register number of the name s[0..n): 0..15; -1 if not a register name;
 * -2 if it looks like one but is not valid (r16, r99). */
static int reg_n(const char *s, size_t n)
{
    static const char *const names[4] = {"ap", "fp", "sp", "pc"};
    for (int i = 0; i < 4; i++)
        if (ieq_n(s, n, names[i]))
            return 12 + i;
    if (n >= 2 && (s[0] == 'r' || s[0] == 'R')) {
        int v = 0;
        for (size_t i = 1; i < n; i++) {
            if (!isdigit((unsigned char)s[i]))
                return -1;
            if (v < 1000)
                v = v * 10 + (s[i] - '0');
        }
        return v <= 15 ? v : -2;
    }
    return -1;
}

static int reg_str(const char *s)
{
    return reg_n(s, strlen(s));
}

/* reg_n() of s[0..n) without surrounding blanks. */
static int reg_range(const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return reg_n(s, n);
}

/* ----------------------------------------------------------------- symbols */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static sym_t *sym_find(actx *c, const char *name, size_t n)
{
    if (c->hash_cap == 0)
        return NULL;
    size_t mask = c->hash_cap - 1;
    for (size_t i = hash_name(name, n) & mask;; i = (i + 1) & mask) {
        int32_t k = c->hash[i];
        if (k < 0)
            return NULL;
        sym_t *s = &c->syms[k];
        if (strlen(s->name) == n && memcmp(s->name, name, n) == 0)
            return s;
    }
}

static int hash_insert(actx *c, size_t idx)
{
    size_t mask = c->hash_cap - 1;
    const char *nm = c->syms[idx].name;
    size_t i = hash_name(nm, strlen(nm)) & mask;
    while (c->hash[i] >= 0)
        i = (i + 1) & mask;
    c->hash[i] = (int32_t)idx;
    return 0;
}

static sym_t *sym_add(actx *c, const char *name, size_t n)
{
    if (c->nsyms >= 0x3FFFFFFF)
        return fail(c, "too many symbols"), NULL;
    if ((c->nsyms + 1) * 2 > c->hash_cap) {
        size_t ncap = c->hash_cap ? c->hash_cap * 2 : 256;
        int32_t *nh = malloc(ncap * sizeof *nh);
        if (!nh)
            return fail(c, "out of memory"), NULL;
        free(c->hash);
        c->hash = nh;
        c->hash_cap = ncap;
        for (size_t i = 0; i < ncap; i++)
            nh[i] = -1;
        for (size_t i = 0; i < c->nsyms; i++)
            hash_insert(c, i);
    }
    if (c->nsyms == c->syms_cap) {
        size_t ncap = c->syms_cap ? c->syms_cap * 2 : 64;
        sym_t *ns = realloc(c->syms, ncap * sizeof *ns);
        if (!ns)
            return fail(c, "out of memory"), NULL;
        c->syms = ns;
        c->syms_cap = ncap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return fail(c, "out of memory"), NULL;
    memcpy(copy, name, n);
    copy[n] = 0;
    sym_t *s = &c->syms[c->nsyms];
    memset(s, 0, sizeof *s);
    s->name = copy;
    hash_insert(c, c->nsyms);
    c->nsyms++;
    return s;
}

/* -------------------------------------------------------------- decisions */

/* Pass 1: record `d` and return it.  Pass 2: return the recorded one. */
static int decide(actx *c, int d, int *out)
{
    if (c->pass == 1) {
        if (c->ndec == c->dec_cap) {
            size_t ncap = c->dec_cap ? c->dec_cap * 2 : 256;
            uint8_t *nd = realloc(c->dec, ncap);
            if (!nd)
                return fail(c, "out of memory");
            c->dec = nd;
            c->dec_cap = ncap;
        }
        c->dec[c->ndec++] = (uint8_t)d;
        *out = d;
        return 0;
    }
    if (c->dec_pos >= c->ndec)
        return fail(c, "internal error: pass 2 out of step with pass 1");
    *out = c->dec[c->dec_pos++];
    return 0;
}

/* ------------------------------------------------------------ expressions */

typedef struct {
    actx *c;
    const char *p;
    uint32_t dot;
    int undef; /* an undefined symbol was used (pass 1 only) */
} expr_t;

static int ex_or(expr_t *e, int64_t *v);

/* Parse one escape sequence after the backslash; *pp points after '\'. */
static int parse_escape(actx *c, const char **pp, int *ch)
{
    const char *p = *pp;
    switch (*p) {
    case 'n': *ch = '\n'; p++; break;
    case 't': *ch = '\t'; p++; break;
    case 'r': *ch = '\r'; p++; break;
    case '\\': *ch = '\\'; p++; break;
    case '"': *ch = '"'; p++; break;
    case '\'': *ch = '\''; p++; break;
    case 'x':
    case 'X': {
        p++;
        int v = 0, n = 0;
        while (n < 2 && isxdigit((unsigned char)*p)) {
            v = v * 16 + (isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
            p++, n++;
        }
        if (n == 0)
            return fail(c, "bad \\x escape");
        *ch = v;
        break;
    }
    default:
        if (*p >= '0' && *p <= '7') {
            int v = 0, n = 0;
            while (n < 3 && *p >= '0' && *p <= '7') {
                v = v * 8 + (*p - '0');
                p++, n++;
            }
            if (v > 255)
                return fail(c, "octal escape out of range");
            *ch = v;
            break;
        }
        if (*p == 0)
            return fail(c, "unterminated escape");
        return fail(c, "unknown escape '\\%c'", *p);
    }
    *pp = p;
    return 0;
}

static int digit_val(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 10;
    return 99;
}

static int parse_digits(expr_t *e, int radix, int64_t *v)
{
    uint64_t acc = 0;
    int n = 0;
    while (isalnum((unsigned char)*e->p) || *e->p == '_') {
        int d = digit_val((unsigned char)*e->p);
        if (d >= radix)
            return fail(e->c, "bad digit '%c' in base-%d number", *e->p, radix);
        if (acc > (UINT64_MAX - (uint64_t)d) / (uint64_t)radix)
            return fail(e->c, "number too large");
        acc = acc * (uint64_t)radix + (uint64_t)d;
        e->p++, n++;
    }
    if (n == 0)
        return fail(e->c, "missing digits in number");
    *v = (int64_t)acc;
    return 0;
}

static int ex_primary(expr_t *e, int64_t *v)
{
    e->p = cskipws(e->p);
    const char *p = e->p;
    if (*p == '(') {
        e->p++;
        if (ex_or(e, v) < 0)
            return -1;
        e->p = cskipws(e->p);
        if (*e->p != ')')
            return fail(e->c, "missing ')' in expression");
        e->p++;
        return 0;
    }
    if (isdigit((unsigned char)*p)) {
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
            e->p += 2;
            return parse_digits(e, 16, v);
        }
        if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) {
            e->p += 2;
            return parse_digits(e, 2, v);
        }
        return parse_digits(e, 10, v);
    }
    if (*p == '^') {
        int radix;
        switch (tolower((unsigned char)p[1])) {
        case 'x': radix = 16; break;
        case 'o': radix = 8; break;
        case 'b': radix = 2; break;
        case 'd': radix = 10; break;
        default: return fail(e->c, "unknown radix prefix '^%c'", p[1] ? p[1] : ' ');
        }
        e->p += 2;
        return parse_digits(e, radix, v);
    }
    if (*p == '\'') {
        p++;
        int ch;
        if (*p == '\\') {
            p++;
            if (parse_escape(e->c, &p, &ch) < 0)
                return -1;
        } else if (*p == 0 || *p == '\'') {
            return fail(e->c, "bad character constant");
        } else {
            ch = (unsigned char)*p++;
        }
        if (*p != '\'')
            return fail(e->c, "unterminated character constant");
        e->p = p + 1;
        *v = ch;
        return 0;
    }
    if (is_ident_start((unsigned char)*p)) {
        const char *s = p;
        while (is_ident_char((unsigned char)*p))
            p++;
        size_t n = (size_t)(p - s);
        e->p = p;
        if (n == 1 && s[0] == '.') {
            *v = e->dot;
            return 0;
        }
        int r = reg_n(s, n);
        if (r == -2)
            return fail(e->c, "bad register '%.*s'", (int)n, s);
        if (r >= 0)
            return fail(e->c, "register '%.*s' not allowed here", (int)n, s);
        sym_t *sym = sym_find(e->c, s, n);
        if (sym && sym->defined) {
            *v = sym->value;
            return 0;
        }
        if (e->c->pass == 2)
            return fail(e->c, "undefined symbol '%.*s'", (int)n, s);
        e->undef = 1;
        *v = 0;
        return 0;
    }
    if (*p == 0)
        return fail(e->c, "missing value in expression");
    return fail(e->c, "unexpected '%c' in expression", *p);
}

static int ex_unary(expr_t *e, int64_t *v)
{
    e->p = cskipws(e->p);
    char op = *e->p;
    if (op == '-' || op == '+' || op == '~') {
        e->p++;
        if (ex_unary(e, v) < 0)
            return -1;
        if (op == '-')
            *v = (int64_t)(0 - (uint64_t)*v);
        else if (op == '~')
            *v = (int64_t)~(uint64_t)*v;
        return 0;
    }
    return ex_primary(e, v);
}

static int ex_mul(expr_t *e, int64_t *v)
{
    if (ex_unary(e, v) < 0)
        return -1;
    for (;;) {
        e->p = cskipws(e->p);
        char op = *e->p;
        if (op != '*' && op != '/' && op != '%')
            return 0;
        e->p++;
        int64_t r;
        if (ex_unary(e, &r) < 0)
            return -1;
        if (op == '*') {
            *v = (int64_t)((uint64_t)*v * (uint64_t)r);
        } else if (r == 0) {
            if (!e->undef)
                return fail(e->c, "division by zero");
            *v = 0;
        } else if (r == -1) {
            *v = op == '/' ? (int64_t)(0 - (uint64_t)*v) : 0;
        } else {
            *v = op == '/' ? *v / r : *v % r;
        }
    }
}

static int ex_add(expr_t *e, int64_t *v)
{
    if (ex_mul(e, v) < 0)
        return -1;
    for (;;) {
        e->p = cskipws(e->p);
        char op = *e->p;
        if (op != '+' && op != '-')
            return 0;
        e->p++;
        int64_t r;
        if (ex_mul(e, &r) < 0)
            return -1;
        *v = (int64_t)(op == '+' ? (uint64_t)*v + (uint64_t)r : (uint64_t)*v - (uint64_t)r);
    }
}

static int ex_shift(expr_t *e, int64_t *v)
{
    if (ex_add(e, v) < 0)
        return -1;
    for (;;) {
        e->p = cskipws(e->p);
        int left = e->p[0] == '<' && e->p[1] == '<';
        int right = e->p[0] == '>' && e->p[1] == '>';
        if (!left && !right)
            return 0;
        e->p += 2;
        int64_t r;
        if (ex_add(e, &r) < 0)
            return -1;
        if (r < 0 || r > 63) {
            if (!e->undef)
                return fail(e->c, "shift count out of range");
            r = 0;
        }
        if (left)
            *v = (int64_t)((uint64_t)*v << r);
        else
            *v = (int64_t)((uint64_t)*v >> r); /* logical */
    }
}

static int ex_and(expr_t *e, int64_t *v)
{
    if (ex_shift(e, v) < 0)
        return -1;
    for (;;) {
        e->p = cskipws(e->p);
        if (*e->p != '&')
            return 0;
        e->p++;
        int64_t r;
        if (ex_shift(e, &r) < 0)
            return -1;
        *v &= r;
    }
}

static int ex_or(expr_t *e, int64_t *v)
{
    if (ex_and(e, v) < 0)
        return -1;
    for (;;) {
        e->p = cskipws(e->p);
        if (*e->p != '|')
            return 0;
        e->p++;
        int64_t r;
        if (ex_and(e, &r) < 0)
            return -1;
        *v |= r;
    }
}

/* Evaluate the whole string s.  *defined = 0 if it used a symbol not yet
 * defined (possible only in pass 1; the value is then meaningless). */
static int eval(actx *c, const char *s, uint32_t dot, int64_t *v, int *defined)
{
    expr_t e = {c, s, dot, 0};
    if (ex_or(&e, v) < 0)
        return -1;
    e.p = cskipws(e.p);
    if (*e.p != 0)
        return fail(c, "unexpected '%c' in expression", *e.p);
    *defined = !e.undef;
    return 0;
}

/* Evaluate; the value must be known now, even in pass 1. */
static int eval_known(actx *c, const char *s, uint32_t dot, int64_t *v, const char *what)
{
    int d;
    if (eval(c, s, dot, v, &d) < 0)
        return -1;
    if (!d)
        return fail(c, "%s must not use symbols defined later", what);
    return 0;
}

/* ------------------------------------------------------------------ output */

static int advance_check(actx *c, uint64_t n)
{
    if (c->lc + n > 0x100000000ull)
        return fail(c, "location counter passes 0xFFFFFFFF");
    if (c->lc < c->base)
        return fail(c, "address %08X is below the base address %08X", (unsigned)c->lc, (unsigned)c->base);
    if (c->lc - c->base + n > MAX_IMAGE)
        return fail(c, "image larger than %u bytes", MAX_IMAGE);
    return 0;
}

static int emit(actx *c, const uint8_t *b, size_t n, int fill)
{
    if (n == 0)
        return 0;
    if (advance_check(c, n) < 0)
        return -1;
    if (c->pass == 2) {
        size_t off = (size_t)(c->lc - c->base);
        size_t end = off + n;
        if (end > c->img_cap) {
            size_t ncap = c->img_cap ? c->img_cap : 4096;
            while (ncap < end)
                ncap *= 2;
            uint8_t *ni = realloc(c->img, ncap);
            if (!ni)
                return fail(c, "out of memory");
            memset(ni + c->img_cap, 0, ncap - c->img_cap);
            c->img = ni;
            c->img_cap = ncap;
        }
        if (b)
            memcpy(c->img + off, b, n);
        else
            memset(c->img + off, fill, n);
        if (end > c->img_len)
            c->img_len = end;
    }
    c->lc += n;
    c->emitted += (uint32_t)n;
    return 0;
}

static int range_ok(int64_t v, int size)
{
    if (size >= 8)
        return 1;
    int64_t lo = -((int64_t)1 << (8 * size - 1));
    int64_t hi = ((int64_t)1 << (8 * size)) - 1;
    return v >= lo && v <= hi;
}

static int srange_ok(int64_t v, int size)
{
    if (size >= 8)
        return 1;
    int64_t lo = -((int64_t)1 << (8 * size - 1));
    int64_t hi = ((int64_t)1 << (8 * size - 1)) - 1;
    return v >= lo && v <= hi;
}

static void put_le(uint8_t *b, int64_t v, int size)
{
    for (int i = 0; i < size; i++)
        b[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

/* ------------------------------------------------------------ list parsing */

/* Split s at top-level commas (outside () [] and quotes), in place.
 * Returns the number of items (0 for an empty string), -1 on error. */
static int split_commas(actx *c, char *s, char **items, int max)
{
    s = trim(s);
    if (*s == 0)
        return 0;
    int n = 0, depth = 0;
    char *start = s;
    for (char *p = s;; p++) {
        char ch = *p;
        if (ch == '"' || ch == '\'') {
            char q = ch;
            for (p++; *p && *p != q; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == 0)
                return fail(c, "unterminated %s", q == '"' ? "string" : "character constant");
            continue;
        }
        if (ch == '(' || ch == '[')
            depth++;
        else if (ch == ')' || ch == ']')
            depth--;
        if (ch == 0 || (ch == ',' && depth == 0)) {
            if (n == max)
                return fail(c, "too many operands");
            *p = 0;
            items[n] = trim(start);
            if (*items[n] == 0)
                return fail(c, "empty operand");
            n++;
            if (ch == 0)
                break;
            start = p + 1;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- operands */

enum {
    K_REG,     /* Rn */
    K_IMM,     /* $E: literal or immediate, chosen */
    K_LIT,     /* s^$E */
    K_IMMF,    /* i^$E */
    K_REGDEF,  /* (Rn) */
    K_AUTOINC, /* (Rn)+, @(Rn)+ */
    K_AUTODEC, /* -(Rn) */
    K_DISP,    /* E(Rn), @E(Rn) */
    K_ABS,     /* @#E */
    K_PCREL    /* E, @E */
};

typedef struct {
    int kind;
    int deferred;
    int reg;
    int index; /* -1: none */
    int dsize; /* forced displacement size 1/2/4, 0: choose */
    const char *expr; /* NULL = 0 */
} operand_t;

static int is_op_char(char ch)
{
    return strchr("+-*/%&|~<>(,", ch) != NULL;
}

/* Index of the '(' matching the ')' at s[close]; -1 if none. */
static long match_open(const char *s, long close)
{
    int depth = 0;
    for (long i = close; i >= 0; i--) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return i;
    }
    return -1;
}

static int parse_operand(actx *c, char *t, operand_t *o)
{
    memset(o, 0, sizeof *o);
    o->index = -1;
    t = trim(t);
    size_t len = strlen(t);

    if (len > 0 && t[len - 1] == ']') {
        char *lb = strrchr(t, '[');
        if (!lb)
            return fail(c, "missing '[' in index");
        t[len - 1] = 0;
        char *in = trim(lb + 1);
        int r = reg_str(in);
        if (r < 0)
            return fail(c, "bad index register '%s'", in);
        if (r == 15)
            return fail(c, "PC cannot be an index register");
        o->index = r;
        *lb = 0;
        t = trim(t);
        len = strlen(t);
        if (len == 0)
            return fail(c, "missing base operand before index");
    }

    if (len >= 3 && t[1] == '^' && (t[2] == '$' || t[2] == '#')) {
        char k = (char)tolower((unsigned char)t[0]);
        if (k == 's' || k == 'i') {
            o->kind = k == 's' ? K_LIT : K_IMMF;
            o->expr = t + 3;
            goto done;
        }
    }
    if (t[0] == '$' || t[0] == '#') {
        o->kind = K_IMM;
        o->expr = t + 1;
        goto done;
    }
    {
        int r = reg_str(t);
        if (r == -2)
            return fail(c, "bad register '%s'", t);
        if (r >= 0) {
            o->kind = K_REG;
            o->reg = r;
            goto done;
        }
    }
    if (t[0] == '@') {
        o->deferred = 1;
        t = skipws(t + 1);
        if (t[0] == '#' || t[0] == '$') {
            o->kind = K_ABS;
            o->expr = t + 1;
            goto done;
        }
        int r = reg_str(t);
        if (r == -2)
            return fail(c, "bad register '%s'", t);
        if (r >= 0) { /* @Rn is (Rn) */
            o->kind = K_REGDEF;
            o->reg = r;
            goto done;
        }
    }
    if (t[0] && t[1] == '^') {
        char k = (char)tolower((unsigned char)t[0]);
        if (k == 'b' || k == 'w' || k == 'l') {
            o->dsize = k == 'b' ? 1 : k == 'w' ? 2 : 4;
            t = skipws(t + 2);
        } else if (k == 's' || k == 'i') {
            return fail(c, "'%c^' needs an immediate ('$' or '#')", t[0]);
        }
    }
    len = strlen(t);
    if (len == 0)
        return fail(c, "missing operand");

    /* -(Rn) */
    if (t[0] == '-' && len >= 4 && t[len - 1] == ')') {
        char *p = skipws(t + 1);
        if (*p == '(' && match_open(t, (long)len - 1) == p - t) {
            int r = reg_range(p + 1, (size_t)(t + len - 1 - (p + 1)));
            if (r >= 0) {
                if (o->deferred || o->dsize)
                    return fail(c, "bad addressing mode '%s'", t);
                o->kind = K_AUTODEC;
                o->reg = r;
                goto done;
            }
        }
    }
    /* (Rn)+ */
    if (len >= 4 && t[len - 1] == '+' && t[len - 2] == ')') {
        long lp = match_open(t, (long)len - 2);
        if (lp == 0) {
            size_t in = len - 3;
            int r = reg_range(t + 1, in);
            if (r < 0)
                return fail(c, "bad register '%.*s'", (int)in, t + 1);
            if (o->dsize)
                return fail(c, "displacement size prefix on autoincrement");
            o->kind = K_AUTOINC;
            o->reg = r;
            goto done;
        }
    }
    /* (Rn), E(Rn) */
    if (t[len - 1] == ')') {
        long lp = match_open(t, (long)len - 1);
        if (lp >= 0) {
            size_t in = len - 2 - (size_t)lp;
            int r = reg_range(t + lp + 1, in);
            if (r == -2)
                return fail(c, "bad register '%.*s'", (int)in, t + lp + 1);
            if (r >= 0) {
                t[lp] = 0;
                char *pre = trim(t);
                o->reg = r;
                if (*pre == 0 && !o->deferred && !o->dsize) {
                    o->kind = K_REGDEF;
                } else {
                    o->kind = K_DISP;
                    o->expr = *pre ? pre : NULL;
                }
                goto done;
            }
            /* Not a register: E(foo) with E not ending in an operator is a
             * mistyped register; otherwise the whole is an expression. */
            if (lp > 0) {
                long k = lp - 1;
                while (k >= 0 && (t[k] == ' ' || t[k] == '\t'))
                    k--;
                if (k >= 0 && !is_op_char(t[k]))
                    return fail(c, "bad register '%.*s'", (int)in, t + lp + 1);
            }
        }
    }
    o->kind = K_PCREL;
    o->expr = t;
done:
    if (o->index >= 0) {
        if (o->kind == K_REG || o->kind == K_IMM || o->kind == K_LIT || o->kind == K_IMMF)
            return fail(c, "index mode not allowed with a register, literal or immediate operand");
    }
    return 0;
}

/* Encode a general operand with specifier `spec` into buf at *pos.
 * iaddr = address of the instruction's opcode byte. */
static int encode_general(actx *c, const char *text, uint8_t spec, uint32_t iaddr, uint8_t *buf, int *pos)
{
    char tmp[512];
    size_t tl = strlen(text);
    if (tl >= sizeof tmp)
        return fail(c, "operand too long");
    memcpy(tmp, text, tl + 1);
    operand_t o;
    if (parse_operand(c, tmp, &o) < 0)
        return -1;

    int acc = SPEC_ACC(spec), dt = SPEC_DT(spec);
    int isfloat = dt == DT_F || dt == DT_D;
    int dsz = acc == ACC_V ? 1 : dt_size(dt);
    int p = *pos;
    int64_t v = 0;
    int defined = 1;

    if (o.expr && o.kind != K_REG) {
        if (*cskipws(o.expr) == 0)
            return fail(c, "missing expression in operand '%s'", text);
        if (eval(c, o.expr, iaddr, &v, &defined) < 0)
            return -1;
    }
    int check = c->pass == 2;

    if (o.index >= 0)
        buf[p++] = (uint8_t)(0x40 | o.index);

    switch (o.kind) {
    case K_REG:
        buf[p++] = (uint8_t)(0x50 | o.reg);
        break;
    case K_LIT:
        if (check && (v < 0 || v > 63))
            return fail(c, "short literal %lld out of range 0..63", (long long)v);
        buf[p++] = (uint8_t)(v & 63);
        break;
    case K_IMM:
    case K_IMMF: {
        int lit = 0;
        if (o.kind == K_IMM) {
            int want = acc == ACC_R && !isfloat && defined && v >= 0 && v <= 63;
            if (decide(c, want, &lit) < 0)
                return -1;
        }
        if (lit) {
            if (check && (v < 0 || v > 63))
                return fail(c, "internal error: literal changed between passes");
            buf[p++] = (uint8_t)(v & 63);
        } else {
            if (check && !range_ok(v, dsz))
                return fail(c, "immediate %lld does not fit in %d byte%s", (long long)v, dsz, dsz > 1 ? "s" : "");
            buf[p++] = 0x8F;
            put_le(buf + p, v, dsz);
            p += dsz;
        }
        break;
    }
    case K_REGDEF:
        buf[p++] = (uint8_t)(0x60 | o.reg);
        break;
    case K_AUTODEC:
        buf[p++] = (uint8_t)(0x70 | o.reg);
        break;
    case K_AUTOINC:
        buf[p++] = (uint8_t)((o.deferred ? 0x90 : 0x80) | o.reg);
        break;
    case K_ABS:
        if (check && !range_ok(v, 4))
            return fail(c, "absolute address %lld out of range", (long long)v);
        buf[p++] = 0x9F;
        put_le(buf + p, v, 4);
        p += 4;
        break;
    case K_DISP: {
        int s = o.dsize;
        if (!s) {
            int want = !defined ? 4 : srange_ok(v, 1) ? 1 : srange_ok(v, 2) ? 2 : 4;
            if (decide(c, want, &s) < 0)
                return -1;
        }
        if (check && !(s == 4 ? range_ok(v, 4) : srange_ok(v, s)))
            return fail(c, "displacement %lld does not fit in %d byte%s", (long long)v, s, s > 1 ? "s" : "");
        int mode = (s == 1 ? 0xA : s == 2 ? 0xC : 0xE) + o.deferred;
        buf[p++] = (uint8_t)((mode << 4) | o.reg);
        put_le(buf + p, v, s);
        p += s;
        break;
    }
    case K_PCREL: {
        int s = o.dsize ? o.dsize : 4;
        if (check && !range_ok(v, 4))
            return fail(c, "address %lld out of range", (long long)v);
        int64_t next = (int64_t)iaddr + p + 1 + s;
        int64_t disp = (int64_t)(uint32_t)v - next;
        if (s == 4)
            disp = (int32_t)(uint32_t)(uint64_t)disp;
        if (check && !srange_ok(disp, s))
            return fail(c, "PC-relative displacement %lld does not fit in %d byte%s", (long long)disp, s,
                        s > 1 ? "s" : "");
        int mode = (s == 1 ? 0xA : s == 2 ? 0xC : 0xE) + o.deferred;
        buf[p++] = (uint8_t)((mode << 4) | 15);
        put_le(buf + p, disp, s);
        p += s;
        break;
    }
    }
    *pos = p;
    return 0;
}

/* --------------------------------------------------------------- statements */

static int do_instruction(actx *c, int op, char *args)
{
    const vax_opinfo *info = &vax_opcodes[op];
    char *ops[8];
    int n = split_commas(c, args, ops, 8);
    if (n < 0)
        return -1;
    if (n != info->nspec)
        return fail(c, "%s takes %d operand%s, got %d", info->name, info->nspec, info->nspec == 1 ? "" : "s", n);
    uint8_t buf[MAX_INSN];
    int pos = 0;
    uint32_t iaddr = (uint32_t)c->lc;
    buf[pos++] = (uint8_t)op;
    for (int i = 0; i < n; i++) {
        uint8_t spec = info->spec[i];
        if (SPEC_ACC(spec) == ACC_B) {
            int s = SPEC_DT(spec) == DT_B ? 1 : 2;
            int64_t v;
            int defined;
            const char *t = ops[i];
            if (*t == '$' || *t == '#' || *t == '@')
                return fail(c, "branch operand must be a target address, not '%s'", t);
            if (eval(c, t, iaddr, &v, &defined) < 0)
                return -1;
            int64_t disp = (int64_t)(uint32_t)v - ((int64_t)iaddr + pos + s);
            if (c->pass == 2) {
                if (!range_ok(v, 4))
                    return fail(c, "branch target %lld out of range", (long long)v);
                if (!srange_ok(disp, s))
                    return fail(c, "branch out of range (displacement %lld, %s)", (long long)disp,
                                s == 1 ? "byte" : "word");
            }
            put_le(buf + pos, disp, s);
            pos += s;
        } else {
            if (encode_general(c, ops[i], spec, iaddr, buf, &pos) < 0)
                return -1;
        }
    }
    return emit(c, buf, (size_t)pos, 0);
}

static int parse_string(actx *c, char **pp, int zero)
{
    char *p = skipws(*pp);
    if (*p != '"')
        return fail(c, "expected a \"string\"");
    p++;
    for (;;) {
        int ch;
        if (*p == 0)
            return fail(c, "unterminated string");
        if (*p == '"') {
            p++;
            break;
        }
        if (*p == '\\') {
            const char *q = p + 1;
            if (parse_escape(c, &q, &ch) < 0)
                return -1;
            p = (char *)(uintptr_t)q;
        } else {
            ch = (unsigned char)*p++;
        }
        uint8_t b = (uint8_t)ch;
        if (emit(c, &b, 1, 0) < 0)
            return -1;
    }
    if (zero) {
        uint8_t b = 0;
        if (emit(c, &b, 1, 0) < 0)
            return -1;
    }
    *pp = p;
    return 0;
}

static int do_directive(actx *c, const char *name, size_t nlen, char *args)
{
    static const struct {
        const char *name;
        int size;
    } data[] = {{".byte", 1}, {".word", 2}, {".long", 4}, {".quad", 8}};
    for (int k = 0; k < 4; k++) {
        if (!ieq_n(name, nlen, data[k].name))
            continue;
        int size = data[k].size;
        char *p = args;
        if (*skipws(p) == 0)
            return fail(c, "%.*s needs at least one value", (int)nlen, name);
        for (;;) {
            /* find the end of this item: a comma outside () and '' */
            char *start = p;
            int depth = 0;
            for (; *p && !(*p == ',' && depth == 0); p++) {
                if (*p == '(')
                    depth++;
                else if (*p == ')')
                    depth--;
                else if (*p == '\'') {
                    for (p++; *p && *p != '\''; p++)
                        if (*p == '\\' && p[1])
                            p++;
                    if (*p == 0)
                        return fail(c, "unterminated character constant");
                }
            }
            char end = *p;
            *p = 0;
            char *item = trim(start);
            if (*item == 0)
                return fail(c, "empty item in %.*s", (int)nlen, name);
            int64_t v;
            int defined;
            if (eval(c, item, (uint32_t)c->lc, &v, &defined) < 0)
                return -1;
            if (c->pass == 2 && !range_ok(v, size))
                return fail(c, "value %lld does not fit in a %.*s", (long long)v, (int)nlen - 1, name + 1);
            uint8_t b[8];
            put_le(b, v, size);
            if (emit(c, b, (size_t)size, 0) < 0)
                return -1;
            if (end == 0)
                break;
            p++;
        }
        return 0;
    }
    if (ieq_n(name, nlen, ".ascii") || ieq_n(name, nlen, ".asciz")) {
        int zero = tolower((unsigned char)name[5]) == 'z';
        char *p = args;
        for (;;) {
            if (parse_string(c, &p, zero) < 0)
                return -1;
            p = skipws(p);
            if (*p == 0)
                return 0;
            if (*p != ',')
                return fail(c, "unexpected '%c' after string", *p);
            p++;
        }
    }
    if (ieq_n(name, nlen, ".org")) {
        int64_t v;
        if (eval_known(c, args, (uint32_t)c->lc, &v, ".org address") < 0)
            return -1;
        if (v < (int64_t)c->base || v > 0xFFFFFFFFll)
            return fail(c, ".org address 0x%llX outside 0x%X..0xFFFFFFFF", (unsigned long long)v, (unsigned)c->base);
        c->lc = (uint64_t)v;
        return 0;
    }
    if (ieq_n(name, nlen, ".align")) {
        int64_t v;
        if (eval_known(c, args, (uint32_t)c->lc, &v, ".align") < 0)
            return -1;
        if (v < 1 || v > 65536 || (v & (v - 1)) != 0)
            return fail(c, ".align needs a power of two from 1 to 65536 (bytes), got %lld", (long long)v);
        uint64_t pad = (uint64_t)(-(int64_t)c->lc) & (uint64_t)(v - 1);
        return emit(c, NULL, (size_t)pad, 0);
    }
    if (ieq_n(name, nlen, ".space")) {
        char *it[2];
        int n = split_commas(c, args, it, 2);
        if (n < 0)
            return -1;
        if (n == 0)
            return fail(c, ".space needs a byte count");
        int64_t v, fill = 0;
        if (eval_known(c, it[0], (uint32_t)c->lc, &v, ".space count") < 0)
            return -1;
        if (n == 2 && eval_known(c, it[1], (uint32_t)c->lc, &fill, ".space fill") < 0)
            return -1;
        if (v < 0 || v > (int64_t)MAX_IMAGE)
            return fail(c, ".space count %lld out of range", (long long)v);
        if (!range_ok(fill, 1))
            return fail(c, ".space fill %lld does not fit in a byte", (long long)fill);
        return emit(c, NULL, (size_t)v, (int)(fill & 0xFF));
    }
    return fail(c, "unknown directive '%.*s'", (int)nlen, name);
}

static int define_label(actx *c, const char *name, size_t n)
{
    if (reg_n(name, n) != -1)
        return fail(c, "register name '%.*s' used as a label", (int)n, name);
    if (n == 1 && name[0] == '.')
        return fail(c, "'.' cannot be a label");
    sym_t *s = sym_find(c, name, n);
    if (c->pass == 1) {
        if (s && s->defined)
            return fail(c, s->is_label ? "duplicate label '%.*s'" : "label '%.*s' already defined by '='", (int)n,
                        name);
        if (!s && !(s = sym_add(c, name, n)))
            return -1;
        s->value = (int64_t)c->lc;
        s->defined = 1;
        s->is_label = 1;
        s->line = c->line;
        return 0;
    }
    if (!s || !s->is_label || s->value != (int64_t)c->lc)
        return fail(c, "internal error: label '%.*s' moved between passes", (int)n, name);
    return 0;
}

static int do_assign(actx *c, const char *name, size_t n, char *expr)
{
    if (n == 1 && name[0] == '.') {
        char d[] = ".org";
        return do_directive(c, d, 4, expr);
    }
    if (reg_n(name, n) != -1)
        return fail(c, "register name '%.*s' used as a symbol", (int)n, name);
    if (*skipws(expr) == 0)
        return fail(c, "missing expression after '='");
    int64_t v;
    int defined;
    if (eval(c, expr, (uint32_t)c->lc, &v, &defined) < 0)
        return -1;
    sym_t *s = sym_find(c, name, n);
    if (s && s->is_label)
        return fail(c, "'%.*s' is already a label", (int)n, name);
    if (!s && !(s = sym_add(c, name, n)))
        return -1;
    if (defined) {
        s->value = v;
        s->defined = 1;
    } else if (!s->defined) {
        s->defined = 0;
    } /* else: a redefinition not computable yet keeps the old value in pass 1 */
    s->line = c->line;
    return 0;
}

/* Strip the comment from a line (in place). */
static void strip_comment(char *s)
{
    char *p = skipws(s);
    if (*p == '#') {
        *s = 0;
        return;
    }
    for (; *p; p++) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; *p && *p != q; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == 0)
                return;
            continue;
        }
        if (*p == ';') {
            *p = 0;
            return;
        }
    }
}

static int do_line(actx *c, char *s)
{
    strip_comment(s);
    char *p = skipws(s);
    for (;;) {
        if (*p == 0)
            return 0;
        if (!is_ident_start((unsigned char)*p))
            return fail(c, "unexpected '%c' at start of statement", *p);
        char *w = p;
        while (is_ident_char((unsigned char)*p))
            p++;
        size_t wn = (size_t)(p - w);
        char *q = skipws(p);
        if (*q == ':') {
            if (define_label(c, w, wn) < 0)
                return -1;
            q++;
            if (*q == ':')
                q++;
            p = skipws(q);
            continue;
        }
        if (*q == '=' && q[1] != '=')
            return do_assign(c, w, wn, q + 1);
        if (*p != 0 && *p != ' ' && *p != '\t')
            return fail(c, "unexpected '%c' after '%.*s'", *p, (int)wn, w);
        if (w[0] == '.')
            return do_directive(c, w, wn, p);
        char mn[32];
        if (wn >= sizeof mn)
            return fail(c, "unknown instruction '%.*s'", (int)wn, w);
        memcpy(mn, w, wn);
        mn[wn] = 0;
        int op = vax_opcode_lookup(mn);
        if (op < 0)
            return fail(c, "unknown instruction '%s'", mn);
        return do_instruction(c, op, p);
    }
}

static int add_line_record(actx *c, uint32_t addr)
{
    if (c->nlines == c->lines_cap) {
        size_t ncap = c->lines_cap ? c->lines_cap * 2 : 256;
        vasm_line *nl = realloc(c->lines, ncap * sizeof *nl);
        if (!nl)
            return fail(c, "out of memory");
        c->lines = nl;
        c->lines_cap = ncap;
    }
    vasm_line *l = &c->lines[c->nlines++];
    l->line = c->line;
    l->len = c->emitted;
    l->addr = c->emitted ? addr : (uint32_t)c->lc;
    return 0;
}

static int run_pass(actx *c, const char *src, int pass)
{
    c->pass = pass;
    c->lc = c->base;
    c->line = 0;
    c->dec_pos = 0;
    const char *p = src;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        c->line++;
        if (n + 1 > c->linebuf_cap) {
            size_t ncap = c->linebuf_cap ? c->linebuf_cap : 256;
            while (ncap < n + 1)
                ncap *= 2;
            char *nb = realloc(c->linebuf, ncap);
            if (!nb)
                return fail(c, "out of memory");
            c->linebuf = nb;
            c->linebuf_cap = ncap;
        }
        memcpy(c->linebuf, p, n);
        c->linebuf[n] = 0;
        if (n > 0 && c->linebuf[n - 1] == '\r')
            c->linebuf[n - 1] = 0;
        uint32_t start = (uint32_t)c->lc;
        c->emitted = 0;
        if (do_line(c, c->linebuf) < 0)
            return -1;
        if (pass == 2 && add_line_record(c, start) < 0)
            return -1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static void ctx_free(actx *c)
{
    free(c->img);
    for (size_t i = 0; i < c->nsyms; i++)
        free(c->syms[i].name);
    free(c->syms);
    free(c->hash);
    free(c->dec);
    free(c->lines);
    free(c->linebuf);
}

int vasm_assemble(const char *source, uint32_t base, vasm_result *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    actx c;
    memset(&c, 0, sizeof c);
    c.base = base;
    if (!source)
        source = "";

    int rc = run_pass(&c, source, 1);
    if (rc == 0)
        rc = run_pass(&c, source, 2);
    if (rc == 0) {
        /* Symbols: the defined ones, in order of first definition. */
        size_t n = 0;
        for (size_t i = 0; i < c.nsyms; i++)
            n += c.syms[i].defined != 0;
        if (n) {
            out->syms = calloc(n, sizeof *out->syms);
            if (!out->syms)
                rc = fail(&c, "out of memory");
        }
        for (size_t i = 0; rc == 0 && i < c.nsyms; i++) {
            if (!c.syms[i].defined)
                continue;
            vasm_sym *s = &out->syms[out->nsyms++];
            s->name = c.syms[i].name;
            c.syms[i].name = NULL;
            s->value = (uint32_t)c.syms[i].value;
            s->is_label = c.syms[i].is_label;
            s->line = c.syms[i].line;
        }
    }
    if (rc == 0) {
        out->bytes = c.img;
        out->len = c.img_len;
        c.img = NULL;
        out->lines = c.lines;
        out->nlines = c.nlines;
        c.lines = NULL;
    } else {
        snprintf(out->error, sizeof out->error, "%s", c.err);
        out->error_line = c.err_line;
    }
    ctx_free(&c);
    if (rc != 0) {
        for (size_t i = 0; i < out->nsyms; i++)
            free(out->syms[i].name);
        free(out->syms);
        out->syms = NULL;
        out->nsyms = 0;
    }
    return rc == 0 ? 0 : -1;
}

int vasm_symbol(const vasm_result *r, const char *name, uint32_t *value)
{
    for (size_t i = 0; i < r->nsyms; i++) {
        if (strcmp(r->syms[i].name, name) == 0) {
            if (value)
                *value = r->syms[i].value;
            return 0;
        }
    }
    return -1;
}

void vasm_free(vasm_result *r)
{
    if (!r)
        return;
    free(r->bytes);
    for (size_t i = 0; i < r->nsyms; i++)
        free(r->syms[i].name);
    free(r->syms);
    free(r->lines);
    r->bytes = NULL;
    r->len = 0;
    r->syms = NULL;
    r->nsyms = 0;
    r->lines = NULL;
    r->nlines = 0;
}
