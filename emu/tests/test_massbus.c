/*
 * test_massbus.c — the MASSBUS adapter and its disks, driven through the
 * physical register interface the way 4.3BSD's mbafind, mbstart/mbintr
 * and the hp driver (kernel and standalone) drive them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus.h"
#include "machine.h"
#include "massbus/mba.h"
#include "massbus/rp.h"
#include "storage/blockdev.h"
#include "bus/sbi.h"

#include "check.h"

#define TR 8
#define BASE sbi_nexus_address(TR)
#define DRV(unit, reg) (MBA_DRIVE_BASE + (uint32_t)(unit) * MBA_DRIVE_STRIDE + 4u * (uint32_t)(reg))
#define MAP(i) (MBA_MAP_BASE + 4u * (uint32_t)(i))
#define IRQ_PENDING(m) (((m)->irq_pending[MBA_IPL] >> TR) & 1u)

/* hpreg.h / mbareg.h values, written as the drivers write them. */
#define HP_GO 1u
#define HP_SEEK 004u
#define HP_RECAL 006u
#define HP_DCLR 010u
#define HP_PRESET 020u
#define HP_PACK 022u
#define HP_SEARCH 030u
#define HP_WCDATA 050u
#define HP_WCOM 060u
#define HP_RCOM 070u
#define HP_RHDR 072u

#define RP06_NSECT 22
#define RP06_NTRAK 19
#define RP06_NCYL 815
#define RP06_BYTES ((uint64_t)RP06_NSECT * RP06_NTRAK * RP06_NCYL * 512u)
#define RM03_BYTES ((uint64_t)32 * 5 * 823 * 512u)

static uint8_t pat(uint64_t off) { return (uint8_t)((off * 2654435761u) >> 13 ^ (off >> 9)); }

static uint32_t rd(vax_machine *m, uint32_t off)
{
    uint32_t v = 0xDEADBEEF;
    int r = bus_read(m, BASE + off, 4, &v);
    CHECK(r == 0, "bus_read of MBA+%#x failed (%d)", off, r);
    return v;
}

static void wr(vax_machine *m, uint32_t off, uint32_t v)
{
    int r = bus_write(m, BASE + off, 4, v);
    CHECK(r == 0, "bus_write of MBA+%#x failed (%d)", off, r);
}

/* Run the BRB . loop until the MBA's interrupt request appears (or max_ns
 * of virtual time pass); returns the virtual time it took. */
static uint64_t run_until_irq(vax_machine *m, uint64_t max_ns)
{
    uint64_t t0 = machine_time_ns(m);
    while (!IRQ_PENDING(m) && machine_time_ns(m) - t0 < max_ns)
        vax_run(m, 50);
    return machine_time_ns(m) - t0;
}

/* Run until drive `unit` is ready (DS.DRY), polling like HPWAIT. */
static uint64_t run_until_dry(vax_machine *m, int unit, uint64_t max_ns)
{
    uint64_t t0 = machine_time_ns(m);
    while (!(rd(m, DRV(unit, RP_DS)) & RPDS_DRY) && machine_time_ns(m) - t0 < max_ns)
        vax_run(m, 50);
    return machine_time_ns(m) - t0;
}

/* Like mbstart: clear SR, point the map at `npages` pages from pfn, set
 * VAR and BCR, then the drive's address and command. */
static void start_xfer(vax_machine *m, int unit, uint32_t pfn, int npages, uint32_t var, uint32_t bytes,
                       int cyl, int trk, int sec, uint32_t func)
{
    for (int i = 0; i < npages; i++)
        wr(m, MAP(i), (pfn + (uint32_t)i) | MBAMAP_VALID);
    wr(m, MAP(npages), 0);
    wr(m, MBA_SR, 0xFFFFFFFFu);
    wr(m, MBA_VAR, var);
    wr(m, MBA_BCR, 0u - bytes);
    wr(m, DRV(unit, RP_DC), (uint32_t)cyl);
    wr(m, DRV(unit, RP_DA), ((uint32_t)trk << 8) | (uint32_t)sec);
    wr(m, DRV(unit, RP_CS1), func | HP_GO);
}

/* mbintr: read SR and write it back, read AS and write it back. */
static uint32_t ack_interrupt(vax_machine *m, uint32_t *as)
{
    uint32_t sr = rd(m, MBA_SR);
    wr(m, MBA_SR, sr);
    uint32_t a = rd(m, DRV(0, RP_AS)) & 0xFF;
    wr(m, DRV(0, RP_AS), a);
    if (as)
        *as = a;
    return sr;
}

