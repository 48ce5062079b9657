/*
 * vax780_stats.c — the flat, named array of all counters (vax780_stats.h).
 *
 * One table (the X-macros below) gives each counter its name and where its
 * value comes from, so the names string and the array cannot drift apart;
 * the names are put together by the preprocessor into one constant string.
 */
#include "system/vax780_stats.h"

#include <string.h>

#include "stats.h"

/* Where the values are gathered before they are copied out. */
typedef struct {
    vax_stats c;
    mba_disk_stats d[VAX780_MAX_DISKS];
    vax780_io_stats io;
} gathered;

#define SCALARS(X)                                      \
    X("instr.total", g->c.instructions)                 \
    X("instr.kernel", g->c.instr_mode[VAX_STATS_KERNEL]) \
    X("instr.exec", g->c.instr_mode[VAX_STATS_EXEC])    \
    X("instr.super", g->c.instr_mode[VAX_STATS_SUPER])  \
    X("instr.user", g->c.instr_mode[VAX_STATS_USER])    \
    X("instr.interrupt", g->c.instr_mode[VAX_STATS_INTERRUPT]) \
    X("instr.idle", g->c.instr_idle)                    \
    X("ns.total", g->c.ns_total)                        \
    X("ns.kernel", g->c.ns_mode[VAX_STATS_KERNEL])      \
    X("ns.exec", g->c.ns_mode[VAX_STATS_EXEC])          \
    X("ns.super", g->c.ns_mode[VAX_STATS_SUPER])        \
    X("ns.user", g->c.ns_mode[VAX_STATS_USER])          \
    X("ns.interrupt", g->c.ns_mode[VAX_STATS_INTERRUPT]) \
    X("ns.idle", g->c.ns_idle)                          \
    X("idle.skips", g->c.idle_skips)                    \
    X("chmk.total", g->c.chmk)                          \
    X("chme.total", g->c.chme)                          \
    X("chms.total", g->c.chms)                          \
    X("chmu.total", g->c.chmu)                          \
    X("chmk.other", g->c.chmk_other)                    \
    X("intr.hw", g->c.intr_hw)                          \
    X("intr.soft", g->c.intr_soft)                      \
    X("fault.tnv.process", g->c.tnv_process)            \
    X("fault.tnv.system", g->c.tnv_system)              \
    X("fault.acv", g->c.acv)                            \
    X("fault.other", g->c.exc_other)                    \
    X("mchk", g->c.mchk)                                \
    X("ctx.ldpctx", g->c.ldpctx)                        \
    X("ctx.svpctx", g->c.svpctx)                        \
    X("ctx.rei", g->c.rei)                              \
    X("tb.miss", g->c.tb_miss)                          \
    X("tb.tbia", g->c.tbia)                             \
    X("tb.tbis", g->c.tbis)                             \
    X("cache.misses", s->m->cache.misses)               \
    X("io.reads", g->c.io_read)                         \
    X("io.writes", g->c.io_write)                       \
    X("console.in", g->io.console_in)                   \
    X("console.out", g->io.console_out)                 \
    X("dz.in", g->io.dz_in)                             \
    X("dz.out", g->io.dz_out)                           \
    X("ts.records_read", g->io.ts_records_read)         \
    X("ts.records_written", g->io.ts_records_written)   \
    DISK(X, 0) DISK(X, 1) DISK(X, 2) DISK(X, 3) DISK(X, 4) DISK(X, 5) DISK(X, 6) DISK(X, 7)

#define DISK(X, n)                                          \
    X("disk.hp" #n ".xfers", g->d[n].transfers)             \
    X("disk.hp" #n ".reads", g->d[n].reads)                 \
    X("disk.hp" #n ".writes", g->d[n].writes)               \
    X("disk.hp" #n ".bytes_read", g->d[n].bytes_read)       \
    X("disk.hp" #n ".bytes_written", g->d[n].bytes_written) \
    X("disk.hp" #n ".sectors", g->d[n].sectors)             \
    X("disk.hp" #n ".seeks", g->d[n].seeks)                 \
    X("disk.hp" #n ".cylinders", g->d[n].cylinders)         \
    X("disk.hp" #n ".busy_ns", g->d[n].busy_ns)

/* ",chmk.0,chmk.1,...,chmk.255" */
#define D10(p) "," p "0," p "1," p "2," p "3," p "4," p "5," p "6," p "7," p "8," p "9"
#define CHMK_NAMES                                                                               \
    D10("chmk.") D10("chmk.1") D10("chmk.2") D10("chmk.3") D10("chmk.4") D10("chmk.5")            \
    D10("chmk.6") D10("chmk.7") D10("chmk.8") D10("chmk.9") D10("chmk.10") D10("chmk.11")         \
    D10("chmk.12") D10("chmk.13") D10("chmk.14") D10("chmk.15") D10("chmk.16") D10("chmk.17")     \
    D10("chmk.18") D10("chmk.19") D10("chmk.20") D10("chmk.21") D10("chmk.22") D10("chmk.23")     \
    D10("chmk.24") ",chmk.250,chmk.251,chmk.252,chmk.253,chmk.254,chmk.255"

/* ",intr.vec.0x000,intr.vec.0x004,...,intr.vec.0x3fc" */
#define V4(p) "," p "0," p "4," p "8," p "c"
#define V64(p)                                                                                    \
    V4(p "0") V4(p "1") V4(p "2") V4(p "3") V4(p "4") V4(p "5") V4(p "6") V4(p "7") V4(p "8")     \
    V4(p "9") V4(p "a") V4(p "b") V4(p "c") V4(p "d") V4(p "e") V4(p "f")
#define VEC_NAMES V64("intr.vec.0x0") V64("intr.vec.0x1") V64("intr.vec.0x2") V64("intr.vec.0x3")

#define NAME(name, value) "," name
#define ONE(name, value) +1
#define STORE(name, value) all[i++] = (value);

enum { NSCALARS = 0 SCALARS(ONE), NCOUNTERS = NSCALARS + VAX_STATS_NCHMK + VAX_STATS_NVEC };

size_t vax780_stats_count(void) { return NCOUNTERS; }

const char *vax780_stats_names(void)
{
    /* Every name is preceded by a comma; skip the first. */
    return (SCALARS(NAME) CHMK_NAMES VEC_NAMES) + 1;
}

size_t vax780_stats_flat(const vax780 *s, uint64_t *out, size_t max)
{
    gathered gs, *g = &gs;
    memset(g, 0, sizeof *g);
    vax_stats_get(s->m, &g->c);
    for (int u = 0; u < VAX780_MAX_DISKS; u++)
        if (vax780_disk_stats(s, u, &g->d[u]) != 0)
            memset(&g->d[u], 0, sizeof g->d[u]);
    vax780_io_stats_get(s, &g->io);

    uint64_t all[NCOUNTERS];
    size_t i = 0;
    SCALARS(STORE)
    for (int c = 0; c < VAX_STATS_NCHMK; c++)
        all[i++] = g->c.chmk_code[c];
    for (int v = 0; v < VAX_STATS_NVEC; v++)
        all[i++] = g->c.intr_vec[v];
    size_t n = max < NCOUNTERS ? max : NCOUNTERS;
    if (n)
        memcpy(out, all, n * sizeof all[0]);
    return NCOUNTERS;
}
