/*
 * uda50.c — the UDA50: its UQSSP port (registers, initialisation, rings
 * in host memory reached through the UBA map, interrupts) and its MSCP
 * disk server with RA drives timed in virtual time.  See uda50.h for the
 * port and the protocol, mscp.h for the message layouts.
 *
 * How a command runs.  Reading IP makes the port poll its command ring a
 * short while later (UDA50_POLL_NS): every descriptor the port owns is
 * taken in ring order, its message read, the slot given back (with a
 * command ring interrupt if the host asked for one and the ring had been
 * full), and the command accepted.  Accepting a command decides its
 * outcome at once, in the order the host issued commands (a unit's
 * ONLINE, AVAILABLE and transfers take effect in that order), and when
 * its end message is due: controller overhead, then for a unit's
 * sequential commands the wait for that unit's earlier ones, and for a
 * transfer the drive's seek, rotation and sectors.  When that virtual
 * time comes the data move (DMA through the UBA map, the pack read or
 * written) and the end message goes to the next response slot the port
 * owns (with a response ring interrupt if asked for and the ring had been
 * empty).  If the host has no response slot free, the message waits; the
 * port looks again at the host's next IP read and every
 * UDA50_RETRY_NS.  GET UNIT STATUS, GET COMMAND STATUS, ABORT, SET
 * CONTROLLER CHARACTERISTICS and DETERMINE ACCESS PATHS do not wait for
 * the unit.
 *
 * Credits: the host starts with one (the port's first command may be
 * sent without any); each end message returns the credit its command used
 * and tops the host up to UDA50_CREDITS.  The port does not enforce
 * them: it takes every command the host puts in the ring, up to
 * UDA50_MAX_OPS outstanding (beyond that it stops polling until one
 * completes).
 *
 * Fatal port errors (SA = ERR | code; the codes are the UQSSP's):
 *   1 packet read error    (a command's envelope or text unreachable)
 *   2 packet write error   (a response slot unreachable)
 *   6 ring read error      (a descriptor unreachable)
 *   7 ring write error     (a descriptor or the communications area)
 *   14 invalid connection identifier (a command not for the disk server)
 *
 * Timing (virtual ns, deterministic; estimates marked):
 *   hard initialisation until step 1     UDA50_INIT_NS  (estimate)
 *   each later initialisation step       UDA50_STEP_NS  (estimate)
 *   IP read until the ring is polled     UDA50_POLL_NS  (estimate)
 *   controller overhead per command      UDA50_CMD_NS   (estimate)
 *   a transfer: seek (a curve through the drive's one-cylinder, average
 *   and full-stroke figures), rotational wait for the first block, then
 *   one sector slot (a revolution / sectors per track, the replacement
 *   block's slot included) per block; a track change waits for the next
 *   track's first block to come round, a cylinder change adds a
 *   one-cylinder seek.  The angle under the heads at virtual time t is
 *   (t + unit * rev / 4) mod rev.
 * Drive figures: DEC, "RA81 Disk Drive User Guide" (EK-ORA81-UG) and the
 * DSA drive data in "DIGITAL Storage Systems Handbook": every RA drive
 * turns at 3600 rpm (16.67 ms, 8.33 ms average latency).  RA81: 51 LBNs +
 * 1 replacement block per track, 14 tracks, 1248 cylinders of host data
 * (891072 LBNs), average seek 28 ms, peak 2.2 MB/s; one-cylinder 6 ms and
 * full stroke 50 ms are estimates.  RA60: 42 + 1 per track, 6 tracks,
 * 400176 LBNs, average seek 41.7 ms, 1.98 MB/s.  RA80: 31 + 1, 14
 * tracks, 237212 LBNs, average seek 25 ms, 1.2 MB/s.  RA82: 57 + 1, 15
 * tracks, 1216665 LBNs, average seek 24 ms, 2.4 MB/s.  One-cylinder and
 * full-stroke seeks of the RA60/80/82 are estimates.
 */
#include "unibus/uda50.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "snapshot/snap.h"
#include "unibus/mscp.h"

/* SA as the port shows it. */
#define SA_ERR 0100000u
#define SA_S4 0040000u
#define SA_S3 0020000u
#define SA_S2 0010000u
#define SA_S1 0004000u
#define SA_DI 0000400u   /* the port implements diagnostics (wrap mode) */
/* SA as the host writes it. */
#define SA_W_VALID 0100000u  /* step 1 */
#define SA_W_WRAP 0040000u   /* step 1: diagnostic wrap */
#define SA_W_IE 0000200u     /* step 1 */
#define SA_W_PI 0000001u     /* step 2 */
#define SA_W_GO 0000001u     /* step 4 */

/* Step 4: controller model (bits 7:4) and microcode version (3:0). */
#define UDA50_PORT_MODEL 6
#define UDA50_UCODE_VERSION 3
/* MSCP controller identifier: model 6 (UDA50A), class 1. */
#define UDA50_MSCP_MODEL 6
#define UDA50_SW_VERSION 3
#define UDA50_HW_VERSION 0
#define UDA50_CNT_TIMEOUT 60   /* seconds the host may wait for us (controller timeout) */

/* Ring descriptors. */
#define DESC_OWN 0x80000000u
#define DESC_FLAG 0x40000000u
#define DESC_ADDR 0x0003FFFFu

enum {
    FATAL_PACKET_READ = 1, FATAL_PACKET_WRITE = 2, FATAL_RING_READ = 6, FATAL_RING_WRITE = 7,
    FATAL_CONNECTION = 14
};

#define UDA50_INIT_NS 1000000ull   /* 1 ms (estimate) */
#define UDA50_STEP_NS 100000ull    /* 100 us (estimate) */
#define UDA50_POLL_NS 20000ull     /* 20 us (estimate) */
#define UDA50_CMD_NS 300000ull     /* 300 us (estimate) */
#define UDA50_RETRY_NS 1000000ull  /* 1 ms */

#define UDA50_MAX_OPS 32
#define UDA50_RQ 64               /* end messages waiting for a response slot */
#define UDA50_CREDITS 14

#define MS(x) ((uint32_t)((x) * 1000000.0))
#define REV_3600 16666667u
/* 512 bytes at a peak rate of r bytes/s. */
#define DATA_NS(r) ((uint32_t)(512.0e9 / (r)))

