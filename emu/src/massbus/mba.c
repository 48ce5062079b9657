/*
 * mba.c — the RH780 MASSBUS adapter: its registers, the map, data
 * transfers between the drives and memory, interrupts.
 *
 * Behaviour the 4.3BSD drivers rely on:
 *   - mbafind (autoconf.c) reads each drive's DS and DT; a slot with no
 *     drive answers 0 and sets SR.NED (the "si kludge" clears NED by
 *     writing it back, reads DT, and skips the slot if NED came back);
 *     then CR = INIT, CR = IE.
 *   - mbstart writes SR = -1 (clear all), VAR, BCR = -bytes, then the
 *     drive's CS1 (stand/mba.c writes BCR before VAR: order is free).
 *   - mbintr reads SR and writes it back, reads drive 0's AS register
 *     (answered by all drives together, whether or not drive 0 exists)
 *     and writes it back to clear the attentions, then if a transfer was
 *     active calls the driver's dtint, which reads BCR (MASKREG(-bcr) is
 *     the residue) and DS/ER1/ER2.
 *   - An attention raised while a data transfer is in progress must not
 *     interrupt by itself: mbintr would take it for the end of the
 *     transfer.  So the adapter requests an interrupt when a transfer
 *     ends (DTCMP), and for ATTENTION only while no transfer is busy; the
 *     interrupt at the end of a transfer also serves the attentions that
 *     came during it (mbintr services every AS bit).  This is inferred
 *     from the driver; the RH780 manual was not available.
 *
 * The map: entry i (0x800 + 4i) maps the 512-byte page i of the 17-bit
 * transfer address in VAR; bit 31 valid, bits 20:0 the page frame.  An
 * invalid entry stops the transfer with INVMAP|DTABT; a page beyond the
 * end of memory with NRCONF|DTABT (no response from the nonexistent
 * memory).
 */
#include "massbus/mba.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/sbi.h"
#include "snapshot/snap.h"

#define NDRIVES 8
#define VAR_MASK 0x1FFFFu

struct mba {
    vax_machine *m;
    int tr, number;
    uint32_t base;
    uint32_t cr, sr, var, bcr, dr;
    uint32_t map[MBA_MAP_ENTRIES];
    int xfer_unit;       /* drive doing a data transfer, -1 if none */
    uint32_t xfer_left;  /* bytes it still has to move */
    int xfer_abort;      /* stopped by an adapter error */
    int fast;
    /* The drives, through their operations (mba.h): the adapter knows no
     * drive type. */
    struct {
        const mba_drive_ops *ops;
        void *dev;
    } drive[NDRIVES];
};

/* The attention/summary register's offset in a drive's register block:
 * every drive answers it together (the adapter does). */
#define DRIVE_AS 4

/* ------------------------------------------------------------ interrupts */

static uint32_t attention_summary(const mba *a)
{
    uint32_t as = 0;
    for (int i = 0; i < NDRIVES; i++)
        if (a->drive[i].ops && a->drive[i].ops->attention(a->drive[i].dev))
            as |= 1u << i;
    return as;
}

static void request_irq(mba *a)
{
    if (a->cr & MBACR_IE)
        machine_irq_raise(a->m, MBA_IPL, a->tr, sbi_vector(a->tr, MBA_IPL));
}

/* Withdraw a request whose cause the software has cleared before the
 * processor took it. */
static void recheck_irq(mba *a)
{
    if (!(a->cr & MBACR_IE) || (!(a->sr & MBASR_DTCMP) && attention_summary(a) == 0))
        machine_irq_clear(a->m, MBA_IPL, a->tr);
}

void mba_attention(mba *a)
{
    if (a->xfer_unit < 0)
        request_irq(a);
}

void mba_attention_cleared(mba *a) { recheck_irq(a); }

/* ------------------------------------------------------------ transfers */

