/*
 * ts11.c — the TS11 tape subsystem.  See ts11.h.
 *
 * A command runs in two steps: when TSDB is written the packet is fetched
 * and the command carried out at once (tape motion, data DMA), which fixes
 * its duration; when that virtual time has passed the message is written,
 * SSR comes back and the interrupt (if IE) is requested.  A driver cannot
 * tell the difference: it may look at neither data nor status before SSR.
 */
#include "unibus/ts11.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/snap.h"
#include "storage/tapeimage.h"

#define TS_BR 5
#define TS_MAXBUF 65536u

/* TSSR */
#define SR_SC 0100000u
#define SR_RMR 0010000u
#define SR_NXM 0004000u
#define SR_NBA 0002000u
#define SR_SSR 0000200u
#define SR_OFL 0000100u

/* Command word */
#define CMD_ACK 0100000u
#define CMD_CVC 0040000u
#define CMD_SWB 0010000u
#define CMD_IE 0000200u
#define CMD_MODE(c) (((c) >> 8) & 017u)
#define CMD_CODE(c) ((c) & 037u)

enum {
    C_READ = 001, C_SETCHR = 004, C_WRITE = 005, C_WSSM = 006, C_POSITION = 010, C_FORMAT = 011,
    C_CONTROL = 012, C_INIT = 013, C_STATUS = 017
};

/* Extended status 0 */
#define XS0_TMK 0100000u
#define XS0_RLS 0040000u
#define XS0_LET 0020000u
#define XS0_RLL 0010000u
#define XS0_WLE 0004000u
#define XS0_NEF 0002000u
#define XS0_ILC 0001000u
#define XS0_ILA 0000400u
#define XS0_ONL 0000100u
#define XS0_IES 0000040u
#define XS0_VCK 0000020u
#define XS0_PED 0000010u
#define XS0_WLK 0000004u
#define XS0_BOT 0000002u
#define XS0_EOT 0000001u
/* Extended status 1 */
#define XS1_UNC 0000002u
/* Extended status 3 */
#define XS3_REV 0000040u
#define XS3_RIB 0000001u

/* Characteristics */
#define CHR_ESS 0200u
#define CHR_ENB 0100u

/* Message codes */
#define MSG_END 020u
#define MSG_FAIL 021u
#define MSG_ERROR 022u
#define MSG_ATTN 023u
#define MSG_BYTES 14u

typedef struct {
    int tc;
    uint16_t rbpcr, xs0, xs1, xs3;
    int nxm;
    uint64_t ns;
} ts_result;

struct ts11 {
    uba *u;
    vax_machine *m;
    uint16_t vector;
    vax_blockdev *bd;
    tape_image tape;
    int online, wlk, vck;
    /* subsystem state */
    int busy;              /* SSR clear */
    int nba;               /* no characteristics yet */
    uint16_t flags;        /* RMR, NXM */
    int tc;                /* termination class of the last command */
    uint32_t last_ba;      /* last bus address (TSBA, A17:A16) */
    uint32_t msg_addr;
    uint16_t msg_size, chr_mode;
    /* the command in progress */
    int ie, send_msg, unload;
    ts_result res;
    vax_event ev;
    uint8_t buf[TS_MAXBUF];
    uint64_t records_read, records_written;   /* statistics: data records moved */
};

/* ------------------------------------------------------------- helpers */

static uint16_t tssr_value(const ts11 *ts)
{
    uint16_t v = ts->flags;
    if (ts->nba)
        v |= SR_NBA;
    if (!ts->online)
        v |= SR_OFL;
    v |= (uint16_t)(((ts->last_ba >> 16) & 3u) << 8);
    if (!ts->busy) {
        v |= SR_SSR;
        v |= (uint16_t)(ts->tc << 1);
    }
    if ((!ts->busy && ts->tc) || (ts->flags & (SR_NXM | SR_RMR)))
        v |= SR_SC;
    return v;
}

static void swap_bytes(uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; i += 2) {
        uint8_t t = p[i];
        p[i] = p[i + 1];
        p[i + 1] = t;
    }
}

static uint64_t rec_ns(uint32_t len) { return TS11_GAP_NS + (uint64_t)len * TS11_BYTE_NS; }

