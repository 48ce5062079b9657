/*
 * rp.h — MASSBUS moving-head disk drives (RP04/05/06/07, RM03/05/80) as
 * 4.3BSD's hp driver (sys/vaxmba/hp.c, stand/hp.c) sees them: sixteen
 * 16-bit drive registers behind a MASSBUS adapter, positioning commands
 * that end with ATTENTION, data transfers run through the adapter's map.
 *
 * A drive belongs to one MBA (mba.c), which owns the rp_drive structs and
 * hands register accesses for drive slot 0..7 to rp_read_reg/rp_write_reg.
 * Data moves between the pack (a vax_blockdev) and memory through the
 * adapter's DMA helpers (mba.h, "for the drives").
 *
 * Everything is timed in virtual time (machine_time_ns); see rp.c for the
 * timing model.
 */
#ifndef VAX_MASSBUS_RP_H
#define VAX_MASSBUS_RP_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "storage/blockdev.h"

typedef struct mba mba;

/* ---- MASSBUS disk register numbers (register n is at 0x400 + unit*0x80 + 4n) ----
 * Names as in hpreg.h (RM terminology for 12/13). */
enum {
    RP_CS1 = 0,   /* control/status 1: function, GO, DVA */
    RP_DS = 1,    /* drive status */
    RP_ER1 = 2,   /* error register 1 */
    RP_MR1 = 3,   /* maintenance */
    RP_AS = 4,    /* attention summary (one bit per drive, shared) */
    RP_DA = 5,    /* desired track (bits 12:8) / sector (bits 5:0) */
    RP_DT = 6,    /* drive type */
    RP_LA = 7,    /* look-ahead: sector under the heads in bits 11:6 */
    RP_SN = 8,    /* serial number */
    RP_OF = 9,    /* offset */
    RP_DC = 10,   /* desired cylinder */
    RP_CC = 11,   /* current cylinder (RP) / holding register (RM) */
    RP_ER2 = 12,  /* RP: error register 2; RM: maintenance 2 */
    RP_ER3 = 13,  /* RP: error register 3; RM: error register 2 (hper2) */
    RP_EC1 = 14,  /* ECC position */
    RP_EC2 = 15,  /* ECC pattern */
    RP_NREGS = 16
};

/* CS1 */
#define RPCS1_GO 0x0001u
#define RPCS1_FUNC 0x003Eu   /* function code incl. GO position: bits 5:1 */
#define RPCS1_DVA 0x0800u    /* drive available (single-ported: always) */

/* Function codes, written with GO (values as in hpreg.h, GO bit clear). */
enum {
    RPF_NOP = 000, RPF_UNLOAD = 002, RPF_SEEK = 004, RPF_RECAL = 006, RPF_DCLR = 010,
    RPF_RELEASE = 012, RPF_OFFSET = 014, RPF_RTC = 016, RPF_PRESET = 020, RPF_PACK = 022,
    RPF_SEARCH = 030, RPF_DIAGNOSE = 034, RPF_WCDATA = 050, RPF_WCHDR = 052, RPF_WRITE = 060,
    RPF_WHDR = 062, RPF_WTRACKD = 064, RPF_READ = 070, RPF_RHDR = 072, RPF_RTRACKD = 074
};

/* DS */
#define RPDS_ATA 0x8000u
#define RPDS_ERR 0x4000u
#define RPDS_PIP 0x2000u
#define RPDS_MOL 0x1000u
#define RPDS_WRL 0x0800u
#define RPDS_LST 0x0400u
#define RPDS_PGM 0x0200u
#define RPDS_DPR 0x0100u
#define RPDS_DRY 0x0080u
#define RPDS_VV 0x0040u
#define RPDS_OM 0x0001u

