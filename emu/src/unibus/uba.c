/*
 * uba.c — the DW780 UNIBUS adapter: its nexus registers, the map, the
 * CPU's window onto the UNIBUS, device interrupts through the BR receive
 * vector registers, and DMA for UNIBUS devices.  See uba.h.
 */
#include "unibus/uba.h"

#include <stdlib.h>
#include <string.h>

#include "snapshot/snap.h"

#define UBA_MAX_DEVICES 16
#define UBA_MAX_VECTORS 64
#define UBA_MAX_OWNED 16

#define UNIBUS_MASK 0x3FFFFu
#define UNIBUS_IOPAGE 0760000u   /* the last 8 KB: device registers, never mapped */

/* Error bits by the interrupt enable that covers them. */
#define SR_SUE_ERRORS (UBASR_UBSSYNTO | UBASR_UBSTO)
#define SR_USE_ERRORS                                                                       \
    (UBASR_MRPF | UBASR_IVMR | UBASR_DPPE | UBASR_CXTMO | UBASR_CXTER | UBASR_RDS | UBASR_RDTO)
#define SR_ERRORS (SR_SUE_ERRORS | SR_USE_ERRORS | UBASR_LEB | UBASR_CRD)

#define DCR_MICOK 0x08000000u   /* microsequencer OK (read only) */

typedef struct {
    uint32_t base, bytes;
    void *dev;
    int (*read)(void *dev, uint32_t offset, int size, uint32_t *value);
    int (*write)(void *dev, uint32_t offset, int size, uint32_t value);
    void (*reset)(void *dev);
} uba_device;

typedef struct {
    uint16_t vector;
    uint8_t br;
    uint8_t pending;
} uba_request;

struct uba {
    vax_machine *m;
    int tr, number;
    uint32_t cnfgr, cr, sr, dcr, fmer, fubar;
    uint32_t brsvr[4];
    uint32_t map[UBA_NMAP];
    int ndev;
    uba_device dev[UBA_MAX_DEVICES];
    int nreq;
    uba_request req[UBA_MAX_VECTORS];
    int nowned;
    struct {
        void *obj;
        void (*destroy)(void *obj);
    } owned[UBA_MAX_OWNED];
};

vax_machine *uba_machine(const uba *u) { return u->m; }

/* ------------------------------------------------------------ interrupts */

/* Does the adapter itself request an interrupt (enabled error bits)? */
static int adapter_request(const uba *u)
{
    return ((u->cr & UBACR_SUEFIE) && (u->sr & SR_SUE_ERRORS)) ||
           ((u->cr & UBACR_USEFIE) && (u->sr & SR_USE_ERRORS));
}

static int device_request(const uba *u, int level)
{
    for (int i = 0; i < u->nreq; i++)
        if (u->req[i].pending && u->req[i].br == level + 4)
            return 1;
    return 0;
}

/* Tell the CPU which of the four SBI interrupt levels the adapter
 * requests.  Stateless: a level is (re)raised whenever something at it is
 * still unacknowledged by a BRRVR read (the CPU's own acknowledge clears
 * the machine's pending bit; the handler's BRRVR read then decides). */
static void update_irq(uba *u)
{
    for (int level = 0; level < 4; level++) {
        int ipl = 0x14 + level;
        int want = 0;
        if (u->cr & UBACR_IFS) {
            if ((u->cr & UBACR_BRIE) && device_request(u, level))
                want = 1;
            if (level == UBA_ADAPTER_BR - 4 && adapter_request(u))
                want = 1;
        }
        if (want)
            machine_irq_raise(u->m, ipl, u->tr, sbi_vector(u->tr, ipl));
        else
            machine_irq_clear(u->m, ipl, u->tr);
    }
}

void uba_interrupt(uba *u, int br, uint16_t vector, int on)
{
    if (br < 4 || br > 7)
        return;
    int i;
    for (i = 0; i < u->nreq; i++)
        if (u->req[i].vector == vector && u->req[i].br == br)
            break;
    if (i == u->nreq) {
        /* First sight of this vector: it takes its place in the priority
         * order (even when withdrawn, so a device can declare its vectors
         * in its own priority order when it is created). */
        if (u->nreq >= UBA_MAX_VECTORS)
            return;
        u->req[u->nreq++] = (uba_request){vector, (uint8_t)br, 0};
    }
    u->req[i].pending = on ? 1 : 0;
    update_irq(u);
}

/* The CPU reads BRRVR[level]: the vector of the first requesting device
 * (acknowledged by this read), AIRI if the adapter requests. */
