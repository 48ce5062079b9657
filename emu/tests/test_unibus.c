/*
 * test_unibus.c — the UNIBUS adapter (DW780), the DZ11 and the TS11,
 * driven as the 4.3BSD kernel drives them: through physical addresses
 * with bus_read/bus_write, time advanced by running a `BRB .` loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/vasm.h"
#include "bus/bus.h"
#include "machine.h"
#include "storage/blockdev.h"
#include "bus/sbi.h"
#include "unibus/dz11.h"
#include "storage/tapeimage.h"
#include "unibus/ts11.h"
#include "unibus/uba.h"

#include "check.h"

#define TR 3
#define NEX (sbi_nexus_address(TR))
#define UB(a) (UBA_SPACE_BASE(0) + (uint32_t)(a))
#define BRRVR(level) (NEX + UBA_BRRVR + 4u * (uint32_t)(level))
#define MAPREG(n) (NEX + UBA_MAP + 4u * (uint32_t)(n))

#define DZ_CSR 0760100u
#define DZ_VEC 0300u
#define TS_CSR 0772520u
#define TS_VEC 0224u

/* ------------------------------------------------------------- helpers */

typedef struct {
    vax_machine *m;
    uba *u;
} rig;

static uint32_t rd(rig *r, uint32_t pa, int size)
{
    uint32_t v = 0xDEADBEEF;
    int st = bus_read(r->m, pa, size, &v);
    if (st != 0) {   /* (counted only when it fails: polling reads are many) */
        failed++;
        printf("FAIL bus_read %08X size %d: status %d\n", pa, size, st);
    }
    return v;
}

static void wr(rig *r, uint32_t pa, int size, uint32_t v)
{
    int st = bus_write(r->m, pa, size, v);
    if (st != 0) {
        failed++;
        printf("FAIL bus_write %08X size %d: status %d\n", pa, size, st);
    }
}

/* A machine running `BRB .` at 0x200 at IPL 31 (no interrupts taken),
 * with a UBA at TR 3. */
static int rig_open(rig *r)
{
    vax_config cfg = {8u << 20};
    r->m = vax_create(&cfg);
    if (!r->m)
        return -1;
    const uint8_t brb[] = {0x11, 0xFE};
    vax_phys_write(r->m, 0x200, brb, sizeof brb);
    vax_set_reg(r->m, 15, 0x200);
    r->u = uba_create(r->m, TR, 0);
    if (!r->u) {
        vax_destroy(r->m);
        return -1;
    }
    return 0;
}

static void rig_close(rig *r)
{
    uba_destroy(r->u);
    vax_destroy(r->m);
}

static uint64_t now(rig *r) { return machine_time_ns(r->m); }

/* Let at least ns of virtual time pass. */
static void run_ns(rig *r, uint64_t ns)
{
    uint64_t end = now(r) + ns;
    while (now(r) < end) {
        uint64_t left = end - now(r);
        vax_run(r->m, left / r->m->ns_per_instruction + 1);
    }
    /* Events falling due on the last instruction fire when the machine
     * next runs: let that happen. */
    vax_run(r->m, 1);
}

static int cpu_irq(rig *r, int ipl) { return (r->m->irq_pending[ipl] >> TR) & 1; }

/* ----------------------------------------------------------------- UBA */

static void test_uba_registers(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    uint32_t cnf = rd(&r, NEX + UBA_CNFGR, 4);
    CHECK((cnf & 0xFF) == NEX_UBA0, "configuration register type %02X", cnf & 0xFF);
    CHECK(cnf & UBACNFGR_UBIC, "UBIC after init: %08X", cnf);
    CHECK(!(cnf & 0x00800000u), "adapter not powered down: %08X", cnf);
    CHECK(rd(&r, NEX + UBA_CNFGR, 1) == NEX_UBA0, "byte read of the type");

    /* ubainit(): ADINIT, then the interrupt enables; UBIC comes back. */
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE | UBACR_USEFIE | UBACR_SUEFIE);
    CHECK(rd(&r, NEX + UBA_CR, 4) == (UBACR_IFS | UBACR_BRIE | UBACR_USEFIE | UBACR_SUEFIE), "CR read back %08X",
          rd(&r, NEX + UBA_CR, 4));
    CHECK(rd(&r, NEX + UBA_CNFGR, 4) & UBACNFGR_UBIC, "UBIC after ADINIT");
    CHECK(rd(&r, NEX + UBA_SR, 4) == 0, "SR clear");
    CHECK(rd(&r, NEX + UBA_DCR, 4) & 0x08000000u, "DCR: MIC OK");

    /* Map registers keep the implemented bits. */
    wr(&r, MAPREG(0), 4, 0xFFFFFFFFu);
    CHECK(rd(&r, MAPREG(0), 4) == (UBAMR_MRV | UBAMR_BO | UBAMR_DPDB | UBAMR_PFN), "map reg bits %08X",
          rd(&r, MAPREG(0), 4));
    wr(&r, MAPREG(495), 4, UBAMR_MRV | 0x1234);
    CHECK(rd(&r, MAPREG(495), 4) == (UBAMR_MRV | 0x1234), "last map register");
    wr(&r, MAPREG(495), 2, 0x5678);   /* a word write changes the low half */
    CHECK(rd(&r, MAPREG(495), 4) == (UBAMR_MRV | 0x5678), "map reg word write %08X", rd(&r, MAPREG(495), 4));

    /* BRRVR with nothing requesting: zero vector. */
    for (int l = 0; l < 4; l++)
        CHECK(rd(&r, BRRVR(l), 4) == 0, "BRRVR[%d] idle", l);

    /* ADINIT clears CR. */
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    CHECK(rd(&r, NEX + UBA_CR, 4) == 0, "CR after ADINIT");
    rig_close(&r);
}