static uint64_t lba_of(int c, int t, int s) { return ((uint64_t)c * RP06_NTRAK + (uint64_t)t) * RP06_NSECT + (uint64_t)s; }

/* Fill sectors [lba, lba+n) of the image with the pattern. */
static void fill_pattern(uint8_t *img, uint64_t lba, int n)
{
    for (uint64_t o = lba * 512; o < (lba + (uint64_t)n) * 512; o++)
        img[o] = pat(o);
}

static vax_machine *new_machine(void)
{
    vax_config cfg = {4u << 20};
    vax_machine *m = vax_create(&cfg);
    if (!m)
        return NULL;
    static const uint8_t brb_self[] = {0x11, 0xFE}; /* 1000: BRB 1000 */
    vax_phys_write(m, 0x1000, brb_self, sizeof brb_self);
    vax_set_reg(m, 15, 0x1000);
    return m;
}

/* ------------------------------------------------------------------ */

static void test_attach_errors(vax_machine *m, mba *a)
{
    char err[256];
    vax_blockdev small, big;
    static uint8_t tiny[512];
    blockdev_memory(&small, tiny, sizeof tiny, 0);
    err[0] = 0;
    CHECK(rp_attach(a, 3, "RP06", &small, err, sizeof err) == -1, "tiny RP06 image accepted");
    CHECK(strstr(err, "174423040") != NULL, "size error does not name the expected size: %s", err);
    blockdev_memory(&big, tiny, RP06_BYTES + 512, 0); /* never accessed */
    err[0] = 0;
    CHECK(rp_attach(a, 3, "rp06", &big, err, sizeof err) == -1, "oversized RP06 image accepted");
    CHECK(strstr(err, "wrong size") != NULL, "oversize error unclear: %s", err);
    err[0] = 0;
    CHECK(rp_attach(a, 3, "RX50", &small, err, sizeof err) == -1 && strstr(err, "RX50"),
          "unknown type not refused clearly: %s", err);
    CHECK(rp_attach(a, 8, "RP06", &small, err, sizeof err) == -1, "unit 8 accepted");
    CHECK(rp_attach(a, 0, "RP06", &small, err, sizeof err) == -1 && strstr(err, "already"),
          "second disk on drive 0 accepted: %s", err);
    mba_disk_stats st;
    CHECK(mba_disk_stats_get(a, 3, &st) == -1, "stats of an empty slot");
    (void)m;
}

/* autoconf.c mbafind and stand/hp.c hpopen. */
static void test_probe(vax_machine *m)
{
    CHECK((rd(m, MBA_CSR) & 0xFF) == NEX_MBA, "CSR type %#x", rd(m, MBA_CSR));
    wr(m, MBA_SR, 0xFFFFFFFFu);
    uint32_t ds0 = rd(m, DRV(0, RP_DS));
    CHECK((ds0 & (RPDS_DPR | RPDS_MOL | RPDS_DRY)) == (RPDS_DPR | RPDS_MOL | RPDS_DRY),
          "drive 0 DS %#x lacks DPR/MOL/DRY", ds0);
    CHECK(!(ds0 & RPDS_VV), "VV set before pack acknowledge: %#x", ds0);
    CHECK(!(rd(m, MBA_SR) & MBASR_NED), "NED after reading an existing drive");
    /* the si kludge */
    wr(m, MBA_SR, rd(m, MBA_SR) | MBASR_NED);
    uint32_t dt = rd(m, DRV(0, RP_DT)) & 0xFFFF;
    CHECK(dt == 0x2012, "RP06 DT = %#x", dt);
    CHECK(!(rd(m, MBA_SR) & MBASR_NED), "NED after DT of drive 0");
    CHECK((rd(m, DRV(0, RP_CS1)) & RPCS1_DVA) != 0, "CS1 lacks DVA");
    /* the RM03 on drive 1 */
    CHECK((rd(m, DRV(1, RP_DT)) & 0xFFFF) == 0x2014, "RM03 DT = %#x", rd(m, DRV(1, RP_DT)));
    CHECK((rd(m, DRV(1, RP_DS)) & RPDS_WRL) != 0, "read-only RM03 lacks WRL");
    /* nonexistent drives 2..7 */
    for (int u = 2; u < 8; u++) {
        wr(m, MBA_SR, 0xFFFFFFFFu);
        CHECK(rd(m, DRV(u, RP_DS)) == 0, "drive %d DS nonzero", u);
        CHECK(rd(m, DRV(u, RP_DT)) == 0, "drive %d DT nonzero", u);
        CHECK((rd(m, MBA_SR) & MBASR_NED) != 0, "no NED for drive %d", u);
    }
    /* AS answers from any slot without NED */
    wr(m, MBA_SR, 0xFFFFFFFFu);
    CHECK(rd(m, DRV(5, RP_AS)) == 0, "AS nonzero at start");
    CHECK(!(rd(m, MBA_SR) & MBASR_NED), "AS read set NED");
    /* serial numbers must not look like Systems Industries model bytes */
    uint32_t sn = rd(m, DRV(1, RP_SN));
    uint32_t mb = (sn & 0xFF00) & ~0xA000u;
    CHECK(mb != 0x0700 && mb != 0x0B00 && mb != 0x0300 && mb != 0x0100 && mb != 0x0500 && mb != 0x0F00,
          "RM03 serial %#x looks like an SI model byte", sn);
    wr(m, MBA_CR, MBACR_INIT);
    wr(m, MBA_CR, MBACR_IE);
    CHECK(rd(m, MBA_CR) == MBACR_IE, "CR = %#x", rd(m, MBA_CR));
}