static const ra_type ra_types[] = {
    /* name   model num  lbns     lbn/trk trk  rct  cp rbn  cyl   rev       seek min/avg/max            data */
    {"RA60", 4, 60, 400176, 42, 6, 1008, 4, 1, 1600, REV_3600, MS(10), MS(41.7), MS(80), DATA_NS(1.98e6)},
    {"RA80", 1, 80, 237212, 31, 14, 280, 4, 1, 561, REV_3600, MS(6), MS(25), MS(50), DATA_NS(1.2e6)},
    {"RA81", 5, 81, 891072, 51, 14, 2856, 4, 1, 1258, REV_3600, MS(6), MS(28), MS(50), DATA_NS(2.2e6)},
    {"RA82", 11, 82, 1216665, 57, 15, 3420, 4, 1, 1435, REV_3600, MS(6), MS(24), MS(45), DATA_NS(2.4e6)},
};

static int upcase(int c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }

const ra_type *ra_type_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof ra_types / sizeof ra_types[0]; i++) {
        const char *a = ra_types[i].name, *b = name;
        while (*a && upcase((unsigned char)*b) == *a)
            a++, b++;
        if (!*a && !*b)
            return &ra_types[i];
    }
    return NULL;
}

const char *ra_type_names(void) { return "RA60 RA80 RA81 RA82"; }

uint64_t ra_type_bytes(const ra_type *t) { return (uint64_t)t->lbns * 512u; }

/* ------------------------------------------------------------- state */

typedef enum { PORT_RESET, PORT_STEP1, PORT_STEP2, PORT_STEP3, PORT_STEP4, PORT_RUN, PORT_WRAP, PORT_FATAL } port_state;

/* What an accepted command will do when it completes. */
typedef enum { DO_NOTHING, DO_READ, DO_WRITE, DO_COMPARE, DO_ERASE } op_action;

typedef struct {
    int used;
    uint64_t due, seq, start;
    uint8_t cmd[MSCP_MAX_COMMAND];
    uint8_t msg[MSCP_MAX_COMMAND];   /* the end message, built when accepted */
    uint16_t msg_len;
    op_action action;
    int unit;
} uda_op;

typedef struct {
    uint8_t msg[MSCP_MAX_COMMAND];
    uint16_t len;
    uint8_t type;
} uda_resp;

typedef struct {
    const ra_type *type;       /* NULL: no drive */
    vax_blockdev *bd;
    int online, sw_wp;
    uint64_t busy_until;       /* the unit's sequential commands end here */
    uint32_t cyl;              /* the arm (as of the last accepted transfer) */
    uda50_disk_stats st;
} uda_unit;

struct uda50 {
    uba *u;
    vax_machine *m;
    uint32_t csr;
    port_state state;
    uint16_t sa;
    port_state next_state;     /* the step being entered when step_due comes */
    uint16_t next_sa;
    uint64_t step_due;         /* 0: no step transition pending */
    uint16_t step1;            /* the host's step 1 word */
    int ie;
    uint16_t vector;
    uint32_t ringbase;         /* UNIBUS address of the first response descriptor */
    uint32_t ncmd, nrsp, cmd_i, rsp_i;
    int pi;
    uint64_t poll_due, retry_due;
    int poll_blocked;          /* stopped polling with UDA50_MAX_OPS outstanding */
    int credits_held;
    uint16_t cntflgs;
    uda_op ops[UDA50_MAX_OPS];
    uint64_t next_seq;
    uda_resp rq[UDA50_RQ];
    int rq_head, rq_count;
    uda_unit unit[UDA50_UNITS];
    vax_event ev;
};

static uint64_t now_ns(const uda50 *d) { return machine_time_ns(d->m); }

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* ---------------------------------------------------------- scheduling */

static void fire(vax_machine *m, void *ctx);

static void reschedule(uda50 *d)
{
    uint64_t t = UINT64_MAX;
    if (d->step_due && d->step_due < t)
        t = d->step_due;
    if (d->poll_due && d->poll_due < t)
        t = d->poll_due;
    if (d->retry_due && d->retry_due < t)
        t = d->retry_due;
    for (int i = 0; i < UDA50_MAX_OPS; i++)
        if (d->ops[i].used && d->ops[i].due < t)
            t = d->ops[i].due;
    if (t == UINT64_MAX) {
        machine_event_cancel(d->m, &d->ev);
        return;
    }
    uint64_t now = now_ns(d);
    machine_event_schedule(d->m, &d->ev, t > now ? t - now : 0);
}

static void interrupt(uda50 *d)
{
    if (d->ie)
        uba_interrupt(d->u, UDA50_BR, d->vector, 1);
}

/* Forget every command and message; the units stay as they are. */
static void drop_work(uda50 *d)
{
    memset(d->ops, 0, sizeof d->ops);
    d->rq_head = d->rq_count = 0;
    d->poll_due = d->retry_due = 0;
    d->poll_blocked = 0;
}

static void fatal(uda50 *d, unsigned code)
{
    drop_work(d);
    d->step_due = 0;
    d->state = PORT_FATAL;
    d->sa = (uint16_t)(SA_ERR | (code & 03777u));
    interrupt(d);
}

/* Hard initialisation (IP written, UNIBUS INIT): the port forgets the
 * host, the units become available, step 1 comes after the self test. */
static void hard_init(uda50 *d)
{
    drop_work(d);
    if (d->ie)   /* withdraw a request not yet taken */
        uba_interrupt(d->u, UDA50_BR, d->vector, 0);
    d->ie = 0;
    d->state = PORT_RESET;
    d->sa = 0;
    d->next_state = PORT_STEP1;
    d->next_sa = SA_S1 | SA_DI;
    d->step_due = now_ns(d) + UDA50_INIT_NS;
    d->credits_held = 1;
    d->cntflgs = 0;
    for (int i = 0; i < UDA50_UNITS; i++) {
        d->unit[i].online = 0;
        d->unit[i].sw_wp = 0;
        d->unit[i].busy_until = 0;
    }
    reschedule(d);
}

static void next_step(uda50 *d, port_state st, uint16_t sa, uint64_t delay)
{
    d->next_state = st;
    d->next_sa = sa;
    d->step_due = now_ns(d) + delay;
    reschedule(d);
}

/* ------------------------------------------------------- host memory */

static int dma_in(uda50 *d, uint32_t ua, void *buf, uint32_t n) { return uba_dma_read(d->u, ua & DESC_ADDR, buf, n); }
static int dma_out(uda50 *d, uint32_t ua, const void *buf, uint32_t n) { return uba_dma_write(d->u, ua & DESC_ADDR, buf, n); }

static uint32_t cmd_desc_addr(const uda50 *d, uint32_t i) { return d->ringbase + 4u * (d->nrsp + i); }
static uint32_t rsp_desc_addr(const uda50 *d, uint32_t i) { return d->ringbase + 4u * i; }

