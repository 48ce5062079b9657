/*
 * test_uda50.c — the UDA50 (unibus/uda50.c) driven as a host driver
 * drives it: the four-step initialisation through SA, the communications
 * area and the rings in memory reached through the UBA map, MSCP commands
 * and their end messages, interrupts, virtual-time timing, and what
 * hostile input does (it may stop the port with a fatal error in SA, never
 * more).  No DEC files are needed: the packs are memory images.
 *
 * The rig: a bare machine running `BRB .` at IPL 31 (interrupt requests
 * are only looked at, never taken), UBA0 at TR 3 with UNIBUS pages 0-255
 * mapped one to one onto physical memory, a UDA50 at 772150.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus.h"
#include "machine.h"
#include "storage/blockdev.h"
#include "storage/overlay.h"
#include "bus/sbi.h"
#include "unibus/mscp.h"
#include "unibus/uba.h"
#include "unibus/uda50.h"

#include "check.h"

#define TR 3
#define NEX (sbi_nexus_address(TR))
#define UB(a) (UBA_SPACE_BASE(0) + (uint32_t)(a))
#define BRRVR(level) (NEX + UBA_BRRVR + 4u * (uint32_t)(level))
#define MAPREG(n) (NEX + UBA_MAP + 4u * (uint32_t)(n))
#define IP UB(UDA50_CSR)
#define SA UB(UDA50_CSR + 2)
#define VEC 0774u

/* Where the host keeps things (UNIBUS = physical addresses here). */
#define CA 0x1000u          /* communications area: ring base = CA + 8 */
#define RINGBASE (CA + 8u)
#define NRSP 4u
#define NCMD 4u
#define RSPBUF(i) (0x2000u + 0x100u * (i))   /* envelope; text at +4 */
#define CMDBUF(i) (0x3000u + 0x100u * (i))
#define DATA 0x10000u

#define OWN 0x80000000u
#define FLAG 0x40000000u

typedef struct {
    vax_machine *m;
    uba *u;
    uda50 *d;
    vax_blockdev base[UDA50_UNITS], pack[UDA50_UNITS];
    uint8_t *bytes[UDA50_UNITS];
    uint32_t cmd_i, rsp_i;   /* the host's next slots */
} rig;

/* ------------------------------------------------------------- helpers */

static uint32_t rd(rig *r, uint32_t pa, int size)
{
    uint32_t v = 0xDEADBEEF;
    if (bus_read(r->m, pa, size, &v) != 0) {
        failed++;
        printf("FAIL bus_read %08X\n", pa);
    }
    return v;
}

static void wr(rig *r, uint32_t pa, int size, uint32_t v)
{
    if (bus_write(r->m, pa, size, v) != 0) {
        failed++;
        printf("FAIL bus_write %08X\n", pa);
    }
}