static void test_pack_ack(vax_machine *m)
{
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO);
    wr(m, DRV(0, RP_CS1), HP_PACK | HP_GO);
    uint32_t ds = rd(m, DRV(0, RP_DS));
    CHECK((ds & (RPDS_VV | RPDS_DRY)) == (RPDS_VV | RPDS_DRY), "after PACK DS = %#x", ds);
    CHECK(!(ds & RPDS_ATA) && rd(m, DRV(0, RP_AS)) == 0, "PACK raised attention");
    /* hpopen: DCLR, PRESET, OF = FMT22 */
    wr(m, DRV(1, RP_CS1), HP_DCLR | HP_GO);
    wr(m, DRV(1, RP_CS1), HP_PRESET | HP_GO);
    wr(m, DRV(1, RP_OF), RPOF_FMT22);
    CHECK(rd(m, DRV(1, RP_DS)) & RPDS_VV, "PRESET did not set VV");
    CHECK(rd(m, DRV(1, RP_OF)) == RPOF_FMT22, "OF = %#x", rd(m, DRV(1, RP_OF)));
    CHECK(!IRQ_PENDING(m), "an interrupt after immediate commands");
}

static void test_read(vax_machine *m, mba *a)
{
    /* 2 sectors from cylinder 1 track 2 sector 3 to physical 0x20010 via map
     * entries 0..2 -> pages 0x100..0x102, VAR offset 0x10. */
    uint8_t before[1100];
    memset(before, 0x5A, sizeof before);
    vax_phys_write(m, 0x20000, before, sizeof before);
    start_xfer(m, 0, 0x100, 3, 0x10, 1024, 1, 2, 3, HP_RCOM);
    uint32_t sr = rd(m, MBA_SR);
    CHECK(sr & MBASR_DTBUSY, "no DTBUSY after RCOM: SR %#x", sr);
    CHECK(!(rd(m, DRV(0, RP_DS)) & RPDS_DRY), "DRY during the transfer");
    CHECK(rd(m, DRV(0, RP_CS1)) & HP_GO, "GO clear during the transfer");
    CHECK(!IRQ_PENDING(m), "interrupt at once");
    uint64_t dt = run_until_irq(m, 200000000ull);
    CHECK(IRQ_PENDING(m), "no interrupt after the read");
    /* heads 0 -> 1: a 10 ms seek, then latency (< 16.7 ms), then 2 sectors */
    CHECK(dt >= 10000000ull + 2 * 757575ull && dt <= 10000000ull + 16666667ull + 2 * 757576ull + 100000ull,
          "read took %llu ns", (unsigned long long)dt);
    CHECK(m->irq_vector[MBA_IPL][TR] == sbi_vector(TR, MBA_IPL), "vector %#x", m->irq_vector[MBA_IPL][TR]);
    sr = rd(m, MBA_SR);
    CHECK((sr & (MBASR_DTCMP | MBASR_DTBUSY)) == MBASR_DTCMP, "SR after read %#x", sr);
    CHECK(!(sr & ~(MBASR_DTCMP | MBASR_DTBUSY | MBASR_ATTN | MBASR_CRD)), "error bits in SR %#x", sr);
    CHECK((rd(m, MBA_BCR) & 0xFFFF) == 0, "BCR %#x", rd(m, MBA_BCR));
    CHECK(rd(m, MBA_VAR) == 0x410, "VAR %#x", rd(m, MBA_VAR));
    CHECK(!(rd(m, DRV(0, RP_DS)) & RPDS_ERR), "drive error after read");
    uint8_t got[1100];
    vax_phys_read(m, 0x20000, got, sizeof got);
    uint64_t off = lba_of(1, 2, 3) * 512;
    int bad = -1;
    for (int i = 0; i < 1024 && bad < 0; i++)
        if (got[0x10 + i] != pat(off + (uint64_t)i))
            bad = i;
    CHECK(bad < 0, "read data differ at byte %d", bad);
    CHECK(got[0xF] == 0x5A && got[0x410] == 0x5A, "read spilled outside its buffer");
    CHECK(rd(m, DRV(0, RP_DA)) == ((2u << 8) | 5u), "DA after read %#x", rd(m, DRV(0, RP_DA)));
    CHECK(rd(m, DRV(0, RP_DC)) == 1 && rd(m, DRV(0, RP_CC)) == 1, "DC/CC after read");
    CHECK(rd(m, MBA_SMR) == (0x102u | MBAMAP_VALID), "SMR %#x", rd(m, MBA_SMR));
    uint32_t as;
    ack_interrupt(m, &as);
    CHECK(as == 0, "attention after a clean read: %#x", as);
    CHECK(!IRQ_PENDING(m), "request still pending after mbintr cleared SR");
    mba_disk_stats st;
    CHECK(mba_disk_stats_get(a, 0, &st) == 0 && st.transfers == 1 && st.sectors == 2 && st.seeks == 1,
          "stats %llu/%llu/%llu", (unsigned long long)st.transfers, (unsigned long long)st.sectors,
          (unsigned long long)st.seeks);
    CHECK(st.busy_ns >= 10000000ull && st.busy_ns <= dt, "busy %llu of %llu", (unsigned long long)st.busy_ns,
          (unsigned long long)dt);
}

