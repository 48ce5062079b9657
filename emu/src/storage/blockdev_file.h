/*
 * blockdev_file.h — a block device over a host file, for the native tools
 * (the WebAssembly build keeps its images in memory: blockdev.h).  Reads
 * and writes go straight to the file with pread/pwrite, so an image is
 * never read whole (a 1 GB sparse file costs nothing until it is read).
 *
 * A writable image is locked exclusively (flock), so two machines never
 * write one pack; a read-only one takes a shared lock.
 */
#ifndef VAX_BLOCKDEV_FILE_H
#define VAX_BLOCKDEV_FILE_H

#include <stddef.h>

#include "storage/blockdev.h"

typedef struct {
    vax_blockdev bd;   /* the device: read, write, size, read_only */
    int fd;            /* -1 when closed */
} blockdev_file;

/* Open path (read_only, or read-write falling back to read-only when the
 * file may not be written) as f->bd.  Returns 0; -1 with a message when it
 * cannot be opened or is not a regular file; -2 when another process holds
 * a conflicting lock. */
int blockdev_file_open(blockdev_file *f, const char *path, int read_only, char *err, size_t errlen);
void blockdev_file_close(blockdev_file *f);

#endif