static int dma_to_memory(ts11 *ts, uint32_t ba, const void *p, uint32_t n)
{
    ts->last_ba = ba;
    if (n == 0)
        return 0;
    return uba_dma_write(ts->u, ba, p, n);
}

static int dma_from_memory(ts11 *ts, uint32_t ba, void *p, uint32_t n)
{
    ts->last_ba = ba;
    if (n == 0)
        return 0;
    return uba_dma_read(ts->u, ba, p, n);
}

static void reject(ts_result *r, uint16_t why)
{
    r->tc = 3;
    r->xs0 |= why;
}

/* A tape error from the image: corrupt or unreadable. */
static void image_error(ts_result *r)
{
    r->tc = 6;
    r->xs1 |= XS1_UNC;
}

/* --------------------------------------------------------- data motion */

/* Record length versus the byte count: RLS/RLL alerts. */
static void length_check(ts_result *r, uint32_t len, uint32_t count)
{
    if (len < count) {
        r->xs0 |= XS0_RLS;
        r->tc = 2;
        r->rbpcr = (uint16_t)(count - len);
    } else if (len > count) {
        r->xs0 |= XS0_RLL;
        r->tc = 2;
    }
}

/* A data record read, either way: the n of its bytes that fit, from byte
 * `skip` of the record, go to bus address ba; the record's length against
 * the byte count decides the alerts. */
static void deliver_record(ts11 *ts, const tape_record *rec, uint32_t skip, uint32_t ba, uint32_t n,
                           uint32_t count, int swb, ts_result *r)
{
    r->ns += rec_ns(rec->length);
    ts->records_read++;
    if (tape_read_data(&ts->tape, rec, skip, ts->buf, n) != 0) {
        image_error(r);
        r->rbpcr = (uint16_t)count;
        return;
    }
    if (swb)
        swap_bytes(ts->buf, n);
    if (dma_to_memory(ts, ba, ts->buf, n) != 0) {
        r->nxm = 1;
        r->tc = 6;
        r->rbpcr = (uint16_t)count;
        return;
    }
    length_check(r, rec->length, count);
    if (rec->bad)
        image_error(r);
}

/* A tape mark met by a read: no data, the gap's time. */
static void read_tape_mark(ts_result *r, uint32_t count)
{
    r->ns += TS11_GAP_NS;
    r->xs0 |= XS0_TMK;
    r->tc = 2;
    r->rbpcr = (uint16_t)count;
}

static void read_forward(ts11 *ts, uint32_t ba, uint32_t count, int swb, ts_result *r)
{
    tape_record rec;
    switch (tape_forward(&ts->tape, &rec)) {
    case TAPE_OK: {
        uint32_t n = rec.length < count ? rec.length : count;
        deliver_record(ts, &rec, 0, ba, n, count, swb, r);
        return;
    }
    case TAPE_MARK:
        read_tape_mark(r, count);
        return;
    case TAPE_EOM:
        r->xs0 |= XS0_EOT;
        r->tc = 2;
        r->rbpcr = (uint16_t)count;
        return;
    default:
        image_error(r);
        r->rbpcr = (uint16_t)count;
        return;
    }
}

/* Read previous: the record arrives last byte first and is stored from the
 * top of the buffer down, so it ends up in order at the buffer's end. */
static void read_reverse(ts11 *ts, uint32_t ba, uint32_t count, int swb, ts_result *r)
{
    r->xs3 |= XS3_REV;
    if (tape_at_bot(&ts->tape)) {
        reject(r, XS0_NEF);
        return;
    }
    tape_record rec;
    switch (tape_reverse(&ts->tape, &rec)) {
    case TAPE_OK: {
        uint32_t n = rec.length < count ? rec.length : count;
        deliver_record(ts, &rec, rec.length - n, (ba + count - n) & 0x3FFFFu, n, count, swb, r);
        return;
    }
    case TAPE_MARK:
        read_tape_mark(r, count);
        return;
    default:
        image_error(r);
        r->rbpcr = (uint16_t)count;
        return;
    }
}