static void test_write(vax_machine *m, const uint8_t *img)
{
    uint8_t buf[512];
    for (int i = 0; i < 512; i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    vax_phys_write(m, 0x30000, buf, sizeof buf);
    start_xfer(m, 0, 0x180, 1, 0, 512, 2, 0, 0, HP_WCOM);
    run_until_irq(m, 200000000ull);
    uint32_t sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_DTCMP | MBASR_DTABT | MBASR_MBEXC)) == MBASR_DTCMP, "SR after write %#x", sr);
    uint64_t off = lba_of(2, 0, 0) * 512;
    CHECK(memcmp(img + off, buf, 512) == 0, "written sector not in the image");

    /* read it back through the MBA */
    uint8_t zero[512] = {0};
    vax_phys_write(m, 0x40000, zero, sizeof zero);
    start_xfer(m, 0, 0x200, 1, 0, 512, 2, 0, 0, HP_RCOM);
    run_until_irq(m, 200000000ull);
    ack_interrupt(m, NULL);
    uint8_t back[512];
    vax_phys_read(m, 0x40000, back, sizeof back);
    CHECK(memcmp(back, buf, 512) == 0, "read-back differs");

    /* write check: equal, then one differing odd byte */
    start_xfer(m, 0, 0x180, 1, 0, 512, 2, 0, 0, HP_WCDATA);
    run_until_irq(m, 200000000ull);
    sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_WCKUP | MBASR_WCKLWR | MBASR_DTABT)) == 0, "write check of equal data: SR %#x", sr);
    uint8_t x = (uint8_t)(buf[101] ^ 0xFF);
    vax_phys_write(m, 0x30000 + 101, &x, 1);
    start_xfer(m, 0, 0x180, 1, 0, 512, 2, 0, 0, HP_WCDATA);
    run_until_irq(m, 200000000ull);
    sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_WCKUP | MBASR_DTABT)) == (MBASR_WCKUP | MBASR_DTABT), "write check mismatch: SR %#x", sr);
    CHECK((rd(m, MBA_BCR) & 0xFFFF) == ((0u - 512u + 101u) & 0xFFFF), "BCR after mismatch %#x",
          rd(m, MBA_BCR));
    CHECK(memcmp(img + off, buf, 512) == 0, "write check changed the pack");

    /* a partial sector write pads with zeros */
    start_xfer(m, 0, 0x180, 1, 0, 100, 2, 0, 1, HP_WCOM);
    run_until_irq(m, 200000000ull);
    ack_interrupt(m, NULL);
    off = lba_of(2, 0, 1) * 512;
    int ok = memcmp(img + off, buf, 100) == 0;
    for (int i = 100; i < 512; i++)
        ok &= img[off + (uint64_t)i] == 0;
    CHECK(ok, "partial-sector write not zero padded");
}