/* ER1 */
#define RPER1_DCK 0x8000u
#define RPER1_UNS 0x4000u
#define RPER1_OPI 0x2000u
#define RPER1_DTE 0x1000u
#define RPER1_WLE 0x0800u
#define RPER1_IAE 0x0400u
#define RPER1_AOE 0x0200u
#define RPER1_HCRC 0x0100u
#define RPER1_HCE 0x0080u
#define RPER1_ECH 0x0040u
#define RPER1_WCF 0x0020u
#define RPER1_FER 0x0010u
#define RPER1_PAR 0x0008u
#define RPER1_RMR 0x0004u
#define RPER1_ILR 0x0002u
#define RPER1_ILF 0x0001u

/* OF */
#define RPOF_FMT22 0x1000u
#define RPOF_OFFSET_MASK 0x00FFu

/* Drive type register: moving head (0x2000) | MASSBUS type code. */
#define RPDT_MOH 0x2000u

/* How fast the mechanism behind a drive's registers is: its rotation, seek
 * curve and data rate, and the layout those apply to.  Every drive type
 * has its own (rp_type.timing); a named profile (rp_timing_find) replaces
 * it while the registers, geometry and pack stay the type's: the pack's
 * blocks, in order, are laid along the profile's own tracks and cylinders
 * (see rp.c, "Timing profiles"). */
typedef struct rp_timing {
    const char *name;            /* profile name ("rp06", "eagle", "ideal"), or the type's */
    int nsect, ntrak, ncyl;      /* the mechanism's layout in 512-byte sectors; ncyl 0: any size */
    uint32_t rev_ns;             /* one revolution */
    uint32_t seek_min_ns;        /* one-cylinder seek */
    uint32_t seek_avg_ns;        /* seek over a third of the cylinders */
    uint32_t seek_max_ns;        /* full-stroke seek */
    uint32_t data_ns;            /* a sector's data field passing the heads (the peak
                                  * transfer rate); 0: the whole sector slot */
    int no_latency;              /* not a real drive: no seek, no rotational wait */
} rp_timing;

/* A drive type: geometry (as 4.3BSD's hpst[] table has it) and its own
 * mechanical figures. */
typedef struct rp_type {
    const char *name;
    uint16_t dt;                 /* drive type register value */
    int nsect, ntrak, ncyl;      /* 512-byte sectors */
    rp_timing timing;            /* its own timing (layout = the geometry above) */
} rp_type;

/* The known types, looked up by name (case-insensitive); NULL if none. */
const rp_type *rp_type_find(const char *name);
/* Bytes in a pack of this type. */
uint64_t rp_type_bytes(const rp_type *t);

/* The timing profiles, by name (case-insensitive): "rp06" (DEC RP06, the
 * lab's drive as it always was), "eagle" (Fujitsu M2351A Eagle), "ideal"
 * (not a real drive: transfer time only).  NULL if none. */
const rp_timing *rp_timing_find(const char *name);
/* Their names, space-separated ("rp06 eagle ideal"), for messages. */
const char *rp_timing_names(void);

/* What a drive is doing. */
typedef enum {
    RP_IDLE = 0,
    RP_BUSY_POSITION,   /* seek, search, recalibrate, offset, return to centerline, unload */
    RP_BUSY_TRANSFER    /* read, write, write check (the MBA is busy too) */
} rp_state;