static void test_uba_dma(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    uint8_t pat[2048], got[2048];
    for (int i = 0; i < 2048; i++)
        pat[i] = (uint8_t)(i * 7 + 3);
    /* UNIBUS pages 2, 3, 4 -> physical pages 0x300, 0x123, 0x301 */
    wr(&r, MAPREG(2), 4, UBAMR_MRV | 0x300);
    wr(&r, MAPREG(3), 4, UBAMR_MRV | 0x123);
    wr(&r, MAPREG(4), 4, UBAMR_MRV | 0x301);
    vax_phys_write(r.m, 0x300 * 512, pat, 512);
    vax_phys_write(r.m, 0x123 * 512, pat + 512, 512);
    vax_phys_write(r.m, 0x301 * 512, pat + 1024, 512);
    memset(got, 0, sizeof got);
    CHECK(uba_dma_read(r.u, 2 * 512 + 100, got, 1200) == 0, "dma read through the map");
    CHECK(memcmp(got, pat + 100, 1200) == 0, "dma read data across non-contiguous pages");

    /* DMA write through the map lands where the map says. */
    uint8_t w[600];
    for (int i = 0; i < 600; i++)
        w[i] = (uint8_t)(0xA5 ^ i);
    CHECK(uba_dma_write(r.u, 3 * 512 + 400, w, 600) == 0, "dma write");
    uint8_t back[600];
    vax_phys_read(r.m, 0x123 * 512 + 400, back, 112);
    vax_phys_read(r.m, 0x301 * 512, back + 112, 488);
    CHECK(memcmp(back, w, 600) == 0, "dma write data");
    CHECK(rd(&r, NEX + UBA_SR, 4) == 0, "no errors");

    /* An invalid map register: IVMR, FMER = the register; a second error
     * is a lost error; SR is write-1-to-clear. */
    CHECK(uba_dma_read(r.u, 9 * 512, got, 4) == -1, "invalid map register fails");
    uint32_t sr = rd(&r, NEX + UBA_SR, 4);
    CHECK(sr & UBASR_IVMR, "IVMR: sr %08X", sr);
    CHECK(rd(&r, NEX + UBA_FMER, 4) == 9, "FMER %u", rd(&r, NEX + UBA_FMER, 4));
    CHECK(uba_dma_write(r.u, 10 * 512, w, 4) == -1, "second invalid");
    CHECK(rd(&r, NEX + UBA_SR, 4) & UBASR_LEB, "lost error bit");
    CHECK(rd(&r, NEX + UBA_FMER, 4) == 9, "FMER locked on the first error");
    wr(&r, NEX + UBA_SR, 4, rd(&r, NEX + UBA_SR, 4));
    CHECK(rd(&r, NEX + UBA_SR, 4) == 0, "SR cleared by writing it back");

    /* Memory that does not exist (8 MB machine, PFN 0x8000 = 16 MB). */
    wr(&r, MAPREG(5), 4, UBAMR_MRV | 0x8000);
    CHECK(uba_dma_write(r.u, 5 * 512, w, 16) == -1, "dma to nonexistent memory fails");
    CHECK(rd(&r, NEX + UBA_SR, 4) & UBASR_CXTMO, "CXTMO");
    CHECK(rd(&r, NEX + UBA_FMER, 4) == 5, "FMER 5");
    wr(&r, NEX + UBA_SR, 4, 0xFFFFFFFFu);

    /* The I/O page has no map registers. */
    CHECK(uba_dma_read(r.u, 0760000, got, 2) == -1, "no DMA into the I/O page");

    /* Byte offset with a buffered data path shifts the transfer by one. */
    wr(&r, MAPREG(6), 4, UBAMR_MRV | UBAMR_BO | (1u << UBAMR_DPSHIFT) | 0x310);
    CHECK(uba_dma_write(r.u, 6 * 512 + 10, "xyz", 3) == 0, "byte offset write");
    char bo[4] = {0};
    vax_phys_read(r.m, 0x310 * 512 + 11, bo, 3);
    CHECK(memcmp(bo, "xyz", 3) == 0, "byte offset: data at +1");
    /* ... but the direct data path ignores BO. */
    wr(&r, MAPREG(6), 4, UBAMR_MRV | UBAMR_BO | 0x310);
    CHECK(uba_dma_write(r.u, 6 * 512 + 20, "pq", 2) == 0, "direct path write");
    vax_phys_read(r.m, 0x310 * 512 + 20, bo, 2);
    CHECK(memcmp(bo, "pq", 2) == 0, "direct path: BO ignored");

    /* Map register disable: the lowest 8 KB belong to UNIBUS memory. */
    wr(&r, MAPREG(0), 4, UBAMR_MRV | 0x300);
    wr(&r, NEX + UBA_CR, 4, 1u << 26);
    CHECK(uba_dma_read(r.u, 0, got, 2) == -1, "disabled map register: no response");
    CHECK(rd(&r, NEX + UBA_SR, 4) == 0, "... and no adapter error");
    wr(&r, NEX + UBA_CR, 4, 0);
    CHECK(uba_dma_read(r.u, 0, got, 2) == 0, "enabled again");
    rig_close(&r);
}

/* A test device: 4 words of registers at 0776000. */
typedef struct {
    uint16_t reg[4];
    int writes, resets;
} testdev;

static int td_read(void *dev, uint32_t off, int size, uint32_t *v)
{
    testdev *d = dev;
    if (size != 2 || (off & 1))
        return -1;
    *v = d->reg[off >> 1];
    return 0;
}

static int td_write(void *dev, uint32_t off, int size, uint32_t v)
{
    testdev *d = dev;
    d->writes++;
    if (size == 2)
        d->reg[off >> 1] = (uint16_t)v;
    else if (off & 1)
        d->reg[off >> 1] = (uint16_t)((d->reg[off >> 1] & 0x00FF) | (v & 0xFF) << 8);
    else
        d->reg[off >> 1] = (uint16_t)((d->reg[off >> 1] & 0xFF00) | (v & 0xFF));
    return 0;
}

static void td_reset(void *dev) { ((testdev *)dev)->resets++; }