/* Back over one object (for the retry modes); 0 if the tape moved. */
static int back_one(ts11 *ts, ts_result *r)
{
    if (tape_at_bot(&ts->tape)) {
        reject(r, XS0_NEF);
        return -1;
    }
    tape_record rec;
    tape_status st = tape_reverse(&ts->tape, &rec);
    if (st == TAPE_OK) {
        r->ns += rec_ns(rec.length);
        return 0;
    }
    if (st == TAPE_MARK) {
        r->ns += TS11_GAP_NS;
        return 0;
    }
    image_error(r);
    return -1;
}

/* Forward over one object (reread next); 0 if the tape moved. */
static int forward_one(ts11 *ts, ts_result *r)
{
    tape_record rec;
    tape_status st = tape_forward(&ts->tape, &rec);
    if (st == TAPE_OK) {
        r->ns += rec_ns(rec.length);
        return 0;
    }
    if (st == TAPE_MARK) {
        r->ns += TS11_GAP_NS;
        return 0;
    }
    if (st == TAPE_EOM) {
        r->xs0 |= XS0_EOT;
        r->tc = 2;
        return -1;
    }
    image_error(r);
    return -1;
}

static int can_move(ts11 *ts, ts_result *r)
{
    if (!ts->online || !ts->bd) {
        reject(r, XS0_NEF);
        return 0;
    }
    return 1;
}

static int can_write(ts11 *ts, ts_result *r)
{
    if (!can_move(ts, r))
        return 0;
    if (ts->wlk) {
        reject(r, XS0_WLE | XS0_NEF);
        return 0;
    }
    return 1;
}

static void written(tape_status st, ts_result *r, uint32_t count)
{
    switch (st) {
    case TAPE_OK:
        break;
    case TAPE_FULL:   /* the reel has run out: nothing written */
        r->xs0 |= XS0_EOT;
        r->tc = 2;
        r->rbpcr = (uint16_t)count;
        break;
    case TAPE_WPROT:
        reject(r, XS0_WLE | XS0_NEF);
        break;
    default:
        image_error(r);
        r->rbpcr = (uint16_t)count;
        break;
    }
}

static void do_write(ts11 *ts, int mode, uint32_t ba, uint32_t count, int swb, ts_result *r)
{
    if (mode != 0 && mode != 2) {
        reject(r, XS0_ILC);
        return;
    }
    if (!can_write(ts, r))
        return;
    if (count == 0) {
        reject(r, XS0_ILC);
        return;
    }
    if (dma_from_memory(ts, ba, ts->buf, count) != 0) {
        r->nxm = 1;
        r->tc = 5;
        r->rbpcr = (uint16_t)count;
        return;
    }
    if (swb)
        swap_bytes(ts->buf, count);
    if (mode == 2 && back_one(ts, r) != 0)
        return;
    tape_status st = tape_write_record(&ts->tape, ts->buf, count);
    if (st == TAPE_OK) {
        r->ns += rec_ns(count);
        ts->records_written++;
    }
    written(st, r, count);
}

static void do_read(ts11 *ts, int mode, uint32_t ba, uint32_t count, int swb, ts_result *r)
{
    if (mode > 3) {
        reject(r, XS0_ILC);
        return;
    }
    if (!can_move(ts, r))
        return;
    switch (mode) {
    case 0:
        read_forward(ts, ba, count, swb, r);
        break;
    case 1:
        read_reverse(ts, ba, count, swb, r);
        break;
    case 2:
        if (back_one(ts, r) == 0)
            read_forward(ts, ba, count, swb, r);
        break;
    case 3:
        if (forward_one(ts, r) == 0)
            read_reverse(ts, ba, count, swb, r);
        break;
    }
}

static uint64_t rewind_ns(const ts11 *ts) { return ts->tape.pos * TS11_REWIND_BYTE_NS; }