static int read_desc(uda50 *d, uint32_t ua, uint32_t *v)
{
    uint8_t b[4];
    if (dma_in(d, ua, b, 4) != 0)
        return -1;
    *v = le32_get(b);
    return 0;
}

static int write_desc(uda50 *d, uint32_t ua, uint32_t v)
{
    uint8_t b[4];
    le32_put(b, v);
    return dma_out(d, ua, b, 4);
}

/* Write 1 to a ring's transition indicator and interrupt.  Returns -1 on
 * a fatal error (already reported). */
static int ring_transition(uda50 *d, int response)
{
    uint8_t one[2] = {1, 0};
    if (dma_out(d, d->ringbase - (response ? 2u : 4u), one, 2) != 0) {
        fatal(d, FATAL_RING_WRITE);
        return -1;
    }
    interrupt(d);
    return 0;
}

/* -------------------------------------------------------- responses */

static void queue_response(uda50 *d, const uint8_t *msg, uint16_t len, uint8_t type)
{
    if (d->rq_count == UDA50_RQ)
        return;   /* cannot happen: at most UDA50_MAX_OPS + their aborts wait */
    uda_resp *r = &d->rq[(d->rq_head + d->rq_count) % UDA50_RQ];
    memcpy(r->msg, msg, len);
    r->len = len;
    r->type = type;
    d->rq_count++;
}

/* Put the oldest waiting message in the next response slot.  Returns 1 if
 * sent, 0 if the host has no slot free, -1 on a fatal error. */
static int send_one(uda50 *d)
{
    uda_resp *r = &d->rq[d->rq_head];
    uint32_t da = rsp_desc_addr(d, d->rsp_i), desc, prev;
    if (read_desc(d, da, &desc) != 0) {
        fatal(d, FATAL_RING_READ);
        return -1;
    }
    if (!(desc & DESC_OWN))
        return 0;
    /* The ring was empty (for the host) if the slot before this one is
     * the port's too: the host has taken every earlier message. */
    if (read_desc(d, rsp_desc_addr(d, (d->rsp_i + d->nrsp - 1) % d->nrsp), &prev) != 0) {
        fatal(d, FATAL_RING_READ);
        return -1;
    }
    int was_empty = d->nrsp == 1 || (prev & DESC_OWN);
    uint32_t text = desc & DESC_ADDR;
    uint8_t env[MSCP_ENV_BYTES];
    if (dma_in(d, text - MSCP_ENV_BYTES, env, 2) != 0) {
        fatal(d, FATAL_PACKET_WRITE);
        return -1;
    }
    uint16_t room = get16(env), len = r->len < room ? r->len : room;
    uint8_t credits = 0;
    if (r->type == MSCP_MT_SEQ && d->credits_held < UDA50_CREDITS) {
        int give = UDA50_CREDITS - d->credits_held;
        credits = (uint8_t)(give > 15 ? 15 : give);
        d->credits_held += credits;
    }
    le16_put(env, len);
    env[2] = (uint8_t)(r->type << 4 | credits);
    env[3] = 0;   /* connection: the disk server */
    if ((len && dma_out(d, text, r->msg, len) != 0) || dma_out(d, text - MSCP_ENV_BYTES, env, MSCP_ENV_BYTES) != 0) {
        fatal(d, FATAL_PACKET_WRITE);
        return -1;
    }
    if (write_desc(d, da, desc & ~DESC_OWN) != 0) {
        fatal(d, FATAL_RING_WRITE);
        return -1;
    }
    d->rq_head = (d->rq_head + 1) % UDA50_RQ;
    d->rq_count--;
    d->rsp_i = (d->rsp_i + 1) % d->nrsp;
    if ((desc & DESC_FLAG) && was_empty && ring_transition(d, 1) != 0)
        return -1;
    return 1;
}

static void send_responses(uda50 *d)
{
    while (d->state == PORT_RUN && d->rq_count) {
        int r = send_one(d);
        if (r < 0)
            return;
        if (r == 0) {
            if (!d->retry_due)
                d->retry_due = now_ns(d) + UDA50_RETRY_NS;
            return;
        }
    }
    d->retry_due = 0;
}

/* ------------------------------------------------------ drive timing */

static uint32_t lbn_per_cyl(const ra_type *t) { return (uint32_t)t->lbn_per_track * t->tracks; }

static uint64_t seek_ns(const ra_type *t, uint32_t from, uint32_t to)
{
    uint32_t dist = from > to ? from - to : to - from;
    if (dist == 0)
        return 0;
    uint32_t third = t->cylinders / 3, last = t->cylinders - 1;
    if (dist <= third)
        return t->seek_min_ns + (uint64_t)(t->seek_avg_ns - t->seek_min_ns) * (dist - 1) / (third - 1);
    if (dist > last)
        dist = last;
    return t->seek_avg_ns + (uint64_t)(t->seek_max_ns - t->seek_avg_ns) * (dist - third) / (last - third);
}

static uint64_t slot_ns(const ra_type *t) { return t->rev_ns / (uint32_t)(t->lbn_per_track + t->rbns); }

/* Wait from time t until block slot s of a track starts under the heads. */
static uint64_t rot_wait(const uda50 *d, int unit, uint64_t t, uint32_t s)
{
    const ra_type *ty = d->unit[unit].type;
    uint64_t rev = ty->rev_ns, want = (uint64_t)s * slot_ns(ty);
    uint64_t angle = (t + (uint64_t)unit * (rev / 4)) % rev;
    return (want + rev - angle) % rev;
}

/* The drive's time from t0 to move nblk blocks from lbn (seek, rotation,
 * sectors); the arm ends at the last block's cylinder. */
static uint64_t mechanism_ns(uda50 *d, int unit, uint64_t t0, uint32_t lbn, uint32_t nblk)
{
    uda_unit *un = &d->unit[unit];
    const ra_type *ty = un->type;
    uint32_t per_cyl = lbn_per_cyl(ty);
    uint32_t c = lbn / per_cyl, h = (lbn % per_cyl) / ty->lbn_per_track, s = lbn % ty->lbn_per_track;
    uint64_t t = t0;
    if (c != un->cyl) {
        un->st.seeks++;
        un->st.cylinders += c > un->cyl ? c - un->cyl : un->cyl - c;
        t += seek_ns(ty, un->cyl, c);
    }
    while (nblk) {
        t += rot_wait(d, unit, t, s);
        uint32_t k = ty->lbn_per_track - s;
        if (k > nblk)
            k = nblk;
        t += k * slot_ns(ty);
        nblk -= k;
        s = 0;
        if (++h == ty->tracks) {
            h = 0;
            if (nblk) {
                t += seek_ns(ty, c, c + 1);
                c++;
            }
        }
    }
    un->cyl = c;
    return t - t0;
}