static void test_uba_window_and_interrupts(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    testdev d = {{0x1234, 0x5678, 0x9ABC, 0xDEF0}, 0, 0};
    CHECK(uba_add_device(r.u, 0776000, 8, &d, td_read, td_write, td_reset) == 0, "add device");
    CHECK(uba_add_device(r.u, 0776004, 2, &d, td_read, td_write, td_reset) == -1, "overlap refused");
    CHECK(rd(&r, UB(0776000), 2) == 0x1234, "word read");
    CHECK(rd(&r, UB(0776003), 1) == 0x56, "byte read of a high byte");
    CHECK(rd(&r, UB(0776004), 4) == 0xDEF09ABCu, "longword read = two words");
    wr(&r, UB(0776001), 1, 0xAA);
    CHECK(d.reg[0] == 0xAA34, "byte write (DATOB) %04X", d.reg[0]);
    wr(&r, UB(0776004), 4, 0x11112222u);
    CHECK(d.reg[2] == 0x2222 && d.reg[3] == 0x1111, "longword write = two words");

    /* Nothing there: no machine check, value 0, UBSTO, FUBAR. */
    uint32_t v = 1;
    int st = bus_read(r.m, UB(0777440), 2, &v);
    CHECK(st == 0 && v == 0, "read of an empty UNIBUS address: st %d v %u", st, v);
    CHECK(rd(&r, NEX + UBA_SR, 4) & UBASR_UBSTO, "UBSTO");
    CHECK(rd(&r, NEX + UBA_FUBAR, 4) == (0777440u >> 2), "FUBAR %o", rd(&r, NEX + UBA_FUBAR, 4));
    st = bus_write(r.m, UB(0777442), 2, 1);
    CHECK(st == 0, "write to an empty address: no machine check");
    CHECK(rd(&r, NEX + UBA_SR, 4) & UBASR_LEB, "second timeout: lost error");
    wr(&r, NEX + UBA_SR, 4, rd(&r, NEX + UBA_SR, 4));
    /* UNIBUS memory at low addresses is absent too. */
    st = bus_read(r.m, UB(0), 2, &v);
    CHECK(st == 0 && v == 0 && (rd(&r, NEX + UBA_SR, 4) & UBASR_UBSTO), "no UNIBUS memory");
    wr(&r, NEX + UBA_SR, 4, 0xFFFFFFFFu);

    /* Adapter error interrupt: SUEFIE + IFS, at BR5 (IPL 0x15), AIRI. */
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE | UBACR_SUEFIE | UBACR_USEFIE);
    CHECK(!cpu_irq(&r, 0x15), "quiet");
    (void)rd(&r, UB(0777440), 2);
    CHECK(cpu_irq(&r, 0x15), "UBSTO interrupts the CPU at IPL 0x15");
    CHECK(r.m->irq_vector[0x15][TR] == sbi_vector(TR, 0x15), "SCB vector of TR 3 at IPL 0x15");
    CHECK(rd(&r, BRRVR(1), 4) == UBABRRVR_AIRI, "BRRVR: AIRI");
    wr(&r, NEX + UBA_SR, 4, rd(&r, NEX + UBA_SR, 4));
    CHECK(!cpu_irq(&r, 0x15), "clearing SR withdraws it");

    /* Device interrupts: priority by first sight, acknowledged by BRRVR. */
    uba_interrupt(r.u, 5, 0224, 1);
    uba_interrupt(r.u, 5, 0300, 1);
    uba_interrupt(r.u, 6, 0440, 1);
    CHECK(cpu_irq(&r, 0x15) && cpu_irq(&r, 0x16), "BR5 and BR6 requested");
    CHECK(rd(&r, BRRVR(2), 4) == 0440, "BR6 vector");
    CHECK(!cpu_irq(&r, 0x16), "BR6 granted: level clear");
    CHECK(rd(&r, BRRVR(1), 4) == 0224, "BR5 first vector");
    CHECK(cpu_irq(&r, 0x15), "BR5 still requested");
    CHECK(rd(&r, BRRVR(1), 4) == 0300, "BR5 second vector");
    CHECK(!cpu_irq(&r, 0x15), "BR5 clear");
    CHECK(rd(&r, BRRVR(1), 4) == 0, "zero vector");
    /* Withdrawn before the grant. */
    uba_interrupt(r.u, 4, 0100, 1);
    CHECK(cpu_irq(&r, 0x14), "BR4 requested");
    uba_interrupt(r.u, 4, 0100, 0);
    CHECK(!cpu_irq(&r, 0x14), "BR4 withdrawn");
    CHECK(rd(&r, BRRVR(0), 4) == 0, "nothing at BR4");
    /* BRIE off: no CPU interrupt, but the vector can still be read. */
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS);
    uba_interrupt(r.u, 7, 0500, 1);
    CHECK(!cpu_irq(&r, 0x17), "BRIE off: no CPU request");
    CHECK(rd(&r, BRRVR(3), 4) == 0500, "vector readable anyway");

    /* ADINIT: UNIBUS INIT resets the devices and drops requests. */
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE);
    uba_interrupt(r.u, 5, 0224, 1);
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    CHECK(d.resets == 1, "device reset by ADINIT");
    CHECK(rd(&r, BRRVR(1), 4) == 0 && !cpu_irq(&r, 0x15), "requests dropped by ADINIT");
    uba_reset(r.u);
    CHECK(d.resets == 2, "device reset by uba_reset");
    rig_close(&r);
}

/* A full path through the processor: an interrupt at IPL 0x15 through the
 * SCB vector of TR 3, a handler that reads BRRVR as locore.s does. */
static void test_uba_cpu_dispatch(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    const char *src = "handler:\n"
                      "  movl @#0x20006034, r0\n"   /* BRRVR[1] of TR 3 */
                      "  movl r0, @#0x3000\n"
                      "  incl @#0x3004\n"
                      "  mfpr #18, @#0x3008\n"      /* IPL inside the handler */
                      "  rei\n";
    vasm_result a;
    int rc = vasm_assemble(src, 0x400, &a);
    CHECK(rc == 0, "assemble: %s", a.error);
    if (rc == 0)
        vax_phys_write(r.m, 0x400, a.bytes, a.len);
    vasm_free(&a);
    uint32_t entry = 0x400 | 1;   /* on the interrupt stack */
    vax_phys_write(r.m, 0x10000 + sbi_vector(TR, 0x15), &entry, 4);
    vax_set_ipr(r.m, IPR_SCBB, 0x10000);
    vax_set_ipr(r.m, IPR_ISP, 0x9000);
    vax_set_psl(r.m, 0);   /* kernel mode, kernel stack, IPL 0 */
    vax_set_reg(r.m, 14, 0x8000);
    vax_set_reg(r.m, 15, 0x200);
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE | UBACR_USEFIE | UBACR_SUEFIE);

    dz11 *dz = dz11_create(r.u, DZ_CSR, DZ_VEC);
    CHECK(dz != NULL, "dz11_create");
    /* dzprobe(): TIE|MSE, enable line 0: the DZ interrupts at vector+4. */
    wr(&r, UB(DZ_CSR), 2, 0040040);
    wr(&r, UB(DZ_CSR + 4), 1, 1);
    run_ns(&r, 100000);
    uint32_t got[3] = {0};
    vax_phys_read(r.m, 0x3000, got, 12);
    CHECK(got[0] == DZ_VEC + 4, "handler read vector %o from BRRVR", got[0]);
    CHECK(got[1] == 1, "one interrupt (%u)", got[1]);
    CHECK(got[2] == 0x15, "handler ran at IPL %X", got[2]);
    CHECK(vax_get_reg(r.m, 15) >= 0x200 && vax_get_reg(r.m, 15) < 0x202, "back in the loop");
    /* TRDY stays on but the request was granted: no interrupt storm. */
    run_ns(&r, 1000000);
    vax_phys_read(r.m, 0x3000, got, 12);
    CHECK(got[1] == 1, "still one interrupt (%u)", got[1]);
    /* dzprobe's CLR: TRDY goes; a new enable interrupts again. */
    wr(&r, UB(DZ_CSR), 2, 020);
    wr(&r, UB(DZ_CSR), 2, 0040040);
    wr(&r, UB(DZ_CSR + 4), 1, 2);
    run_ns(&r, 100000);
    vax_phys_read(r.m, 0x3000, got, 12);
    CHECK(got[1] == 2, "second interrupt after re-enable (%u)", got[1]);
    rig_close(&r);
}

