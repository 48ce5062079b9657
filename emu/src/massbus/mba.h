/*
 * mba.h — the VAX-11/780 MASSBUS adapter (RH780, "MBA") and its disks.
 *
 * One MBA is one SBI nexus: 8 KB of registers at sbi_nexus_address(tr):
 *   0x000 CSR  configuration/status (adapter code NEX_MBA in the low byte)
 *   0x004 CR   control: INIT (1), ABORT (2), IE (4), MM (8)
 *   0x008 SR   status: DTBUSY, error bits (write 1 to clear), ATTN, DTCMP ...
 *   0x00C VAR  virtual address of the transfer (17 bits: map index + offset)
 *   0x010 BCR  byte count, written negative, counts up to 0
 *   0x014 DR   diagnostic register
 *   0x018 SMR  selected map register (the map entry VAR points at; read-only)
 *   0x01C CAR  command/address: the physical address VAR maps to (read-only)
 *   0x400 + unit*0x80 + 4*n   MASSBUS register n of drive unit (0..7)
 *   0x800 + 4*i               map register i (0..255): bit 31 valid, PFN in 20:0
 * Interrupts at IPL 0x15 through SCB vector sbi_vector(tr, 0x15) when CR.IE
 * is set: at the end of every data transfer, and when a drive raises
 * ATTENTION while no data transfer is in progress.
 *
 * The specification followed is what 4.3BSD's drivers do (sys/vaxmba/mba.c,
 * hp.c, sys/vax/autoconf.c mbafind, stand/mba.c and stand/hp.c).
 */
#ifndef VAX_MASSBUS_MBA_H
#define VAX_MASSBUS_MBA_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "storage/blockdev.h"

typedef struct mba mba;

/* Create MBA number `number` (0..3; it shows in the drives' serial numbers
 * only) in SBI slot tr (0..15): registers its nexus region.  NULL on
 * failure (bad arguments, region table full, no memory). */
mba *mba_create(vax_machine *m, int tr, int number);
/* Cancel its pending events, unregister its region, free it.  The disk
 * images stay the caller's. */
void mba_destroy(mba *a);

/* Statistics for the lab's iostat-like counters (read by the host). */
typedef struct {
    uint64_t transfers, sectors, seeks, busy_ns;
    uint64_t reads, writes, bytes_read, bytes_written, cylinders;
} mba_disk_stats;

/* A drive on the MASSBUS, as the adapter sees it: whatever its type (rp.c
 * implements it for the RP and RM disks), the adapter reads and writes its
 * registers, collects its attention, initialises and aborts it, and passes
 * the host's disk knobs through.  The drive talks back through the
 * mba_xfer_* and mba_attention functions below.  Optional members may be
 * NULL (a drive without the knob). */
struct vax_snap;

typedef struct mba_drive_ops {
    uint16_t (*read_reg)(void *drive, int reg);
    void (*write_reg)(void *drive, int reg, uint16_t value);
    int (*attention)(const void *drive);       /* its bit in the attention summary */
    void (*clear_attention)(void *drive);
    void (*massbus_init)(void *drive);         /* MASSBUS INIT */
    void (*abort_transfer)(void *drive);       /* the adapter's ABORT */
    void (*destroy)(void *drive);              /* cancel its events, free it */
    void (*set_fast)(void *drive, int on);
    int (*set_timing)(void *drive, const char *profile, char *err, size_t errlen);
    int (*set_spin_seed)(void *drive, uint32_t seed, char *err, size_t errlen);
    void (*stats)(const void *drive, mba_disk_stats *out);
    /* Its state in a snapshot (snapshot/snap.h). */
    void (*snap)(void *drive, struct vax_snap *s);
} mba_drive_ops;

/* Put a drive in slot unit (0..7): the adapter owns it from now on and
 * destroys it with itself.  Returns 0, or -1 with a message (no such slot,
 * the slot taken). */
int mba_connect(mba *a, int unit, const mba_drive_ops *ops, void *drive, char *err, size_t errlen);
/* Whether slot unit exists and is free: 0, or -1 with mba_connect's message. */
int mba_slot_free(const mba *a, int unit, char *err, size_t errlen);

/* What a drive needs to know of its adapter. */
vax_machine *mba_machine(const mba *a);
int mba_number(const mba *a);
int mba_fast_timing(const mba *a);

/* Time the drive in slot unit with a timing profile instead of its type's
 * own figures: "rp06", "eagle", "ideal" (rp.h, rp_set_timing; NULL or "":
 * its own again).  The registers, geometry and pack stay the type's.  Only
 * while the drive is idle.  Returns 0, or -1 with a message in err. */
