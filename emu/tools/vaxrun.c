/*
 * vaxrun — run raw guest code on a bare machine and report the result.
 *
 *   vaxrun [--mem MB] --load FILE@ADDR [--load FILE@ADDR ...] --pc ADDR
 *          [--psl HEX] --steps N [--slice N] [--digest] [--regs]
 *
 * Creates a machine with MB megabytes of memory (default 8), copies each
 * FILE raw into physical memory at ADDR, sets PC (and PSL if given), and
 * calls vax_run() in slices of --slice instructions (default 4000000)
 * until N instructions have been executed or the machine stops for another
 * reason.  Prints one line
 *
 *   stop=<reason> instructions=<n> [digest=<16 hex>]
 *
 * (digest only with --digest), then with --regs the lines
 *
 *   R0=xxxxxxxx R1=xxxxxxxx R2=xxxxxxxx R3=xxxxxxxx
 *   ...
 *   R12=xxxxxxxx R13=xxxxxxxx R14=xxxxxxxx R15=xxxxxxxx
 *   PSL=xxxxxxxx
 *   detail=<vax_stop_detail()>
 *
 * Numbers accept C syntax (0x.. hex, decimal).  Exit status 0 when the
 * run completed (whatever the stop reason), 2 on usage or load errors.
 * The wasm identity test (emu/wasm/identity.test.ts) runs the same
 * programs through the WebAssembly build and compares these outputs.
 */
#include "vax.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOADS 32

static const char usage_text[] = "usage: vaxrun [--mem MB] --load FILE@ADDR [--load ...] --pc ADDR [--psl HEX]\n"
                                 "              --steps N [--slice N] [--digest] [--regs]\n";

/* A bad command line: the usage on stderr, exit 2.  (--help asks for it: stdout, exit 0.) */
static void usage(void) {
    fputs(usage_text, stderr);
    exit(2);
}

static uint64_t parse_u64(const char *s, const char *what, int base) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || end == s || *end != '\0' || s[0] == '-') {
        fprintf(stderr, "vaxrun: bad %s: '%s'\n", what, s);
        exit(2);
    }
    return (uint64_t)v;
}

static uint32_t parse_u32(const char *s, const char *what, int base) {
    uint64_t v = parse_u64(s, what, base);
    if (v > 0xFFFFFFFFull) {
        fprintf(stderr, "vaxrun: %s out of range: '%s'\n", what, s);
        exit(2);
    }
    return (uint32_t)v;
}

static int load_file(vax_machine *m, const char *spec) {
    const char *at = strrchr(spec, '@');
    if (!at || at == spec || at[1] == '\0') {
        fprintf(stderr, "vaxrun: --load wants FILE@ADDR, got '%s'\n", spec);
        return -1;
    }
    size_t nlen = (size_t)(at - spec);
    char *path = malloc(nlen + 1);
    if (!path) return -1;
    memcpy(path, spec, nlen);
    path[nlen] = '\0';
    uint32_t addr = parse_u32(at + 1, "load address", 0);

    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vaxrun: cannot open %s: %s\n", path, strerror(errno));
        free(path);
        return -1;
    }
    int rc = 0;
    unsigned char buf[65536];
    size_t n;
    uint32_t pa = addr;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (vax_phys_write(m, pa, buf, n) != 0) {
            fprintf(stderr, "vaxrun: %s does not fit in memory at 0x%08" PRIX32 "\n", path, addr);
            rc = -1;
            break;
        }
        pa += (uint32_t)n;
    }
    if (ferror(f)) {
        fprintf(stderr, "vaxrun: read error on %s\n", path);
        rc = -1;
    }
    fclose(f);
    free(path);
    return rc;
}

int main(int argc, char **argv) {
    uint32_t mem_mb = 8;
    const char *loads[MAX_LOADS];
    int nloads = 0;
    int have_pc = 0, have_psl = 0, have_steps = 0, want_digest = 0, want_regs = 0;
    uint32_t pc = 0, psl = 0;
    uint64_t steps = 0, slice = 4000000;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--mem") && v) {
            mem_mb = parse_u32(v, "--mem", 0);
            i++;
        } else if (!strcmp(a, "--load") && v) {
            if (nloads == MAX_LOADS) {
                fprintf(stderr, "vaxrun: too many --load options\n");
                return 2;
            }
            loads[nloads++] = v;
            i++;
        } else if (!strcmp(a, "--pc") && v) {
            pc = parse_u32(v, "--pc", 0);
            have_pc = 1;
            i++;
        } else if (!strcmp(a, "--psl") && v) {
            psl = parse_u32(v, "--psl", 16);
            have_psl = 1;
            i++;
        } else if (!strcmp(a, "--steps") && v) {
            steps = parse_u64(v, "--steps", 0);
            have_steps = 1;
            i++;
        } else if (!strcmp(a, "--slice") && v) {
            slice = parse_u64(v, "--slice", 0);
            i++;
        } else if (!strcmp(a, "--digest")) {
            want_digest = 1;
        } else if (!strcmp(a, "--regs")) {
            want_regs = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            fprintf(stderr, "vaxrun: unknown or incomplete option '%s'\n", a);
            usage();
        }
    }
    if (!have_pc || !have_steps || nloads == 0) usage();
    if (mem_mb == 0 || mem_mb > 4095) {
        fprintf(stderr, "vaxrun: --mem must be 1..4095 MB\n");
        return 2;
    }
    if (slice == 0) slice = steps ? steps : 1;

    vax_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_bytes = mem_mb * 1024u * 1024u;
    vax_machine *m = vax_create(&cfg);
    if (!m) {
        fprintf(stderr, "vaxrun: cannot create a machine with %" PRIu32 " MB\n", mem_mb);
        return 2;
    }
    for (int i = 0; i < nloads; i++) {
        if (load_file(m, loads[i]) != 0) {
            vax_destroy(m);
            return 2;
        }
    }
    vax_set_reg(m, 15, pc);
    if (have_psl) vax_set_psl(m, psl);

    /* Same slicing as the wasm side of the identity test. */
    vax_stop_reason r = VAX_STOP_BUDGET;
    uint64_t left = steps;
    while (left > 0) {
        uint64_t n = left < slice ? left : slice;
        uint64_t before = vax_instruction_count(m);
        r = vax_run(m, n);
        uint64_t done = vax_instruction_count(m) - before;
        left = done >= left ? 0 : left - done;
        if (r != VAX_STOP_BUDGET) break;
        if (done == 0) break; /* no progress: do not spin */
    }

    printf("stop=%s instructions=%" PRIu64, vax_stop_reason_name(r), vax_instruction_count(m));
    if (want_digest) printf(" digest=%016" PRIx64, vax_state_digest(m));
    printf("\n");
    if (want_regs) {
        for (int i = 0; i < 16; i++)
            printf("R%d=%08" PRIX32 "%s", i, vax_get_reg(m, i), (i % 4 == 3) ? "\n" : " ");
        printf("PSL=%08" PRIX32 "\n", vax_get_psl(m));
        const char *d = vax_stop_detail(m);
        printf("detail=%s\n", d ? d : "");
    }
    vax_destroy(m);
    return 0;
}