static uint32_t pl(rig *r, uint32_t pa)
{
    uint8_t b[4];
    vax_phys_read(r->m, pa, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t pw(rig *r, uint32_t pa)
{
    uint8_t b[2];
    vax_phys_read(r->m, pa, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static void sl(rig *r, uint32_t pa, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    vax_phys_write(r->m, pa, b, 4);
}

static void sw(rig *r, uint32_t pa, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    vax_phys_write(r->m, pa, b, 2);
}

static uint64_t now(rig *r) { return machine_time_ns(r->m); }

static void run_ns(rig *r, uint64_t ns)
{
    uint64_t end = now(r) + ns;
    while (now(r) < end)
        vax_run(r->m, (end - now(r)) / r->m->ns_per_instruction + 1);
    vax_run(r->m, 1);
}

/* The vector the UBA hands out at BR5 (0: nothing requested). */
static uint32_t take_br5(rig *r) { return rd(r, BRRVR(1), 4) & 0xFFFFu; }

/* A pack of `type` whose first `have` bytes are a pattern (block n's
 * bytes are n's low byte XOR their offset); the rest reads as zeros. */
static void make_pack(rig *r, int unit, const char *type, uint32_t have, int read_only)
{
    r->bytes[unit] = malloc(have);
    for (uint32_t i = 0; i < have; i++)
        r->bytes[unit][i] = (uint8_t)((i / 512) ^ (i % 512));
    blockdev_memory(&r->base[unit], r->bytes[unit], have, 0);
    blockdev_overlay_sized(&r->pack[unit], &r->base[unit], ra_type_bytes(ra_type_find(type)));
    r->pack[unit].read_only = read_only;
    char err[200];
    CHECK(uda50_attach(r->d, unit, type, &r->pack[unit], err, sizeof err) == 0, "attach unit %d: %s", unit, err);
}

static int rig_open(rig *r)
{
    memset(r, 0, sizeof *r);
    vax_config cfg = {8u << 20};
    r->m = vax_create(&cfg);
    if (!r->m)
        return -1;
    const uint8_t brb[] = {0x11, 0xFE};
    vax_phys_write(r->m, 0x200, brb, sizeof brb);
    vax_set_reg(r->m, 15, 0x200);
    r->u = uba_create(r->m, TR, 0);
    r->d = uda50_create(r->u, UDA50_CSR);
    if (!r->u || !r->d)
        return -1;
    wr(r, NEX + UBA_CR, 4, UBACR_IFS | UBACR_BRIE);
    for (uint32_t p = 0; p < 256; p++)
        wr(r, MAPREG(p), 4, UBAMR_MRV | p);
    return 0;
}

static void rig_close(rig *r)
{
    uba_destroy(r->u);
    vax_destroy(r->m);
    for (int u = 0; u < UDA50_UNITS; u++) {
        if (r->bytes[u]) {
            blockdev_overlay_destroy(&r->pack[u]);
            free(r->bytes[u]);
        }
    }
}

/* The four steps with IE: each of steps 2, 3 and 4 is announced by an
 * interrupt at the host's vector.  Returns 0 if every step went as the
 * port definition says. */
static int port_init(rig *r, int ie)
{
    wr(r, IP, 2, 0);   /* hard initialisation */
    CHECK((rd(r, SA, 2) & 0174000) == 0, "SA during the self test: %06o", rd(r, SA, 2));
    run_ns(r, 2000000);
    uint32_t sa = rd(r, SA, 2);
    CHECK((sa & 0174000) == 0004000, "step 1: SA %06o", sa);
    uint32_t w1 = 0100000u | (2u << 11) | (2u << 8) | (ie ? 0200u : 0) | (VEC / 4);   /* rings of 4 */
    wr(r, SA, 2, w1);
    run_ns(r, 200000);
    sa = rd(r, SA, 2);
    CHECK(sa == (0010000u | (w1 >> 8)), "step 2: SA %06o, the step-1 word's high byte echoed", sa);
    if (ie)
        CHECK(take_br5(r) == VEC, "interrupt entering step 2");
    /* Dirty the communications area: the port must clear it. */
    for (uint32_t a = CA; a < RINGBASE + 4 * (NRSP + NCMD); a += 4)
        sl(r, a, 0xFFFFFFFFu);
    wr(r, SA, 2, RINGBASE & 0xFFFFu);
    run_ns(r, 200000);
    sa = rd(r, SA, 2);
    CHECK(sa == (0020000u | (w1 & 0377u)), "step 3: SA %06o, the step-1 word's low byte echoed", sa);
    if (ie)
        CHECK(take_br5(r) == VEC, "interrupt entering step 3");
    wr(r, SA, 2, RINGBASE >> 16);
    run_ns(r, 200000);
    sa = rd(r, SA, 2);
    CHECK((sa & 0174000) == 0040000, "step 4: SA %06o", sa);
    if (ie)
        CHECK(take_br5(r) == VEC, "interrupt entering step 4");
    int cleared = 1;
    for (uint32_t a = RINGBASE - 4; a < RINGBASE + 4 * (NRSP + NCMD); a += 4)
        cleared &= pl(r, a) == 0;
    CHECK(cleared, "the port cleared the communications area");
    wr(r, SA, 2, 1);   /* GO */
    CHECK(rd(r, SA, 2) == 0 && uda50_running(r->d), "running: SA %06o", rd(r, SA, 2));
    r->cmd_i = r->rsp_i = 0;
    /* Every response slot to the port, with room for 60 bytes. */
    for (uint32_t i = 0; i < NRSP; i++) {
        sw(r, RSPBUF(i), 60);
        sl(r, RINGBASE + 4 * i, OWN | FLAG | (RSPBUF(i) + 4));
    }
    return failed;
}

/* Put a command in the next command slot and read IP.  The envelope says
 * len (which may lie); at most 64 bytes of msg are stored. */
static void send(rig *r, const uint8_t *msg, uint16_t len)
{
    uint32_t i = r->cmd_i;
    r->cmd_i = (i + 1) % NCMD;
    uint32_t env = CMDBUF(i);
    sw(r, env, len);
    sw(r, env + 2, 0);   /* credits/type 0: sequential; connection 0 */
    vax_phys_write(r->m, env + 4, msg, len < 64 ? len : 64);
    sl(r, RINGBASE + 4 * (NRSP + i), OWN | FLAG | (env + 4));
    (void)rd(r, IP, 2);
}

/* Wait (at most limit ns) for the next end message; copy it to msg and
 * give the slot back.  Returns its length, or -1 if none came. */
static int receive(rig *r, uint8_t *msg, uint64_t limit, uint64_t *at)
{
    uint32_t i = r->rsp_i;
    uint32_t da = RINGBASE + 4 * i;
    uint64_t end = now(r) + limit;
    while (pl(r, da) & OWN) {
        if (now(r) > end)
            return -1;
        run_ns(r, 20000);
    }
    if (at)
        *at = now(r);
    int len = pw(r, RSPBUF(i));
    if (len > 60)
        len = 60;
    memset(msg, 0, 64);
    vax_phys_read(r->m, RSPBUF(i) + 4, msg, (size_t)len);
    sw(r, RSPBUF(i), 60);
    sl(r, da, OWN | FLAG | (RSPBUF(i) + 4));
    r->rsp_i = (i + 1) % NRSP;
    return len;
}

static uint32_t g32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t g16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void p32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static void p16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void command(uint8_t *c, uint32_t ref, uint32_t unit, uint8_t op)
{
    memset(c, 0, 64);
    p32(c + MSCP_CMDREF, ref);
    p16(c + MSCP_UNIT, unit);
    c[MSCP_OPCODE] = op;
}

/* A command and its end message; returns the end message's length. */
static int roundtrip(rig *r, const uint8_t *c, uint16_t len, uint8_t *e)
{
    send(r, c, len);
    return receive(r, e, 2000000000ull, NULL);
}

static void transfer(uint8_t *c, uint32_t ref, uint32_t unit, uint8_t op, uint32_t lbn, uint32_t count, uint32_t buf)
{
    command(c, ref, unit, op);
    p32(c + MSCP_BYTECNT, count);
    p32(c + MSCP_BUFFER, buf);
    p32(c + MSCP_LBN, lbn);
}

/* ---------------------------------------------------------------- tests */

static void test_power_up_and_init(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    CHECK(rd(&r, SA, 2) == 0004400, "after power-up the port waits in step 1: SA %06o", rd(&r, SA, 2));
    port_init(&r, 1);
    CHECK(take_br5(&r) == 0, "no interrupt after GO");
    rig_close(&r);
}

static void test_controller_and_units(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 0, "RA81", 1u << 20, 0);
    make_pack(&r, 2, "RA60", 4096, 0);
    port_init(&r, 1);
    uint8_t c[64], e[64];

    command(c, 0x1111, 0, MSCP_OP_STCON);
    p16(c + MSCP_CNTFLGS, MSCP_CF_ATTN | MSCP_CF_THIS | MSCP_CF_576);
    int n = roundtrip(&r, c, 60, e);
    CHECK(n == MSCP_STCON_BYTES, "STCON end message %d bytes", n);
    CHECK(g32(e + MSCP_CMDREF) == 0x1111 && e[MSCP_OPCODE] == (MSCP_OP_STCON | MSCP_OP_END) && g16(e + MSCP_STATUS) == 0,
          "STCON end: ref %X endcode %o status %o", g32(e), e[MSCP_OPCODE], g16(e + MSCP_STATUS));
    CHECK(g16(e + MSCP_CNTFLGS) == (MSCP_CF_ATTN | MSCP_CF_THIS), "576-byte sectors refused: flags %o",
          g16(e + MSCP_CNTFLGS));
    CHECK(e[MSCP_CNTID + 7] == MSCP_CLASS_CONTROLLER, "controller class");
    /* The first end message grants the host its credits (4 bits in the envelope). */
    CHECK((pw(&r, RSPBUF(0) + 2) & 0x0F) > 1, "credits granted: %u", pw(&r, RSPBUF(0) + 2) & 0x0F);
    CHECK(take_br5(&r) == VEC, "response ring interrupt");
    CHECK(pw(&r, RINGBASE - 2) == 1, "response transition indicator set");
    CHECK(pw(&r, RINGBASE - 4) == 0, "no command ring transition: the ring was not full");

    command(c, 2, 0, MSCP_OP_GTUNT);
    n = roundtrip(&r, c, 60, e);
    CHECK(n == MSCP_GTUNT_BYTES && (g16(e + MSCP_STATUS) & 037) == MSCP_ST_AVLBL, "GTUNT of an available unit: %d %o",
          n, g16(e + MSCP_STATUS));
    CHECK(g32(e + MSCP_MEDIAID) == MSCP_MEDIA_ID('D', 'U', 'R', 'A', 0, 81) && g32(e + MSCP_MEDIAID) == 0x25641051u,
          "RA81 media id %08X", g32(e + MSCP_MEDIAID));
    CHECK(g16(e + MSCP_TRACK) == 51 && g16(e + MSCP_GROUP) == 14 && e[MSCP_RBNS] == 1, "RA81 geometry %u %u %u",
          g16(e + MSCP_TRACK), g16(e + MSCP_GROUP), e[MSCP_RBNS]);
    CHECK(e[MSCP_UNITID + 6] == 5 && e[MSCP_UNITID + 7] == MSCP_CLASS_DISK, "unit id: model %u class %u",
          e[MSCP_UNITID + 6], e[MSCP_UNITID + 7]);

    command(c, 3, 3, MSCP_OP_GTUNT);
    n = roundtrip(&r, c, 60, e);
    CHECK((g16(e + MSCP_STATUS) & 037) == MSCP_ST_OFFLN && g32(e + MSCP_MEDIAID) == 0, "no unit 3: offline, %o",
          g16(e + MSCP_STATUS));

    /* Next-unit walk: 0, 2, then back to 0. */
    uint32_t seen[4], k = 0;
    for (uint32_t u = 0; k < 4; k++) {
        command(c, 10 + k, u, MSCP_OP_GTUNT);
        p16(c + MSCP_MODIFIER, MSCP_MD_NXUNT);
        roundtrip(&r, c, 60, e);
        seen[k] = g16(e + MSCP_UNIT);
        u = seen[k] + 1;
    }
    CHECK(seen[0] == 0 && seen[1] == 2 && seen[2] == 0, "next-unit walk %u %u %u", seen[0], seen[1], seen[2]);

    command(c, 4, 0, MSCP_OP_ONLIN);
    n = roundtrip(&r, c, 60, e);
    CHECK(n == MSCP_ONLINE_BYTES && g16(e + MSCP_STATUS) == 0 && g32(e + MSCP_UNTSIZE) == 891072,
          "ONLINE: %d bytes, status %o, size %u", n, g16(e + MSCP_STATUS), g32(e + MSCP_UNTSIZE));
    n = roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == MSCP_SC_SUCC_ONLINE, "ONLINE again: already online %o", g16(e + MSCP_STATUS));
    command(c, 5, 2, MSCP_OP_ONLIN);
    roundtrip(&r, c, 60, e);
    CHECK(g32(e + MSCP_UNTSIZE) == 400176 && (g16(e + MSCP_UNITFLGS) & MSCP_UF_RMVBL), "RA60 online: %u",
          g32(e + MSCP_UNTSIZE));

    command(c, 6, 0, MSCP_OP_AVAIL);
    roundtrip(&r, c, 60, e);
    CHECK(e[MSCP_OPCODE] == (MSCP_OP_AVAIL | MSCP_OP_END) && g16(e + MSCP_STATUS) == 0, "AVAILABLE");
    transfer(c, 7, 0, MSCP_OP_READ, 0, 512, DATA);
    roundtrip(&r, c, 60, e);
    CHECK((g16(e + MSCP_STATUS) & 037) == MSCP_ST_AVLBL, "READ of an available unit: %o", g16(e + MSCP_STATUS));

    /* An opcode the server does not know: the end flag alone. */
    command(c, 8, 0, 077);
    roundtrip(&r, c, 60, e);
    CHECK(e[MSCP_OPCODE] == MSCP_OP_END && g16(e + MSCP_STATUS) == MSCP_ICMD_AT(MSCP_OPCODE),
          "unknown opcode: endcode %o status %04X", e[MSCP_OPCODE], g16(e + MSCP_STATUS));
    /* A message too short to be a command. */
    command(c, 9, 0, MSCP_OP_GTUNT);
    roundtrip(&r, c, 6, e);
    CHECK(e[MSCP_OPCODE] == MSCP_OP_END && (g16(e + MSCP_STATUS) & 037) == MSCP_ST_ICMD, "short message: %o",
          g16(e + MSCP_STATUS));
    rig_close(&r);
}

static void test_transfers(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 0, "RA81", 1u << 20, 0);
    port_init(&r, 0);
    uint8_t c[64], e[64];
    command(c, 1, 0, MSCP_OP_STCON);
    roundtrip(&r, c, 60, e);
    command(c, 2, 0, MSCP_OP_ONLIN);
    roundtrip(&r, c, 60, e);

    /* READ three blocks from block 5 into a buffer that spans UBA pages. */
    transfer(c, 0xABCD, 0, MSCP_OP_READ, 5, 3 * 512, DATA + 100);
    int n = roundtrip(&r, c, 60, e);
    CHECK(n == MSCP_XFER_BYTES && e[MSCP_OPCODE] == (MSCP_OP_READ | MSCP_OP_END) && g16(e + MSCP_STATUS) == 0 &&
              g32(e + MSCP_BYTECNT) == 1536,
          "READ end: %d %o %o %u", n, e[MSCP_OPCODE], g16(e + MSCP_STATUS), g32(e + MSCP_BYTECNT));
    uint8_t got[1536];
    vax_phys_read(r.m, DATA + 100, got, sizeof got);
    CHECK(memcmp(got, r.bytes[0] + 5 * 512, 1536) == 0, "READ data");

    /* WRITE 700 bytes: the second block's tail is padded with zeros. */
    uint8_t pat[700];
    for (int i = 0; i < 700; i++)
        pat[i] = (uint8_t)(0x5A ^ i);
    vax_phys_write(r.m, DATA + 0x2000, pat, sizeof pat);
    transfer(c, 3, 0, MSCP_OP_WRITE, 100000, 700, DATA + 0x2000);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == 0 && g32(e + MSCP_BYTECNT) == 700, "WRITE end %o %u", g16(e + MSCP_STATUS),
          g32(e + MSCP_BYTECNT));
    uint8_t blk[1024];
    r.pack[0].read(&r.pack[0], 100000ull * 512, blk, 1024);
    int zero_tail = 1;
    for (int i = 700; i < 1024; i++)
        zero_tail &= blk[i] == 0;
    CHECK(memcmp(blk, pat, 700) == 0 && zero_tail, "WRITE data and zero padding");

    /* COMPARE HOST DATA: equal, then different. */
    transfer(c, 4, 0, MSCP_OP_COMP, 100000, 700, DATA + 0x2000);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == 0, "COMPARE equal: %o", g16(e + MSCP_STATUS));
    sl(&r, DATA + 0x2000 + 600, 0x12345678u);
    roundtrip(&r, c, 60, e);
    CHECK((g16(e + MSCP_STATUS) & 037) == MSCP_ST_COMP, "COMPARE different: %o", g16(e + MSCP_STATUS));

    /* Blocks outside the unit: the LBN, then the count. */
    transfer(c, 5, 0, MSCP_OP_READ, 891072, 512, DATA);
    roundtrip(&r, c, 60, e);
    CHECK(e[MSCP_OPCODE] == (MSCP_OP_READ | MSCP_OP_END) && g16(e + MSCP_STATUS) == MSCP_ICMD_AT(MSCP_LBN),
          "LBN past the end: %04X", g16(e + MSCP_STATUS));
    transfer(c, 6, 0, MSCP_OP_READ, 891071, 1024, DATA);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == MSCP_ICMD_AT(MSCP_BYTECNT), "count past the end: %04X", g16(e + MSCP_STATUS));
    transfer(c, 7, 0, MSCP_OP_READ, 0xFFFFFFFFu, 0xFFFFFFFFu, DATA);
    roundtrip(&r, c, 60, e);
    CHECK((g16(e + MSCP_STATUS) & 037) == MSCP_ST_ICMD, "absurd LBN and count: %04X", g16(e + MSCP_STATUS));
    transfer(c, 8, 0, MSCP_OP_READ, 891071, 512, DATA);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == 0, "the last block reads");

    /* A buffer the UBA map refuses: host buffer access error, with the
     * bytes moved before it. */
    wr(&r, MAPREG(200), 4, 0);
    transfer(c, 9, 0, MSCP_OP_READ, 0, 2048, 199 * 512);
    roundtrip(&r, c, 60, e);
    CHECK((g16(e + MSCP_STATUS) & 037) == MSCP_ST_HSTBF && g32(e + MSCP_BYTECNT) == 512,
          "unmapped buffer: %o, %u bytes", g16(e + MSCP_STATUS), g32(e + MSCP_BYTECNT));
    CHECK(rd(&r, NEX + UBA_SR, 4) & UBASR_IVMR, "the UBA saw the invalid map register");
    wr(&r, NEX + UBA_SR, 4, 0xFFFFFFFFu);
    wr(&r, MAPREG(200), 4, UBAMR_MRV | 200);
    transfer(c, 10, 0, MSCP_OP_READ, 0, 512, DATA + 1);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == (MSCP_ST_HSTBF | MSCP_SUBCODE(1)), "odd buffer address: %04X", g16(e + MSCP_STATUS));

    /* ERASE writes zeros. */
    transfer(c, 11, 0, MSCP_OP_ERASE, 7, 512, 0);
    roundtrip(&r, c, 60, e);
    r.pack[0].read(&r.pack[0], 7 * 512, blk, 512);
    int zeros = 1;
    for (int i = 0; i < 512; i++)
        zeros &= blk[i] == 0;
    CHECK(g16(e + MSCP_STATUS) == 0 && zeros, "ERASE");

    uda50_disk_stats st;
    CHECK(uda50_disk_stats_get(r.d, 0, &st) == 0 && st.reads >= 2 && st.writes == 1 && st.bytes_written == 700,
          "stats: %llu reads %llu writes %llu bytes written", (unsigned long long)st.reads,
          (unsigned long long)st.writes, (unsigned long long)st.bytes_written);
    CHECK(uda50_disk_stats_get(r.d, 1, &st) == -1, "no stats for an empty slot");
    rig_close(&r);
}