/* ------------------------------------------------------- end messages */

/* An end message for cmd with this status: the common header. */
static void end_header(uint8_t *msg, const uint8_t *cmd, uint8_t endcode, uint16_t status)
{
    memset(msg, 0, MSCP_MAX_COMMAND);
    memcpy(msg + MSCP_CMDREF, cmd + MSCP_CMDREF, 4);
    memcpy(msg + MSCP_UNIT, cmd + MSCP_UNIT, 2);
    msg[MSCP_OPCODE] = endcode;
    le16_put(msg + MSCP_STATUS, status);
}

static void unit_identifier(const uda50 *d, int unit, uint8_t *p)
{
    /* Serial number: the controller's CSR and the unit, so that two
     * drives never share one. */
    uint32_t serial = ((d->csr & 0xFFFFu) << 4) | (uint32_t)unit;
    le32_put(p, serial);
    le16_put(p + 4, 0);
    p[6] = d->unit[unit].type->model;
    p[7] = MSCP_CLASS_DISK;
}

static uint32_t media_id(const ra_type *t) { return MSCP_MEDIA_ID('D', 'U', 'R', 'A', 0, t->number); }

static uint16_t unit_flags(const uda_unit *un)
{
    uint16_t f = 0;
    if (un->bd->read_only)
        f |= MSCP_UF_WRTPH;
    if (un->sw_wp)
        f |= MSCP_UF_WRTPS;
    if (un->type->number == 60)
        f |= MSCP_UF_RMVBL;   /* the RA60's pack is removable */
    return f;
}

/* The unit part shared by ONLINE, SET UNIT CHARACTERISTICS and GET UNIT
 * STATUS end messages. */
static void unit_common(const uda50 *d, int unit, uint8_t *msg)
{
    const uda_unit *un = &d->unit[unit];
    le16_put(msg + MSCP_MULTUNT, (uint32_t)unit);
    le16_put(msg + MSCP_UNITFLGS, unit_flags(un));
    unit_identifier(d, unit, msg + MSCP_UNITID);
    le32_put(msg + MSCP_MEDIAID, media_id(un->type));
}

static uint16_t online_end(const uda50 *d, int unit, uint8_t *msg)
{
    unit_common(d, unit, msg);
    le32_put(msg + MSCP_UNTSIZE, d->unit[unit].type->lbns);
    le32_put(msg + MSCP_VOLSER, 0x1000u + (uint32_t)unit);
    return MSCP_ONLINE_BYTES;
}

static uint16_t unit_status_end(const uda50 *d, int unit, uint8_t *msg)
{
    const ra_type *t = d->unit[unit].type;
    unit_common(d, unit, msg);
    le16_put(msg + MSCP_TRACK, t->lbn_per_track);
    le16_put(msg + MSCP_GROUP, t->tracks);
    le16_put(msg + MSCP_CYLINDER, 1);
    msg[MSCP_USVR] = 0;
    msg[MSCP_UHVR] = 0;
    le16_put(msg + MSCP_RCTSIZE, t->rct_size);
    msg[MSCP_RBNS] = t->rbns;
    msg[MSCP_RCTCPYS] = t->rct_copies;
    return MSCP_GTUNT_BYTES;
}

static int unit_exists(const uda50 *d, uint32_t unit) { return unit < UDA50_UNITS && d->unit[unit].type; }

/* --------------------------------------------------------- commands */

static uda_op *new_op(uda50 *d)
{
    for (int i = 0; i < UDA50_MAX_OPS; i++)
        if (!d->ops[i].used) {
            memset(&d->ops[i], 0, sizeof d->ops[i]);
            d->ops[i].used = 1;
            d->ops[i].seq = d->next_seq++;
            return &d->ops[i];
        }
    return NULL;
}

static int ops_full(const uda50 *d)
{
    for (int i = 0; i < UDA50_MAX_OPS; i++)
        if (!d->ops[i].used)
            return 0;
    return 1;
}

/* When a unit's sequential command of `busy` ns (after the controller's
 * overhead and the unit's earlier commands) ends. */
static uint64_t sequential_due(uda50 *d, int unit, uint64_t busy)
{
    uint64_t start = now_ns(d) + UDA50_CMD_NS;
    uda_unit *un = &d->unit[unit];
    if (un->busy_until > start)
        start = un->busy_until;
    un->busy_until = start + busy;
    return un->busy_until;
}

/* A transfer-class command (READ, WRITE, COMPARE, ACCESS, ERASE):
 * decide its outcome and timing. */
static void accept_transfer(uda50 *d, uda_op *op, uint8_t opcode)
{
    const uint8_t *cmd = op->cmd;
    uint8_t *msg = op->msg;
    uint32_t unit = get16(cmd + MSCP_UNIT);
    uint32_t count = le32_get(cmd + MSCP_BYTECNT), buffer = le32_get(cmd + MSCP_BUFFER), lbn = le32_get(cmd + MSCP_LBN);
    uint8_t endcode = (uint8_t)(opcode | MSCP_OP_END);
    op->msg_len = MSCP_XFER_BYTES;
    op->due = now_ns(d) + UDA50_CMD_NS;
    if (!unit_exists(d, unit)) {
        end_header(msg, cmd, endcode, MSCP_ST_OFFLN | MSCP_SC_OFFLN_UNKNOWN);
        return;
    }
    uda_unit *un = &d->unit[unit];
    op->unit = (int)unit;
    un->st.commands++;
    if (!un->online) {
        end_header(msg, cmd, endcode, MSCP_ST_AVLBL);
        return;
    }
    uint32_t nblk = count / 512u + (count % 512u != 0);
    if (lbn >= un->type->lbns && !(count == 0 && lbn == un->type->lbns)) {
        end_header(msg, cmd, endcode, MSCP_ICMD_AT(MSCP_LBN));
        return;
    }
    if (nblk > un->type->lbns - lbn) {
        end_header(msg, cmd, endcode, MSCP_ICMD_AT(MSCP_BYTECNT));
        return;
    }
    int writes = opcode == MSCP_OP_WRITE || opcode == MSCP_OP_ERASE;
    if (writes && (un->bd->read_only || un->sw_wp)) {
        end_header(msg, cmd, endcode, MSCP_ST_WRTPR | (un->bd->read_only ? MSCP_SC_WRTPR_HW : MSCP_SC_WRTPR_SW));
        return;
    }
    int moves_host_data = opcode == MSCP_OP_READ || opcode == MSCP_OP_WRITE || opcode == MSCP_OP_COMP;
    if (moves_host_data && ((buffer & 1u) || (count & 1u))) {
        end_header(msg, cmd, endcode, MSCP_ST_HSTBF | MSCP_SUBCODE((buffer & 1u) ? 1 : 2));
        return;
    }
    end_header(msg, cmd, endcode, MSCP_ST_SUCC);
    le32_put(msg + MSCP_BYTECNT, count);
    switch (opcode) {
    case MSCP_OP_READ: op->action = DO_READ; break;
    case MSCP_OP_WRITE: op->action = DO_WRITE; break;
    case MSCP_OP_COMP: op->action = DO_COMPARE; break;
    case MSCP_OP_ERASE: op->action = DO_ERASE; break;
    default: op->action = DO_NOTHING; break;   /* ACCESS: the blocks are read and checked */
    }
    uint64_t start = now_ns(d) + UDA50_CMD_NS;
    if (un->busy_until > start)
        start = un->busy_until;
    uint64_t busy = mechanism_ns(d, (int)unit, start, lbn, nblk);
    un->busy_until = start + busy;
    un->st.busy_ns += busy;
    op->start = start;
    op->due = un->busy_until;
}

