/*
 * snap.h — machine snapshots: the whole state of a running system written
 * as bytes and read back into a new system, which then runs on exactly as
 * the first would have (same instructions, same virtual time, same
 * console output, same counters).
 *
 * One definition of the format: every module describes its state once, in
 * a single function that both saves and restores it (a visitor).  The
 * function calls snap_u32(s, &field) and the like for each field in a fixed
 * order; when saving they append the field's value, when restoring they
 * read it back into the field.  Saving and restoring therefore cannot
 * disagree about the layout.  What is derived rather than stored (host
 * pointers into guest memory, function pointers) is recomputed by the same
 * function after the fields, under snap_restoring().
 *
 * File layout (all integers little-endian):
 *
 *   header, SNAP_HEADER_BYTES bytes:
 *     0  magic "VAXSNAP\0"
 *     8  u32 format version (SNAP_FORMAT_VERSION)
 *    12  u32 header bytes (SNAP_HEADER_BYTES)
 *    16  32 bytes: the emulator build (SHA-256 of emu/src, made by the
 *        Makefile: build/gen/build_id.h) — a snapshot holds the state of
 *        one build's structures and timing model, so another build refuses it
 *    48  32 bytes: the disk's identity (the host's SHA-256 of the pristine
 *        pack the system's disk overlay sits on; zeros without a disk)
 *    80  u64 payload bytes
 *    88  u32 CRC-32 of the payload
 *    92  u32 CRC-32 of bytes 0..91
 *   payload: sections, each a 4-character tag, a u32 length and that many
 *   bytes, in the order the system's snapshot function visits them
 *   (system/session.c).  A section must be read to its exact end.
 *
 * Events (machine.h: a device's pending clock tick, seek, character):
 * snap_event saves whether it is pending, when it falls due and its place
 * in the machine's list of pending events (the order breaks ties between
 * events due at the same nanosecond), and relinks it on restore; the
 * function pointers stay the new system's own.
 *
 * Errors: a restore stops at the first problem with a one-line message
 * (snap_error); the system it was restoring into is then in no defined
 * state and must be destroyed.  Bad input never crashes: every length and
 * index is checked before it is used.
 */
#ifndef VAX_SNAPSHOT_SNAP_H
#define VAX_SNAPSHOT_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "../machine.h"

#define SNAP_FORMAT_VERSION 1u
#define SNAP_HEADER_BYTES 96u
#define SNAP_ID_BYTES 32u

typedef struct vax_snap vax_snap;

/* The emulator build's identity (SNAP_ID_BYTES, from the Makefile's
 * build/gen/build_id.h) and its hex form. */
const uint8_t *snap_build_id(void);
void snap_id_hex(const uint8_t id[SNAP_ID_BYTES], char out[2 * SNAP_ID_BYTES + 1]);

/* A snapshot being written.  The machine m is the one whose events are
 * saved.  snap_save_finish returns the whole file (header and payload,
 * malloc'd: the caller frees it) or NULL with a message. */
vax_snap *snap_save_begin(vax_machine *m, const uint8_t disk_id[SNAP_ID_BYTES]);
uint8_t *snap_save_finish(vax_snap *s, size_t *len, char *err, size_t errlen);

/* A snapshot being read into machine m (whose pending events are dropped
 * first).  Checks the header (magic, version, build, disk identity,
 * lengths, checksums) before anything is read: NULL with a message in err
 * when the file cannot be restored here. */
vax_snap *snap_restore_begin(vax_machine *m, const uint8_t *buf, size_t len, const uint8_t disk_id[SNAP_ID_BYTES],
                             char *err, size_t errlen);
/* After the last section: checks that the whole payload was read and that
 * every pending event found its place; 0, or -1 with the message in err.
 * Frees s either way. */
int snap_restore_finish(vax_snap *s, char *err, size_t errlen);

/* Abandon a snapshot being written or read (after a failure). */
void snap_free(vax_snap *s);

int snap_restoring(const vax_snap *s);
int snap_failed(const vax_snap *s);
const char *snap_error(const vax_snap *s);
vax_machine *snap_machine(const vax_snap *s);

/* Fail with a message (the first failure's message is kept; later calls
 * change nothing).  Every visitor call does nothing once failed. */
void snap_fail(vax_snap *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Sections: a 4-character tag.  When restoring, the next section must have
 * this tag; snap_end checks that the section was read to its end. */
void snap_begin(vax_snap *s, const char tag[4]);
void snap_end(vax_snap *s);

/* Fields. */
void snap_u8(vax_snap *s, uint8_t *v);
void snap_u16(vax_snap *s, uint16_t *v);
void snap_u32(vax_snap *s, uint32_t *v);
void snap_u64(vax_snap *s, uint64_t *v);
void snap_i8(vax_snap *s, int8_t *v);
/* An int (stored as 32 bits); restore checks it lies in [min, max]. */
void snap_int(vax_snap *s, int *v, int min, int max);
void snap_u32_array(vax_snap *s, uint32_t *v, size_t n);
void snap_u64_array(vax_snap *s, uint64_t *v, size_t n);
void snap_u16_array(vax_snap *s, uint16_t *v, size_t n);
void snap_bytes(vax_snap *s, void *v, size_t n);
/* A NUL-terminated string in a buffer of cap bytes. */
void snap_string(vax_snap *s, char *v, size_t cap);

/* A value that is configuration, not state: saved, and on restore compared
 * with the live system's — a mismatch fails with "what: the snapshot's is
 * X, this system's is Y". */
void snap_same_u32(vax_snap *s, uint32_t live, const char *what);
void snap_same_u64(vax_snap *s, uint64_t live, const char *what);
void snap_same_string(vax_snap *s, const char *live, const char *what);

/* A device's timed event (see the header comment).  machine_snap visits
 * the number of pending events (snap_event_count) before any device visits
 * its own. */
void snap_event(vax_snap *s, vax_event *e);
void snap_event_count(vax_snap *s);

/* Variable-length data owned by the module: when saving, *len bytes at
 * *data; when restoring, *data becomes a malloc'd buffer of *len bytes
 * (at most max; NULL when 0), which the module then owns. */
void snap_blob(vax_snap *s, uint8_t **data, uint32_t *len, uint32_t max);

/* Guest memory: its size must match; pages of zeros are not stored. */
void snap_memory(vax_snap *s, uint8_t *mem, uint32_t size);

/* The machine itself (snapshot/machine_snap.c): the processor and its
 * registers, the translation buffer and cache simulations, virtual time,
 * interrupt requests, statistics and memory.  Device events are saved by
 * their devices. */
void machine_snap(vax_machine *m, vax_snap *s);

/* CRC-32 (IEEE 802.3, as zlib and gzip compute it) of n bytes, continuing
 * from crc (0 to start). */
uint32_t snap_crc32(uint32_t crc, const void *data, size_t n);

#endif