static void test_write_protect(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 1, "RA81", 4096, 1);
    port_init(&r, 0);
    uint8_t c[64], e[64];
    command(c, 1, 1, MSCP_OP_ONLIN);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_UNITFLGS) & MSCP_UF_WRTPH, "hardware write protect flag");
    transfer(c, 2, 1, MSCP_OP_WRITE, 0, 512, DATA);
    roundtrip(&r, c, 60, e);
    CHECK(g16(e + MSCP_STATUS) == (MSCP_ST_WRTPR | MSCP_SC_WRTPR_HW), "WRITE refused: %04X", g16(e + MSCP_STATUS));
    rig_close(&r);
}

/* Seek, rotation and transfer in virtual time: the same commands take the
 * same time on every run; a far seek costs more than a near one. */
static uint64_t timed_read(uint32_t lbn, uint32_t count, uint32_t first_lbn)
{
    rig r;
    if (rig_open(&r) != 0)
        return 0;
    make_pack(&r, 0, "RA81", 4096, 0);
    port_init(&r, 0);
    uint8_t c[64], e[64];
    command(c, 1, 0, MSCP_OP_ONLIN);
    roundtrip(&r, c, 60, e);
    transfer(c, 2, 0, MSCP_OP_READ, first_lbn, 512, DATA);
    roundtrip(&r, c, 60, e);
    transfer(c, 3, 0, MSCP_OP_READ, lbn, count, DATA);
    uint64_t t0 = now(&r), at = 0;
    send(&r, c, 60);
    receive(&r, e, 2000000000ull, &at);
    rig_close(&r);
    return at - t0;
}