int mba_xfer_begin(mba *a, int unit)
{
    if (a->xfer_unit >= 0) {
        a->sr |= MBASR_PGE;
        return -1;
    }
    a->xfer_unit = unit;
    a->xfer_left = (0u - a->bcr) & 0xFFFFu;
    if (a->xfer_left == 0)
        a->xfer_left = 0x10000u; /* a count of 0 is 64 KB */
    a->xfer_abort = 0;
    return 0;
}

uint32_t mba_xfer_remaining(const mba *a) { return a->xfer_abort ? 0 : a->xfer_left; }

int mba_xfer_aborted(const mba *a) { return a->xfer_abort; }

static void xfer_stop(mba *a, uint32_t sr_bits)
{
    a->sr |= sr_bits | MBASR_DTABT;
    a->xfer_abort = 1;
}

/* The host address of the next `*chunk` bytes at VAR (at most to the end
 * of the page, of len and of the count), or NULL after stopping the
 * transfer on an invalid map entry or nonexistent memory. */
static uint8_t *xfer_window(mba *a, uint32_t len, uint32_t *chunk)
{
    uint32_t va = a->var & VAR_MASK;
    uint32_t pte = a->map[va >> 9];
    if (!(pte & MBAMAP_VALID)) {
        xfer_stop(a, MBASR_INVMAP);
        return NULL;
    }
    uint32_t off = va & 511u;
    uint64_t pa = ((uint64_t)(pte & MBAMAP_PFN) << 9) | off;
    uint32_t n = 512u - off;
    if (n > len)
        n = len;
    if (n > a->xfer_left)
        n = a->xfer_left;
    if (pa >= a->m->bus.mem_size || n > a->m->bus.mem_size - pa) {
        xfer_stop(a, MBASR_NRCONF);
        return NULL;
    }
    *chunk = n;
    return a->m->bus.mem + pa;
}

static void xfer_advance(mba *a, uint32_t n)
{
    a->var = (a->var + n) & VAR_MASK;
    a->bcr += n;
    a->xfer_left -= n;
}

uint32_t mba_xfer_to_memory(mba *a, const uint8_t *buf, uint32_t len)
{
    uint32_t done = 0, n = 0;
    while (done < len && a->xfer_left > 0 && !a->xfer_abort) {
        uint8_t *p = xfer_window(a, len - done, &n);
        if (!p)
            break;
        memcpy(p, buf + done, n);
        xfer_advance(a, n);
        done += n;
    }
    return done;
}

uint32_t mba_xfer_from_memory(mba *a, uint8_t *buf, uint32_t len)
{
    uint32_t done = 0, n = 0;
    while (done < len && a->xfer_left > 0 && !a->xfer_abort) {
        const uint8_t *p = xfer_window(a, len - done, &n);
        if (!p)
            break;
        memcpy(buf + done, p, n);
        xfer_advance(a, n);
        done += n;
    }
    return done;
}

uint32_t mba_xfer_compare(mba *a, const uint8_t *buf, uint32_t len)
{
    uint32_t done = 0, n = 0;
    while (done < len && a->xfer_left > 0 && !a->xfer_abort) {
        const uint8_t *p = xfer_window(a, len - done, &n);
        if (!p)
            break;
        for (uint32_t i = 0; i < n; i++)
            if (p[i] != buf[done + i]) {
                /* The byte's place in its 16-bit MASSBUS word. */
                uint32_t odd = (a->var + i) & 1u;
                xfer_advance(a, i);
                xfer_stop(a, odd ? MBASR_WCKUP : MBASR_WCKLWR);
                return done + i;
            }
        xfer_advance(a, n);
        done += n;
    }
    return done;
}

void mba_xfer_end(mba *a, int drive_exception)
{
    a->xfer_unit = -1;
    a->sr |= MBASR_DTCMP;
    if (drive_exception)
        a->sr |= MBASR_MBEXC | MBASR_DTABT;
    request_irq(a);
}