static void do_position(ts11 *ts, int mode, uint32_t n, ts_result *r)
{
    if (mode > 4) {
        reject(r, XS0_ILC);
        return;
    }
    if (!can_move(ts, r))
        return;
    tape_record rec;
    int ess = (ts->chr_mode & CHR_ESS) != 0;
    int prev_mark = (ts->chr_mode & CHR_ENB) && tape_at_bot(&ts->tape);
    if ((mode == 1 || mode == 3) && tape_at_bot(&ts->tape)) {
        reject(r, XS0_NEF);
        return;
    }
    if (mode == 1 || mode == 3)
        r->xs3 |= XS3_REV;
    switch (mode) {
    case 0:   /* space records forward */
    case 1:   /* space records reverse */
    case 2:   /* skip tape marks forward */
    case 3: { /* skip tape marks reverse */
        int reverse = mode & 1, marks = mode >= 2;
        while (n) {
            tape_status st = reverse ? tape_reverse(&ts->tape, &rec) : tape_forward(&ts->tape, &rec);
            if (st == TAPE_OK) {
                r->ns += rec_ns(rec.length);
                if (marks)
                    prev_mark = 0;
                else
                    n--;
                continue;
            }
            if (st == TAPE_MARK) {
                r->ns += TS11_GAP_NS;
                if (!marks) {   /* spacing records stops at a tape mark */
                    r->xs0 |= XS0_TMK;
                    r->tc = 2;
                    break;
                }
                if (ess && prev_mark) {   /* two in a row: logical end of tape */
                    r->xs0 |= XS0_LET | XS0_TMK;
                    r->tc = 2;
                    break;
                }
                prev_mark = 1;
                n--;
                continue;
            }
            if (!reverse && st == TAPE_EOM) {
                r->xs0 |= XS0_EOT;
                r->tc = 2;
            } else if (reverse && st == TAPE_BOT) {
                r->xs3 |= XS3_RIB;
                r->tc = 2;
            } else {
                image_error(r);
            }
            break;
        }
        break;
    }
    case 4:   /* rewind */
        r->ns += rewind_ns(ts);
        tape_rewind(&ts->tape);
        break;
    }
    r->rbpcr = (uint16_t)n;
}

static void do_format(ts11 *ts, int mode, ts_result *r)
{
    if (mode > 2) {
        reject(r, XS0_ILC);
        return;
    }
    if (!can_write(ts, r))
        return;
    if (mode == 1) {   /* erase: a length of blank tape; nothing to record */
        r->ns += TS11_GAP_NS;
        return;
    }
    if (mode == 2 && back_one(ts, r) != 0)
        return;
    tape_status st = tape_write_mark(&ts->tape);
    if (st == TAPE_OK)
        r->ns += TS11_GAP_NS;
    written(st, r, 0);
}

static void do_setchr(ts11 *ts, uint32_t ba, uint32_t count, ts_result *r)
{
    uint8_t c[8] = {0};
    if (count < 6) {
        reject(r, XS0_ILA);
        return;
    }
    if (dma_from_memory(ts, ba, c, count >= 8 ? 8 : 6) != 0) {
        r->nxm = 1;
        r->tc = 5;
        return;
    }
    uint32_t addr = ((uint32_t)c[0] | (uint32_t)c[1] << 8) | ((uint32_t)(c[2] & 3) << 16);
    uint16_t size = (uint16_t)(c[4] | c[5] << 8);
    uint16_t mode = (uint16_t)(c[6] | c[7] << 8);
    if ((addr & 1) || size < MSG_BYTES) {
        reject(r, XS0_ILA);
        return;
    }
    ts->msg_addr = addr;
    ts->msg_size = size;
    ts->chr_mode = mode;
    ts->nba = 0;
}

/* ----------------------------------------------------------- commands */

static void finish(vax_machine *m, void *ctx);

static uint16_t xs0_now(const ts11 *ts)
{
    uint16_t x = XS0_PED;
    if (ts->online && ts->bd) {
        x |= XS0_ONL;
        if (tape_at_bot(&ts->tape))
            x |= XS0_BOT;
        if (ts->wlk)
            x |= XS0_WLK;
    }
    if (ts->vck)
        x |= XS0_VCK;
    if (ts->ie)
        x |= XS0_IES;
    return x;
}