/* The unit commands that are not transfers. */
static void accept_unit_command(uda50 *d, uda_op *op, uint8_t opcode)
{
    const uint8_t *cmd = op->cmd;
    uint8_t *msg = op->msg;
    uint32_t unit = get16(cmd + MSCP_UNIT);
    uint16_t mods = get16(cmd + MSCP_MODIFIER);
    uint8_t endcode = (uint8_t)(opcode | MSCP_OP_END);
    op->due = now_ns(d) + UDA50_CMD_NS;
    op->msg_len = MSCP_HEADER_BYTES;
    if (opcode == MSCP_OP_GTUNT && (mods & MSCP_MD_NXUNT) && !unit_exists(d, unit)) {
        /* The next unit up, or (past the last) the lowest: hosts walk the
         * units this way and stop when the number goes down. */
        uint32_t next = UDA50_UNITS;
        for (uint32_t u = 0; u < UDA50_UNITS && next == UDA50_UNITS; u++)
            if (u > unit && unit_exists(d, u))
                next = u;
        for (uint32_t u = 0; u < UDA50_UNITS && next == UDA50_UNITS; u++)
            if (unit_exists(d, u))
                next = u;
        if (next < UDA50_UNITS)
            unit = next;
    }
    if (!unit_exists(d, unit)) {
        end_header(msg, cmd, endcode, MSCP_ST_OFFLN | MSCP_SC_OFFLN_UNKNOWN);
        le16_put(msg + MSCP_UNIT, unit);
        op->msg_len = opcode == MSCP_OP_GTUNT ? MSCP_GTUNT_BYTES : MSCP_HEADER_BYTES;
        return;
    }
    uda_unit *un = &d->unit[unit];
    op->unit = (int)unit;
    un->st.commands++;
    switch (opcode) {
    case MSCP_OP_GTUNT:
        end_header(msg, cmd, endcode, un->online ? MSCP_ST_SUCC : MSCP_ST_AVLBL);
        le16_put(msg + MSCP_UNIT, unit);
        op->msg_len = unit_status_end(d, (int)unit, msg);
        return;
    case MSCP_OP_ONLIN:
    case MSCP_OP_STUNT: {
        uint16_t status = MSCP_ST_SUCC;
        if (opcode == MSCP_OP_STUNT && !un->online) {
            status = MSCP_ST_AVLBL;
        } else {
            if (opcode == MSCP_OP_ONLIN && un->online)
                status = MSCP_ST_SUCC | MSCP_SC_SUCC_ONLINE;
            un->online = 1;
            if (mods & MSCP_MD_STWRP)
                un->sw_wp = (get16(cmd + MSCP_UNITFLGS) & MSCP_UF_WRTPS) != 0;
        }
        end_header(msg, cmd, endcode, status);
        op->msg_len = online_end(d, (int)unit, msg);
        op->due = sequential_due(d, (int)unit, 0);
        return;
    }
    case MSCP_OP_AVAIL:
        un->online = 0;
        end_header(msg, cmd, endcode, MSCP_ST_SUCC);
        op->due = sequential_due(d, (int)unit, 0);
        return;
    case MSCP_OP_DTACP:
        end_header(msg, cmd, endcode, MSCP_ST_SUCC);
        return;
    default:   /* FLUSH, REPLACE, COMPARE CONTROLLER DATA: nothing to do here */
        end_header(msg, cmd, endcode, un->online ? MSCP_ST_SUCC : MSCP_ST_AVLBL);
        if (opcode == MSCP_OP_REPLC || opcode == MSCP_OP_CMPCD)
            op->msg_len = MSCP_XFER_BYTES;
        op->due = sequential_due(d, (int)unit, 0);
        return;
    }
}

static void accept_stcon(uda50 *d, uda_op *op)
{
    const uint8_t *cmd = op->cmd;
    uint8_t *msg = op->msg;
    uint8_t endcode = MSCP_OP_STCON | MSCP_OP_END;
    op->due = now_ns(d) + UDA50_CMD_NS;
    op->msg_len = MSCP_STCON_BYTES;
    if (get16(cmd + MSCP_VERSION) != 0) {
        end_header(msg, cmd, endcode, MSCP_ICMD_AT(MSCP_VERSION));
        return;
    }
    d->cntflgs = get16(cmd + MSCP_CNTFLGS) & (MSCP_CF_ATTN | MSCP_CF_MISC | MSCP_CF_OTHER | MSCP_CF_THIS);
    end_header(msg, cmd, endcode, MSCP_ST_SUCC);
    le16_put(msg + MSCP_CNTFLGS, d->cntflgs);
    le16_put(msg + MSCP_HSTTMO, UDA50_CNT_TIMEOUT);
    le32_put(msg + MSCP_CNTID, d->csr & 0xFFFFu);
    msg[MSCP_CNTID + 6] = UDA50_MSCP_MODEL;
    msg[MSCP_CNTID + 7] = MSCP_CLASS_CONTROLLER;
    msg[MSCP_CNTSVR] = UDA50_SW_VERSION;
    msg[MSCP_CNTHVR] = UDA50_HW_VERSION;
}

/* The outstanding command with reference number ref (not `self`), or NULL. */
static uda_op *find_outstanding(uda50 *d, const uda_op *self, uint32_t ref)
{
    for (int i = 0; i < UDA50_MAX_OPS; i++)
        if (d->ops[i].used && &d->ops[i] != self && le32_get(d->ops[i].cmd + MSCP_CMDREF) == ref)
            return &d->ops[i];
    return NULL;
}

