/*
 * dz11.c — the DZ11 terminal multiplexer.  See dz11.h.
 */
#include "unibus/dz11.h"

#include <stdlib.h>
#include <string.h>

#include "snapshot/snap.h"

#define DZ_LINES 8
#define DZ_SILO 64
#define DZ_ALARM 16
#define DZ_BR 5

/* CSR */
#define CSR_MAINT 0000010u
#define CSR_CLR 0000020u
#define CSR_MSE 0000040u
#define CSR_RIE 0000100u
#define CSR_RDONE 0000200u
#define CSR_TLINE 0003400u
#define CSR_SAE 0010000u
#define CSR_SA 0020000u
#define CSR_TIE 0040000u
#define CSR_TRDY 0100000u
#define CSR_WRITABLE (CSR_MAINT | CSR_MSE | CSR_RIE | CSR_SAE | CSR_TIE)
/* RBUF */
#define RBUF_VALID 0100000u
#define RBUF_OVERRUN 0040000u
/* LPR */
#define LPR_RXON 0010000u

/* Speeds by LPR code, in tenths of a baud (134.5 baud is code 3). */
static const uint32_t speed_x10[16] = {500,   750,   1100,  1345,  1500,  3000,  6000,  12000,
                                       18000, 20000, 24000, 36000, 48000, 72000, 96000, 192000};
#define DEFAULT_SPEED_X10 96000u

typedef struct {
    uint16_t lpr;          /* as written (bits 12:0) */
    int programmed;        /* an LPR has been written since CLR */
    /* transmitter */
    int tx_busy;
    uint8_t tx_char;
    uint64_t tx_done;      /* when the character has left */
    /* receiver: host-side queue of characters still on the wire */
    uint8_t *q;
    uint32_t qhead, qlen, qcap;
    uint64_t rx_next;      /* when the queue's first character has arrived */
    int overrun;           /* a character was lost: flag the next one */
} dz_line;

struct dz11 {
    uba *u;
    vax_machine *m;
    uint16_t vector;
    uint16_t csr;          /* writable bits only; the rest is computed */
    uint8_t tcr, dtr, brk;
    uint16_t silo[DZ_SILO];
    int silo_head, silo_count;
    int alarm;             /* characters entered since RBUF was last read */
    int trdy, tline;       /* scanner state */
    int last_tline;        /* round-robin start */
    int rx_cond, tx_cond;  /* interrupt conditions as last seen */
    dz_line line[DZ_LINES];
    vax_event ev;
    void (*out)(void *ctx, int line, uint8_t ch);
    void *out_ctx;
    uint64_t chars_in, chars_out;   /* statistics, all lines */
};

/* -------------------------------------------------------------- timing */

static uint32_t line_speed_x10(const dz_line *l)
{
    if (!l->programmed || !(l->lpr & LPR_RXON))
        return DEFAULT_SPEED_X10;
    return speed_x10[(l->lpr >> 8) & 15];
}

/* One character's time on the wire at the line's settings, in ns. */
static uint64_t char_time_ns(const dz_line *l, int for_receive)
{
    uint32_t lpr = l->lpr;
    uint32_t data_bits = 5 + ((lpr >> 3) & 3);
    uint32_t half_bits = 2 * (1 + data_bits + ((lpr & 0100) ? 1 : 0));   /* start, data, parity */
    if (lpr & 040)
        half_bits += data_bits == 5 ? 3 : 4;   /* 1.5 or 2 stop bits */
    else
        half_bits += 2;
    uint32_t sx10 = for_receive ? line_speed_x10(l) : speed_x10[(lpr >> 8) & 15];
    /* ns = half_bits / 2 / (sx10 / 10) * 1e9 */
    return (uint64_t)half_bits * 5000000000ull / sx10;
}

static uint8_t char_mask(const dz_line *l) { return (uint8_t)(0xFFu >> (3 - ((l->lpr >> 3) & 3))); }

/* --------------------------------------------------------- state logic */

static uint16_t csr_value(const dz11 *dz)
{
    uint16_t v = dz->csr;
    if (dz->silo_count)
        v |= CSR_RDONE;
    if ((dz->csr & CSR_SAE) && dz->alarm >= DZ_ALARM)
        v |= CSR_SA;
    if (dz->trdy)
        v |= (uint16_t)(CSR_TRDY | ((unsigned)dz->tline << 8));
    return v;
}

