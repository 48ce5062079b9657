/*
 * overlay.h — a copy-on-write block device over a read-only base.
 *
 * Why: the browser and the experiment runner start many machines from one
 * 4.3BSD pack (174 MB).  Giving each machine its own copy costs the copy's
 * time and memory every time; an overlay shares the pristine pack and keeps
 * only what this machine wrote.
 *
 * Reads come from the base except for the chunks this device has written;
 * a chunk (OVERLAY_CHUNK bytes, the last one possibly shorter) is allocated
 * on its first write and filled from the base first, so that partial
 * writes keep the base's bytes around them.  The base is never written.
 *
 * The caller keeps the base vax_blockdev (the struct, not only its bytes)
 * alive and unchanged while the overlay exists: clean chunks are read from
 * it on every access.
 */
#ifndef VAX_OVERLAY_H
#define VAX_OVERLAY_H

#include <stdint.h>

#include "storage/blockdev.h"

/* 64 KB: 128 disk sectors.  Small enough that a few scattered writes
 * (superblock, inodes, a log file) copy little; large enough that the
 * chunk table for an RP06 is about 2,700 pointers. */
#define OVERLAY_CHUNK 65536u

/* Make bd a writable device of base->size bytes over base.  Returns 0, or
 * -1 if the chunk table could not be allocated (bd is then left unusable,
 * and blockdev_overlay_destroy on it is harmless). */
int blockdev_overlay(vax_blockdev *bd, const vax_blockdev *base);

/* The same with a device of size bytes (at least base->size): the bytes
 * past the base's end read as zeros until written.  Why: DEC's diagnostic
 * pack comes as the first 1.2 MB of an RA81 (the rest was never written),
 * and a unit must have its drive's size. */
int blockdev_overlay_sized(vax_blockdev *bd, const vax_blockdev *base, uint64_t size);

/* Free the overlay's chunks and table (not the base).  bd must have been
 * set up by blockdev_overlay (successfully or not); safe to call twice. */
void blockdev_overlay_destroy(vax_blockdev *bd);

/* Bytes held in the overlay: the total size of the chunks written so far
 * (whole chunks, so a one-byte write counts as a chunk). */
uint64_t blockdev_overlay_dirty_bytes(const vax_blockdev *bd);

/* Whether bd is an overlay (made by blockdev_overlay). */
int blockdev_is_overlay(const vax_blockdev *bd);

/* The overlay's written chunks in a snapshot (snapshot/snap.h): restoring
 * replaces whatever this overlay holds with them.  The base is not in the
 * snapshot: the host puts the same pristine image under it (the snapshot
 * header's disk identity). */
struct vax_snap;
void blockdev_overlay_snap(vax_blockdev *bd, struct vax_snap *s);

#endif