static void accept_command(uda50 *d, const uint8_t *text, uint16_t len)
{
    uda_op *op = new_op(d);
    if (!op)
        return;   /* polling stops before this can happen */
    memcpy(op->cmd, text, len);
    op->unit = -1;
    uint8_t opcode = op->cmd[MSCP_OPCODE];
    if (len < MSCP_HEADER_BYTES) {
        end_header(op->msg, op->cmd, MSCP_OP_END, MSCP_ICMD_AT(0));
        op->msg_len = MSCP_HEADER_BYTES;
        op->due = now_ns(d) + UDA50_CMD_NS;
        return;
    }
    switch (opcode) {
    case MSCP_OP_READ:
    case MSCP_OP_WRITE:
    case MSCP_OP_COMP:
    case MSCP_OP_ACCES:
    case MSCP_OP_ERASE:
        accept_transfer(d, op, opcode);
        break;
    case MSCP_OP_GTUNT:
    case MSCP_OP_ONLIN:
    case MSCP_OP_STUNT:
    case MSCP_OP_AVAIL:
    case MSCP_OP_DTACP:
    case MSCP_OP_FLUSH:
    case MSCP_OP_REPLC:
    case MSCP_OP_CMPCD:
        accept_unit_command(d, op, opcode);
        break;
    case MSCP_OP_STCON:
        accept_stcon(d, op);
        break;
    case MSCP_OP_GTCMD:
    case MSCP_OP_ABORT:
        /* Looked at when they complete (below). */
        end_header(op->msg, op->cmd, (uint8_t)(opcode | MSCP_OP_END), MSCP_ST_SUCC);
        memcpy(op->msg + MSCP_OUTREF, op->cmd + MSCP_OUTREF, 4);
        op->msg_len = opcode == MSCP_OP_GTCMD ? MSCP_CMDSTS + 4 : MSCP_OUTREF + 4;
        op->due = now_ns(d) + UDA50_CMD_NS;
        break;
    default:
        /* Not an opcode this server knows: the end message carries only
         * the end flag, pointing at the opcode field. */
        end_header(op->msg, op->cmd, MSCP_OP_END, MSCP_ICMD_AT(MSCP_OPCODE));
        op->msg_len = MSCP_HEADER_BYTES;
        op->due = now_ns(d) + UDA50_CMD_NS;
        break;
    }
}

/* Take every command the host has given the port.  */
static void poll_commands(uda50 *d)
{
    d->poll_blocked = 0;
    while (d->state == PORT_RUN) {
        if (ops_full(d)) {
            d->poll_blocked = 1;
            return;
        }
        uint32_t da = cmd_desc_addr(d, d->cmd_i), desc, prev;
        if (read_desc(d, da, &desc) != 0) {
            fatal(d, FATAL_RING_READ);
            return;
        }
        if (!(desc & DESC_OWN))
            return;
        /* The ring was full if the slot before this one is the port's too. */
        if (read_desc(d, cmd_desc_addr(d, (d->cmd_i + d->ncmd - 1) % d->ncmd), &prev) != 0) {
            fatal(d, FATAL_RING_READ);
            return;
        }
        int was_full = d->ncmd == 1 || (prev & DESC_OWN);
        uint32_t text = desc & DESC_ADDR;
        uint8_t env[MSCP_ENV_BYTES], msg[MSCP_MAX_COMMAND];
        memset(msg, 0, sizeof msg);
        if (dma_in(d, text - MSCP_ENV_BYTES, env, MSCP_ENV_BYTES) != 0) {
            fatal(d, FATAL_PACKET_READ);
            return;
        }
        uint16_t len = get16(env);
        if (len > MSCP_MAX_COMMAND)
            len = MSCP_MAX_COMMAND;
        if (len && dma_in(d, text, msg, len) != 0) {
            fatal(d, FATAL_PACKET_READ);
            return;
        }
        if (env[3] != 0) {
            fatal(d, FATAL_CONNECTION);
            return;
        }
        if (write_desc(d, da, desc & ~DESC_OWN) != 0) {
            fatal(d, FATAL_RING_WRITE);
            return;
        }
        d->cmd_i = (d->cmd_i + 1) % d->ncmd;
        if ((desc & DESC_FLAG) && was_full && ring_transition(d, 0) != 0)
            return;
        if (d->credits_held > 0)
            d->credits_held--;
        if ((env[2] >> 4) == MSCP_MT_SEQ)
            accept_command(d, msg, len);
    }
}

/* ---------------------------------------------------------- completion */

/* Move an op's data (its outcome was decided when it was accepted; only
 * host memory can still fail).  Updates the end message. */
static void run_transfer(uda50 *d, uda_op *op)
{
    uda_unit *un = &d->unit[op->unit];
    uint32_t count = le32_get(op->cmd + MSCP_BYTECNT), ua = le32_get(op->cmd + MSCP_BUFFER) & DESC_ADDR;
    uint64_t off = (uint64_t)le32_get(op->cmd + MSCP_LBN) * 512u;
    uint8_t sector[512], host[512];
    uint32_t done = 0;
    uint16_t status = MSCP_ST_SUCC;
    while (done < count) {
        uint32_t n = count - done < 512u ? count - done : 512u;
        switch (op->action) {
        case DO_READ:
        case DO_COMPARE:
            if (un->bd->read(un->bd, off + done, sector, 512) != 0) {
                status = MSCP_ST_DRIVE;
                break;
            }
            if (op->action == DO_READ) {
                if (uba_dma_write(d->u, ua + done, sector, n) != 0)
                    status = MSCP_ST_HSTBF | MSCP_SC_HSTBF_NXM;
                else
                    un->st.bytes_read += n;
            } else if (uba_dma_read(d->u, ua + done, host, n) != 0) {
                status = MSCP_ST_HSTBF | MSCP_SC_HSTBF_NXM;
            } else if (memcmp(host, sector, n) != 0) {
                status = MSCP_ST_COMP;
            }
            break;
        case DO_WRITE:
            memset(sector, 0, sizeof sector);   /* a partial last block is padded with zeros */
            if (uba_dma_read(d->u, ua + done, sector, n) != 0) {
                status = MSCP_ST_HSTBF | MSCP_SC_HSTBF_NXM;
                break;
            }
            if (un->bd->write(un->bd, off + done, sector, 512) != 0)
                status = MSCP_ST_DRIVE;
            else
                un->st.bytes_written += n;
            break;
        case DO_ERASE:
            memset(sector, 0, sizeof sector);
            if (un->bd->write(un->bd, off + done, sector, 512) != 0)
                status = MSCP_ST_DRIVE;
            break;
        default:
            break;
        }
        if (status != MSCP_ST_SUCC)
            break;
        done += n;
    }
    if (op->action == DO_READ)
        un->st.reads++;
    if (op->action == DO_WRITE)
        un->st.writes++;
    if (op->action == DO_READ || op->action == DO_WRITE)
        un->st.transfers++;
    le16_put(op->msg + MSCP_STATUS, status);
    le32_put(op->msg + MSCP_BYTECNT, done);
    if (status != MSCP_ST_SUCC && status != MSCP_ST_COMP)
        le32_put(op->msg + MSCP_LBN, le32_get(op->cmd + MSCP_LBN) + done / 512u);   /* first bad block */
}