/* The transmitter scanner: keep the line it stopped at while it still
 * needs service, else look for the next one round robin. */
static void scan(dz11 *dz)
{
    if (!(dz->csr & CSR_MSE)) {
        dz->trdy = 0;
        return;
    }
    if (dz->trdy && (dz->tcr & (1u << dz->tline)) && !dz->line[dz->tline].tx_busy)
        return;
    dz->trdy = 0;
    for (int i = 1; i <= DZ_LINES; i++) {
        int n = (dz->last_tline + i) % DZ_LINES;
        if ((dz->tcr & (1u << n)) && !dz->line[n].tx_busy) {
            dz->trdy = 1;
            dz->tline = n;
            return;
        }
    }
}

/* Recompute TRDY and both interrupt conditions; request or withdraw. */
static void update(dz11 *dz)
{
    scan(dz);
    uint16_t csr = csr_value(dz);
    int rx = (csr & CSR_RIE) && ((csr & CSR_SAE) ? (csr & CSR_SA) != 0 : (csr & CSR_RDONE) != 0);
    int tx = (csr & CSR_TIE) && (csr & CSR_TRDY);
    if (rx != dz->rx_cond)
        uba_interrupt(dz->u, DZ_BR, dz->vector, rx);
    if (tx != dz->tx_cond)
        uba_interrupt(dz->u, DZ_BR, (uint16_t)(dz->vector + 4), tx);
    dz->rx_cond = rx;
    dz->tx_cond = tx;
}

static void schedule(dz11 *dz)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < DZ_LINES; i++) {
        const dz_line *l = &dz->line[i];
        if (l->tx_busy && l->tx_done < next)
            next = l->tx_done;
        if (l->qlen && l->rx_next < next)
            next = l->rx_next;
    }
    if (next == UINT64_MAX) {
        machine_event_cancel(dz->m, &dz->ev);
        return;
    }
    uint64_t now = machine_time_ns(dz->m);
    machine_event_schedule(dz->m, &dz->ev, next > now ? next - now : 0);
}

/* A character has been received on a line. */
static void receive(dz11 *dz, int n, uint8_t ch)
{
    dz_line *l = &dz->line[n];
    if (!(dz->csr & CSR_MSE) || !l->programmed || !(l->lpr & LPR_RXON))
        return;   /* nobody listening */
    if (dz->silo_count == DZ_SILO) {
        l->overrun = 1;
        return;
    }
    uint16_t v = (uint16_t)(RBUF_VALID | ((unsigned)n << 8) | (ch & char_mask(l)));
    if (l->overrun) {
        v |= RBUF_OVERRUN;
        l->overrun = 0;
    }
    dz->silo[(dz->silo_head + dz->silo_count) % DZ_SILO] = v;
    dz->silo_count++;
    if (dz->alarm < DZ_ALARM)
        dz->alarm++;
}

static void fire(vax_machine *m, void *ctx)
{
    dz11 *dz = ctx;
    uint64_t now = machine_time_ns(m);
    for (;;) {
        /* The earliest due happening: transmitters before receivers, lower
         * lines first, at equal times. */
        int which = -1, is_rx = 0;
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < DZ_LINES; i++) {
            dz_line *l = &dz->line[i];
            if (l->tx_busy && l->tx_done <= now && l->tx_done < best) {
                best = l->tx_done;
                which = i;
                is_rx = 0;
            }
        }
        for (int i = 0; i < DZ_LINES; i++) {
            dz_line *l = &dz->line[i];
            if (l->qlen && l->rx_next <= now && l->rx_next < best) {
                best = l->rx_next;
                which = i;
                is_rx = 1;
            }
        }
        if (which < 0)
            break;
        dz_line *l = &dz->line[which];
        if (is_rx) {
            dz->chars_in++;
            uint8_t ch = l->q[l->qhead];
            l->qhead = (l->qhead + 1) % l->qcap;
            l->qlen--;
            receive(dz, which, ch);
            if (l->qlen)
                l->rx_next += char_time_ns(l, 1);
        } else {
            dz->chars_out++;
            l->tx_busy = 0;
            uint8_t ch = (uint8_t)(l->tx_char & char_mask(l));
            if (dz->csr & CSR_MAINT)
                receive(dz, which, ch);
            else if (dz->out)
                dz->out(dz->out_ctx, which, ch);
        }
        update(dz);
    }
    schedule(dz);
}

