/*
 * blockdev.c — the memory-backed block device (file-backed ones belong to
 * the host programs, which own the files).
 */
#include "storage/blockdev.h"

#include <string.h>

static int memory_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    if (off > bd->size || len > bd->size - off)
        return -1;
    memcpy(buf, (const uint8_t *)bd->ctx + off, len);
    return 0;
}

static int memory_write(const vax_blockdev *bd, uint64_t off, const void *buf, size_t len)
{
    if (bd->read_only || off > bd->size || len > bd->size - off)
        return -1;
    memcpy((uint8_t *)bd->ctx + off, buf, len);
    return 0;
}

void blockdev_memory(vax_blockdev *bd, uint8_t *bytes, uint64_t size, int read_only)
{
    bd->ctx = bytes;
    bd->size = size;
    bd->read_only = read_only;
    bd->read = memory_read;
    bd->write = memory_write;
}
