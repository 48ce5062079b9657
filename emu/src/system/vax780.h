/*
 * vax780.h — a whole VAX-11/780 system: processor and memory (vax.h), the
 * SBI with its memory controller, MASSBUS and UNIBUS adapters, the console
 * terminal and clocks, and the peripherals 4.3BSD's GENERIC kernel expects:
 * RP06-class disks on MBA0 (and MBA1), a DZ11 and a TS11 on UBA0.
 *
 * Only what exists answers: the kernel probes every configured controller,
 * and a nexus that answers for an absent device would send it into
 * machine checks.
 */
#ifndef VAX_VAX780_H
#define VAX_VAX780_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "massbus/mba.h"
#include "unibus/uda50.h"
#include "storage/blockdev.h"
#include "system/clock.h"
#include "system/console.h"

struct mba;
struct uba;
struct dz11;
struct ts11;
struct uda50;

#define VAX780_MAX_DISKS 8   /* hp0-hp3 on MBA0 (TR 8), hp4-hp7 on MBA1 (TR 9) */
#define VAX780_MAX_RA 4      /* ra0-ra3: units 0-3 of the UDA50 (UBA0, 772150) */

typedef struct {
    uint32_t memory_kb;        /* physical memory in KB: a multiple of 256 (an MS780-C
                                * array of 16K chips) from 256 to 65536; 0 = 8192 (8 MB).
                                * 4.3BSD sizes memory by probing pages, so any such size
                                * boots the kernel (given room for it) */
    int cpu_model;               /* the processor modelled (cpu/timing.h): 780 (0 = the
                                  * default) or 750, each with its own cycle, cache and TB */
    uint32_t ns_per_instruction; /* scales the cost model by ns/2000: 0 or 2000 as it is;
                                  * 3333 on the 780 model is the old "750 = 0.6 x 780" preset */
    int flat_timing;             /* the first, flat model: every instruction 2000 ns (scaled) */
    uint32_t todr_initial;     /* TODR at power-on (default: 1 July; see clock_todr_for_unix_time) */
    struct {
        const char *type;      /* "RP06", "RM03", ... ; NULL = no drive */
        vax_blockdev *image;
    } disk[VAX780_MAX_DISKS];
    const char *disk_timing;   /* every disk's timing profile: "rp06", "eagle", "ideal"
                                  (massbus/rp.c); NULL: each drive type's own figures,
                                  which for the lab's RP06 is "rp06".  Timing only: the
                                  geometry and the pack stay the drive type's */
    struct {
        const char *type;      /* "RA81", "RA60", "RA80", "RA82"; NULL = no drive */
        vax_blockdev *image;   /* exactly the type's size (unibus/uda50.h) */
    } ra[VAX780_MAX_RA];       /* with any of these, a UDA50 at 772150 (else none:
                                  only what exists answers the kernel's probes) */
    uint32_t disk_spin_seed;   /* 0: the disks turn in step with virtual time (the default);
                                  N: each command finds the platter at a pseudo-random angle
                                  from seed N (massbus/rp.h, rp_set_spin_seed), and each
                                  interval-clock interrupt comes a pseudo-random delay after
                                  its overflow (system/clock.h, clock_set_sample_seed) */
    vax_blockdev *tape;        /* TS11 image (SIMH .tap), or NULL */
    int no_idle_skip;          /* run idle loops instruction by instruction
                                  (default: skip them, see vax_set_idle_skip) */
} vax780_config;

typedef struct vax780 {
    vax_machine *m;
    vax_console console;
    vax_clock clock;
    uint32_t memctl[8];        /* MS780 registers A, B, C ... */
    struct mba *mba0, *mba1;
    struct uba *uba0;
    struct dz11 *dz;
    struct ts11 *ts;
    struct uda50 *uda;         /* NULL unless an RA drive was configured */
    int reboot_requested;      /* the kernel asked the console to reboot */
} vax780;

/* Build the system; NULL with a message in err on failure (bad memory
 * size, a disk image whose size does not fit its drive type...). */
vax780 *vax780_create(const vax780_config *cfg, char *err, size_t errlen);
void vax780_destroy(vax780 *s);

/* Time every disk with a timing profile (vax780_config.disk_timing; NULL
 * or "": each drive type's own figures).  Before the disks are used (the
 * wasm glue allows it only before the first instruction).  Returns 0, or -1
 * with a message in err. */
int vax780_set_disk_timing(vax780 *s, const char *profile, char *err, size_t errlen);

/* Attach one more MASSBUS drive after the system is built: unit N is hpN
 * (0..3 on MBA0, 4..7 on MBA1), of type ("RP06", ...) with pack bd, timed
 * by its type's own figures (set a profile and a spin seed afterwards, as
 * for every drive).  Before the first instruction.  Returns 0, or -1 with
 * a message in err (the slot taken, a bad unit, the pack's size). */
int vax780_attach_disk(vax780 *s, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen);

/* Every disk's spin seed and the interval clock's sample seed
 * (vax780_config.disk_spin_seed).  Before the disks are used.  Returns 0, or -1 with a message in err. */
int vax780_set_disk_spin_seed(vax780 *s, uint32_t seed, char *err, size_t errlen);

/* Every disk's platter back in step with virtual time (spin seed 0), the
 * clock's sample seed left as vax780_set_disk_spin_seed drew it: a loop
 * that waits for a disk then locks onto its rotation, as a real one does
 * (emu/docs/timing.md, "Whole turns"), while the statistical clock still
 * samples the work at drawn phases.  Before the disks are used.  Returns
 * 0, or -1 with a message in err. */
int vax780_lock_disk_spin(vax780 *s, char *err, size_t errlen);

/* Console INIT: processor and adapters reset, memory kept. */
void vax780_init(vax780 *s);

/* Disk statistics of drive hpN (0..7), iostat-like (mba.h,
 * mba_disk_stats).  0, or -1 if there is no such drive. */
int vax780_disk_stats(const vax780 *s, int unit, mba_disk_stats *out);

/* Counters of RA drive raN (0..3), unibus/uda50.h.  0, or -1 if there is
 * no such drive. */
int vax780_ra_stats(const vax780 *s, int unit, uda50_disk_stats *out);

/* Character and record counts of the other devices. */
typedef struct {
    uint64_t console_in, console_out;    /* console terminal */
    uint64_t dz_in, dz_out;              /* DZ11, all lines */
    uint64_t ts_records_read, ts_records_written;   /* TS11 */
} vax780_io_stats;
void vax780_io_stats_get(const vax780 *s, vax780_io_stats *out);

/* The whole system's state in a snapshot (snapshot/snap.h): the machine,
 * the memory controller, console and clocks, the adapters and every
 * device, in that order.  The disks' bytes are the session's business
 * (system/session.c). */
struct vax_snap;
void vax780_snap(vax780 *s, struct vax_snap *snap);

/* Console terminal: where its output goes; typed input. */
void vax780_set_console_output(vax780 *s, void (*out)(void *ctx, uint8_t ch), void *ctx);
uint32_t vax780_console_type(vax780 *s, const char *text, uint32_t len);

#endif