static void start_command(ts11 *ts, uint16_t db)
{
    uba_interrupt(ts->u, TS_BR, ts->vector, 0);
    ts->flags &= (uint16_t)~(SR_RMR | SR_NXM);
    uint32_t pkt_addr = (db & 0xFFFCu) | ((uint32_t)(db & 3u) << 16);
    uint8_t p[8];
    if (dma_from_memory(ts, pkt_addr, p, 8) != 0) {
        ts->flags |= SR_NXM;
        ts->tc = 5;
        return;
    }
    uint16_t cmd = (uint16_t)(p[0] | p[1] << 8);
    uint16_t w1 = (uint16_t)(p[2] | p[3] << 8);
    uint16_t w2 = (uint16_t)(p[4] | p[5] << 8);
    uint16_t w3 = (uint16_t)(p[6] | p[7] << 8);
    uint32_t ba = w1 | ((uint32_t)(w2 & 3u) << 16);
    uint32_t count = w3;
    int code = (int)CMD_CODE(cmd), mode = (int)CMD_MODE(cmd), swb = (cmd & CMD_SWB) != 0;

    ts_result *r = &ts->res;
    memset(r, 0, sizeof *r);
    r->ns = TS11_CMD_NS;
    ts->ie = (cmd & CMD_IE) != 0;
    ts->unload = 0;
    if (cmd & CMD_CVC)
        ts->vck = 0;

    if (ts->nba && code != C_SETCHR) {
        reject(r, XS0_ILC);   /* nowhere to put a message yet */
    } else {
        switch (code) {
        case C_SETCHR:
            do_setchr(ts, ba, count, r);
            break;
        case C_READ:
            do_read(ts, mode, ba, count, swb, r);
            break;
        case C_WRITE:
            do_write(ts, mode, ba, count, swb, r);
            break;
        case C_POSITION:
            do_position(ts, mode, w1, r);
            break;
        case C_FORMAT:
            do_format(ts, mode, r);
            break;
        case C_CONTROL:
            if (mode == 1) {   /* unload: rewind, then offline */
                if (can_move(ts, r)) {
                    r->ns += rewind_ns(ts);
                    tape_rewind(&ts->tape);
                    ts->unload = 1;
                }
            } else if (mode != 0 && mode != 2) {
                reject(r, XS0_ILC);
            }
            break;
        case C_INIT:
        case C_STATUS:
            break;
        default:
            reject(r, XS0_ILC);
            break;
        }
    }
    ts->send_msg = !ts->nba;
    ts->busy = 1;
    machine_event_schedule(ts->m, &ts->ev, r->ns);
}

static void finish(vax_machine *m, void *ctx)
{
    (void)m;
    ts11 *ts = ctx;
    ts_result *r = &ts->res;
    if (!ts->busy)
        return;
    if (ts->unload)
        ts->online = 0;
    ts->unload = 0;
    int tc = r->tc;
    if (r->nxm)
        ts->flags |= SR_NXM;
    if (ts->send_msg) {
        uint16_t code = tc == 0 || tc == 2 ? MSG_END : tc == 1 ? MSG_ATTN : tc == 3 ? MSG_FAIL : MSG_ERROR;
        uint16_t w[7] = {(uint16_t)(CMD_ACK | code), 10, r->rbpcr, (uint16_t)(xs0_now(ts) | r->xs0),
                         r->xs1, 0, r->xs3};
        uint8_t b[MSG_BYTES];
        for (int i = 0; i < 7; i++) {
            b[2 * i] = (uint8_t)w[i];
            b[2 * i + 1] = (uint8_t)(w[i] >> 8);
        }
        uint32_t save = ts->last_ba;
        if (uba_dma_write(ts->u, ts->msg_addr, b, MSG_BYTES) != 0) {
            ts->flags |= SR_NXM;
            if (tc < 5)
                tc = 5;
            save = ts->msg_addr;
        }
        ts->last_ba = save;
    }
    ts->send_msg = 0;
    ts->tc = tc;
    ts->busy = 0;
    if (ts->ie)
        uba_interrupt(ts->u, TS_BR, ts->vector, 1);
}

/* Subsystem initialise (a TSSR write, UNIBUS INIT). */
static void subsystem_init(ts11 *ts)
{
    machine_event_cancel(ts->m, &ts->ev);
    uba_interrupt(ts->u, TS_BR, ts->vector, 0);
    ts->flags = 0;
    ts->tc = 0;
    ts->nba = 1;
    ts->msg_addr = 0;
    ts->msg_size = 0;
    ts->chr_mode = 0;
    ts->ie = 0;
    ts->unload = 0;
    ts->send_msg = 0;
    memset(&ts->res, 0, sizeof ts->res);
    ts->busy = 1;
    machine_event_schedule(ts->m, &ts->ev, TS11_INIT_NS);
}

/* ----------------------------------------------------------- registers */

