/*
 * vasm — assemble a VAX source file to a raw binary image.
 *
 *   vasm [-o out.bin] [-b base_hex] [-l] [-s] file.s
 *   vasm -d [-b base_hex] file.bin
 *
 *   -o FILE   output file (default: the input name with .bin for .s,
 *             or FILE.bin); "-" writes to stdout
 *   -b HEX    base address (location counter at the start), default 0
 *   -l        print a listing (address, bytes, line number, source) to stdout
 *   -s        print the symbol table to stdout
 *   -d        disassemble a raw binary instead (no output file)
 *
 * The syntax is described at the top of src/asm/vasm.c.
 */
#include "asm/vasm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] = "usage: vasm [-o out.bin] [-b base_hex] [-l] [-s] file.s\n"
                                 "       vasm -d [-b base_hex] file.bin\n";

/* A bad command line: the usage on stderr, exit 2.  (--help asks for it: stdout, exit 0.) */
static void usage(void)
{
    fputs(usage_text, stderr);
    exit(2);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vasm: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
        }
        buf = nb;
    }
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "vasm: %s: read error\n", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Start and length of 1-based line `line` in src. */
static const char *line_text(const char *src, int line, int *len)
{
    const char *p = src;
    for (int i = 1; i < line && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p) {
        *len = 0;
        return "";
    }
    const char *e = strchr(p, '\n');
    int n = e ? (int)(e - p) : (int)strlen(p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    *len = n;
    return p;
}

static void listing(const vasm_result *r, const char *src)
{
    enum { PER_ROW = 8, MAX_ROWS = 4 };
    for (size_t i = 0; i < r->nlines; i++) {
        const vasm_line *l = &r->lines[i];
        int tl;
        const char *t = line_text(src, l->line, &tl);
        uint32_t done = 0;
        int row = 0;
        do {
            char hex[PER_ROW * 3 + 1] = "";
            uint32_t k = 0;
            for (; k < PER_ROW && done + k < l->len; k++) {
                size_t off = (size_t)(l->addr - r->base) + done + k;
                snprintf(hex + 3 * k, sizeof hex - 3 * k, "%02X ", off < r->len ? r->bytes[off] : 0);
            }
            if (row == 0) {
                printf("%08X  %-*s %5d  %.*s\n", (unsigned)(l->addr + done), PER_ROW * 3, hex, l->line, tl, t);
            } else {
                size_t hl = strlen(hex);
                if (hl > 0)
                    hex[hl - 1] = 0; /* no trailing blank */
                printf("%08X  %s\n", (unsigned)(l->addr + done), hex);
            }
            done += k;
            row++;
            if (row == MAX_ROWS && done < l->len) {
                printf("          ... (%u bytes in all)\n", (unsigned)l->len);
                break;
            }
        } while (done < l->len);
    }
}

static int disassemble(const char *path, uint32_t base)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf)
        return 1;
    const uint8_t *b = (const uint8_t *)buf;
    size_t pos = 0;
    while (pos < len) {
        char text[160];
        int n = vdisasm(b + pos, len - pos, base + (uint32_t)pos, text, sizeof text);
        if (n < 0) {
            n = 1;
            snprintf(text, sizeof text, ".BYTE %02X  ; truncated or undecodable", b[pos]);
        }
        printf("%08X  ", (unsigned)(base + pos));
        for (int i = 0; i < 8; i++)
            printf(i < n ? "%02X " : "   ", i < n ? b[pos + (size_t)i] : 0);
        printf("%s%s\n", n > 8 ? "+" : " ", text);
        pos += (size_t)n;
    }
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *in = NULL;
    uint32_t base = 0;
    int list = 0, syms = 0, dis = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "-b") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(argv[++i], &end, 16);
            if (errno || *end || end == argv[i] || v > 0xFFFFFFFFul) {
                fprintf(stderr, "vasm: bad base address '%s'\n", argv[i]);
                return 2;
            }
            base = (uint32_t)v;
        } else if (strcmp(a, "-l") == 0) {
            list = 1;
        } else if (strcmp(a, "-s") == 0) {
            syms = 1;
        } else if (strcmp(a, "-d") == 0) {
            dis = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if ((a[0] == '-' && a[1]) || in) {
            usage();
        } else {
            in = a;
        }
    }
    if (!in)
        usage();
    if (dis)
        return disassemble(in, base);

    size_t len;
    char *src = read_file(in, &len);
    if (!src)
        return 1;
    if (strlen(src) != len) {
        fprintf(stderr, "vasm: %s: contains a NUL byte\n", in);
        free(src);
        return 1;
    }
    vasm_result r;
    if (vasm_assemble(src, base, &r) != 0) {
        fprintf(stderr, "%s:%d: error: %s\n", in, r.error_line, r.error);
        vasm_free(&r);
        free(src);
        return 1;
    }
    if (list)
        listing(&r, src);
    if (syms) {
        for (size_t i = 0; i < r.nsyms; i++)
            printf("%08X  %c  %s\n", (unsigned)r.syms[i].value, r.syms[i].is_label ? 'L' : '=', r.syms[i].name);
    }

    char *defname = NULL;
    if (!out) {
        size_t n = strlen(in);
        defname = malloc(n + 5);
        if (!defname) {
            vasm_free(&r);
            free(src);
            return 1;
        }
        memcpy(defname, in, n + 1);
        char *slash = strrchr(defname, '/');
        char *dot = strrchr(defname, '.');
        if (dot && (!slash || dot > slash) && strcmp(dot, ".bin") != 0)
            *dot = 0;
        strcat(defname, ".bin");
        out = defname;
    }
    int rc = 0;
    FILE *f = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
    if (!f || (r.len && fwrite(r.bytes, 1, r.len, f) != r.len) || (f != stdout && fclose(f) != 0)) {
        fprintf(stderr, "vasm: %s: cannot write: %s\n", out, strerror(errno));
        rc = 1;
    }
    free(defname);
    vasm_free(&r);
    free(src);
    return rc;
}