static void test_timing(void)
{
    const uint64_t rev = 16666667, slot = rev / 52;
    uint64_t near = timed_read(10, 512, 0);
    CHECK(near == timed_read(10, 512, 0), "deterministic");
    CHECK(near >= 300000 && near <= 300000 + rev + 2 * slot + 40000, "a block on the same cylinder: %llu ns",
          (unsigned long long)near);
    uint64_t far = timed_read(890000, 512, 0);   /* cylinder 1246 from cylinder 0 */
    CHECK(far >= 45000000 && far <= 50000000 + rev + 2 * slot + 340000, "a full-stroke seek: %llu ns",
          (unsigned long long)far);
    uint64_t track = timed_read(0, 51 * 512, 0);   /* a whole track: about one revolution */
    if (getenv("UDA50_TIMES"))
        printf("near %llu far %llu track %llu\n", (unsigned long long)near, (unsigned long long)far,
               (unsigned long long)track);
    CHECK(track >= 300000 + 51 * slot && track <= 300000 + 2 * rev + 40000, "a whole track: %llu ns",
          (unsigned long long)track);
}

/* Two commands for one unit finish in order; GET COMMAND STATUS sees the
 * outstanding one; ABORT ends it with "aborted". */
static void test_abort_and_status(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 0, "RA81", 4096, 0);
    port_init(&r, 0);
    uint8_t c[64], e[64];
    command(c, 1, 0, MSCP_OP_ONLIN);
    roundtrip(&r, c, 60, e);
    transfer(c, 0x100, 0, MSCP_OP_READ, 800000, 512, DATA);   /* a long seek */
    send(&r, c, 60);
    command(c, 0x101, 0, MSCP_OP_GTCMD);
    p32(c + MSCP_OUTREF, 0x100);
    send(&r, c, 60);
    int n = receive(&r, e, 2000000000ull, NULL);
    CHECK(n > 0 && g32(e) == 0x101 && g32(e + MSCP_CMDSTS) > 1000, "GTCMD first: ref %X progress %u", g32(e),
          g32(e + MSCP_CMDSTS));
    command(c, 0x102, 0, MSCP_OP_ABORT);
    p32(c + MSCP_OUTREF, 0x100);
    send(&r, c, 60);
    uint8_t e2[64];
    receive(&r, e, 2000000000ull, NULL);
    receive(&r, e2, 2000000000ull, NULL);
    const uint8_t *aborted = g32(e) == 0x100 ? e : e2, *abort_end = g32(e) == 0x100 ? e2 : e;
    CHECK(g32(aborted) == 0x100 && (g16(aborted + MSCP_STATUS) & 037) == MSCP_ST_ABRTD, "READ aborted: %o",
          g16(aborted + MSCP_STATUS));
    CHECK(abort_end[MSCP_OPCODE] == (MSCP_OP_ABORT | MSCP_OP_END) && g32(abort_end + MSCP_OUTREF) == 0x100,
          "ABORT end");
    command(c, 0x103, 0, MSCP_OP_GTCMD);
    p32(c + MSCP_OUTREF, 0x100);
    roundtrip(&r, c, 60, e);
    CHECK(g32(e + MSCP_CMDSTS) == 0, "GTCMD of a finished command: 0");
    rig_close(&r);
}