static uint32_t read_brrvr(uba *u, int level)
{
    uint32_t v = 0;
    if (level == UBA_ADAPTER_BR - 4 && adapter_request(u))
        v |= UBABRRVR_AIRI;
    for (int i = 0; i < u->nreq; i++)
        if (u->req[i].pending && u->req[i].br == level + 4) {
            u->req[i].pending = 0;
            v |= u->req[i].vector;
            /* Statistics: the device's own vector, where 4.3BSD's UNIBUS
             * vector page (after the SCB) would send it. */
            u->m->stats.intr_vec[((VAX_STATS_UNIBUS_BASE + u->req[i].vector) >> 2) & (VAX_STATS_NVEC - 1)]++;
            break;
        }
    update_irq(u);
    return v;
}

/* ---------------------------------------------------------------- errors */

static void sbi_to_unibus_error(uba *u, uint32_t ua)
{
    if (u->sr & SR_SUE_ERRORS) {
        u->sr |= UBASR_LEB;   /* FUBAR stays locked on the first error */
    } else {
        u->sr |= UBASR_UBSTO;
        u->fubar = (ua & UNIBUS_MASK) >> 2;
    }
    update_irq(u);
}

static void unibus_to_sbi_error(uba *u, uint32_t bit, uint32_t page)
{
    if (u->sr & SR_USE_ERRORS) {
        u->sr |= UBASR_LEB;   /* FMER stays locked on the first error */
    } else {
        u->sr |= bit;
        u->fmer = page;
    }
    update_irq(u);
}

/* ----------------------------------------------------------------- reset */

static void init_registers(uba *u)
{
    u->cr = 0;
    u->sr = 0;
    u->dcr = 0;
    u->fmer = 0;
    u->fubar = 0;
    memset(u->brsvr, 0, sizeof u->brsvr);
    /* UNIBUS INIT runs and completes at once: UBIC reads set right away. */
    u->cnfgr = (u->cnfgr & (UBACNFGR_ADPUP | UBACNFGR_ADPDN)) | NEX_UBA0 | UBACNFGR_UBIC;
}

void uba_reset(uba *u)
{
    init_registers(u);
    for (int i = 0; i < u->nreq; i++)
        u->req[i].pending = 0;
    for (int i = 0; i < u->ndev; i++)
        if (u->dev[i].reset)
            u->dev[i].reset(u->dev[i].dev);
    update_irq(u);
}

/* ------------------------------------------------------ nexus registers */

static uint32_t reg_read(uba *u, uint32_t off)
{
    if (off >= UBA_MAP && off < UBA_MAP + 4u * UBA_NMAP)
        return u->map[(off - UBA_MAP) >> 2];
    switch (off) {
    case UBA_CNFGR: return u->cnfgr;
    case UBA_CR: return u->cr;
    case UBA_SR: return u->sr;
    case UBA_DCR: return u->dcr | DCR_MICOK;
    case UBA_FMER: return u->fmer;
    case UBA_FUBAR: return u->fubar;
    }
    if (off >= UBA_BRSVR && off < UBA_BRSVR + 16)
        return u->brsvr[(off - UBA_BRSVR) >> 2];
    if (off >= UBA_BRRVR && off < UBA_BRRVR + 16)
        return read_brrvr(u, (int)((off - UBA_BRRVR) >> 2));
    /* Data paths: transfers go straight to memory, so every buffer is
     * always empty (BNE clear) and error free. */
    return 0;
}

/* Write `val` to the longword register at off; `mask` says which bytes
 * the SBI write carries. */
static void reg_write(uba *u, uint32_t off, uint32_t val, uint32_t mask)
{
    if (off >= UBA_MAP && off < UBA_MAP + 4u * UBA_NMAP) {
        uint32_t *mr = &u->map[(off - UBA_MAP) >> 2];
        *mr = ((*mr & ~mask) | (val & mask)) & (UBAMR_MRV | UBAMR_BO | UBAMR_DPDB | UBAMR_PFN);
        return;
    }
    val &= mask;
    switch (off) {
    case UBA_CNFGR:
        /* Fault and power-up/down bits are write-1-to-clear. */
        u->cnfgr &= ~(val & (0xFC000000u | UBACNFGR_ADPUP | UBACNFGR_ADPDN));
        return;
    case UBA_CR: {
        if (val & UBACR_ADINIT) {
            uba_reset(u);
            return;
        }
        uint32_t keep = UBACR_CNFIE | UBACR_SUEFIE | UBACR_USEFIE | UBACR_BRIE | UBACR_IFS | UBACR_MRD;
        u->cr = (u->cr & ~mask) | (val & keep);
        update_irq(u);
        return;
    }
    case UBA_SR:
        u->sr &= ~(val & SR_ERRORS);
        update_irq(u);
        return;
    case UBA_DCR:
        u->dcr = ((u->dcr & ~mask) | val) & ~DCR_MICOK;
        return;
    }
    if (off >= UBA_BRSVR && off < UBA_BRSVR + 16) {
        uint32_t *r = &u->brsvr[(off - UBA_BRSVR) >> 2];
        *r = (*r & ~mask) | val;
        return;
    }
    /* BRRVR, FMER, FUBAR are read-only; DPR writes (BNE: purge, BTE: clear)
     * have nothing to do; the rest of the 8 KB holds nothing. */
}

