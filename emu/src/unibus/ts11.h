/*
 * ts11.h — the TS11 magnetic tape subsystem (TS04 drive, 1600 bpi PE,
 * 45 ips) on the UNIBUS, reading and writing a SIMH .tap image.
 *
 * Registers (UNIBUS, from the CSR, e.g. 0772520; vaxuba/tsreg.h):
 *   +0 write TSDB: the UNIBUS address of a command packet (bits 15:2, the
 *               packet is longword aligned; bits 1:0 are address bits
 *               17:16); starts the command.  Refused (RMR) while busy.
 *      read  the low 16 bits of the last bus address used.
 *   +2 read  TSSR: SC(15) RMR(12) NXM(11) NBA(10) A17:A16(9:8) SSR(7)
 *               OFL(6) TC(3:1).
 *      write any value: subsystem initialise (NBA sets at once; SSR after
 *               the initialisation time).  The tape does not move.
 *
 * A command packet is four words: command (ACK 15, CVC 14, SWB 12 swap
 * bytes, mode 11:8, IE 7, code 4:0), buffer address low, high (1:0), byte
 * count (the record/file count for position commands is word 1).  After
 * the command the subsystem writes the 7-word message (header, length 10,
 * residual count, XS0..XS3) into the buffer given by "write
 * characteristics" and, if IE, interrupts at its vector, BR5.
 *
 * Commands: 01 read (mode 0 next, 1 previous, 2 reread previous, 3 reread
 * next), 04 write characteristics, 05 write (mode 0, 2 = rewrite), 010
 * position (0 space records forward, 1 reverse, 2 skip tape marks forward,
 * 3 reverse, 4 rewind), 011 format (0 write tape mark, 1 erase, 2 rewrite
 * tape mark), 012 control (0 release message buffer, 1 unload, 2 clean),
 * 013 drive initialise, 017 get status.  Anything else: function reject
 * with ILC.
 *
 * Termination classes used: 0 success; 2 tape status alert (tape mark
 * TMK, short record RLS with the residual count, long record RLL, two tape
 * marks when skipping with ESS LET, end of the image EOT, reverse into BOT
 * RIB); 3 function reject (NEF: offline, reverse at BOT; WLE: write
 * locked; ILC; ILA: bad characteristics); 5 no tape motion error (NXM on
 * the command packet or the data of a write); 6 unrecoverable (a corrupt
 * image — never moves the tape —, a record marked bad in the image, NXM
 * while reading).
 *
 * Timing (virtual time, deterministic; TS04 figures):
 *   command overhead (fetch, decode, message)  100 us
 *   each record or tape mark passed         13.333 ms gap (0.6 in at 45 ips)
 *                                           + 13.889 us per data byte
 *                                             (1600 bpi x 45 ips = 72 KB/s)
 *   rewind / unload                         100 us + 4.167 us per image byte
 *                                             before the position (150 ips)
 *   subsystem initialise                    100 us
 */
#ifndef VAX_UNIBUS_TS11_H
#define VAX_UNIBUS_TS11_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"
#include "unibus/uba.h"

typedef struct ts11 ts11;

#define TS11_CMD_NS 100000ull
#define TS11_GAP_NS 13333333ull
#define TS11_BYTE_NS 13889ull
#define TS11_REWIND_BYTE_NS 4167ull
#define TS11_INIT_NS 100000ull

/* A TS11 at UNIBUS address csr with the given vector (BR5); no tape
 * mounted (offline).  Freed by uba_destroy. */
ts11 *ts11_create(uba *u, uint32_t csr, uint16_t vector);

/* Mount a tape image (the caller keeps the block device alive while it is
 * mounted): online at BOT, volume check set, write locked if the device is
 * read only.  Returns 0, or -1 with a message in err (NULL allowed) if the
 * drive is in the middle of a command or the device is unusable. */
int ts11_attach(ts11 *ts, vax_blockdev *tape, char *err, size_t errlen);

/* Take the tape away (the drive goes offline). */
void ts11_detach(ts11 *ts);

/* Statistics: data records read (either direction) and written. */
void ts11_stats(const ts11 *ts, uint64_t *records_read, uint64_t *records_written);

/* Its state in a snapshot (snapshot/snap.h): the registers, the command in
 * progress and where the tape is.  The tape image's bytes are not in it:
 * a restored system needs the same tape mounted (or none, like the one it
 * was saved from), and a tape written since is not put back. */
struct vax_snap;
void ts11_snap(ts11 *ts, struct vax_snap *s);

#endif