static void test_seek_attention(vax_machine *m, mba *a)
{
    mba_disk_stats s0, s1;
    mba_disk_stats_get(a, 0, &s0);
    wr(m, DRV(0, RP_DC), 500);
    wr(m, DRV(0, RP_CS1), HP_SEEK | HP_GO);
    uint32_t ds = rd(m, DRV(0, RP_DS));
    CHECK((ds & (RPDS_PIP | RPDS_DRY)) == RPDS_PIP, "DS during seek %#x", ds);
    CHECK(!IRQ_PENDING(m), "interrupt at once");
    uint64_t dt = run_until_irq(m, 200000000ull);
    CHECK(IRQ_PENDING(m), "no interrupt after the seek");
    /* 2 -> 500: 10 ms + 45 ms * 497/813 = 37.5 ms */
    CHECK(dt >= 37000000ull && dt <= 38200000ull, "seek of 498 cylinders took %llu ns", (unsigned long long)dt);
    ds = rd(m, DRV(0, RP_DS));
    CHECK((ds & (RPDS_ATA | RPDS_DRY | RPDS_ERR | RPDS_PIP)) == (RPDS_ATA | RPDS_DRY), "DS after seek %#x", ds);
    CHECK(rd(m, MBA_SR) & MBASR_ATTN, "SR lacks ATTN");
    CHECK(rd(m, DRV(0, RP_AS)) == 1, "AS = %#x", rd(m, DRV(0, RP_AS)));
    CHECK(rd(m, DRV(0, RP_CC)) == 500, "CC after seek %u", rd(m, DRV(0, RP_CC)));
    wr(m, DRV(0, RP_AS), 1); /* mbclrattn */
    CHECK(!(rd(m, DRV(0, RP_DS)) & RPDS_ATA) && !(rd(m, MBA_SR) & MBASR_ATTN), "AS write did not clear ATA");
    CHECK(!IRQ_PENDING(m), "request pending after AS cleared");

    /* registers are locked while a seek runs: RMR, ERR, attention */
    wr(m, DRV(0, RP_DC), 510);
    wr(m, DRV(0, RP_CS1), HP_SEEK | HP_GO);
    wr(m, DRV(0, RP_DA), 0x0101);
    CHECK(rd(m, DRV(0, RP_ER1)) & RPER1_RMR, "no RMR for a write during a seek");
    CHECK((rd(m, DRV(0, RP_DS)) & (RPDS_ATA | RPDS_ERR)) == (RPDS_ATA | RPDS_ERR), "DS after RMR %#x",
          rd(m, DRV(0, RP_DS)));
    CHECK(IRQ_PENDING(m), "no interrupt for RMR");
    run_until_dry(m, 0, 200000000ull);
    CHECK(rd(m, DRV(0, RP_CC)) == 510, "CC after second seek %u", rd(m, DRV(0, RP_CC)));
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO); /* clears RMR and ATA */
    CHECK(rd(m, DRV(0, RP_ER1)) == 0 && !(rd(m, DRV(0, RP_DS)) & (RPDS_ERR | RPDS_ATA)), "DCLR left errors");
    wr(m, MBA_SR, rd(m, MBA_SR));
    CHECK(!IRQ_PENDING(m), "request pending after DCLR");

    /* search: ATA when the sector arrives; LA then names it */
    wr(m, DRV(0, RP_DA), (3u << 8) | 10u);
    wr(m, DRV(0, RP_CS1), HP_SEARCH | HP_GO);
    dt = run_until_irq(m, 200000000ull);
    CHECK(dt <= 16666667ull + 100000ull, "search on cylinder took %llu ns", (unsigned long long)dt);
    CHECK(((rd(m, DRV(0, RP_LA)) >> 6) & 0x3F) == 10, "LA after search %#x", rd(m, DRV(0, RP_LA)));
    ack_interrupt(m, NULL);
    mba_disk_stats_get(a, 0, &s1);
    CHECK(s1.seeks == s0.seeks + 2, "seek count %llu -> %llu", (unsigned long long)s0.seeks,
          (unsigned long long)s1.seeks);

    /* recalibrate goes home */
    wr(m, DRV(0, RP_CS1), HP_RECAL | HP_GO);
    run_until_irq(m, 200000000ull);
    ack_interrupt(m, NULL);
    CHECK(rd(m, DRV(0, RP_CC)) == 0, "CC after recal %u", rd(m, DRV(0, RP_CC)));
}

