/*
 * tp.h — reading a tp(5) archive: how the standalone programs (boot, copy,
 * format) sit in the first file of a 4.3BSD distribution tape.
 *
 * The format (4.3BSD tp(5), /sys/mdec/tsboot.s): 512-byte blocks.  Block 0
 * of the archive is a bootstrap, blocks 1..62 (magtape; 1..24 on DECtape)
 * the directory, 8 entries of 64 bytes per block, then the files, each
 * starting on a block boundary.  An entry:
 *     0  pathname[32]   NUL-terminated (tp leaves junk after the NUL)
 *    32  mode           16 bits
 *    34  uid, gid       one byte each
 *    36  spare          one byte
 *    37  size           24 bits: the high byte, then the low 16 bits
 *    40  modtime        32 bits
 *    44  tapeaddr       16 bits: first block of the file, in archive blocks
 *    46  spare[16]
 *    62  checksum       the 32 16-bit words of the entry sum to 0
 * All multi-byte fields are little-endian (VAX order).  An entry whose name
 * starts with NUL is unused.
 *
 * The distribution tape's first file (/sys/dist/maketape) is 7 one-block
 * tape boot blocks (tsboot htboot tmboot mtboot utboot noboot noboot) and
 * then the archive ("tp cmf"), all in 512-byte records; tsboot finds the
 * directory at block 8 and adds 7 to every tapeaddr.  tp_open finds the
 * archive's start itself (the first block s, 0 <= s < TP_MAX_LEAD, such
 * that block s+1 starts with a well-formed directory entry), so it reads a
 * bare archive as well as the distribution's first file.
 */
#ifndef VAX_BOOT_TP_H
#define VAX_BOOT_TP_H

#include <stddef.h>
#include <stdint.h>

#define TP_BLOCK 512u
#define TP_ENTRY_SIZE 64u
#define TP_ENTRIES_PER_BLOCK (TP_BLOCK / TP_ENTRY_SIZE)
#define TP_DIR_BLOCKS 62u    /* magtape */
#define TP_NAME_MAX 32u
#define TP_MAX_LEAD 32u      /* blocks searched for the archive's start */

typedef struct {
    char name[TP_NAME_MAX + 1];
    uint16_t mode;
    uint8_t uid, gid;
    uint32_t size;
    uint32_t mtime;
    uint32_t block;        /* tapeaddr: first block, relative to the archive */
} tp_entry;

typedef struct {
    const uint8_t *buf;    /* the bytes holding the archive (not copied) */
    size_t len;
    uint32_t start;        /* block of buf where the archive (its block 0) is */
    uint32_t slots;        /* directory slots present in buf */
} tp_archive;

/* Find the archive in buf (len bytes).  Returns 0, or -1 with a message. */
int tp_open(tp_archive *a, const uint8_t *buf, size_t len, char *err, size_t errlen);

/* Directory slot i (0 <= i < a->slots): 1 if it holds a well-formed entry
 * (filled in), 0 if unused, -1 if malformed (message in err). */
int tp_slot(const tp_archive *a, uint32_t i, tp_entry *e, char *err, size_t errlen);

/* Look a file up by name (an exact match of the whole path name).  On
 * success *data points into the archive's bytes (size e->size).  Returns
 * 0, or -1 with a message (not found: the message lists what there is). */
int tp_find(const tp_archive *a, const char *name, tp_entry *e, const uint8_t **data, char *err,
            size_t errlen);

#endif