/* ------------------------------------------------------------ INIT, ABORT */

static void adapter_init(mba *a)
{
    for (int i = 0; i < NDRIVES; i++)
        if (a->drive[i].ops)
            a->drive[i].ops->massbus_init(a->drive[i].dev);
    a->xfer_unit = -1;
    a->xfer_left = 0;
    a->xfer_abort = 0;
    a->cr = 0;
    a->sr = 0;
    a->var = 0;
    a->bcr = 0;
    a->dr = 0;
    machine_irq_clear(a->m, MBA_IPL, a->tr);
}

static void adapter_abort(mba *a)
{
    if (a->xfer_unit < 0)
        return;
    a->drive[a->xfer_unit].ops->abort_transfer(a->drive[a->xfer_unit].dev);
    a->xfer_unit = -1;
    a->sr |= MBASR_DTABT | MBASR_DTCMP;
    request_irq(a);
}

/* ------------------------------------------------------------ registers */

static uint32_t drive_read(mba *a, int unit, int reg)
{
    if (reg == DRIVE_AS)
        return attention_summary(a); /* every drive answers its own bit */
    if (!a->drive[unit].ops) {
        a->sr |= MBASR_NED;
        return 0;
    }
    return a->drive[unit].ops->read_reg(a->drive[unit].dev, reg);
}

static void drive_write(mba *a, int unit, int reg, uint32_t v)
{
    if (reg == DRIVE_AS) {
        for (int i = 0; i < NDRIVES; i++)
            if ((v & (1u << i)) && a->drive[i].ops)
                a->drive[i].ops->clear_attention(a->drive[i].dev);
        recheck_irq(a);
        return;
    }
    if (!a->drive[unit].ops) {
        a->sr |= MBASR_NED;
        return;
    }
    a->drive[unit].ops->write_reg(a->drive[unit].dev, reg, (uint16_t)v);
}

static uint32_t reg_read(mba *a, uint32_t off)
{
    if (off >= MBA_MAP_BASE && off < MBA_MAP_BASE + 4u * MBA_MAP_ENTRIES)
        return a->map[(off - MBA_MAP_BASE) >> 2];
    if (off >= MBA_DRIVE_BASE && off < MBA_MAP_BASE)
        return drive_read(a, (int)((off - MBA_DRIVE_BASE) / MBA_DRIVE_STRIDE),
                          (int)(((off - MBA_DRIVE_BASE) % MBA_DRIVE_STRIDE) >> 2));
    switch (off) {
    case MBA_CSR:
        return NEX_MBA;
    case MBA_CR:
        return a->cr & (MBACR_IE | MBACR_MM);
    case MBA_SR:
        return a->sr | (a->xfer_unit >= 0 ? MBASR_DTBUSY : 0) |
               (attention_summary(a) ? MBASR_ATTN : 0);
    case MBA_VAR:
        return a->var & VAR_MASK;
    case MBA_BCR:
        return a->bcr;
    case MBA_DR:
        return a->dr;
    case MBA_SMR:
        return a->map[(a->var & VAR_MASK) >> 9];
    case MBA_CAR:
        return ((a->map[(a->var & VAR_MASK) >> 9] & MBAMAP_PFN) << 9) | (a->var & 511u);
    default:
        return 0;
    }
}

