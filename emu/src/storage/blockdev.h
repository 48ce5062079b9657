/*
 * blockdev.h — where a disk or tape image's bytes live.  The native tools
 * back it with a file (writes go to the file, like a real pack); the
 * browser backs it with memory and a copy-on-write overlay.  Devices only
 * see this interface.
 */
#ifndef VAX_BLOCKDEV_H
#define VAX_BLOCKDEV_H

#include <stddef.h>
#include <stdint.h>

typedef struct vax_blockdev vax_blockdev;
struct vax_blockdev {
    void *ctx;       /* the owner's: a FILE, a buffer, an overlay */
    uint64_t size;   /* bytes */
    int read_only;
    /* Return 0, or -1 on an I/O error or a range past the end. */
    int (*read)(const vax_blockdev *bd, uint64_t offset, void *buf, size_t len);
    int (*write)(const vax_blockdev *bd, uint64_t offset, const void *buf, size_t len);
};

/* A block device over a caller-owned memory buffer (no copy is made). */
void blockdev_memory(vax_blockdev *bd, uint8_t *bytes, uint64_t size, int read_only);

#endif
