/*
 * image_id.h — a disk image file's identity (the SHA-256 of its bytes, as
 * machine snapshots record it and the browser's manifest gives it), without
 * reading 174 MB each time it is asked for.
 *
 * The first time, the file is hashed whole (about 0.9 s for the 4.3BSD
 * pack here) and the result is kept beside it, in IMAGE.vaxlab-id, together
 * with what the file system says of the file at that moment: its device and
 * inode, size, modification time and status-change time (st_ctime, to the
 * nanosecond).  The next time, when all of those are still the same for the
 * file as opened, the kept hash is the identity.
 *
 * Why that is still safe against the wrong pack: any write to the file, a
 * truncation, a chmod, or putting another file in its place changes the
 * status-change time (which, unlike the modification time, no program can
 * set back: the kernel sets it to the current time on every change) or the
 * inode, so the kept hash is no longer used and the file is hashed again.  A
 * change within the same tick of the file system's clock as the hashing
 * could leave st_ctime as it was; so a hash is kept only for a file whose
 * last change is IMAGE_ID_QUIET_NS older than the moment hashing began, and
 * only when the file's status is the same after hashing as before.  The
 * record names its own format, ends with a CRC-32 of itself and is read
 * strictly: anything else in it, or none at all, means hashing.  Writing it is best effort (a read-only
 * directory just means hashing every time), through a temporary file
 * renamed into place, so a reader never sees half of one.
 */
#ifndef VAX_STORAGE_IMAGE_ID_H
#define VAX_STORAGE_IMAGE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"

/* How long a file must have been left alone before its hash is kept (2 s:
 * more than any file system's timestamp granularity but FAT's). */
#define IMAGE_ID_QUIET_NS 2000000000LL

typedef enum {
    IMAGE_ID_KEPT = 0,      /* read from IMAGE.vaxlab-id */
    IMAGE_ID_HASHED = 1,    /* hashed, and the result kept beside the file */
    IMAGE_ID_HASHED_ONLY = 2 /* hashed; not kept (changed too recently, or the directory is not writable) */
} image_id_source;

/* The identity of the image at path, open as fd and read through bd (the
 * same file), into id.  Returns an image_id_source, or -1 with a message in
 * err when the file cannot be read. */
int image_id_get(const char *path, int fd, const vax_blockdev *bd, uint8_t id[32], char *err, size_t errlen);

#endif