static void reg_write(mba *a, uint32_t off, uint32_t v)
{
    if (off >= MBA_MAP_BASE && off < MBA_MAP_BASE + 4u * MBA_MAP_ENTRIES) {
        a->map[(off - MBA_MAP_BASE) >> 2] = v & (MBAMAP_VALID | MBAMAP_PFN);
        return;
    }
    if (off >= MBA_DRIVE_BASE && off < MBA_MAP_BASE) {
        drive_write(a, (int)((off - MBA_DRIVE_BASE) / MBA_DRIVE_STRIDE),
                    (int)(((off - MBA_DRIVE_BASE) % MBA_DRIVE_STRIDE) >> 2), v);
        return;
    }
    switch (off) {
    case MBA_CR:
        if (v & MBACR_INIT)
            adapter_init(a);
        if (v & MBACR_ABORT)
            adapter_abort(a);
        a->cr = v & (MBACR_IE | MBACR_MM);
        recheck_irq(a);
        break;
    case MBA_SR:
        a->sr &= ~(v & ~(MBASR_DTBUSY | MBASR_ATTN));
        recheck_irq(a);
        break;
    case MBA_VAR:
        if (a->xfer_unit >= 0)
            a->sr |= MBASR_PGE;
        else
            a->var = v & VAR_MASK;
        break;
    case MBA_BCR:
        if (a->xfer_unit >= 0)
            a->sr |= MBASR_PGE;
        else
            a->bcr = v;
        break;
    case MBA_DR:
        a->dr = v;
        break;
    default: /* CSR (no error bits modelled), SMR, CAR: read-only */
        break;
    }
}

/* Registers whose unwritten bytes must not be taken from a read-back
 * when the processor writes less than a longword: write-1-to-clear
 * registers and the drives' (reads have side effects there). */
static int partial_write_zero_fill(uint32_t off)
{
    return off == MBA_SR || (off >= MBA_DRIVE_BASE && off < MBA_MAP_BASE);
}

static int mba_io_read(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    mba *a = dev;
    (void)m;
    uint32_t off = pa - a->base;
    uint32_t v = reg_read(a, off & ~3u) >> ((off & 3u) * 8u);
    *value = size == 4 ? v : v & ((1u << (size * 8)) - 1u);
    return VAX_OK;
}

static int mba_io_write(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    mba *a = dev;
    (void)m;
    uint32_t off = pa - a->base, reg = off & ~3u;
    if (size != 4) {
        uint32_t shift = (off & 3u) * 8u, mask = ((1u << (size * 8)) - 1u) << shift;
        uint32_t old = partial_write_zero_fill(reg) ? 0 : reg_read(a, reg);
        value = (old & ~mask) | ((value << shift) & mask);
    }
    reg_write(a, reg, value);
    return VAX_OK;
}

/* ------------------------------------------------------------ public */

mba *mba_create(vax_machine *m, int tr, int number)
{
    if (!m || tr < 0 || tr >= SBI_NEXUS_COUNT || number < 0 || number > 15)
        return NULL;
    mba *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->m = m;
    a->tr = tr;
    a->number = number;
    a->base = sbi_nexus_address(tr);
    a->xfer_unit = -1;
    if (bus_add_region(m, a->base, SBI_NEXUS_SIZE, a, mba_io_read, mba_io_write) != 0) {
        free(a);
        return NULL;
    }
    return a;
}

void mba_destroy(mba *a)
{
    if (!a)
        return;
    for (int i = 0; i < NDRIVES; i++)
        if (a->drive[i].ops)
            a->drive[i].ops->destroy(a->drive[i].dev);
    machine_irq_clear(a->m, MBA_IPL, a->tr);
    vax_bus *b = &a->m->bus;
    for (int i = 0; i < b->nregions; i++)
        if (b->regions[i].dev == a) {
            memmove(&b->regions[i], &b->regions[i + 1], (size_t)(b->nregions - i - 1) * sizeof b->regions[0]);
            b->nregions--;
            i--;
        }
    free(a);
}

int mba_slot_free(const mba *a, int unit, char *err, size_t errlen)
{
    if (!a) {
        snprintf(err, errlen, "no MASSBUS adapter");
        return -1;
    }
    if (unit < 0 || unit >= NDRIVES) {
        snprintf(err, errlen, "MASSBUS drive number %d out of range 0-7", unit);
        return -1;
    }
    if (a->drive[unit].ops) {
        snprintf(err, errlen, "mba%d drive %d already has a disk", a->number, unit);
        return -1;
    }
    return 0;
}