/* CLR (and UNIBUS INIT, which also drops DTR). */
static void clear(dz11 *dz, int drop_dtr)
{
    dz->csr = 0;
    dz->tcr = 0;
    dz->brk = 0;
    if (drop_dtr)
        dz->dtr = 0;
    dz->silo_head = dz->silo_count = 0;
    dz->alarm = 0;
    dz->trdy = 0;
    dz->tline = 0;
    dz->last_tline = DZ_LINES - 1;
    for (int i = 0; i < DZ_LINES; i++) {
        dz_line *l = &dz->line[i];
        l->lpr = 0;
        l->programmed = 0;
        l->tx_busy = 0;
        l->overrun = 0;
    }
    update(dz);
    schedule(dz);
}

/* ----------------------------------------------------------- registers */

static int dz_read(void *dev, uint32_t off, int size, uint32_t *value)
{
    (void)size;
    dz11 *dz = dev;
    switch (off & 6) {
    case 0:
        *value = csr_value(dz);
        return 0;
    case 2: {
        uint16_t v = 0;
        if (dz->silo_count) {
            v = dz->silo[dz->silo_head];
            dz->silo_head = (dz->silo_head + 1) % DZ_SILO;
            dz->silo_count--;
        }
        dz->alarm = 0;
        *value = v;
        update(dz);
        return 0;
    }
    case 4:
        *value = (uint32_t)dz->tcr | (uint32_t)dz->dtr << 8;
        return 0;
    default:
        /* MSR: no ring; carrier wherever DTR is up. */
        *value = (uint32_t)dz->dtr << 8;
        return 0;
    }
}

static void transmit(dz11 *dz, uint8_t ch)
{
    if (!dz->trdy)
        return;   /* no line selected: the character goes nowhere */
    int n = dz->tline;
    dz_line *l = &dz->line[n];
    l->tx_char = ch;
    l->tx_busy = 1;
    l->tx_done = machine_time_ns(dz->m) + char_time_ns(l, 0);
    dz->last_tline = n;
    dz->trdy = 0;
    update(dz);
    schedule(dz);
}

static int dz_write(void *dev, uint32_t off, int size, uint32_t value)
{
    dz11 *dz = dev;
    int lo = size == 2 || !(off & 1);    /* low byte written */
    int hi = size == 2 || (off & 1);     /* high byte written */
    uint32_t lob = value & 0xFF, hib = size == 2 ? (value >> 8) & 0xFF : value & 0xFF;
    switch (off & 6) {
    case 0: {
        if (lo && (lob & CSR_CLR)) {
            clear(dz, 0);
            return 0;
        }
        uint16_t w = dz->csr;
        if (lo)
            w = (uint16_t)((w & 0xFF00) | (lob & CSR_WRITABLE));
        if (hi)
            w = (uint16_t)((w & 0x00FF) | ((hib << 8) & CSR_WRITABLE));
        dz->csr = w;
        update(dz);
        return 0;
    }
    case 2:
        if (lo) {
            /* LPR is a word register; a lone low byte writes zeros above. */
            uint32_t v = size == 2 ? value : lob;
            dz_line *l = &dz->line[v & 7];
            l->lpr = (uint16_t)(v & 017777);
            l->programmed = 1;
        }
        return 0;
    case 4:
        if (lo)
            dz->tcr = (uint8_t)lob;
        if (hi)
            dz->dtr = (uint8_t)hib;
        update(dz);
        return 0;
    default:
        if (hi)
            dz->brk = (uint8_t)hib;
        if (lo)
            transmit(dz, (uint8_t)lob);
        return 0;
    }
}

static void dz_reset(void *dev) { clear(dev, 1); }

/* ------------------------------------------------------------ host side */

void dz11_input(dz11 *dz, int line, uint8_t ch)
{
    if (!dz || line < 0 || line >= DZ_LINES)
        return;
    dz_line *l = &dz->line[line];
    if (l->qlen == l->qcap) {
        if (l->qcap >= DZ11_INPUT_QUEUE)
            return;
        uint32_t ncap = l->qcap ? l->qcap * 2 : 64;
        uint8_t *nq = malloc(ncap);
        if (!nq)
            return;
        for (uint32_t i = 0; i < l->qlen; i++)
            nq[i] = l->q[(l->qhead + i) % l->qcap];
        free(l->q);
        l->q = nq;
        l->qhead = 0;
        l->qcap = ncap;
    }
    if (l->qlen == 0)
        l->rx_next = machine_time_ns(dz->m) + char_time_ns(l, 1);
    l->q[(l->qhead + l->qlen) % l->qcap] = ch;
    l->qlen++;
    schedule(dz);
}