typedef struct rp_drive {
    mba *mba;
    vax_machine *m;
    int unit;                    /* MASSBUS drive number 0..7 */
    const rp_type *type;         /* NULL: no drive in this slot */
    const rp_timing *tm;         /* its timing: &type->timing or a profile */
    vax_blockdev *bd;

    /* Registers that hold what was written (16 bits each). */
    uint16_t func;               /* CS1 function bits (5:1) */
    uint16_t er1, mr1, da, of, dc, er2, er3;
    uint16_t serial;
    int cyl;                     /* where the heads are (the type's cylinders: CC) */
    int arm;                     /* where the heads are on the timing's layout (tm->ncyl) */
    int ata, vv, lst, om;

    /* The command in progress. */
    rp_state state;
    int op;                      /* function code of the command in progress */
    vax_event ev;
    uint64_t op_start_ns;        /* when it was issued */
    uint64_t pip_end_ns;         /* positioning (PIP) ends at this time */
    int target_cyl;              /* where a positioning command leaves the heads */
    int target_arm;              /* the same on the timing's layout */

    int fast;                    /* complete everything after RP_FAST_NS */
    uint32_t spin_seed;          /* 0: the platter turns in step with virtual time; else
                                  * the seed of each command's phase (rp_set_spin_seed) */
    uint32_t spin_state;         /* the phases' pseudo-random sequence */
    uint64_t spin_offset_ns;     /* the phase of the command in progress */
    uint64_t spin_touch_ns;      /* the last command's start or end: within a revolution of
                                  * it a new command keeps the phase (new_spin_phase) */

    /* iostat-like counters (mba.h, mba_disk_stats) */
    uint64_t st_transfers, st_sectors, st_seeks, st_busy_ns;
    uint64_t st_reads, st_writes, st_bytes_read, st_bytes_written, st_cylinders;
} rp_drive;

/* Delay of every timed operation in fast mode. */
#define RP_FAST_NS 10000u

/* Put a drive of type ("RP04", "RP05", "RP06", "RP07", "RM03", "RM05",
 * "RM80") with pack bd in slot unit (0..7) of MBA a; the adapter owns the
 * drive from then on (mba_connect) and knows it only through its
 * operations.  The pack must have the type's size (up to one cylinder
 * short).  Returns 0, or -1 with a message in err (unknown type, wrong
 * size, the slot taken). */
int rp_attach(mba *a, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen);

/* Time the drive with a profile (rp_timing_find's names), or with its own
 * figures (profile NULL or "").  Only while the drive is idle; refused when
 * the pack does not fit on the profile's layout.  Returns 0, or -1 with a
 * message in err. */
int rp_set_timing(rp_drive *d, const char *profile, char *err, size_t errlen);

/* Where the platter is when a command arrives.  With seed 0 (the
 * default) the angle is virtual time modulo the revolution, as the
 * mechanics say, and a loop that waits for the disk, computes, then asks
 * again locks onto the rotation: each exec of Table 2, say, makes the same
 * requests after the same computing, so each waits the same part of a
 * turn, set by that computing time modulo a revolution — a few per cent
 * more or less CPU time can change a wait by a whole turn (16.7 ms), the
 * same for every iteration, and the starting phase does not change it (the
 * first request sets the phase of all that follow).  A real spindle is not
 * locked to the processor's clock (an AC motor's speed follows the line
 * and its load; interrupts and the caches jitter the computing), so over a
 * run the phase at each request wanders.  With a seed N > 0, every command
 * that finds the drive left alone for a revolution or more sees the platter
 * at a pseudo-random angle (a per-drive sequence from N), uniform over the
 * revolution: the waits average what a drifting phase would give, and a
 * few seeds show the spread.  A command that follows the drive's last
 * command within a revolution (a transfer after its SEARCH, the next
 * request queued behind a transfer) keeps the phase.  Only while idle. */
int rp_set_spin_seed(rp_drive *d, uint32_t seed, char *err, size_t errlen);

/* Register access (reg 0..31).  Reads of a register the drive does not
 * have set ILR. rp_read_reg does not handle AS (the MBA answers it). */
uint16_t rp_read_reg(rp_drive *d, int reg);
void rp_write_reg(rp_drive *d, int reg, uint16_t value);

/* MASSBUS INIT (from the adapter's INIT): stop whatever the drive is
 * doing, clear its errors and attention. */
void rp_massbus_init(rp_drive *d);

/* The adapter's ABORT: a data transfer in progress stops, nothing moved. */
void rp_abort_transfer(rp_drive *d);

/* Clear this drive's attention (a 1 written to its AS bit). */
void rp_clear_attention(rp_drive *d);

/* The drive status register as it reads now. */
uint16_t rp_status(const rp_drive *d);

#endif
