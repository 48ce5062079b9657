/*
 * blockdev_file.c — a block device over a host file (blockdev_file.h).
 */
#include "storage/blockdev_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int file_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    const blockdev_file *f = bd->ctx;
    if (off > bd->size || len > bd->size - off)
        return -1;
    return pread(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int file_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    const blockdev_file *f = bd->ctx;
    if (bd->read_only || off > bd->size || len > bd->size - off)
        return -1;
    return pwrite(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

int blockdev_file_open(blockdev_file *f, const char *path, int read_only, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    int fd = open(path, read_only ? O_RDONLY : O_RDWR);
    if (fd < 0 && !read_only && (errno == EACCES || errno == EROFS)) {
        fd = open(path, O_RDONLY);
        read_only = 1;
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot open image %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "image %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if (flock(fd, (read_only ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0) {
        snprintf(err, errlen, "image %s is in use by another process (%s)", path,
                 errno == EWOULDBLOCK ? "another machine has it open" : strerror(errno));
        close(fd);
        return -2;
    }
    f->fd = fd;
    f->bd.ctx = f;
    f->bd.size = (uint64_t)st.st_size;
    f->bd.read_only = read_only;
    f->bd.read = file_read;
    f->bd.write = file_write;
    return 0;
}

void blockdev_file_close(blockdev_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}