static void test_errors(vax_machine *m, const uint8_t *img)
{
    /* cylinder 815 does not exist: IAE at once */
    start_xfer(m, 0, 0x100, 1, 0, 512, RP06_NCYL, 0, 0, HP_RCOM);
    uint32_t sr = rd(m, MBA_SR);
    CHECK((sr & (MBASR_DTCMP | MBASR_MBEXC | MBASR_DTABT | MBASR_DTBUSY)) ==
              (MBASR_DTCMP | MBASR_MBEXC | MBASR_DTABT),
          "SR after bad address %#x", sr);
    CHECK(rd(m, DRV(0, RP_ER1)) & RPER1_IAE, "ER1 lacks IAE: %#x", rd(m, DRV(0, RP_ER1)));
    CHECK((rd(m, DRV(0, RP_DS)) & (RPDS_ERR | RPDS_ATA)) == (RPDS_ERR | RPDS_ATA), "DS %#x",
          rd(m, DRV(0, RP_DS)));
    CHECK(IRQ_PENDING(m), "no interrupt for the failed transfer");
    /* a drive with an error does nothing but DCLR */
    ack_interrupt(m, NULL);
    wr(m, DRV(0, RP_DC), 3);
    wr(m, DRV(0, RP_CS1), HP_SEEK | HP_GO);
    CHECK(rd(m, DRV(0, RP_DS)) & RPDS_DRY, "drive in error started a seek");
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO);
    CHECK(!(rd(m, DRV(0, RP_DS)) & RPDS_ERR), "DCLR did not clear");

    /* sector 22 of a 22-sector track: IAE */
    start_xfer(m, 0, 0x100, 1, 0, 512, 0, 0, RP06_NSECT, HP_RCOM);
    CHECK(rd(m, DRV(0, RP_ER1)) & RPER1_IAE, "sector 22 accepted");
    ack_interrupt(m, NULL);
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO);

    /* running off the end of the pack: one sector moves, then AOE */
    start_xfer(m, 0, 0x100, 2, 0, 1024, RP06_NCYL - 1, RP06_NTRAK - 1, RP06_NSECT - 1, HP_RCOM);
    run_until_irq(m, 200000000ull);
    sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_DTCMP | MBASR_MBEXC | MBASR_DTABT)) == (MBASR_DTCMP | MBASR_MBEXC | MBASR_DTABT),
          "SR after overflow %#x", sr);
    CHECK(rd(m, DRV(0, RP_ER1)) & RPER1_AOE, "ER1 lacks AOE: %#x", rd(m, DRV(0, RP_ER1)));
    CHECK(rd(m, DRV(0, RP_DS)) & RPDS_LST, "DS lacks LST");
    CHECK((-(rd(m, MBA_BCR)) & 0xFFFF) == 512, "residue %u", -(rd(m, MBA_BCR)) & 0xFFFF);
    uint8_t got[512];
    vax_phys_read(m, 0x20000, got, sizeof got);
    CHECK(memcmp(got, img + (RP06_BYTES - 512), 512) == 0, "last sector not read");
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO);

    /* invalid map entry */
    start_xfer(m, 0, 0x100, 1, 0, 1024, 0, 0, 0, HP_RCOM); /* map[1] = 0 */
    run_until_irq(m, 200000000ull);
    sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_INVMAP | MBASR_DTABT | MBASR_DTCMP)) == (MBASR_INVMAP | MBASR_DTABT | MBASR_DTCMP),
          "SR after invalid map %#x", sr);
    CHECK((-(rd(m, MBA_BCR)) & 0xFFFF) == 512, "residue after invalid map %u", -(rd(m, MBA_BCR)) & 0xFFFF);

    /* page beyond memory */
    start_xfer(m, 0, 0x10000, 1, 0, 512, 0, 0, 0, HP_RCOM);
    run_until_irq(m, 200000000ull);
    sr = ack_interrupt(m, NULL);
    CHECK((sr & (MBASR_NRCONF | MBASR_DTABT)) == (MBASR_NRCONF | MBASR_DTABT), "SR after NXM %#x", sr);

    /* header I/O is refused with ILF */
    start_xfer(m, 0, 0x100, 1, 0, 516, 0, 0, 0, HP_RHDR);
    CHECK(rd(m, DRV(0, RP_ER1)) & RPER1_ILF, "RHDR accepted");
    ack_interrupt(m, NULL);
    wr(m, DRV(0, RP_CS1), HP_DCLR | HP_GO);

    /* the read-only RM03: write lock error */
    wr(m, DRV(1, RP_CS1), HP_PACK | HP_GO);
    start_xfer(m, 1, 0x100, 1, 0, 512, 0, 0, 0, HP_WCOM);
    sr = ack_interrupt(m, NULL);
    CHECK(sr & MBASR_MBEXC, "write to read-only pack: SR %#x", sr);
    CHECK(rd(m, DRV(1, RP_ER1)) & RPER1_WLE, "ER1 lacks WLE: %#x", rd(m, DRV(1, RP_ER1)));
    CHECK(rd(m, DRV(1, RP_DS)) & RPDS_ERR, "DS lacks ERR after WLE");
    wr(m, DRV(1, RP_CS1), HP_DCLR | HP_GO);
}