uint32_t dz11_input_pending(const dz11 *dz, int line)
{
    if (!dz || line < 0 || line >= DZ_LINES)
        return 0;
    return dz->line[line].qlen;
}

void dz11_stats(const dz11 *dz, uint64_t *chars_in, uint64_t *chars_out)
{
    *chars_in = dz ? dz->chars_in : 0;
    *chars_out = dz ? dz->chars_out : 0;
}

void dz11_set_output(dz11 *dz, void (*out)(void *ctx, int line, uint8_t ch), void *ctx)
{
    dz->out = out;
    dz->out_ctx = ctx;
}

static void dz_destroy(void *obj)
{
    dz11 *dz = obj;
    machine_event_cancel(dz->m, &dz->ev);
    for (int i = 0; i < DZ_LINES; i++)
        free(dz->line[i].q);
    free(dz);
}

dz11 *dz11_create(uba *u, uint32_t csr, uint16_t vector)
{
    if (!u)
        return NULL;
    dz11 *dz = calloc(1, sizeof *dz);
    if (!dz)
        return NULL;
    dz->u = u;
    dz->m = uba_machine(u);
    dz->vector = vector;
    dz->ev.fire = fire;
    dz->ev.ctx = dz;
    if (uba_own(u, dz, dz_destroy) != 0) {
        free(dz);
        return NULL;
    }
    if (uba_add_device(u, csr, 8, dz, dz_read, dz_write, dz_reset) != 0) {
        uba_disown(u, dz);
        free(dz);
        return NULL;
    }
    /* Receive interrupts outrank transmit ones within the DZ11. */
    uba_interrupt(u, DZ_BR, vector, 0);
    uba_interrupt(u, DZ_BR, (uint16_t)(vector + 4), 0);
    clear(dz, 1);
    return dz;
}

void dz11_snap(dz11 *dz, vax_snap *s)
{
    snap_u16(s, &dz->csr);
    snap_u8(s, &dz->tcr);
    snap_u8(s, &dz->dtr);
    snap_u8(s, &dz->brk);
    snap_u16_array(s, dz->silo, DZ_SILO);
    snap_int(s, &dz->silo_head, 0, DZ_SILO - 1);
    snap_int(s, &dz->silo_count, 0, DZ_SILO);
    snap_int(s, &dz->alarm, 0, DZ_ALARM);
    snap_int(s, &dz->trdy, 0, 1);
    snap_int(s, &dz->tline, 0, DZ_LINES - 1);
    snap_int(s, &dz->last_tline, 0, DZ_LINES - 1);
    snap_int(s, &dz->rx_cond, 0, 1);
    snap_int(s, &dz->tx_cond, 0, 1);
    for (int i = 0; i < DZ_LINES && !snap_failed(s); i++) {
        dz_line *l = &dz->line[i];
        snap_u16(s, &l->lpr);
        snap_int(s, &l->programmed, 0, 1);
        snap_int(s, &l->tx_busy, 0, 1);
        snap_u8(s, &l->tx_char);
        snap_u64(s, &l->tx_done);
        snap_u64(s, &l->rx_next);
        snap_int(s, &l->overrun, 0, 1);
        /* The host-side queue, oldest first: restored as a fresh buffer. */
        uint8_t *q = NULL;
        uint32_t n = l->qlen;
        if (!snap_restoring(s) && n) {
            if (!(q = malloc(n))) {
                snap_fail(s, "out of host memory for the snapshot");
                return;
            }
            for (uint32_t k = 0; k < n; k++)
                q[k] = l->q[(l->qhead + k) % l->qcap];
        }
        snap_blob(s, &q, &n, DZ11_INPUT_QUEUE);
        if (snap_restoring(s) && !snap_failed(s)) {
            free(l->q);
            l->q = q;
            l->qhead = 0;
            l->qlen = n;
            l->qcap = n;
        } else if (!snap_restoring(s)) {
            free(q);
        }
    }
    snap_event(s, &dz->ev);
    snap_u64(s, &dz->chars_in);
    snap_u64(s, &dz->chars_out);
}
