/*
 * partitions.c — 4.3BSD's MASSBUS disk partition tables, as data.
 *
 * Source: 4.3BSD /sys/vaxmba/hp.c (@(#)hp.c 7.1, June 1986): the
 * rp06_sizes, rp05_sizes, rm03_sizes, rm05_sizes, rm80_sizes and rp07_sizes
 * arrays ({ nblocks, cyloff } per partition) and the hpst[] geometry table
 * (nsect, ntrak, ncyl).  The standalone masks come from the *_off arrays in
 * /sys/stand/hpmaptype.c, where -1 marks a partition the standalone driver
 * (and so /boot) cannot open.
 *
 * RP06: 22 sectors x 19 tracks x 815 cylinders (418 sectors/cylinder);
 *   a = cyl 0..37 (15884 sectors, root), b = cyl 38..117 (33440, swap),
 *   c = cyl 0..814 (340670, whole pack), g = cyl 118..814 (291280, /usr).
 *
 * The UDA50's RA drives: 4.3BSD /sys/vaxuba/uda.c (@(#)uda.c 7.1) gives
 * their partitions as { nblocks, first block } (ra60_sizes and
 * ra81_sizes as compiled without UCBRA and RA_COMPAT, as GENERIC is; a
 * size of -1 there means "to the end of the unit", written out here), and
 * /sys/stand/uda.c's ra*_off the ones /boot can open.  The RA80 is left
 * out: its table describes 242606 blocks, more than the unit's 237212.
 * An MSCP unit is a row of logical blocks with no geometry the host sees,
 * so these are described as one-sector "cylinders": the offsets are block
 * numbers.
 * RA81 (891072 blocks): a = 0..15883 (root), b = 16422..83301 (swap),
 * c = the whole unit, h = 83538..374883 (291346 blocks: /usr), g = 375564
 * to the end.
 */
#include "boot/partitions.h"

#include <ctype.h>
#include <stddef.h>

/* Bits of standalone_mask from a list of partition letters' offsets. */
#define SA(a, b, c, d, e, f, g, h) \
    (uint8_t)(((a) >= 0) | ((b) >= 0) << 1 | ((c) >= 0) << 2 | ((d) >= 0) << 3 | \
              ((e) >= 0) << 4 | ((f) >= 0) << 5 | ((g) >= 0) << 6 | ((h) >= 0) << 7)

static const bsd_disktype disktypes[] = {
    { "RP06", 22, 19, 815,
      { 15884, 33440, 340670, 15884, 55936, 219384, 291280, 0 },
      { 0, 38, 0, 118, 156, 290, 118, 0 },
      SA(0, 38, 0, -1, -1, -1, 118, -1) },
    { "RM03", 32, 5, 823,
      { 15884, 33440, 131680, 15884, 55936, 10144, 82144, 0 },
      { 0, 100, 0, 309, 409, 759, 309, 0 },
      SA(0, 100, 0, -1, -1, -1, 309, -1) },
    { "RM05", 32, 19, 823,
      { 15884, 33440, 500384, 15884, 55936, 86240, 158592, 291346 },
      { 0, 27, 0, 562, 589, 681, 562, 82 },
      SA(0, 27, 0, 562, 589, 681, 562, 82) },
    { "RM80", 31, 14, 559,
      { 15884, 33440, 242606, 15884, 55936, 120559, 192603, 0 },
      { 0, 37, 0, 115, 152, 281, 115, 0 },
      SA(0, 37, 0, -1, -1, -1, 115, -1) },
    { "RP07", 50, 32, 630,
      { 15884, 66880, 1008000, 15884, 307200, 308650, 631850, 291346 },
      { 0, 10, 0, 235, 245, 437, 235, 52 },
      SA(0, 10, 0, 235, 245, 437, 235, 52) },
    /* RP04 and RP05 share rp05_sizes (and, standalone, rp06_off). */
    { "RP05", 22, 19, 411,
      { 15884, 33440, 171798, 15884, 55936, 50512, 122408, 0 },
      { 0, 38, 0, 118, 156, 290, 118, 0 },
      SA(0, 38, 0, -1, -1, -1, 118, -1) },
    { "RP04", 22, 19, 411,
      { 15884, 33440, 171798, 15884, 55936, 50512, 122408, 0 },
      { 0, 38, 0, 118, 156, 290, 118, 0 },
      SA(0, 38, 0, -1, -1, -1, 118, -1) },
    { "RA81", 1, 1, 891072,
      { 15884, 66880, 891072, 15884, 307200, 191352, 515508, 291346 },
      { 0, 16422, 0, 375564, 391986, 699720, 375564, 83538 },
      SA(0, 16422, 0, 375564, 391986, 699720, 375564, 83538) },
    { "RA60", 1, 1, 400176,
      { 15884, 33440, 400176, 82080, 268772, 350852, 157570, 193282 },
      { 0, 15884, 0, 49324, 131404, 49324, 242606, 49324 },
      SA(0, 15884, 0, 49324, 131404, 49324, 242606, 49324) },
};

#define NTYPES (sizeof disktypes / sizeof disktypes[0])

const bsd_disktype *bsd_disktype_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NTYPES; i++) {
        const char *a = disktypes[i].name, *b = name;
        while (*a && *b && toupper((unsigned char)*a) == toupper((unsigned char)*b)) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return &disktypes[i];
    }
    return NULL;
}

const bsd_disktype *bsd_disktype_at(int n)
{
    if (n < 0 || (size_t)n >= NTYPES)
        return NULL;
    return &disktypes[n];
}

int bsd_partition_range(const bsd_disktype *t, int part, uint64_t *offset, uint64_t *length)
{
    if (!t || part < 0 || part >= BSD_NPARTITIONS || t->nblocks[part] == 0)
        return -1;
    uint64_t spc = (uint64_t)t->nsect * (uint64_t)t->ntrak;
    if (offset)
        *offset = (uint64_t)t->cyloff[part] * spc * BSD_SECTOR_SIZE;
    if (length)
        *length = (uint64_t)t->nblocks[part] * BSD_SECTOR_SIZE;
    return 0;
}

uint64_t bsd_disktype_bytes(const bsd_disktype *t)
{
    return (uint64_t)t->nsect * (uint64_t)t->ntrak * (uint64_t)t->ncyl * BSD_SECTOR_SIZE;
}