/* A seek finishing during another drive's transfer must not interrupt on
 * its own (mbintr would take it for the end of the transfer). */
static void test_overlap(vax_machine *m)
{
    start_xfer(m, 0, 0x100, 32, 0, 32 * 512, 700, 0, 0, HP_RCOM); /* long seek + 32 sectors */
    /* the adapter is busy: a second data transfer is a programming error */
    wr(m, DRV(1, RP_CS1), HP_RCOM | HP_GO);
    CHECK(rd(m, MBA_SR) & MBASR_PGE, "no PGE for a second transfer");
    CHECK(rd(m, DRV(1, RP_DS)) & RPDS_DRY, "drive 1 started the refused transfer");
    wr(m, MBA_SR, MBASR_PGE);
    wr(m, DRV(1, RP_DC), 1);
    wr(m, DRV(1, RP_CS1), HP_SEEK | HP_GO); /* RM03: ~6 ms */
    run_until_dry(m, 1, 100000000ull);
    CHECK(rd(m, DRV(1, RP_DS)) & RPDS_ATA, "drive 1 seek did not finish");
    CHECK(rd(m, MBA_SR) & MBASR_DTBUSY, "transfer already over");
    CHECK(!IRQ_PENDING(m), "attention interrupted during a transfer");
    run_until_irq(m, 200000000ull);
    uint32_t as;
    uint32_t sr = ack_interrupt(m, &as);
    CHECK((sr & MBASR_DTCMP) && as == 2, "end of transfer: SR %#x AS %#x", sr, as);
}

static void test_fast_and_polled(vax_machine *m, mba *a)
{
    wr(m, MBA_CR, MBACR_INIT); /* stand/mba.c mbainit: no IE, polled */
    CHECK(rd(m, MBA_CR) == 0, "CR after INIT %#x", rd(m, MBA_CR));
    mba_set_fast_timing(a, 1);
    uint64_t t0 = machine_time_ns(m);
    start_xfer(m, 0, 0x100, 1, 0, 512, 800, 5, 7, HP_RCOM);
    while ((rd(m, MBA_SR) & MBASR_DTBUSY) && machine_time_ns(m) - t0 < 100000000ull)
        vax_run(m, 1);
    uint64_t dt = machine_time_ns(m) - t0;
    CHECK(dt >= RP_FAST_NS && dt <= RP_FAST_NS + 20000, "fast read took %llu ns", (unsigned long long)dt);
    CHECK((rd(m, MBA_SR) & MBASR_DTCMP) && !IRQ_PENDING(m), "polled transfer: SR %#x irq %u", rd(m, MBA_SR),
          IRQ_PENDING(m));
    CHECK(rd(m, DRV(0, RP_CC)) == 800, "CC %u", rd(m, DRV(0, RP_CC)));
    mba_set_fast_timing(a, 0);

    /* console INIT clears the adapter, keeps VV */
    wr(m, DRV(0, RP_DC), 3);
    wr(m, DRV(0, RP_CS1), HP_SEEK | HP_GO);
    mba_reset(a);
    CHECK(rd(m, MBA_SR) == 0 && (rd(m, DRV(0, RP_DS)) & (RPDS_DRY | RPDS_VV | RPDS_ATA)) == (RPDS_DRY | RPDS_VV),
          "after reset SR %#x DS %#x", rd(m, MBA_SR), rd(m, DRV(0, RP_DS)));
    vax_run(m, 100000);
    CHECK(!(rd(m, DRV(0, RP_DS)) & RPDS_ATA), "cancelled seek finished anyway");
}