/* The host gives no response slot: end messages wait in the port and come
 * when a slot is given and IP read. */
static void test_full_response_ring(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 0, "RA81", 4096, 0);
    port_init(&r, 1);
    for (uint32_t i = 0; i < NRSP; i++)
        sl(&r, RINGBASE + 4 * i, FLAG | (RSPBUF(i) + 4));   /* all the host's */
    uint8_t c[64], e[64];
    for (uint32_t k = 0; k < 3; k++) {
        command(c, 0x40 + k, 0, MSCP_OP_GTUNT);
        send(&r, c, 60);
    }
    run_ns(&r, 10000000);
    CHECK(pl(&r, RINGBASE) == (FLAG | (RSPBUF(0) + 4)), "nothing delivered without slots");
    for (uint32_t i = 0; i < NRSP; i++)
        sl(&r, RINGBASE + 4 * i, OWN | FLAG | (RSPBUF(i) + 4));
    (void)rd(&r, IP, 2);
    int got = 0;
    for (uint32_t k = 0; k < 3; k++)
        got += receive(&r, e, 100000000ull, NULL) > 0 && g32(e) == 0x40 + k;
    CHECK(got == 3, "three end messages in order after the slots came: %d", got);
    /* Four commands at once fill the command ring: taking the first is a
     * transition from full, which the port announces. */
    while (take_br5(&r))
        ;
    sw(&r, RINGBASE - 4, 0);
    for (uint32_t k = 0; k < NCMD; k++) {
        command(c, 0x50 + k, 0, MSCP_OP_GTUNT);
        send(&r, c, 60);
    }
    run_ns(&r, 100000);
    CHECK(pw(&r, RINGBASE - 4) == 1, "command transition indicator after a full ring");
    CHECK(take_br5(&r) == VEC, "command ring interrupt");
    rig_close(&r);
}