static int nexus_read(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    (void)m;
    uba *u = dev;
    uint32_t off = (pa - sbi_nexus_address(u->tr)) & (SBI_NEXUS_SIZE - 1);
    uint32_t result = 0;
    /* One register read per longword the reference touches. */
    int done = 0;
    while (done < size) {
        uint32_t a = off + (uint32_t)done;
        uint32_t reg = a & ~3u;
        uint32_t v = reg_read(u, reg);
        while (done < size && ((off + (uint32_t)done) & ~3u) == reg) {
            uint32_t byte = (v >> (8 * ((off + (uint32_t)done) & 3))) & 0xFF;
            result |= byte << (8 * done);
            done++;
        }
    }
    *value = result;
    return VAX_OK;
}

static int nexus_write(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    (void)m;
    uba *u = dev;
    uint32_t off = (pa - sbi_nexus_address(u->tr)) & (SBI_NEXUS_SIZE - 1);
    int done = 0;
    while (done < size) {
        uint32_t reg = (off + (uint32_t)done) & ~3u;
        uint32_t v = 0, mask = 0;
        while (done < size && ((off + (uint32_t)done) & ~3u) == reg) {
            int lane = (int)((off + (uint32_t)done) & 3);
            v |= ((value >> (8 * done)) & 0xFF) << (8 * lane);
            mask |= 0xFFu << (8 * lane);
            done++;
        }
        reg_write(u, reg, v, mask);
    }
    return VAX_OK;
}

/* ------------------------------------------------------ UNIBUS window */

static uba_device *find_device(uba *u, uint32_t ua)
{
    for (int i = 0; i < u->ndev; i++)
        if (ua - u->dev[i].base < u->dev[i].bytes)
            return &u->dev[i];
    return NULL;
}

/* DATI of the word at even UNIBUS address ua; 0 with a select timeout if
 * nothing answers. */
static uint32_t unibus_read_word(uba *u, uint32_t ua)
{
    uba_device *d = find_device(u, ua);
    uint32_t v = 0;
    if (!d || d->read(d->dev, ua - d->base, 2, &v) != 0) {
        sbi_to_unibus_error(u, ua);
        return 0;
    }
    return v & 0xFFFF;
}

static void unibus_write(uba *u, uint32_t ua, int size, uint32_t v)
{
    uba_device *d = find_device(u, ua);
    if (!d || d->write(d->dev, ua - d->base, size, v) != 0)
        sbi_to_unibus_error(u, ua);
}

static int window_read(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    (void)m;
    uba *u = dev;
    uint32_t ua = (pa - UBA_SPACE_BASE(u->number)) & UNIBUS_MASK;
    uint32_t result = 0;
    int done = 0;
    while (done < size) {
        uint32_t word = (ua + (uint32_t)done) & ~1u & UNIBUS_MASK;
        uint32_t v = unibus_read_word(u, word);
        while (done < size && (((ua + (uint32_t)done) & ~1u) & UNIBUS_MASK) == word) {
            result |= ((v >> (8 * ((ua + (uint32_t)done) & 1))) & 0xFF) << (8 * done);
            done++;
        }
    }
    *value = result;
    return VAX_OK;
}

static int window_write(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    (void)m;
    uba *u = dev;
    uint32_t ua = (pa - UBA_SPACE_BASE(u->number)) & UNIBUS_MASK;
    int done = 0;
    while (done < size) {
        uint32_t a = (ua + (uint32_t)done) & UNIBUS_MASK;
        if (!(a & 1) && size - done >= 2) {
            unibus_write(u, a, 2, (value >> (8 * done)) & 0xFFFF);
            done += 2;
        } else {
            unibus_write(u, a, 1, (value >> (8 * done)) & 0xFF);
            done++;
        }
    }
    return VAX_OK;
}

/* ------------------------------------------------------------------ DMA */

