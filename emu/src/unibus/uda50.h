/*
 * uda50.h — the UDA50 disk controller (an MSCP server behind a UQSSP port)
 * on the UNIBUS, with up to four RA-series drives (RA60, RA80, RA81, RA82)
 * whose packs are vax_blockdev images of 512-byte logical blocks.
 *
 * The port (DEC, "UNIBUS/Q-bus Storage Systems Port Definition"; "UDA50
 * User's Guide" EK-UDA50-UG):
 *   CSR+0  IP  read: the host asks the port to poll its command ring;
 *              write (any value): hard initialisation of the port.
 *   CSR+2  SA  status and address: the four-step initialisation
 *              handshake, then 0 while running, or ERR | a fatal code.
 *   Initialisation (each step shown in SA, SA written by the host):
 *     step 1  SA reads S1 (004000) | DI.  Host writes 1, WR, command ring
 *             length (log2, bits 13:11), response ring length (10:8), IE,
 *             vector / 4 (6:0).
 *     step 2  SA reads S2 | the high byte of that write.  Host writes the
 *             ring base's bits 15:1 and PI (purge interrupts, bit 0).
 *     step 3  SA reads S3 | the low byte of the step-1 write.  Host writes
 *             the ring base's high bits (17:16 on the UNIBUS); the port
 *             clears the communications area.
 *     step 4  SA reads S4 | model << 4 | microcode version.  Host writes
 *             GO (bit 0), LF (bit 1), burst - 1 (bits 7:2).  SA reads 0.
 *   With IE set the port interrupts (BR5, the host's vector) as it enters
 *   steps 2, 3 and 4, and afterwards on ring transitions.
 *   The communications area, at the ring base (UNIBUS address):
 *     base - 4  word: command ring transition indicator (the port writes 1)
 *     base - 2  word: response ring transition indicator
 *     base      response ring descriptors, then the command ring's
 *   A descriptor is a longword: OWN (bit 31: the port owns it), FLAG (bit
 *   30: interrupt on a transition), the UNIBUS address of a message text
 *   (bits 17:0); its envelope (mscp.h) is the 4 bytes before the text.
 *   A command ring transition is the ring going from full to not full, a
 *   response ring transition from empty to not empty.
 *
 * MSCP (mscp.h): SET CONTROLLER CHARACTERISTICS, GET UNIT STATUS (with
 * "next unit"), ONLINE, SET UNIT CHARACTERISTICS, AVAILABLE, DETERMINE
 * ACCESS PATHS, READ, WRITE, COMPARE HOST DATA, ACCESS, ERASE, FLUSH,
 * REPLACE, COMPARE CONTROLLER DATA, GET COMMAND STATUS, ABORT; anything
 * else is an invalid command.  Errors are end message statuses: unit
 * offline (no such unit), unit available (not online), invalid command
 * with the offending field's offset (a block range outside the unit, a
 * short message), write protected, host buffer access error (the UBA map
 * refused the buffer: non-existent memory), compare error.  Host memory
 * that cannot be reached for a descriptor, a command or a response is a
 * fatal port error instead: SA = ERR | code (see uda50.c), until the host
 * initialises the port again.  Nothing the guest writes can make the host
 * read or write outside the images and guest memory.
 *
 * Not modelled: purge requests (the UBA's buffered data paths always read
 * empty, so there is nothing to purge; PI is accepted and ignored), error
 * log datagrams and attention messages (no error ever happens on the
 * media), the diagnostic and utility protocol (DUP), bad block
 * replacement (no block is ever bad), 576-byte sectors, dual porting.
 *
 * Lifetime: created on a UBA, freed by uba_destroy().
 */
#ifndef VAX_UNIBUS_UDA50_H
#define VAX_UNIBUS_UDA50_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"
#include "unibus/uba.h"

typedef struct uda50 uda50;

#define UDA50_UNITS 4          /* drive unit numbers 0..3 */
#define UDA50_CSR 0772150u     /* the usual (first) address */
#define UDA50_BR 5             /* interrupt request level */

/* An RA drive type: what the host sees and how fast its mechanism is.
 * The figures and their sources are in uda50.c. */
typedef struct ra_type {
    const char *name;          /* "RA81" */
    uint8_t model;             /* MSCP unit model number */
    uint8_t number;            /* media type number (81 for DU RA81) */
    uint32_t lbns;             /* host-visible logical blocks */
    uint16_t lbn_per_track;    /* LBNs in a track (GET UNIT STATUS track size) */
    uint16_t tracks;           /* tracks per cylinder (group size) */
    uint16_t rct_size;         /* RCT blocks, copies, replacement blocks per track */
    uint8_t rct_copies, rbns;
    /* The mechanism: a track passes lbn_per_track + rbns sector slots a
     * revolution; seeks over d cylinders cost from seek_min_ns (d = 1)
     * through seek_avg_ns (a third of the cylinders) to seek_max_ns. */
    uint32_t cylinders;        /* physical cylinders (for the seek curve) */
    uint32_t rev_ns;
    uint32_t seek_min_ns, seek_avg_ns, seek_max_ns;
    uint32_t data_ns;          /* a sector's 512 bytes at the peak transfer rate */
} ra_type;

/* A type by name (case-insensitive), or NULL; the names for messages. */
const ra_type *ra_type_find(const char *name);
const char *ra_type_names(void);
/* Bytes of a pack of this type. */
uint64_t ra_type_bytes(const ra_type *t);

/* A UDA50 at UNIBUS address csr, not initialised, with no drives.  NULL if
 * the address is taken or memory runs out.  Freed by uba_destroy. */
uda50 *uda50_create(uba *u, uint32_t csr);

/* Put a drive of type `type` ("RA81"...) with pack bd (bd->size must be
 * the type's bytes; the caller keeps bd alive) at unit 0..3.  The drive is
 * spun up and available.  Returns 0, or -1 with a message in err. */
int uda50_attach(uda50 *d, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen);

/* Per-drive counters, iostat-like. */
typedef struct {
    uint64_t commands;         /* MSCP commands for this unit */
    uint64_t transfers, reads, writes;   /* READ / WRITE commands completed */
    uint64_t bytes_read, bytes_written;
    uint64_t seeks, cylinders; /* arm movements and the cylinders they crossed */
    uint64_t busy_ns;          /* virtual time the drive spent on transfers */
} uda50_disk_stats;

/* 0 and the counters of unit (0..3), or -1 if there is no drive there. */
int uda50_disk_stats_get(const uda50 *d, int unit, uda50_disk_stats *out);

/* The port's state for tests and messages: SA as the host reads it, and
 * whether the port is running (initialised, GO given). */
uint16_t uda50_sa(const uda50 *d);
int uda50_running(const uda50 *d);

/* The port, its commands in progress and waiting end messages, and the
 * drives' state in a snapshot (snapshot/snap.h); the packs' bytes are their
 * block devices' business (system/overlay.h). */
struct vax_snap;
void uda50_snap(uda50 *d, struct vax_snap *s);

#endif