static void complete(uda50 *d, uda_op *op)
{
    uint8_t opcode = op->cmd[MSCP_OPCODE];
    uint16_t status = get16(op->msg + MSCP_STATUS);
    if ((opcode == MSCP_OP_GTCMD || opcode == MSCP_OP_ABORT) && op->msg[MSCP_OPCODE] == (opcode | MSCP_OP_END)) {
        uda_op *o = find_outstanding(d, op, le32_get(op->cmd + MSCP_OUTREF));
        if (opcode == MSCP_OP_GTCMD) {
            /* Progress: microseconds left, plus one (0 means unknown). */
            uint64_t now = now_ns(d);
            le32_put(op->msg + MSCP_CMDSTS, o ? (uint32_t)((o->due > now ? o->due - now : 0) / 1000u + 1u) : 0u);
        } else if (o) {
            le16_put(o->msg + MSCP_STATUS, MSCP_ST_ABRTD);
            if (o->msg_len >= MSCP_XFER_BYTES && o->action != DO_NOTHING)
                le32_put(o->msg + MSCP_BYTECNT, 0);
            queue_response(d, o->msg, o->msg_len, MSCP_MT_SEQ);
            o->used = 0;
        }
    } else if (status == MSCP_ST_SUCC && op->action != DO_NOTHING) {
        run_transfer(d, op);
    }
    queue_response(d, op->msg, op->msg_len, MSCP_MT_SEQ);
    op->used = 0;
}

static void fire(vax_machine *m, void *ctx)
{
    (void)m;
    uda50 *d = ctx;
    uint64_t now = now_ns(d);
    if (d->step_due && d->step_due <= now) {
        d->step_due = 0;
        d->state = d->next_state;
        d->sa = d->next_sa;
        if (d->state != PORT_STEP1)
            interrupt(d);
    }
    while (d->state == PORT_RUN) {
        uda_op *best = NULL;
        for (int i = 0; i < UDA50_MAX_OPS; i++) {
            uda_op *o = &d->ops[i];
            if (o->used && o->due <= now && (!best || o->due < best->due || (o->due == best->due && o->seq < best->seq)))
                best = o;
        }
        if (!best)
            break;
        complete(d, best);
    }
    if (d->state == PORT_RUN) {
        if (d->retry_due && d->retry_due <= now)
            d->retry_due = 0;
        send_responses(d);
        if (d->state == PORT_RUN && ((d->poll_due && d->poll_due <= now) || (d->poll_blocked && !ops_full(d)))) {
            d->poll_due = 0;
            poll_commands(d);
        }
    }
    reschedule(d);
}

/* ----------------------------------------------------------- registers */

static int uda_read(void *dev, uint32_t off, int size, uint32_t *value)
{
    (void)size;
    uda50 *d = dev;
    if (off & 2) {
        *value = d->sa;
        return 0;
    }
    /* IP: the host asks the port to look at its rings. */
    *value = 0;
    if (d->state == PORT_RUN) {
        if (!d->poll_due)
            d->poll_due = now_ns(d) + UDA50_POLL_NS;
        if (d->rq_count && !d->retry_due)
            d->retry_due = now_ns(d) + UDA50_POLL_NS;
        reschedule(d);
    }
    return 0;
}

static void sa_write(uda50 *d, uint16_t v)
{
    if (d->step_due)
        return;   /* between steps: the port is not listening */
    switch (d->state) {
    case PORT_STEP1:
        d->step1 = v;
        if (v & SA_W_WRAP) {
            d->state = PORT_WRAP;
            d->sa = v;
            return;
        }
        d->ie = (v & SA_W_IE) != 0;
        d->vector = (uint16_t)((v & 0177u) << 2);
        d->ncmd = 1u << ((v >> 11) & 7u);
        d->nrsp = 1u << ((v >> 8) & 7u);
        next_step(d, PORT_STEP2, (uint16_t)(SA_S2 | (v >> 8)), UDA50_STEP_NS);
        return;
    case PORT_STEP2:
        d->ringbase = v & 0xFFFEu;
        d->pi = (v & SA_W_PI) != 0;
        next_step(d, PORT_STEP3, (uint16_t)(SA_S3 | (d->step1 & 0377u)), UDA50_STEP_NS);
        return;
    case PORT_STEP3: {
        d->ringbase = (d->ringbase | ((uint32_t)(v & 077777u) << 16)) & DESC_ADDR;
        /* The port clears the communications area: both transition
         * indicators and every descriptor (all the host's). */
        uint32_t bytes = 4u + 4u * (d->ncmd + d->nrsp);
        uint8_t zero[4 + 4 * 256];
        memset(zero, 0, bytes);
        if (dma_out(d, d->ringbase - 4u, zero, bytes) != 0) {
            fatal(d, FATAL_RING_WRITE);
            return;
        }
        d->cmd_i = d->rsp_i = 0;
        next_step(d, PORT_STEP4, (uint16_t)(SA_S4 | UDA50_PORT_MODEL << 4 | UDA50_UCODE_VERSION), UDA50_STEP_NS);
        return;
    }
    case PORT_STEP4:
        if (v & SA_W_GO) {
            d->state = PORT_RUN;
            d->sa = 0;
        }
        return;
    case PORT_WRAP:
        d->sa = v;   /* diagnostic wrap: SA echoes what the host writes */
        return;
    default:
        return;   /* running: a purge-complete signal (no purge is ever asked for) */
    }
}

static int uda_write(void *dev, uint32_t off, int size, uint32_t value)
{
    uda50 *d = dev;
    uint16_t v = (uint16_t)value;
    if (size == 1)   /* a byte write: the other byte reads as zero */
        v = (off & 1) ? (uint16_t)((value & 0xFF) << 8) : (uint16_t)(value & 0xFF);
    if (off & 2)
        sa_write(d, v);
    else
        hard_init(d);
    return 0;
}