int mba_set_disk_timing(mba *a, int unit, const char *profile, char *err, size_t errlen);
/* The drive's spin seed (rp.h, rp_set_spin_seed). */
int mba_set_disk_spin_seed(mba *a, int unit, uint32_t seed, char *err, size_t errlen);

/* Console INIT (also what the adapter's own CR.INIT does): stop any
 * transfer, clear the adapter's registers and every drive's errors and
 * attention.  Volume valid survives, as the packs stay spun up. */
void mba_reset(mba *a);

/* Fast timing: every seek, search and transfer completes after a tiny
 * fixed delay (RP_FAST_NS) instead of the modelled mechanical time. */
void mba_set_fast_timing(mba *a, int on);

/* 0, or -1 if there is no drive in that slot. */
int mba_disk_stats_get(const mba *a, int unit, mba_disk_stats *out);

/* The adapter's registers, map and transfer in a snapshot, then each
 * drive's (its snap operation; a drive without one cannot be saved). */
void mba_snap(mba *a, struct vax_snap *s);

/* ---- MBA register offsets and bits ---- */
#define MBA_CSR 0x000u
#define MBA_CR 0x004u
#define MBA_SR 0x008u
#define MBA_VAR 0x00Cu
#define MBA_BCR 0x010u
#define MBA_DR 0x014u
#define MBA_SMR 0x018u
#define MBA_CAR 0x01Cu
#define MBA_DRIVE_BASE 0x400u
#define MBA_DRIVE_STRIDE 0x80u
#define MBA_MAP_BASE 0x800u
#define MBA_MAP_ENTRIES 256

#define MBACR_INIT 0x1u
#define MBACR_ABORT 0x2u
#define MBACR_IE 0x4u
#define MBACR_MM 0x8u

#define MBASR_DTBUSY 0x80000000u
#define MBASR_NRCONF 0x40000000u
#define MBASR_CRD 0x20000000u
#define MBASR_CBHUNG 0x00800000u
#define MBASR_PGE 0x00080000u
#define MBASR_NED 0x00040000u
#define MBASR_MCPE 0x00020000u
#define MBASR_ATTN 0x00010000u
#define MBASR_SPE 0x00004000u
#define MBASR_DTCMP 0x00002000u
#define MBASR_DTABT 0x00001000u
#define MBASR_DLT 0x00000800u
#define MBASR_WCKUP 0x00000400u
#define MBASR_WCKLWR 0x00000200u
#define MBASR_MXF 0x00000100u
#define MBASR_MBEXC 0x00000080u
#define MBASR_MDPE 0x00000040u
#define MBASR_MAPPE 0x00000020u
#define MBASR_INVMAP 0x00000010u
#define MBASR_ERRCONF 0x00000008u
#define MBASR_RDS 0x00000004u
#define MBASR_ISTIMO 0x00000002u
#define MBASR_RDTIMO 0x00000001u

#define MBAMAP_VALID 0x80000000u
#define MBAMAP_PFN 0x001FFFFFu

#define MBA_IPL 0x15

/* ---- For the drives (rp.c) only ---- */

/* A drive asks to start a data transfer: 0 if the adapter accepted it
 * (DTBUSY now set), -1 if the adapter is already busy (PGE set). */
int mba_xfer_begin(mba *a, int unit);
/* Bytes the transfer still has to move (from the byte count register). */
uint32_t mba_xfer_remaining(const mba *a);
/* Move bytes through the map, advancing VAR and BCR.  Each returns the
 * number of bytes moved; fewer than asked means the adapter stopped the
 * transfer (invalid map entry, nonexistent memory, write-check mismatch),
 * with the reason in SR. */
uint32_t mba_xfer_to_memory(mba *a, const uint8_t *buf, uint32_t len);
uint32_t mba_xfer_from_memory(mba *a, uint8_t *buf, uint32_t len);
uint32_t mba_xfer_compare(mba *a, const uint8_t *buf, uint32_t len);
/* 1 if the adapter has stopped the transfer on an error of its own. */
int mba_xfer_aborted(const mba *a);
/* End of the transfer: DTCMP (with DTABT|MBEXC if the drive reported an
 * error), DTBUSY clear, interrupt if enabled. */
void mba_xfer_end(mba *a, int drive_exception);
/* A drive raised ATTENTION. */
void mba_attention(mba *a);
/* A drive's attention went away: drop a request that is no longer due. */
void mba_attention_cleared(mba *a);

#endif