int mba_connect(mba *a, int unit, const mba_drive_ops *ops, void *drive, char *err, size_t errlen)
{
    if (!ops || !drive) {
        snprintf(err, errlen, "no drive to connect");
        return -1;
    }
    if (mba_slot_free(a, unit, err, errlen) < 0)
        return -1;
    a->drive[unit].ops = ops;
    a->drive[unit].dev = drive;
    if (ops->set_fast)
        ops->set_fast(drive, a->fast);
    return 0;
}

vax_machine *mba_machine(const mba *a) { return a->m; }
int mba_number(const mba *a) { return a->number; }
int mba_fast_timing(const mba *a) { return a->fast; }

/* The drive in slot unit, or NULL (with a message) when there is none. */
static int slot(const mba *a, int unit, const char *what, char *err, size_t errlen)
{
    if (!a || unit < 0 || unit >= NDRIVES || !a->drive[unit].ops) {
        snprintf(err, errlen, "%s: no drive %d on this MASSBUS adapter", what, unit);
        return 0;
    }
    return 1;
}

int mba_set_disk_timing(mba *a, int unit, const char *profile, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (!slot(a, unit, "disk timing", err, errlen))
        return -1;
    if (!a->drive[unit].ops->set_timing) {
        snprintf(err, errlen, "disk timing: drive %d has no timing profiles", unit);
        return -1;
    }
    return a->drive[unit].ops->set_timing(a->drive[unit].dev, profile, err, errlen);
}

int mba_set_disk_spin_seed(mba *a, int unit, uint32_t seed, char *err, size_t errlen)
{
    if (!slot(a, unit, "disk spin seed", err, errlen))
        return -1;
    if (!a->drive[unit].ops->set_spin_seed) {
        snprintf(err, errlen, "disk spin seed: drive %d is not a rotating disk", unit);
        return -1;
    }
    return a->drive[unit].ops->set_spin_seed(a->drive[unit].dev, seed, err, errlen);
}

void mba_reset(mba *a)
{
    if (a)
        adapter_init(a);
}

void mba_set_fast_timing(mba *a, int on)
{
    if (!a)
        return;
    a->fast = on != 0;
    for (int i = 0; i < NDRIVES; i++)
        if (a->drive[i].ops && a->drive[i].ops->set_fast)
            a->drive[i].ops->set_fast(a->drive[i].dev, a->fast);
}

int mba_disk_stats_get(const mba *a, int unit, mba_disk_stats *out)
{
    if (!a || unit < 0 || unit >= NDRIVES || !a->drive[unit].ops || !a->drive[unit].ops->stats || !out)
        return -1;
    a->drive[unit].ops->stats(a->drive[unit].dev, out);
    return 0;
}

void mba_snap(mba *a, vax_snap *s)
{
    snap_u32(s, &a->cr);
    snap_u32(s, &a->sr);
    snap_u32(s, &a->var);
    snap_u32(s, &a->bcr);
    snap_u32(s, &a->dr);
    snap_u32_array(s, a->map, MBA_MAP_ENTRIES);
    snap_int(s, &a->xfer_unit, -1, NDRIVES - 1);
    snap_u32(s, &a->xfer_left);
    snap_int(s, &a->xfer_abort, 0, 1);
    snap_same_u32(s, (uint32_t)a->fast, "fast disk timing");
    for (int i = 0; i < NDRIVES && !snap_failed(s); i++) {
        snap_same_u32(s, a->drive[i].ops != NULL, "a drive in this MASSBUS slot");
        if (!a->drive[i].ops || snap_failed(s))
            continue;
        if (!a->drive[i].ops->snap) {
            snap_fail(s, "MASSBUS drive %d cannot be saved in a snapshot", i);
            return;
        }
        a->drive[i].ops->snap(a->drive[i].dev, s);
    }
}