static int ts_read(void *dev, uint32_t off, int size, uint32_t *value)
{
    (void)size;
    ts11 *ts = dev;
    if (off & 2)
        *value = tssr_value(ts);
    else
        *value = ts->last_ba & 0xFFFFu;
    return 0;
}

static int ts_write(void *dev, uint32_t off, int size, uint32_t value)
{
    ts11 *ts = dev;
    if (off & 2) {
        subsystem_init(ts);
        return 0;
    }
    uint16_t db = (uint16_t)value;
    if (size == 1)   /* a byte of TSDB: the other byte reads as zero */
        db = (off & 1) ? (uint16_t)((value & 0xFF) << 8) : (uint16_t)(value & 0xFF);
    if (ts->busy) {
        ts->flags |= SR_RMR;
        return 0;
    }
    start_command(ts, db);
    return 0;
}

static void ts_reset(void *dev) { subsystem_init(dev); }

/* ------------------------------------------------------------ host side */

static void ts_destroy(void *obj)
{
    ts11 *ts = obj;
    machine_event_cancel(ts->m, &ts->ev);
    free(ts);
}

ts11 *ts11_create(uba *u, uint32_t csr, uint16_t vector)
{
    if (!u)
        return NULL;
    ts11 *ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    ts->u = u;
    ts->m = uba_machine(u);
    ts->vector = vector;
    ts->ev.fire = finish;
    ts->ev.ctx = ts;
    ts->nba = 1;   /* as after power-up initialisation: ready, no characteristics */
    if (uba_own(u, ts, ts_destroy) != 0) {
        free(ts);
        return NULL;
    }
    if (uba_add_device(u, csr, 4, ts, ts_read, ts_write, ts_reset) != 0) {
        uba_disown(u, ts);
        free(ts);
        return NULL;
    }
    uba_interrupt(u, TS_BR, vector, 0);
    return ts;
}

int ts11_attach(ts11 *ts, vax_blockdev *tape, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!ts || !tape || !tape->read) {
        if (err && errlen)
            snprintf(err, errlen, "ts11: no tape image");
        return -1;
    }
    if (ts->busy) {
        if (err && errlen)
            snprintf(err, errlen, "ts11: the drive is busy");
        return -1;
    }
    ts->bd = tape;
    tape_open(&ts->tape, tape);
    ts->online = 1;
    ts->wlk = tape->read_only || !tape->write;
    ts->vck = 1;
    return 0;
}

void ts11_detach(ts11 *ts)
{
    if (!ts)
        return;
    ts->online = 0;
    ts->bd = NULL;
    ts->tape.bd = NULL;
}

void ts11_stats(const ts11 *ts, uint64_t *records_read, uint64_t *records_written)
{
    *records_read = ts ? ts->records_read : 0;
    *records_written = ts ? ts->records_written : 0;
}

void ts11_snap(ts11 *ts, vax_snap *s)
{
    snap_same_u32(s, ts->bd != NULL, "a tape mounted on the TS11");
    snap_u64(s, &ts->tape.pos);
    snap_int(s, &ts->online, 0, 1);
    snap_int(s, &ts->wlk, 0, 1);
    snap_int(s, &ts->vck, 0, 1);
    snap_int(s, &ts->busy, 0, 1);
    snap_int(s, &ts->nba, 0, 1);
    snap_u16(s, &ts->flags);
    snap_int(s, &ts->tc, 0, 7);
    snap_u32(s, &ts->last_ba);
    snap_u32(s, &ts->msg_addr);
    snap_u16(s, &ts->msg_size);
    snap_u16(s, &ts->chr_mode);
    snap_int(s, &ts->ie, 0, 1);
    snap_int(s, &ts->send_msg, 0, 1);
    snap_int(s, &ts->unload, 0, 1);
    snap_int(s, &ts->res.tc, 0, 7);
    snap_u16(s, &ts->res.rbpcr);
    snap_u16(s, &ts->res.xs0);
    snap_u16(s, &ts->res.xs1);
    snap_u16(s, &ts->res.xs3);
    snap_int(s, &ts->res.nxm, 0, 1);
    snap_u64(s, &ts->res.ns);
    snap_event(s, &ts->ev);
    snap_u64(s, &ts->records_read);
    snap_u64(s, &ts->records_written);
    /* buf holds a record only while start_command moves it: not state. */
}
