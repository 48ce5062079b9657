/*
 * bench_cpu — raw CPU speed of the native build, in VAX instructions/s.
 *
 *   bench_cpu [--instructions N] [--slice N] [--workload FILE.bin] [--mem MB] [--profile FILE]
 *
 * Loads the workload (default build/workload.bin, assembled by make from
 * bench/workload.s, or emu/build/workload.bin when run from the repository
 * root) with its sidecar FILE.json
 *   { "load": "0x200", "pc": "0x200", "psl": "0x041F0000", "mem": 8 }
 * (numbers or strings in C syntax; psl and mem optional), then runs N VAX
 * instructions (default 200 million) in vax_run() slices of --slice
 * (default 4 million) and prints exactly
 *
 *   native: <rate> VAX instructions/s
 *   native: <n> instructions in <s> s
 *
 * --profile FILE runs with the profiler on (vax_profile_start: the cost of
 * profiling is the difference in speed) and writes its JSON to FILE.
 *
 * emu/bench/bench-cpu-wasm.ts does the same through the wasm build.
 */
#include "vax.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t parse_u64(const char *s, const char *what) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end != '\0' || s[0] == '-') {
        fprintf(stderr, "bench_cpu: bad %s: '%s'\n", what, s);
        exit(2);
    }
    return (uint64_t)v;
}

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        unsigned char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
        }
        buf = nb;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* Finds "key": <number> or "key": "<number>" in a flat JSON object. */
static int json_u32(const char *json, const char *key, uint32_t *out) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p) return 0;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != ':') return -1;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p == '"') p++;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 0);
    if (errno || end == p || v > 0xFFFFFFFFull) return -1;
    *out = (uint32_t)v;
    return 1;
}

int main(int argc, char **argv) {
    uint64_t total = 200000000ull, slice = 4000000ull;
    const char *workload = NULL;
    uint32_t mem_mb = 0;
    const char *profile = NULL;

    for (int i = 1; i < argc; i++) {
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--instructions") && v) {
            total = parse_u64(v, "--instructions");
            i++;
        } else if (!strcmp(argv[i], "--slice") && v) {
            slice = parse_u64(v, "--slice");
            i++;
        } else if (!strcmp(argv[i], "--workload") && v) {
            workload = v;
            i++;
        } else if (!strcmp(argv[i], "--mem") && v) {
            mem_mb = (uint32_t)parse_u64(v, "--mem");
            i++;
        } else if (!strcmp(argv[i], "--profile") && v) {
            profile = v;
            i++;
        } else {
            fprintf(stderr,
                    "usage: bench_cpu [--instructions N] [--slice N] [--workload FILE.bin] [--mem MB] "
                    "[--profile FILE]\n");
            return 2;
        }
    }
    if (slice == 0) slice = 1;

    const char *candidates[] = {"build/workload.bin", "emu/build/workload.bin"};
    unsigned char *image = NULL;
    size_t image_len = 0;
    uint32_t load = 0, pc = 0, psl = 0, json_mem = 0;
    int have_psl = 0;
    const char *used = NULL;

    for (size_t c = 0; c < (workload ? 1 : 2) && !image; c++) {
        const char *path = workload ? workload : candidates[c];
        image = read_file(path, &image_len);
        if (image) used = path;
    }
    if (workload && !image) {
        fprintf(stderr, "bench_cpu: cannot read %s\n", workload);
        return 2;
    }
    if (image) {
        size_t plen = strlen(used);
        char *jpath = malloc(plen + 6);
        if (!jpath) return 2;
        memcpy(jpath, used, plen + 1);
        if (plen > 4 && !strcmp(jpath + plen - 4, ".bin")) jpath[plen - 4] = '\0';
        strcat(jpath, ".json");
        size_t jlen;
        char *json = (char *)read_file(jpath, &jlen);
        if (!json) {
            fprintf(stderr, "bench_cpu: %s needs %s\n", used, jpath);
            return 2;
        }
        if (json_u32(json, "load", &load) != 1 || json_u32(json, "pc", &pc) != 1) {
            fprintf(stderr, "bench_cpu: %s must give \"load\" and \"pc\"\n", jpath);
            return 2;
        }
        int r = json_u32(json, "psl", &psl);
        if (r < 0 || json_u32(json, "mem", &json_mem) < 0) {
            fprintf(stderr, "bench_cpu: bad \"psl\" or \"mem\" in %s\n", jpath);
            return 2;
        }
        have_psl = r == 1;
        free(json);
        free(jpath);
    } else {
        fprintf(stderr, "bench_cpu: no build/workload.bin: run `make -C emu native` first\n");
        return 2;
    }
    if (mem_mb == 0) mem_mb = json_mem ? json_mem : 8;

    vax_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_bytes = mem_mb * 1024u * 1024u;
    vax_machine *m = vax_create(&cfg);
    if (!m) {
        fprintf(stderr, "bench_cpu: cannot create machine\n");
        return 2;
    }
    int rc = vax_phys_write(m, load, image, image_len);
    if (rc != 0) {
        fprintf(stderr, "bench_cpu: workload does not fit in %" PRIu32 " MB\n", mem_mb);
        return 2;
    }
    free(image);
    vax_set_reg(m, 15, pc);
    if (have_psl) vax_set_psl(m, psl);
    if (profile && vax_profile_start(m) != 0) {
        fprintf(stderr, "bench_cpu: cannot start the profiler\n");
        return 2;
    }

    uint64_t start_count = vax_instruction_count(m);
    uint64_t done = 0;
    vax_stop_reason r = VAX_STOP_BUDGET;
    double t0 = now_seconds();
    while (done < total) {
        uint64_t n = total - done < slice ? total - done : slice;
        r = vax_run(m, n);
        done = vax_instruction_count(m) - start_count;
        if (r != VAX_STOP_BUDGET) break;
    }
    double secs = now_seconds() - t0;

    if (r != VAX_STOP_BUDGET) {
        const char *d = vax_stop_detail(m);
        fprintf(stderr, "bench_cpu: warning: stopped early (%s: %s) after %" PRIu64 " instructions\n",
                vax_stop_reason_name(r), d ? d : "", done);
    }
    double rate = secs > 0 ? (double)done / secs : 0.0;
    printf("native: %.0f VAX instructions/s\n", rate);
    printf("native: %" PRIu64 " instructions in %.3f s\n", done, secs);
    if (profile) {
        size_t plen;
        char *pj = vax_profile_json(m, &plen);
        FILE *pf = pj ? fopen(profile, "w") : NULL;
        if (!pf || fwrite(pj, 1, plen, pf) != plen || fclose(pf) != 0) {
            fprintf(stderr, "bench_cpu: cannot write the profile to %s\n", profile);
            return 2;
        }
        free(pj);
    }
    vax_destroy(m);
    return r == VAX_STOP_BUDGET ? 0 : 1;
}