/* Hostile host: the port stops with ERR in SA, the host stays intact. */
static void test_fatal_errors(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    make_pack(&r, 0, "RA81", 4096, 0);
    port_init(&r, 1);
    uint8_t c[64];
    /* A command descriptor pointing at an unmapped page. */
    wr(&r, MAPREG(250), 4, 0);
    sl(&r, RINGBASE + 4 * NRSP, OWN | FLAG | (250u * 512 + 4));
    (void)rd(&r, IP, 2);
    run_ns(&r, 1000000);
    CHECK(rd(&r, SA, 2) == (0100000u | 1u), "packet read error: SA %06o", rd(&r, SA, 2));
    CHECK(take_br5(&r) == VEC, "the host is told by an interrupt");
    /* The port answers nothing more until it is initialised again. */
    (void)rd(&r, IP, 2);
    run_ns(&r, 1000000);
    CHECK(rd(&r, SA, 2) == (0100000u | 1u), "still stopped");
    wr(&r, MAPREG(250), 4, UBAMR_MRV | 250);
    port_init(&r, 1);
    command(c, 1, 0, MSCP_OP_GTUNT);
    uint8_t e[64];
    CHECK(roundtrip(&r, c, 60, e) > 0, "works again after initialisation");

    /* A ring base in the I/O page (no map registers there). */
    wr(&r, IP, 2, 0);
    run_ns(&r, 2000000);
    wr(&r, SA, 2, 0100000u);
    run_ns(&r, 200000);
    wr(&r, SA, 2, 0177000u);
    run_ns(&r, 200000);
    wr(&r, SA, 2, 3);   /* ring base 0777000: the I/O page */
    run_ns(&r, 200000);
    CHECK(rd(&r, SA, 2) == (0100000u | 7u), "ring write error: SA %06o", rd(&r, SA, 2));

    /* Absurd sizes and addresses everywhere: no crash, a sane SA. */
    for (uint32_t k = 0; k < 200; k++) {
        uint32_t x = k * 2654435761u;
        wr(&r, IP, 2, 0);
        run_ns(&r, 2000000);
        wr(&r, SA, 2, 0100000u | (x & 077777u));
        run_ns(&r, 200000);
        wr(&r, SA, 2, (x >> 8) & 0xFFFEu);
        run_ns(&r, 200000);
        wr(&r, SA, 2, (x >> 24) & 3u);
        run_ns(&r, 200000);
        wr(&r, SA, 2, 1);
        uint32_t base = ((x >> 8) & 0xFFFEu) | (((x >> 24) & 3u) << 16);
        for (uint32_t i = 0; i < 8; i++)
            if (base + 4 * i < 256u * 512)
                sl(&r, base + 4 * i, OWN | (x ^ (i * 0x9E3779B9u)));
        (void)rd(&r, IP, 2);
        run_ns(&r, 500000);
    }
    uint32_t sa = rd(&r, SA, 2);
    CHECK(sa == 0 || (sa & 0100000u), "after hostile rings SA is 0 or an error: %06o", sa);
    rig_close(&r);
}