static void uda_reset(void *dev) { hard_init(dev); }

/* ------------------------------------------------------------ host side */

static void uda_destroy(void *obj)
{
    uda50 *d = obj;
    machine_event_cancel(d->m, &d->ev);
    free(d);
}

uda50 *uda50_create(uba *u, uint32_t csr)
{
    if (!u)
        return NULL;
    uda50 *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->u = u;
    d->m = uba_machine(u);
    d->csr = csr;
    d->ev.fire = fire;
    d->ev.ctx = d;
    /* As after power-up: initialised, waiting in step 1. */
    d->state = PORT_STEP1;
    d->sa = SA_S1 | SA_DI;
    d->credits_held = 1;
    if (uba_own(u, d, uda_destroy) != 0) {
        free(d);
        return NULL;
    }
    if (uba_add_device(u, csr, 4, d, uda_read, uda_write, uda_reset) != 0) {
        uba_disown(u, d);
        free(d);
        return NULL;
    }
    return d;
}

int uda50_attach(uda50 *d, int unit, const char *type, vax_blockdev *bd, char *err, size_t errlen)
{
    const ra_type *t = ra_type_find(type);
    if (!t) {
        snprintf(err, errlen, "unknown drive type \"%s\" (known: %s)", type ? type : "", ra_type_names());
        return -1;
    }
    if (unit < 0 || unit >= UDA50_UNITS) {
        snprintf(err, errlen, "ra%d: the UDA50 takes units 0 to %d", unit, UDA50_UNITS - 1);
        return -1;
    }
    if (!bd || !bd->read || !bd->write) {
        snprintf(err, errlen, "ra%d: no pack", unit);
        return -1;
    }
    if (bd->size != ra_type_bytes(t)) {
        snprintf(err, errlen, "ra%d: an %s pack is %llu bytes (%u blocks), the image has %llu", unit, t->name,
                 (unsigned long long)ra_type_bytes(t), t->lbns, (unsigned long long)bd->size);
        return -1;
    }
    uda_unit *un = &d->unit[unit];
    memset(un, 0, sizeof *un);
    un->type = t;
    un->bd = bd;
    return 0;
}

int uda50_disk_stats_get(const uda50 *d, int unit, uda50_disk_stats *out)
{
    if (!d || unit < 0 || unit >= UDA50_UNITS || !d->unit[unit].type)
        return -1;
    *out = d->unit[unit].st;
    return 0;
}

uint16_t uda50_sa(const uda50 *d) { return d->sa; }
int uda50_running(const uda50 *d) { return d->state == PORT_RUN; }

_Static_assert(sizeof(uda50_disk_stats) % sizeof(uint64_t) == 0, "uda50_disk_stats holds only uint64_t counters");

void uda50_snap(uda50 *d, vax_snap *s)
{
    snap_same_u32(s, d->csr, "UDA50 address");
    int st = (int)d->state, next = (int)d->next_state;
    snap_int(s, &st, PORT_RESET, PORT_FATAL);
    snap_int(s, &next, PORT_RESET, PORT_FATAL);
    d->state = (port_state)st;
    d->next_state = (port_state)next;
    snap_u16(s, &d->sa);
    snap_u16(s, &d->next_sa);
    snap_u64(s, &d->step_due);
    snap_u16(s, &d->step1);
    snap_int(s, &d->ie, 0, 1);
    snap_u16(s, &d->vector);
    snap_u32(s, &d->ringbase);
    snap_u32(s, &d->ncmd);
    snap_u32(s, &d->nrsp);
    snap_u32(s, &d->cmd_i);
    snap_u32(s, &d->rsp_i);
    if (snap_restoring(s) && (d->ncmd > 128 || d->nrsp > 128 || (d->ncmd && d->cmd_i >= d->ncmd) ||
                              (d->nrsp && d->rsp_i >= d->nrsp)))
        snap_fail(s, "snapshot damaged: UDA50 rings");
    snap_int(s, &d->pi, 0, 1);
    snap_u64(s, &d->poll_due);
    snap_u64(s, &d->retry_due);
    snap_int(s, &d->poll_blocked, 0, 1);
    snap_int(s, &d->credits_held, 0, 1 << 16);
    snap_u16(s, &d->cntflgs);
    for (int i = 0; i < UDA50_MAX_OPS && !snap_failed(s); i++) {
        uda_op *o = &d->ops[i];
        snap_int(s, &o->used, 0, 1);
        snap_u64(s, &o->due);
        snap_u64(s, &o->seq);
        snap_u64(s, &o->start);
        snap_bytes(s, o->cmd, sizeof o->cmd);
        snap_bytes(s, o->msg, sizeof o->msg);
        snap_u16(s, &o->msg_len);
        int action = (int)o->action;
        snap_int(s, &action, DO_NOTHING, DO_ERASE);
        o->action = (op_action)action;
        snap_int(s, &o->unit, -1, 0xFFFF);
        if (snap_restoring(s) && o->msg_len > sizeof o->msg)
            snap_fail(s, "snapshot damaged: UDA50 end message");
    }
    snap_u64(s, &d->next_seq);
    for (int i = 0; i < UDA50_RQ && !snap_failed(s); i++) {
        snap_bytes(s, d->rq[i].msg, sizeof d->rq[i].msg);
        snap_u16(s, &d->rq[i].len);
        snap_u8(s, &d->rq[i].type);
        if (snap_restoring(s) && d->rq[i].len > sizeof d->rq[i].msg)
            snap_fail(s, "snapshot damaged: UDA50 response");
    }
    snap_int(s, &d->rq_head, 0, UDA50_RQ - 1);
    snap_int(s, &d->rq_count, 0, UDA50_RQ);
    for (int i = 0; i < UDA50_UNITS && !snap_failed(s); i++) {
        uda_unit *u = &d->unit[i];
        snap_same_string(s, u->type ? u->type->name : "", "RA drive type");
        snap_int(s, &u->online, 0, 1);
        snap_int(s, &u->sw_wp, 0, 1);
        snap_u64(s, &u->busy_until);
        snap_u32(s, &u->cyl);
        uint64_t w[sizeof(uda50_disk_stats) / sizeof(uint64_t)];
        memcpy(w, &u->st, sizeof w);
        snap_u64_array(s, w, sizeof w / sizeof w[0]);
        if (snap_restoring(s) && !snap_failed(s))
            memcpy(&u->st, w, sizeof w);
    }
    snap_event(s, &d->ev);
}