/* Move len bytes between the UNIBUS address and memory, page by page. */
static int dma(uba *u, uint32_t ua, uint8_t *buf, uint32_t len, int to_memory)
{
    uint32_t disabled = ((u->cr & UBACR_MRD) >> 26) * 8192u;
    while (len) {
        ua &= UNIBUS_MASK;
        if (ua >= UNIBUS_IOPAGE || ua < disabled)
            return -1;   /* the adapter does not answer: NXM for the device */
        uint32_t page = ua >> 9, off = ua & 511u;
        uint32_t mr = u->map[page];
        if (!(mr & UBAMR_MRV)) {
            unibus_to_sbi_error(u, UBASR_IVMR, page);
            return -1;
        }
        uint32_t pa = ((mr & UBAMR_PFN) << 9) + off;
        /* Byte offset: a buffered data path shifts the transfer up a byte. */
        if ((mr & UBAMR_BO) && (mr & UBAMR_DPDB))
            pa++;
        uint32_t n = 512u - off;
        if (n > len)
            n = len;
        int st = to_memory ? vax_phys_write(u->m, pa, buf, n) : vax_phys_read(u->m, pa, buf, n);
        if (st != 0) {
            unibus_to_sbi_error(u, UBASR_CXTMO, page);
            return -1;
        }
        ua += n;
        buf += n;
        len -= n;
    }
    return 0;
}

int uba_dma_read(uba *u, uint32_t unibus_addr, void *buf, uint32_t len)
{
    return dma(u, unibus_addr, buf, len, 0);
}

int uba_dma_write(uba *u, uint32_t unibus_addr, const void *buf, uint32_t len)
{
    /* dma() does not write through buf when moving into memory. */
    return dma(u, unibus_addr, (uint8_t *)(uintptr_t)buf, len, 1);
}

/* -------------------------------------------------------- create/destroy */

uba *uba_create(vax_machine *m, int tr, int number)
{
    if (!m || tr < 0 || tr >= SBI_NEXUS_COUNT || number < 0 || number > 3)
        return NULL;
    uba *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->m = m;
    u->tr = tr;
    u->number = number;
    u->cnfgr = UBACNFGR_ADPUP;
    init_registers(u);
    if (bus_add_region(m, sbi_nexus_address(tr), SBI_NEXUS_SIZE, u, nexus_read, nexus_write) != 0 ||
        bus_add_region(m, UBA_SPACE_BASE(number), UBA_SPACE_SIZE, u, window_read, window_write) != 0) {
        free(u);
        return NULL;
    }
    return u;
}

void uba_destroy(uba *u)
{
    if (!u)
        return;
    for (int i = u->nowned - 1; i >= 0; i--)
        u->owned[i].destroy(u->owned[i].obj);
    for (int level = 0; level < 4; level++)
        machine_irq_clear(u->m, 0x14 + level, u->tr);
    free(u);
}

int uba_own(uba *u, void *obj, void (*destroy)(void *obj))
{
    if (u->nowned >= UBA_MAX_OWNED)
        return -1;
    u->owned[u->nowned].obj = obj;
    u->owned[u->nowned].destroy = destroy;
    u->nowned++;
    return 0;
}

void uba_disown(uba *u, void *obj)
{
    for (int i = 0; i < u->nowned; i++)
        if (u->owned[i].obj == obj) {
            for (int j = i; j + 1 < u->nowned; j++)
                u->owned[j] = u->owned[j + 1];
            u->nowned--;
            return;
        }
}

int uba_add_device(uba *u, uint32_t csr, uint32_t bytes, void *dev,
                   int (*read)(void *dev, uint32_t offset, int size, uint32_t *value),
                   int (*write)(void *dev, uint32_t offset, int size, uint32_t value),
                   void (*reset)(void *dev))
{
    csr &= UNIBUS_MASK;
    if (u->ndev >= UBA_MAX_DEVICES || bytes == 0 || !read || !write || csr + bytes > UNIBUS_MASK + 1)
        return -1;
    for (int i = 0; i < u->ndev; i++)
        if (csr < u->dev[i].base + u->dev[i].bytes && u->dev[i].base < csr + bytes)
            return -1;
    u->dev[u->ndev++] = (uba_device){csr, bytes, dev, read, write, reset};
    return 0;
}

void uba_snap(uba *u, vax_snap *s)
{
    snap_u32(s, &u->cnfgr);
    snap_u32(s, &u->cr);
    snap_u32(s, &u->sr);
    snap_u32(s, &u->dcr);
    snap_u32(s, &u->fmer);
    snap_u32(s, &u->fubar);
    snap_u32_array(s, u->brsvr, 4);
    snap_u32_array(s, u->map, UBA_NMAP);
    snap_same_u32(s, (uint32_t)u->ndev, "UNIBUS devices");
    /* The vectors in the order first seen (their priority), and which wait. */
    snap_int(s, &u->nreq, 0, UBA_MAX_VECTORS);
    for (int i = 0; i < u->nreq && !snap_failed(s); i++) {
        snap_u16(s, &u->req[i].vector);
        snap_u8(s, &u->req[i].br);
        snap_u8(s, &u->req[i].pending);
    }
}
