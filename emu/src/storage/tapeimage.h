/*
 * tapeimage.h — a magnetic tape held in a SIMH-format .tap image.
 *
 * The image is a sequence of objects:
 *   record:      4-byte little-endian length L, L data bytes, one pad byte
 *                if L is odd, the same 4-byte length again;
 *   tape mark:   a length of 0 (4 bytes);
 *   end of medium: 0xFFFFFFFF, or the end of the image;
 *   erase gap:   0xFFFFFFFE (4 bytes, skipped in either direction).
 * The top four bits of a length are its class: 0 is good data, 8 a record
 * that was read with an error (its data is there, but bad); the other
 * classes (private and reserved markers) are not supported and read as a
 * format error, as does a length that runs past the end of the image or
 * whose trailing copy differs.  A format error never moves the tape.
 *
 * The position is a byte offset between objects.  Writing a record or a
 * tape mark ends the tape there: an end-of-medium marker follows it (when
 * the image has room), as everything after a write is lost on real tape.
 * The image never grows: a write that does not fit reports TAPE_FULL.
 */
#ifndef VAX_UNIBUS_TAPEIMAGE_H
#define VAX_UNIBUS_TAPEIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"

typedef enum {
    TAPE_OK = 0,      /* moved over a data record (rec filled in) */
    TAPE_MARK,        /* moved over a tape mark */
    TAPE_EOM,         /* end of medium ahead: no motion */
    TAPE_BOT,         /* at the beginning of tape (reverse): no motion */
    TAPE_FORMAT,      /* corrupt image at the position: no motion */
    TAPE_IOERR,       /* the block device failed: no motion */
    TAPE_WPROT,       /* write to a read-only image */
    TAPE_FULL         /* the write does not fit in the image */
} tape_status;

typedef struct {
    uint32_t length;       /* data bytes */
    uint64_t data_offset;  /* where they are in the image */
    int bad;               /* class 8: recorded with an error */
} tape_record;

typedef struct {
    const vax_blockdev *bd;
    uint64_t pos;
} tape_image;

#define TAPE_MAX_RECORD 0x0FFFFFFFu

void tape_open(tape_image *t, const vax_blockdev *bd);
void tape_rewind(tape_image *t);
static inline int tape_at_bot(const tape_image *t) { return t->pos == 0; }

/* Move over the next object forward / the previous object in reverse. */
tape_status tape_forward(tape_image *t, tape_record *rec);
tape_status tape_reverse(tape_image *t, tape_record *rec);

/* Read n bytes of a record's data starting at byte `from` of the record. */
int tape_read_data(const tape_image *t, const tape_record *rec, uint32_t from, void *buf, uint32_t n);

/* Write a data record (len >= 1) / a tape mark at the position. */
tape_status tape_write_record(tape_image *t, const void *buf, uint32_t len);
tape_status tape_write_mark(tape_image *t);

const char *tape_status_name(tape_status s);

#endif