/* ---------------------------------------------------------------- DZ11 */

typedef struct {
    int n;
    int line[64];
    uint8_t ch[64];
    uint64_t t[64];
    rig *r;
} outlog;

static void out_cb(void *ctx, int line, uint8_t ch)
{
    outlog *o = ctx;
    if (o->n < 64) {
        o->line[o->n] = line;
        o->ch[o->n] = ch;
        o->t[o->n] = now(o->r);
        o->n++;
    }
}

#define LPR_9600_8N1(line) (010000u | (016u << 8) | 030u | (uint32_t)(line))
#define CHAR_NS_9600_8N1 1041666u

static void test_dz11(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE);
    dz11 *dz = dz11_create(r.u, DZ_CSR, DZ_VEC);
    CHECK(dz != NULL, "dz11_create");
    outlog o = {0};
    o.r = &r;
    dz11_set_output(dz, out_cb, &o);
    uint32_t csr = UB(DZ_CSR), rbuf = UB(DZ_CSR + 2), tcr = UB(DZ_CSR + 4), tdr = UB(DZ_CSR + 6);

    /* A DZ11, not a DZ32: the DZ_32 bit does not stick. */
    wr(&r, csr, 2, 0040041);
    CHECK((rd(&r, csr, 2) & 1) == 0, "DZ_32 reads 0");
    wr(&r, csr, 2, 020);   /* CLR */
    CHECK(rd(&r, csr, 2) == 0, "CSR after CLR: %06o", rd(&r, csr, 2));

    /* Transmit on line 2 at 9600 baud, 8 bits, no parity. */
    wr(&r, rbuf, 2, LPR_9600_8N1(2));
    wr(&r, csr, 2, 0040040);   /* TIE | MSE */
    CHECK(!(rd(&r, csr, 2) & 0100000), "no TRDY without a line enabled");
    wr(&r, tcr, 1, 1u << 2);
    uint32_t c = rd(&r, csr, 2);
    CHECK((c & 0100000) && ((c >> 8) & 7) == 2, "TRDY, TLINE 2: %06o", c);
    CHECK(rd(&r, csr + 1, 1) == (c >> 8), "CSR high byte as dzdma reads it");
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC + 4, "transmit interrupt at vector+4");
    uint64_t t0 = now(&r);
    wr(&r, tdr, 1, 'H');
    CHECK(!(rd(&r, csr, 2) & 0100000), "TRDY drops after loading TDR");
    run_ns(&r, 1000000);
    CHECK(o.n == 0, "not out before one character time");
    run_ns(&r, 60000);
    CHECK(o.n == 1 && o.ch[0] == 'H' && o.line[0] == 2, "character out on line 2 (n %d)", o.n);
    if (o.n == 1)
        CHECK(o.t[0] - t0 >= CHAR_NS_9600_8N1 && o.t[0] - t0 < CHAR_NS_9600_8N1 + 10000, "took %llu ns",
              (unsigned long long)(o.t[0] - t0));
    CHECK(rd(&r, csr, 2) & 0100000, "TRDY again");
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC + 4, "and a new transmit interrupt");

    /* Two lines: the scanner stays on line 2 until it is served, then
     * moves on; both characters leave together, lower line first. */
    wr(&r, rbuf, 2, LPR_9600_8N1(5));
    wr(&r, tcr, 1, (1u << 2) | (1u << 5));
    c = rd(&r, csr, 2);
    CHECK((c & 0100000) && ((c >> 8) & 7) == 2, "scanner still at line 2: %06o", c);
    wr(&r, tdr, 1, 'a');
    c = rd(&r, csr, 2);
    CHECK((c & 0100000) && ((c >> 8) & 7) == 5, "then line 5: %06o", c);
    wr(&r, tdr, 1, 'b');
    CHECK(!(rd(&r, csr, 2) & 0100000), "both busy");
    run_ns(&r, CHAR_NS_9600_8N1 + 20000);
    CHECK(o.n == 3 && o.line[1] == 2 && o.ch[1] == 'a' && o.line[2] == 5 && o.ch[2] == 'b', "two lines out");
    /* Served round robin: next time line 2 waits while 5 goes first. */
    c = rd(&r, csr, 2);
    CHECK((c & 0100000) && ((c >> 8) & 7) == 2, "after line 5, line 2 again: %06o", c);
    /* dzxint(): the line is disabled when its queue is empty. */
    wr(&r, tcr, 1, 0);
    CHECK(!(rd(&r, csr, 2) & 0100000), "no TRDY with lines disabled");
    (void)rd(&r, BRRVR(1), 4);

    /* 7 bits even parity: the character is cut to 7 bits, and takes
     * 1+7+1+1 = 10 bits; at 300 baud 33.3 ms. */
    wr(&r, rbuf, 2, 010000u | (05u << 8) | 020u | 0100u | 3u);
    wr(&r, tcr, 1, 1u << 3);
    t0 = now(&r);
    wr(&r, tdr, 1, 0xC1);
    run_ns(&r, 33000000);
    CHECK(o.n == 3, "300 baud: not yet");
    run_ns(&r, 400000);
    CHECK(o.n == 4 && o.ch[3] == 0x41, "7-bit character %02X", o.n == 4 ? o.ch[3] : 0);
    wr(&r, tcr, 1, 0);
    (void)rd(&r, BRRVR(1), 4);

    /* Receive: a character arrives one character time after input. */
    wr(&r, csr, 2, 0000140);   /* RIE | MSE */
    dz11_input(dz, 2, 'x');
    run_ns(&r, 1000000);
    CHECK(!(rd(&r, csr, 2) & 0200), "not arrived yet");
    CHECK(rd(&r, BRRVR(1), 4) == 0, "no interrupt yet");
    run_ns(&r, 60000);
    CHECK(rd(&r, csr, 2) & 0200, "RDONE");
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC, "receive interrupt at the vector");
    uint32_t rb = rd(&r, rbuf, 2);
    CHECK(rb == (0100000u | (2u << 8) | 'x'), "RBUF %06o", rb);
    CHECK((rd(&r, rbuf, 2) & 0100000) == 0, "silo empty");
    CHECK(!(rd(&r, csr, 2) & 0200), "RDONE clear");
    /* A line whose receiver is off loses what arrives. */
    dz11_input(dz, 4, 'z');
    run_ns(&r, 2 * CHAR_NS_9600_8N1);
    CHECK((rd(&r, rbuf, 2) & 0100000) == 0, "receiver off: nothing");
    CHECK(dz11_input_pending(dz, 4) == 0, "consumed");

    /* Several characters arrive at the line rate, in order. */
    const char *msg = "hello";
    for (int i = 0; msg[i]; i++)
        dz11_input(dz, 2, (uint8_t)msg[i]);
    run_ns(&r, 3 * CHAR_NS_9600_8N1 + 1000);
    CHECK(dz11_input_pending(dz, 2) == 2, "3 of 5 arrived (%u pending)", dz11_input_pending(dz, 2));
    run_ns(&r, 2 * CHAR_NS_9600_8N1);
    char got[8] = {0};
    int n = 0;
    while (n < 7 && ((rb = rd(&r, rbuf, 2)) & 0100000))
        got[n++] = (char)(rb & 0xFF);
    CHECK(n == 5 && strcmp(got, "hello") == 0, "received \"%s\"", got);
    (void)rd(&r, BRRVR(1), 4);

    /* dzrint's song and dance: clearing and setting RIE re-arms the
     * receive interrupt while characters wait. */
    dz11_input(dz, 2, '1');
    run_ns(&r, CHAR_NS_9600_8N1 + 1000);
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC, "interrupt");
    CHECK(rd(&r, BRRVR(1), 4) == 0, "granted once");
    wr(&r, csr, 2, 0000040);
    wr(&r, csr, 2, 0000140);
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC, "re-armed by RIE off/on");
    (void)rd(&r, rbuf, 2);

    /* Silo alarm: with SAE the interrupt waits for the 16th character. */
    wr(&r, csr, 2, 0010140);   /* SAE | RIE | MSE */
    for (int i = 0; i < 20; i++)
        dz11_input(dz, 2, (uint8_t)('A' + i));
    run_ns(&r, 15 * CHAR_NS_9600_8N1 + 1000);
    c = rd(&r, csr, 2);
    CHECK((c & 0200) && !(c & 020000), "15 characters: RDONE, no SA (%06o)", c);
    CHECK(rd(&r, BRRVR(1), 4) == 0, "no interrupt before the alarm");
    run_ns(&r, CHAR_NS_9600_8N1);
    c = rd(&r, csr, 2);
    CHECK(c & 020000, "SA after 16 characters (%06o)", c);
    CHECK(rd(&r, BRRVR(1), 4) == DZ_VEC, "silo alarm interrupt");
    rb = rd(&r, rbuf, 2);
    CHECK((rb & 0377) == 'A', "first character");
    CHECK(!(rd(&r, csr, 2) & 020000), "reading RBUF clears SA");
    run_ns(&r, 5 * CHAR_NS_9600_8N1);
    n = 1;
    while ((rb = rd(&r, rbuf, 2)) & 0100000)
        n++;
    CHECK(n == 20, "all 20 read (%d)", n);

    /* A fast feed: 70 characters into the 64-character silo, nobody
     * reading: 64 kept, the next character in is flagged OVERRUN. */
    wr(&r, csr, 2, 0000040);   /* MSE only */
    for (int i = 0; i < 70; i++)
        dz11_input(dz, 2, (uint8_t)i);
    run_ns(&r, 71 * CHAR_NS_9600_8N1);
    n = 0;
    int order_ok = 1;
    while ((rb = rd(&r, rbuf, 2)) & 0100000) {
        if ((rb & 0377) != (uint32_t)n || (rb & 0040000))
            order_ok = 0;
        n++;
    }
    CHECK(n == 64 && order_ok, "silo holds 64 in order (%d)", n);
    dz11_input(dz, 2, '!');
    run_ns(&r, CHAR_NS_9600_8N1 + 1000);
    rb = rd(&r, rbuf, 2);
    CHECK(rb == (0140000u | (2u << 8) | '!'), "OVERRUN on the next character (%06o)", rb);

    /* Modem: carrier follows DTR. */
    wr(&r, tcr + 1, 1, 1u << 2);
    CHECK(rd(&r, UB(DZ_CSR + 7), 1) == (1u << 2), "carrier on line 2");

    /* Maintenance loopback. */
    wr(&r, csr, 2, 0000050);   /* MAINT | MSE */
    wr(&r, tcr, 1, 1u << 2);
    wr(&r, tdr, 1, 'L');
    run_ns(&r, CHAR_NS_9600_8N1 + 1000);
    rb = rd(&r, rbuf, 2);
    CHECK(rb == (0100000u | (2u << 8) | 'L'), "looped back (%06o)", rb);
    CHECK(o.n == 4, "nothing on the wire in MAINT");

    /* UNIBUS INIT clears the DZ (and DTR). */
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    CHECK(rd(&r, csr, 2) == 0 && rd(&r, tcr, 2) == 0, "cleared by UNIBUS INIT");
    rig_close(&r);
}

