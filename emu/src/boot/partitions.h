/*
 * partitions.h — the fixed partition tables 4.3BSD compiles into its
 * MASSBUS and UDA50 disk drivers (there is no disk label in 4.3BSD: the
 * kernel and the standalone programs agree on these tables by convention).
 *
 * A partition is given as a size in 512-byte sectors and a starting
 * cylinder; its byte offset is cyloff * nsect * ntrak * 512.
 */
#ifndef VAX_BOOT_PARTITIONS_H
#define VAX_BOOT_PARTITIONS_H

#include <stdint.h>

#define BSD_SECTOR_SIZE 512u
#define BSD_NPARTITIONS 8

typedef struct {
    const char *name;      /* "RP06" */
    int nsect, ntrak, ncyl;   /* sectors/track, tracks/cylinder, cylinders */
    uint32_t nblocks[BSD_NPARTITIONS];   /* partition sizes, sectors (0 = none) */
    uint32_t cyloff[BSD_NPARTITIONS];    /* first cylinder of each */
    /* Partitions the standalone driver (/sys/stand/hpmaptype.c) can open;
     * bit p = partition p.  /boot refuses the others ("bad partition"). */
    uint8_t standalone_mask;
} bsd_disktype;

/* The table for a drive type name (case-insensitive: "RP06", "rm05"...),
 * or NULL. */
const bsd_disktype *bsd_disktype_find(const char *name);

/* The n-th known type (NULL past the end), for listing. */
const bsd_disktype *bsd_disktype_at(int n);

/* Byte offset and length of partition part (0..7 = a..h).  Returns 0, or
 * -1 if the type has no such partition. */
int bsd_partition_range(const bsd_disktype *t, int part, uint64_t *offset, uint64_t *length);

/* Bytes in the whole pack (nsect * ntrak * ncyl sectors). */
uint64_t bsd_disktype_bytes(const bsd_disktype *t);

#endif