/* Random commands from a well-initialised port's rings: plausible
 * opcodes, units, counts, LBNs and buffers, with a share of nonsense
 * (lengths, addresses, unmapped pages).  The port must answer or stop
 * with a fatal error, never touch memory outside the machine (ASan), and
 * do the same every time (the state digest of two runs agrees). */
static uint32_t rnd(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*x >> 33);
}

static uint64_t random_transfers;   /* READs and WRITEs the random sessions got done */

static uint64_t random_session(uint64_t seed)
{
    rig r;
    if (rig_open(&r) != 0)
        return 0;
    make_pack(&r, 0, "RA81", 65536, 0);
    make_pack(&r, 1, "RA60", 4096, 1);
    uint64_t x = seed;
#define RND() rnd(&x)
    for (int round = 0; round < 40; round++) {
        port_init(&r, (int)(RND() & 1));
        if (RND() % 8 == 0) {
            uint32_t reg = RND() % 256, valid = RND() % 2, pfn = RND() % 20000;
            wr(&r, MAPREG(reg), 4, valid ? UBAMR_MRV | pfn : 0);
        }
        for (int k = 0; k < 12; k++) {
            static const uint8_t ops[] = {MSCP_OP_STCON, MSCP_OP_GTUNT, MSCP_OP_ONLIN, MSCP_OP_AVAIL,
                                          MSCP_OP_READ,  MSCP_OP_WRITE, MSCP_OP_COMP,  MSCP_OP_ABORT,
                                          MSCP_OP_GTCMD, MSCP_OP_ERASE, MSCP_OP_STUNT, 0177};
            uint8_t c[64];
            for (int i = 0; i < 64; i++)
                c[i] = (uint8_t)RND();
            c[MSCP_OPCODE] = ops[RND() % sizeof ops];
            uint32_t usel = RND(), unit = RND() % 6;
            p16(c + MSCP_UNIT, usel % 2 ? 0 : unit);
            uint32_t sane = RND(), a = RND(), b = RND(), d = RND();
            p32(c + MSCP_BYTECNT, sane % 4 ? a % 8192 & ~1u : a);
            p32(c + MSCP_BUFFER, sane / 4 % 4 ? DATA + (b % 0x8000 & ~1u) : b);
            if (sane / 64 % 4 == 0) {   /* keep unit 0 online often */
                c[MSCP_OPCODE] = MSCP_OP_ONLIN;
                p16(c + MSCP_UNIT, 0);
            }
            p32(c + MSCP_LBN, sane / 16 % 4 ? d % 1000 : d);
            if (c[MSCP_OPCODE] == MSCP_OP_STCON)
                p16(c + MSCP_VERSION, 0);
            uint32_t lsel = RND(), lval = RND();
            uint16_t len = lsel % 8 ? 60 : (uint16_t)lval;
            send(&r, c, len);
            if (RND() % 24 == 0) {   /* a descriptor pointing anywhere */
                uint32_t i = RND() % (NCMD + NRSP), where = RND() & 0x3FFFFu;
                sl(&r, RINGBASE + 4 * i, OWN | where);
                (void)rd(&r, IP, 2);
            }
            run_ns(&r, (RND() % 5000) * 1000ull);
            /* Give back every response slot the port filled. */
            for (uint32_t i = 0; i < NRSP; i++)
                if (!(pl(&r, RINGBASE + 4 * i) & OWN)) {
                    sw(&r, RSPBUF(i), 60);
                    sl(&r, RINGBASE + 4 * i, OWN | FLAG | (RSPBUF(i) + 4));
                }
            if (RND() % 3 == 0)
                (void)take_br5(&r);
        }
        run_ns(&r, 60000000);
        uint32_t sa = rd(&r, SA, 2);
        CHECK(sa == 0 || (sa & 0100000u), "round %d: SA %06o", round, sa);
    }
#undef RND
    uda50_disk_stats st;
    if (uda50_disk_stats_get(r.d, 0, &st) == 0)
        random_transfers += st.transfers;
    uint64_t digest = vax_state_digest(r.m) ^ now(&r) ^ rd(&r, SA, 2);
    rig_close(&r);
    return digest;
}