/* ---------------------------------------------------------------- TS11 */

typedef struct {
    uint8_t *b;
    size_t n, cap;
} tapebuf;

static void put32(tapebuf *t, uint32_t v)
{
    if (t->n + 4 > t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->b = realloc(t->b, t->cap);
    }
    for (int i = 0; i < 4; i++)
        t->b[t->n++] = (uint8_t)(v >> (8 * i));
}

static void put_record(tapebuf *t, uint8_t seed, uint32_t len)
{
    put32(t, len);
    for (uint32_t i = 0; i < len + (len & 1); i++) {
        if (t->n + 1 > t->cap) {
            t->cap *= 2;
            t->b = realloc(t->b, t->cap);
        }
        t->b[t->n++] = i < len ? (uint8_t)(seed + i) : 0;
    }
    put32(t, len);
}

/* UNIBUS layout: map pages 0..15 -> physical 0x40000; the command packet
 * at 0, characteristics at 020, message at 040, data at 01000. */
#define PHYS 0x40000u
#define U_CMD 0u
#define U_CHR 020u
#define U_MSG 040u
#define U_DATA 01000u

typedef struct {
    uint16_t hdr, len, rbpcr, xs0, xs1, xs2, xs3;
} tsmsg;

static void ts_setup_map(rig *r)
{
    for (int i = 0; i < 16; i++)
        wr(r, MAPREG(i), 4, UBAMR_MRV | ((PHYS >> 9) + (uint32_t)i));
}