/* The interrupt is taken at IPL 0x15 through the MBA's SCB vector. */
static void test_interrupt_delivery(vax_machine *m)
{
    wr(m, MBA_CR, MBACR_IE);
    uint32_t handler = 0x2000 | 1; /* on the interrupt stack */
    vax_phys_write(m, 0x8000 + sbi_vector(TR, MBA_IPL), &handler, 4);
    uint8_t halt = 0;
    vax_phys_write(m, 0x2000, &halt, 1);
    vax_set_ipr(m, IPR_SCBB, 0x8000);
    vax_set_reg(m, 14, 0x9000);
    vax_set_reg(m, 15, 0x1000);
    vax_set_psl(m, PSL_IS); /* kernel, interrupt stack, IPL 0 */
    wr(m, DRV(0, RP_DC), 4);
    wr(m, DRV(0, RP_CS1), HP_SEEK | HP_GO);
    vax_stop_reason r = vax_run(m, 1000000);
    CHECK(r == VAX_STOP_HALT, "no HALT in the handler: %s %s", vax_stop_reason_name(r), vax_stop_detail(m));
    CHECK(vax_get_reg(m, 15) == 0x2001, "PC %#x", vax_get_reg(m, 15));
    CHECK(PSL_GET_IPL(vax_get_psl(m)) == MBA_IPL, "IPL in handler %#x", PSL_GET_IPL(vax_get_psl(m)));
    ack_interrupt(m, NULL);
}

static void test_destroy(void)
{
    vax_machine *m = new_machine();
    mba *a = m ? mba_create(m, 9, 1) : NULL;
    CHECK(a != NULL, "mba_create");
    if (!a) {
        vax_destroy(m);
        return;
    }
    CHECK(mba_create(m, 16, 0) == NULL, "TR 16 accepted");
    uint32_t v;
    CHECK(bus_read(m, sbi_nexus_address(9), 4, &v) == 0 && (v & 0xFF) == NEX_MBA, "MBA at TR 9");
    mba_destroy(a);
    CHECK(bus_read(m, sbi_nexus_address(9), 4, &v) == VAX_EXC_MACHINE_CHECK, "MBA still there after destroy");
    vax_destroy(m);
}

int main(void)
{
    vax_machine *m = new_machine();
    CHECK(m != NULL, "vax_create");
    if (!m)
        return 1;
    mba *a = mba_create(m, TR, 0);
    CHECK(a != NULL, "mba_create");
    /* calloc: pages stay untouched (and unallocated) except where filled */
    uint8_t *img = calloc(1, RP06_BYTES);
    uint8_t *rm = calloc(1, RM03_BYTES);
    CHECK(img && rm, "no memory for the packs");
    if (!a || !img || !rm)
        return 1;
    fill_pattern(img, lba_of(1, 2, 3), 2);
    fill_pattern(img, lba_of(RP06_NCYL - 1, RP06_NTRAK - 1, RP06_NSECT - 1), 1);
    vax_blockdev rp06, rm03;
    blockdev_memory(&rp06, img, RP06_BYTES, 0);
    blockdev_memory(&rm03, rm, RM03_BYTES, 1);
    char err[256] = "";
    CHECK(rp_attach(a, 0, "RP06", &rp06, err, sizeof err) == 0, "attach RP06: %s", err);
    CHECK(rp_attach(a, 1, "RM03", &rm03, err, sizeof err) == 0, "attach RM03: %s", err);

    test_attach_errors(m, a);
    test_probe(m);
    test_pack_ack(m);
    test_read(m, a);
    test_write(m, img);
    test_seek_attention(m, a);
    test_errors(m, img);
    test_overlap(m);
    test_fast_and_polled(m, a);
    test_interrupt_delivery(m);
    test_destroy();

    mba_destroy(a);
    vax_destroy(m);
    free(img);
    free(rm);
    return check_summary();
}
