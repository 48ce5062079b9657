/*
 * tapeimage.c — moving over and writing the objects of a SIMH .tap image
 * through a block device.  See tapeimage.h.
 */
#include "storage/tapeimage.h"
#include "le.h"

#define TAPE_EOM_MARK 0xFFFFFFFFu
#define TAPE_GAP_MARK 0xFFFFFFFEu

static int read_u32(const tape_image *t, uint64_t off, uint32_t *v)
{
    uint8_t b[4];
    if (off > t->bd->size || t->bd->size - off < 4 || t->bd->read(t->bd, off, b, 4) != 0)
        return -1;
    *v = le32_get(b);
    return 0;
}

static int write_u32(const tape_image *t, uint64_t off, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return t->bd->write(t->bd, off, b, 4);
}

void tape_open(tape_image *t, const vax_blockdev *bd)
{
    t->bd = bd;
    t->pos = 0;
}

void tape_rewind(tape_image *t) { t->pos = 0; }

static uint64_t padded(uint32_t len) { return (uint64_t)len + (len & 1u); }

tape_status tape_forward(tape_image *t, tape_record *rec)
{
    uint64_t pos = t->pos, size = t->bd->size;
    for (;;) {
        if (pos == size)
            return TAPE_EOM;
        if (pos > size || size - pos < 4)
            return TAPE_FORMAT;   /* a partial length word */
        uint32_t v;
        if (read_u32(t, pos, &v) != 0)
            return TAPE_IOERR;
        if (v == TAPE_EOM_MARK)
            return TAPE_EOM;
        if (v == TAPE_GAP_MARK) {
            pos += 4;
            continue;
        }
        if (v == 0) {
            t->pos = pos + 4;
            return TAPE_MARK;
        }
        uint32_t cls = v >> 28, len = v & TAPE_MAX_RECORD;
        if ((cls != 0 && cls != 8) || len == 0)
            return TAPE_FORMAT;
        uint64_t need = 4 + padded(len) + 4;
        if (size - pos < need)
            return TAPE_FORMAT;   /* runs past the end of the image */
        uint32_t trail;
        if (read_u32(t, pos + 4 + padded(len), &trail) != 0)
            return TAPE_IOERR;
        if (trail != v)
            return TAPE_FORMAT;
        rec->length = len;
        rec->data_offset = pos + 4;
        rec->bad = cls == 8;
        t->pos = pos + need;
        return TAPE_OK;
    }
}

tape_status tape_reverse(tape_image *t, tape_record *rec)
{
    uint64_t pos = t->pos;
    for (;;) {
        if (pos == 0) {
            t->pos = 0;   /* (having backed over erase gaps) */
            return TAPE_BOT;
        }
        if (pos < 4)
            return TAPE_FORMAT;
        uint32_t v;
        if (read_u32(t, pos - 4, &v) != 0)
            return TAPE_IOERR;
        if (v == TAPE_GAP_MARK) {
            pos -= 4;
            continue;
        }
        if (v == 0) {
            t->pos = pos - 4;
            return TAPE_MARK;
        }
        uint32_t cls = v >> 28, len = v & TAPE_MAX_RECORD;
        if (v == TAPE_EOM_MARK || (cls != 0 && cls != 8))
            return TAPE_FORMAT;
        uint64_t need = 4 + padded(len) + 4;
        if (pos < need)
            return TAPE_FORMAT;
        uint32_t head;
        if (read_u32(t, pos - need, &head) != 0)
            return TAPE_IOERR;
        if (head != v)
            return TAPE_FORMAT;
        rec->length = len;
        rec->data_offset = pos - need + 4;
        rec->bad = cls == 8;
        t->pos = pos - need;
        return TAPE_OK;
    }
}

int tape_read_data(const tape_image *t, const tape_record *rec, uint32_t from, void *buf, uint32_t n)
{
    if (n == 0)
        return 0;
    if (from > rec->length || n > rec->length - from)
        return -1;
    return t->bd->read(t->bd, rec->data_offset + from, buf, n);
}

/* After a write at end: mark the end of medium when there is room. */
static void write_end(tape_image *t)
{
    if (t->bd->size - t->pos >= 4)
        (void)write_u32(t, t->pos, TAPE_EOM_MARK);
}

tape_status tape_write_record(tape_image *t, const void *buf, uint32_t len)
{
    if (t->bd->read_only || !t->bd->write)
        return TAPE_WPROT;
    if (len == 0 || len > TAPE_MAX_RECORD)
        return TAPE_FORMAT;
    uint64_t need = 4 + padded(len) + 4;
    if (t->pos > t->bd->size || t->bd->size - t->pos < need)
        return TAPE_FULL;
    uint64_t p = t->pos;
    if (write_u32(t, p, len) != 0 || t->bd->write(t->bd, p + 4, buf, len) != 0)
        return TAPE_IOERR;
    if (len & 1u) {
        uint8_t zero = 0;
        if (t->bd->write(t->bd, p + 4 + len, &zero, 1) != 0)
            return TAPE_IOERR;
    }
    if (write_u32(t, p + 4 + padded(len), len) != 0)
        return TAPE_IOERR;
    t->pos = p + need;
    write_end(t);
    return TAPE_OK;
}

tape_status tape_write_mark(tape_image *t)
{
    if (t->bd->read_only || !t->bd->write)
        return TAPE_WPROT;
    if (t->pos > t->bd->size || t->bd->size - t->pos < 4)
        return TAPE_FULL;
    if (write_u32(t, t->pos, 0) != 0)
        return TAPE_IOERR;
    t->pos += 4;
    write_end(t);
    return TAPE_OK;
}

const char *tape_status_name(tape_status s)
{
    switch (s) {
    case TAPE_OK: return "ok";
    case TAPE_MARK: return "tape mark";
    case TAPE_EOM: return "end of medium";
    case TAPE_BOT: return "beginning of tape";
    case TAPE_FORMAT: return "corrupt tape image";
    case TAPE_IOERR: return "I/O error";
    case TAPE_WPROT: return "write protected";
    case TAPE_FULL: return "tape image full";
    }
    return "?";
}