static void put16(rig *r, uint32_t ua, uint16_t v) { vax_phys_write(r->m, PHYS + ua, &v, 2); }

static tsmsg get_msg(rig *r)
{
    uint16_t w[7];
    vax_phys_read(r->m, PHYS + U_MSG, w, 14);
    tsmsg m = {w[0], w[1], w[2], w[3], w[4], w[5], w[6]};
    return m;
}

/* Issue a command and wait for SSR; returns TSSR, the time taken in *ns. */
static uint32_t ts_do(rig *r, uint16_t cmd, uint16_t w1, uint16_t w2, uint16_t w3, uint64_t *ns)
{
    put16(r, U_CMD, cmd);
    put16(r, U_CMD + 2, w1);
    put16(r, U_CMD + 4, w2);
    put16(r, U_CMD + 6, w3);
    uint64_t t0 = now(r);
    wr(r, UB(TS_CSR), 2, U_CMD);
    uint32_t sr;
    int guard = 0;
    while (!((sr = rd(r, UB(TS_CSR + 2), 2)) & 0200) && guard++ < 100000)
        run_ns(r, 50000);
    if (ns)
        *ns = now(r) - t0;
    return sr;
}

#define TS_ACK 0100000u
#define TS_CVC 0040000u
#define TS_IE 0000200u
#define TSSR_SC 0100000u
#define TSSR_NBA 0002000u
#define TSSR_OFL 0000100u
#define TC(sr) (((sr) >> 1) & 7)

static uint32_t ts_read(rig *r, uint16_t count, uint64_t *ns)
{
    return ts_do(r, TS_ACK | TS_CVC | TS_IE | 1, U_DATA, 0, count, ns);
}

static int data_is(rig *r, uint8_t seed, uint32_t len)
{
    uint8_t b[4096];
    vax_phys_read(r->m, PHYS + U_DATA, b, len);
    for (uint32_t i = 0; i < len; i++)
        if (b[i] != (uint8_t)(seed + i))
            return 0;
    return 1;
}

/* tsinit(): subsystem initialise, then write characteristics. */
static void ts_init(rig *r)
{
    wr(r, UB(TS_CSR + 2), 2, 0);
    CHECK(rd(r, UB(TS_CSR + 2), 2) & TSSR_NBA, "NBA right after the init write");
    CHECK(!(rd(r, UB(TS_CSR + 2), 2) & 0200), "initialising: SSR clear");
    run_ns(r, 200000);
    CHECK(rd(r, UB(TS_CSR + 2), 2) & 0200, "SSR after init");
    put16(r, U_CHR, U_MSG);
    put16(r, U_CHR + 2, 0);
    put16(r, U_CHR + 4, 14);
    put16(r, U_CHR + 6, 0200);   /* ESS */
    uint32_t sr = ts_do(r, TS_ACK | 4, U_CHR, 0, 8, NULL);
    CHECK(!(sr & TSSR_NBA) && TC(sr) == 0 && !(sr & TSSR_SC), "set characteristics: TSSR %06o", sr);
    CHECK(rd(r, BRRVR(1), 4) == 0, "no interrupt without IE");
}

