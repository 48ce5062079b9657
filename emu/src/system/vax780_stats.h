/*
 * vax780_stats.h — every counter of the 780 system model (processor,
 * stats.h; disks; console, DZ11, TS11) as one flat array of uint64 with a
 * stable name for each entry, for hosts that only want to copy numbers:
 * the WebAssembly glue (vax780w_stats) and the CLI's --stats.
 *
 * The names, in array order (comma-separated in vax780_stats_names()):
 *   instr.total instr.kernel instr.exec instr.super instr.user
 *   instr.interrupt instr.idle          instructions by mode (stats.h)
 *   ns.total ns.kernel ... ns.idle      virtual ns, split the same way
 *   idle.skips                          times idle skipping advanced
 *   chmk.total chme.total chms.total chmu.total chmk.other
 *   intr.hw intr.soft
 *   fault.tnv.process fault.tnv.system fault.acv fault.other mchk
 *   ctx.ldpctx ctx.svpctx ctx.rei
 *   tb.miss tb.tbia tb.tbis
 *   console.in console.out dz.in dz.out ts.records_read ts.records_written
 *   disk.hpN.xfers .reads .writes .bytes_read .bytes_written .sectors
 *     .seeks .cylinders .busy_ns        for N = 0..7 (zeros if no drive)
 *   chmk.0 ... chmk.255                 CHMKs by code (system call)
 *   intr.vec.0x000 ... intr.vec.0x3fc   interrupts by SCB offset; UNIBUS
 *                                       device vectors at 0x200 + vector
 * The order is the table's in vax780_stats.c; readers should go by name,
 * not by position, as counters may be added.
 */
#ifndef VAX_VAX780_STATS_H
#define VAX_VAX780_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "system/vax780.h"

/* Number of counters in the flat array. */
size_t vax780_stats_count(void);

/* The names, comma-separated, in array order (a constant string). */
const char *vax780_stats_names(void);

/* Write the first min(max, count) counters to out; returns the count. */
size_t vax780_stats_flat(const vax780 *s, uint64_t *out, size_t max);

#endif