static void test_random_commands(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t a = random_session(seed);
        CHECK(a != 0 && a == random_session(seed), "seed %llu: the same twice", (unsigned long long)seed);
    }
    CHECK(random_transfers > 50, "the random commands included transfers that ran: %llu",
          (unsigned long long)random_transfers);
}

/* UNIBUS INIT (the adapter's ADINIT) initialises the port. */
static void test_unibus_init(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    port_init(&r, 0);
    wr(&r, NEX + UBA_CR, 4, UBACR_ADINIT);
    CHECK(rd(&r, SA, 2) == 0 && !uda50_running(r.d), "in its self test");
    run_ns(&r, 2000000);
    CHECK((rd(&r, SA, 2) & 0174000) == 0004000, "step 1 again: %06o", rd(&r, SA, 2));
    rig_close(&r);
}

static void test_attach_errors(void)
{
    rig r;
    CHECK(rig_open(&r) == 0, "rig");
    char err[200];
    uint8_t small[1024];
    vax_blockdev bd;
    blockdev_memory(&bd, small, sizeof small, 0);
    CHECK(uda50_attach(r.d, 0, "RA81", &bd, err, sizeof err) == -1 && strstr(err, "891072"), "wrong size: %s", err);
    CHECK(uda50_attach(r.d, 0, "RA99", &bd, err, sizeof err) == -1 && strstr(err, "RA81"), "unknown type: %s", err);
    CHECK(uda50_attach(r.d, 4, "RA81", &bd, err, sizeof err) == -1, "unit 4: %s", err);
    CHECK(ra_type_find("ra82") && ra_type_bytes(ra_type_find("RA82")) == 1216665ull * 512, "RA82 by name");
    CHECK(uda50_create(r.u, UDA50_CSR) == NULL, "a second controller at the same address is refused");
    rig_close(&r);
}

int main(void)
{
    test_power_up_and_init();
    test_controller_and_units();
    test_transfers();
    test_write_protect();
    test_timing();
    test_abort_and_status();
    test_full_response_ring();
    test_fatal_errors();
    test_random_commands();
    test_unibus_init();
    test_attach_errors();
    return check_summary();
}