static void test_ts11(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE);
    ts_setup_map(&r);
    ts11 *ts = ts11_create(r.u, TS_CSR, TS_VEC);
    CHECK(ts != NULL, "ts11_create");

    /* No tape: offline; tsprobe sees NBA after its TSSR write. */
    uint32_t sr = rd(&r, UB(TS_CSR + 2), 2);
    CHECK((sr & TSSR_OFL) && (sr & TSSR_NBA) && (sr & 0200), "power-up TSSR %06o", sr);
    ts_init(&r);
    sr = ts_read(&r, 512, NULL);
    CHECK(TC(sr) == 3 && (sr & TSSR_SC), "read offline: function reject (%06o)", sr);
    tsmsg msg = get_msg(&r);
    CHECK(!(msg.xs0 & 0100) && (msg.xs0 & 0002000), "message: not ONL, NEF (xs0 %06o)", msg.xs0);
    CHECK(rd(&r, BRRVR(1), 4) == TS_VEC, "interrupt at vector 224");

    /* The tape: 100 bytes, 51 bytes, tape mark, 30 bytes, tape mark,
     * tape mark. */
    tapebuf t = {0};
    put_record(&t, 0x10, 100);
    put_record(&t, 0x40, 51);
    put32(&t, 0);
    put_record(&t, 0x70, 30);
    put32(&t, 0);
    put32(&t, 0);
    vax_blockdev bd;
    blockdev_memory(&bd, t.b, t.n, 1);
    char err[100];
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach: %s", err);
    CHECK(!(rd(&r, UB(TS_CSR + 2), 2) & TSSR_OFL), "online");

    /* Get status. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 017, 0, 0, 0, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 0, "get status %06o", sr);
    CHECK((msg.xs0 & 0100) && (msg.xs0 & 2) && (msg.xs0 & 4) && (msg.xs0 & 010), "ONL BOT WLK PED: %06o",
          msg.xs0);
    CHECK(msg.len == 10 && (msg.hdr & 0100000) && (msg.hdr & 037) == 020, "message header %06o len %u", msg.hdr,
          msg.len);
    CHECK(rd(&r, BRRVR(1), 4) == TS_VEC, "interrupt");

    /* Record 1 into a 512-byte buffer: short record, residual 412; it takes
     * the command time, the gap and 100 byte times. */
    uint64_t ns;
    sr = ts_read(&r, 512, &ns);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0040000) && msg.rbpcr == 412, "RLS: sr %06o xs0 %06o rbpcr %u", sr, msg.xs0,
          msg.rbpcr);
    CHECK(data_is(&r, 0x10, 100), "record 1 data");
    uint64_t expect = TS11_CMD_NS + TS11_GAP_NS + 100 * TS11_BYTE_NS;
    CHECK(ns >= expect && ns < expect + 100000, "read took %llu ns (expected %llu)", (unsigned long long)ns,
          (unsigned long long)expect);
    CHECK(!(msg.xs0 & 2), "off BOT");
    CHECK(rd(&r, BRRVR(1), 4) == TS_VEC, "interrupt after the read");
    CHECK(rd(&r, BRRVR(1), 4) == 0, "just one");

    /* Record 2 with the exact count: success. */
    sr = ts_read(&r, 51, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 0 && !(sr & TSSR_SC) && msg.rbpcr == 0, "exact read: sr %06o", sr);
    CHECK(data_is(&r, 0x40, 51), "record 2 data (odd length)");
    /* The tape mark. */
    sr = ts_read(&r, 512, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0100000) && msg.rbpcr == 512, "tape mark: sr %06o xs0 %06o", sr, msg.xs0);
    /* Past it: record 3, long for a 20-byte buffer. */
    sr = ts_read(&r, 20, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0010000) && msg.rbpcr == 0, "RLL: sr %06o xs0 %06o", sr, msg.xs0);
    CHECK(data_is(&r, 0x70, 20), "first 20 bytes of record 3");

    /* Rewind: BOT again, the time grows with the distance. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 02010, 0, 0, 0, &ns);
    msg = get_msg(&r);
    CHECK(TC(sr) == 0 && (msg.xs0 & 2), "rewind to BOT: %06o", msg.xs0);
    CHECK(ns >= TS11_CMD_NS + 4 * 200 * TS11_REWIND_BYTE_NS / 4, "rewind time %llu", (unsigned long long)ns);
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 0 && data_is(&r, 0x10, 100), "record 1 again");

    /* Reread previous (TS_REREAD): back over record 1 and read it again. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 01001, U_DATA, 0, 100, NULL);
    CHECK(TC(sr) == 0 && data_is(&r, 0x10, 100), "reread previous: %06o", sr);

    /* Read previous (reverse) of record 1 into a 150-byte buffer: the
     * record ends up at the top of the buffer. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 00401, U_DATA, 0, 150, NULL);
    msg = get_msg(&r);
    uint8_t rev[150];
    vax_phys_read(r.m, PHYS + U_DATA + 50, rev, 100);
    int rev_ok = 1;
    for (int i = 0; i < 100; i++)
        if (rev[i] != (uint8_t)(0x10 + i))
            rev_ok = 0;
    CHECK(TC(sr) == 2 && (msg.xs0 & 0040000) && rev_ok && (msg.xs0 & 2), "read reverse: sr %06o xs0 %06o", sr,
          msg.xs0);
    /* Reverse at BOT: function reject. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 00410, 1, 0, 0, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 3 && (msg.xs0 & 0002000), "space reverse at BOT rejected: %06o", sr);

    /* Space 5 records forward: stops past the tape mark after 2, 3 left. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 010, 5, 0, 0, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0100000) && msg.rbpcr == 3, "space forward to TM: rbpcr %u xs0 %06o",
          msg.rbpcr, msg.xs0);
    sr = ts_read(&r, 30, NULL);
    CHECK(TC(sr) == 0 && data_is(&r, 0x70, 30), "record 3 after spacing");
    /* Space back 2 records: over record 3, then the tape mark stops it. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 00410, 2, 0, 0, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0100000) && msg.rbpcr == 1, "space reverse to TM: rbpcr %u", msg.rbpcr);
    /* Now before that tape mark: reading gives it. */
    sr = ts_read(&r, 30, NULL);
    CHECK(TC(sr) == 2 && (get_msg(&r).xs0 & 0100000), "tape mark again");

    /* Skip tape marks: from BOT, one file forward lands on record 3. */
    ts_do(&r, TS_ACK | TS_CVC | 02010, 0, 0, 0, NULL);
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 01010, 1, 0, 0, NULL);
    CHECK(TC(sr) == 0 && get_msg(&r).rbpcr == 0, "skip one tape mark: %06o", sr);
    sr = ts_read(&r, 30, NULL);
    CHECK(TC(sr) == 0 && data_is(&r, 0x70, 30), "file 2 record 1");
    /* With ESS, skipping 5 stops at the double tape mark (LET). */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 01010, 5, 0, 0, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 0020000) && msg.rbpcr == 4, "LET at the double tape mark: xs0 %06o rbpcr %u",
          msg.xs0, msg.rbpcr);
    /* End of the image: EOT alert, no motion. */
    sr = ts_read(&r, 30, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 1), "end of medium: sr %06o xs0 %06o", sr, msg.xs0);
    /* Skip one tape mark in reverse: over the last two... stops with ESS. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 01410, 1, 0, 0, NULL);
    CHECK(TC(sr) == 0, "skip tape mark reverse: %06o", sr);

    /* Write locked: write is refused with WLE. */
    put16(&r, U_DATA, 0x4141);
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 5, U_DATA, 0, 2, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 3 && (msg.xs0 & 0004000), "write locked: sr %06o xs0 %06o", sr, msg.xs0);
    (void)rd(&r, BRRVR(1), 4);

    /* TSDB written while busy: RMR, the command is not disturbed. */
    put16(&r, U_CMD, TS_ACK | TS_CVC | TS_IE | 02010);
    wr(&r, UB(TS_CSR), 2, U_CMD);
    wr(&r, UB(TS_CSR), 2, U_CMD);
    CHECK(rd(&r, UB(TS_CSR + 2), 2) & 0010000, "RMR");
    run_ns(&r, 5000000);
    sr = rd(&r, UB(TS_CSR + 2), 2);
    CHECK((sr & 0200) && (get_msg(&r).xs0 & 2), "rewind completed anyway");
    (void)rd(&r, BRRVR(1), 4);

    /* Command packet in unmapped UNIBUS space: NXM. */
    wr(&r, UB(TS_CSR), 2, 0100000);   /* UNIBUS page 64: map register invalid */
    sr = rd(&r, UB(TS_CSR + 2), 2);
    CHECK((sr & 0004000) && (sr & TSSR_SC) && (sr & 0200), "NXM on packet fetch: %06o", sr);
    wr(&r, NEX + UBA_SR, 4, 0xFFFFFFFFu);

    /* Writable tape: write a record and a tape mark, read them back. */
    uint8_t wimg[256];
    memset(wimg, 0xFF, sizeof wimg);
    vax_blockdev wbd;
    blockdev_memory(&wbd, wimg, sizeof wimg, 0);
    CHECK(ts11_attach(ts, &wbd, err, sizeof err) == 0, "attach writable");
    vax_phys_write(r.m, PHYS + U_DATA, "HELLO", 5);
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 5, U_DATA, 0, 5, &ns);
    CHECK(TC(sr) == 0, "write: %06o", sr);
    CHECK(ns >= TS11_CMD_NS + TS11_GAP_NS + 5 * TS11_BYTE_NS, "write time");
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 011, 0, 0, 0, NULL);
    CHECK(TC(sr) == 0, "write tape mark: %06o", sr);
    static const uint8_t expect_img[] = {5, 0, 0, 0, 'H', 'E', 'L', 'L', 'O', 0, 5, 0, 0, 0,
                                         0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
    CHECK(memcmp(wimg, expect_img, sizeof expect_img) == 0, "image bytes as SIMH writes them");
    ts_do(&r, TS_ACK | TS_CVC | 02010, 0, 0, 0, NULL);
    vax_phys_write(r.m, PHYS + U_DATA, "-----", 5);
    sr = ts_read(&r, 10, NULL);
    uint8_t hb[6] = {0};
    vax_phys_read(r.m, PHYS + U_DATA, hb, 5);
    CHECK(TC(sr) == 2 && get_msg(&r).rbpcr == 5 && memcmp(hb, "HELLO", 5) == 0, "read back: %s", (char *)hb);
    sr = ts_read(&r, 10, NULL);
    CHECK(TC(sr) == 2 && (get_msg(&r).xs0 & 0100000), "tape mark read back");
    sr = ts_read(&r, 10, NULL);
    CHECK(TC(sr) == 2 && (get_msg(&r).xs0 & 1), "then the end of the written tape");
    /* A write that does not fit: EOT alert, nothing written. */
    uint8_t big[300];
    memset(big, 'B', sizeof big);
    vax_phys_write(r.m, PHYS + U_DATA, big, sizeof big);
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 5, U_DATA, 0, 300, NULL);
    msg = get_msg(&r);
    CHECK(TC(sr) == 2 && (msg.xs0 & 1) && msg.rbpcr == 300, "tape full: sr %06o", sr);

    /* Unload: rewinds and goes offline. */
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 0412, 0, 0, 0, NULL);
    CHECK(TC(sr) == 0 && (sr & TSSR_OFL), "unloaded: %06o", sr);
    (void)rd(&r, BRRVR(1), 4);

    /* UNIBUS INIT: the TS11 needs its characteristics again. */
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    CHECK(rd(&r, UB(TS_CSR + 2), 2) & TSSR_NBA, "NBA after UNIBUS INIT");
    rig_close(&r);
    free(t.b);
}

/* Corrupt images: errors, never crashes, no motion. */
static void test_ts11_bad_images(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    wr(&r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE);
    ts_setup_map(&r);
    ts11 *ts = ts11_create(r.u, TS_CSR, TS_VEC);
    CHECK(ts != NULL, "ts11_create");
    ts_init(&r);
    char err[100];

    /* A length that runs past the end of the file. */
    tapebuf t = {0};
    put_record(&t, 1, 10);
    put32(&t, 1000);
    for (int i = 0; i < 20; i++)
        put32(&t, 0x01010101u);
    vax_blockdev bd;
    blockdev_memory(&bd, t.b, t.n, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach");
    uint32_t sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 2 && data_is(&r, 1, 10), "good first record");
    sr = ts_read(&r, 100, NULL);
    tsmsg msg = get_msg(&r);
    CHECK(TC(sr) == 6 && (sr & TSSR_SC) && (msg.xs1 & 2), "overlong record: unrecoverable (sr %06o)", sr);
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 6, "again: the tape did not move");
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 010, 3, 0, 0, NULL);
    CHECK(TC(sr) == 6, "spacing into it fails too");
    sr = ts_do(&r, TS_ACK | TS_CVC | TS_IE | 00410, 1, 0, 0, NULL);
    CHECK(TC(sr) == 0 && (get_msg(&r).xs0 & 2), "back over the good record to BOT");

    /* Trailing length differs. */
    tapebuf t2 = {0};
    put32(&t2, 8);
    put32(&t2, 0x11111111u);
    put32(&t2, 0x22222222u);
    put32(&t2, 9);
    blockdev_memory(&bd, t2.b, t2.n, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach 2");
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 6, "length mismatch: %06o", sr);

    /* A partial length word at the end and an unknown marker class. */
    uint8_t part[3] = {1, 2, 3};
    blockdev_memory(&bd, part, 3, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach 3");
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 6, "partial header: %06o", sr);
    uint8_t cls[12] = {4, 0, 0, 0x70, 'a', 'b', 'c', 'd', 4, 0, 0, 0x70};
    blockdev_memory(&bd, cls, sizeof cls, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach 4");
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 6, "unsupported class: %06o", sr);
    /* A record marked bad (class 8): data delivered, error reported. */
    uint8_t badrec[12] = {4, 0, 0, 0x80, 'a', 'b', 'c', 'd', 4, 0, 0, 0x80};
    blockdev_memory(&bd, badrec, sizeof badrec, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach 5");
    sr = ts_read(&r, 4, NULL);
    uint8_t d4[4];
    vax_phys_read(r.m, PHYS + U_DATA, d4, 4);
    CHECK(TC(sr) == 6 && memcmp(d4, "abcd", 4) == 0, "bad record: %06o", sr);
    /* Empty image: end of medium at BOT. */
    blockdev_memory(&bd, part, 0, 1);
    CHECK(ts11_attach(ts, &bd, err, sizeof err) == 0, "attach empty");
    sr = ts_read(&r, 100, NULL);
    CHECK(TC(sr) == 2 && (get_msg(&r).xs0 & 1), "empty tape: EOT");
    /* A block device whose reads fail. */
    CHECK(ts11_attach(ts, NULL, err, sizeof err) == -1 && err[0], "attach NULL refused: %s", err);

    /* The tape image layer alone, in reverse over gaps and marks. */
    tapebuf t3 = {0};
    put32(&t3, 0xFFFFFFFEu);
    put_record(&t3, 9, 3);
    put32(&t3, 0);
    put32(&t3, 0xFFFFFFFEu);
    vax_blockdev bd3;
    blockdev_memory(&bd3, t3.b, t3.n, 1);
    tape_image ti;
    tape_record rec;
    tape_open(&ti, &bd3);
    CHECK(tape_forward(&ti, &rec) == TAPE_OK && rec.length == 3, "forward over a gap to the record");
    CHECK(tape_forward(&ti, &rec) == TAPE_MARK, "mark");
    CHECK(tape_forward(&ti, &rec) == TAPE_EOM, "gap then end");
    ti.pos = t3.n;
    CHECK(tape_reverse(&ti, &rec) == TAPE_MARK, "reverse over the gap to the mark");
    CHECK(tape_reverse(&ti, &rec) == TAPE_OK && rec.length == 3, "record");
    CHECK(tape_reverse(&ti, &rec) == TAPE_BOT && ti.pos == 0, "BOT through the leading gap");

    rig_close(&r);
    free(t.b);
    free(t2.b);
    free(t3.b);
}

int main(void)
{
    test_uba_registers();
    test_uba_dma();
    test_uba_window_and_interrupts();
    test_uba_cpu_dispatch();
    test_dz11();
    test_ts11();
    test_ts11_bad_images();
    return check_summary();
}
