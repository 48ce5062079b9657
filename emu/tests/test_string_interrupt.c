/*
 * test_string_interrupt.c — the long string instructions stop part way
 * when a device event falls due, take the interrupt that event requests
 * with the intermediate state in R0-R5, PSL<FPD> set and the saved PC on
 * the opcode, and resume after the handler's REI (VAX Architecture
 * Reference Manual: these instructions are interruptible; cpu/exec_string.c,
 * "Stopping part way for interrupts").
 *
 * Each case runs one string instruction and a HALT on a bare 780 (memory
 * management off, kernel mode, 1 MB), five ways:
 *
 *   whole       no events: the reference result and cost;
 *   stops       events part way, at IPL 31, so nothing is delivered: the
 *               instruction stops at each and carries on; the result and
 *               the total cost must be exactly the reference's (the model
 *               charges no restart cost), with one part per event;
 *   before      one interrupt taken just before the instruction starts;
 *   interrupted one interrupt requested half way: taken part way (the
 *               handler logs the saved PC, the opcode's, and the saved
 *               PSL, with FPD), then the REI resumes; the result must be
 *               the reference's and the cost exactly `before`'s (the same
 *               handler, the same exception entry, nothing more);
 *   many        interrupts at five points: each taken part way, the same
 *               result.
 *
 * The memory layout keeps the strings' cache sets apart from the code's,
 * the stack's, the handler log's, the SCB's and the tables' (the 780's
 * cache: 512 sets of 8 bytes, set = pa bits 3..11), so that an interrupt's
 * accesses cannot change which of the strings' reads miss: the costs can
 * be compared exactly.
 */
#include <stdio.h>
#include <string.h>

#include "asm/vasm.h"
#include "cpu/cpu.h"
#include "machine.h"
#include "vax.h"

#include "check.h"

enum {
    CODE = 0x1C00,      /* sets 384.. */
    LOG = 0x3E00,       /* sets 448..: the handlers' log */
    STACK = 0x7FF0,     /* sets 510-511 */
    TABLE = 0x4D00,     /* sets 416..447: SCANC/SPANC/MOVTC/MOVTUC/CRC tables, MATCHC's object */
    SRC1 = 0x10200,     /* sets 64..: at most 2400 bytes (to set 363) */
    SRC2 = 0x20700,     /* sets 224..: CMPC's second string, at most 1200 bytes */
    DST = 0x30000,      /* written only: writes do not allocate */
    DEV_VECTOR = 0x100, /* the test device's SCB offset */
    DEV_IPL = 0x14,
    REGION = 0x30000 + 0x1000,   /* memory compared after a case: SRC1 .. REGION */
};

#define PSL_IPL31 (31u << 16)

typedef struct {
    const char *name;
    const char *code;   /* the instruction, then "halt"; at `instr` */
    uint32_t r[4];      /* r6..r9 */
    void (*setup)(vax_machine *m);
} string_case;

typedef struct {
    uint32_t r[6];
    uint32_t psl;
    uint64_t cost;      /* from the start to the HALT, included */
    uint64_t parts;     /* instructions executed */
    uint32_t log[32];   /* the handlers' entries: saved PC, saved PSL */
    uint32_t nlog;
    uint8_t mem[REGION - SRC1];
} outcome;

static void dev_fire(vax_machine *m, void *ctx)
{
    (void)ctx;
    machine_irq_raise(m, DEV_IPL, 0, DEV_VECTOR);
}

static void fill_pattern(vax_machine *m, uint32_t pa, uint32_t n, uint32_t seed)
{
    uint8_t buf[4096];
    for (uint32_t i = 0; i < n && i < sizeof buf; i++)
        buf[i] = (uint8_t)((i * 7u + seed * 13u + (i >> 5)) & 0xFFu);
    vax_phys_write(m, pa, buf, n < sizeof buf ? n : sizeof buf);
}

static void set_byte(vax_machine *m, uint32_t pa, uint8_t v) { vax_phys_write(m, pa, &v, 1); }

static void setup_pattern(vax_machine *m) { fill_pattern(m, SRC1, 2400, 1); }

static void setup_cmpc_equal(vax_machine *m)
{
    fill_pattern(m, SRC1, 1200, 2);
    fill_pattern(m, SRC2, 1200, 2);
}

static void setup_cmpc_differ(vax_machine *m)
{
    setup_cmpc_equal(m);
    set_byte(m, SRC2 + 1150, 0xEE);
    set_byte(m, SRC1 + 1150, 0x11);
}

static void setup_locc(vax_machine *m)
{
    uint8_t x[2400];
    memset(x, 'x', sizeof x);
    x[2300] = 'A';
    vax_phys_write(m, SRC1, x, sizeof x);
}

/* SCANC/SPANC: table entry = byte value; MOVTC/MOVTUC: entry = ~value;
 * the same 256 bytes serve both. */
static void setup_table(vax_machine *m)
{
    uint8_t t[256];
    for (int i = 0; i < 256; i++)
        t[i] = (uint8_t)(i ^ 0x5A);
    t['A' ^ 0] = 0x80;   /* SCANC #0x80 finds 'A' */
    vax_phys_write(m, TABLE, t, sizeof t);
}

static void setup_scanc(vax_machine *m)
{
    uint8_t x[2400];
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)('a' + i % 20);   /* table entries 0x3B..0x2E: bit 7 clear */
    x[2200] = 'A';
    vax_phys_write(m, SRC1, x, sizeof x);
    setup_table(m);
}

static void setup_translate(vax_machine *m)
{
    fill_pattern(m, SRC1, 2400, 3);
    setup_table(m);
}

static void setup_movtuc(vax_machine *m)
{
    /* Source bytes whose translations (b ^ 0x5A) never equal the escape 0xFF. */
    uint8_t x[1500];
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)(i % 160);
    vax_phys_write(m, SRC1, x, sizeof x);
    setup_table(m);
}

static void setup_crc(vax_machine *m)
{
    fill_pattern(m, SRC1, 2000, 4);
    uint32_t t[16];
    for (int i = 0; i < 16; i++)
        t[i] = (0xEDB88320u * (uint32_t)i) ^ ((uint32_t)i << 7);
    vax_phys_write(m, TABLE, t, sizeof t);
}

static void setup_matchc(vax_machine *m)
{
    uint8_t x[1200];
    memset(x, 'q', sizeof x);
    memcpy(x + 1180, "needle!!", 8);
    vax_phys_write(m, SRC1, x, sizeof x);
    vax_phys_write(m, TABLE, "needle!!", 8);
}

static const string_case cases[] = {
    {"MOVC3 forward", "instr: movc3 r6, (r7), (r8)\nhalt\n", {2400, SRC1, DST, 0}, setup_pattern},
    {"MOVC3 overlapping, backward", "instr: movc3 r6, (r7), (r8)\nhalt\n", {2000, SRC1, SRC1 + 100, 0},
     setup_pattern},
    {"MOVC3 overlapping, forward", "instr: movc3 r6, (r7), (r8)\nhalt\n", {2000, SRC1 + 100, SRC1, 0},
     setup_pattern},
    {"MOVC5 with fill", "instr: movc5 r6, (r7), #0x2A, r9, (r8)\nhalt\n", {1000, SRC1, DST, 2400}, setup_pattern},
    {"MOVC5 truncating", "instr: movc5 r6, (r7), #0x2A, r9, (r8)\nhalt\n", {2400, SRC1, DST, 1500}, setup_pattern},
    {"MOVC5 overlapping backward, with fill", "instr: movc5 r6, (r7), #0x2A, r9, (r8)\nhalt\n",
     {1500, SRC1, SRC1 + 300, 2000}, setup_pattern},
    {"CMPC3 equal", "instr: cmpc3 r6, (r7), (r8)\nhalt\n", {1200, SRC1, SRC2, 0}, setup_cmpc_equal},
    {"CMPC3 differing near the end", "instr: cmpc3 r6, (r7), (r8)\nhalt\n", {1200, SRC1, SRC2, 0},
     setup_cmpc_differ},
    {"CMPC5", "instr: cmpc5 r6, (r7), #0x20, r9, (r8)\nhalt\n", {1200, SRC1, SRC2, 1000}, setup_cmpc_equal},
    {"LOCC", "instr: locc #0x41, r6, (r7)\nhalt\n", {2400, SRC1, 0, 0}, setup_locc},
    {"SKPC", "instr: skpc #0x78, r6, (r7)\nhalt\n", {2400, SRC1, 0, 0}, setup_locc},
    {"SCANC", "instr: scanc r6, (r7), (r8), #0x80\nhalt\n", {2400, SRC1, TABLE, 0}, setup_scanc},
    {"SPANC", "instr: spanc r6, (r7), (r8), #0x7F\nhalt\n", {2400, SRC1, TABLE, 0}, setup_scanc},
    {"MOVTC", "instr: movtc r6, (r7), #0x2A, (r8), r9, @#0x30000\nhalt\n", {1500, SRC1, TABLE, 1500},
     setup_translate},
    {"MOVTUC", "instr: movtuc r6, (r7), #0xFF, (r8), r9, @#0x30000\nhalt\n", {1500, SRC1, TABLE, 1500},
     setup_movtuc},
    {"CRC", "instr: crc (r8), #-1, r6, (r7)\nhalt\n", {2000, SRC1, TABLE, 0}, setup_crc},
    {"MATCHC", "instr: matchc #8, (r8), r6, (r7)\nhalt\n", {1200, SRC1, TABLE, 0}, setup_matchc},
};

/* The handlers: the device's interrupt and the trace fault log the saved
 * PC and PSL through R10 (no string instruction touches it) and return. */
enum { HANDLER_INSTRUCTIONS = 3 };
static const char handlers[] = ".align 4\n"
                               "handler: movl (sp), (r10)+\n"
                               "movl 4(sp), (r10)+\n"
                               "rei\n";

typedef struct {
    vax_machine *m;
    vasm_result r;
    uint32_t instr, handler;
    vax_event ev[8];
} rig;

/* A machine with the case loaded, PSL psl, events at the given offsets
 * (ns from the start: the 780 model's cost unit), each requesting the
 * device's interrupt. */
static int rig_open(rig *g, const string_case *c, uint32_t psl, const uint64_t *at, int nat)
{
    memset(g, 0, sizeof *g);
    vax_config cfg = {1u << 20};
    g->m = vax_create(&cfg);
    if (!g->m)
        return -1;
    char src[512];
    snprintf(src, sizeof src, "%s%s", c->code, handlers);
    if (vasm_assemble(src, CODE, &g->r) != 0) {
        printf("assembler: %s: line %d: %s\n", c->name, g->r.error_line, g->r.error);
        return -1;
    }
    vasm_symbol(&g->r, "instr", &g->instr);
    vasm_symbol(&g->r, "handler", &g->handler);
    vax_machine *m = g->m;
    vax_phys_write(m, CODE, g->r.bytes, g->r.len);
    vax_set_ipr(m, IPR_SCBB, 0);
    vax_phys_write(m, DEV_VECTOR, &g->handler, 4);
    vax_phys_write(m, 0x28, &g->handler, 4);   /* trace */
    c->setup(m);
    vax_set_psl(m, psl);
    vax_set_reg(m, 14, STACK);
    for (int i = 0; i < 4; i++)
        vax_set_reg(m, 6 + i, c->r[i]);
    vax_set_reg(m, 10, LOG);
    vax_set_reg(m, 15, g->instr);
    for (int i = 0; i < nat; i++) {
        g->ev[i].fire = dev_fire;
        machine_event_schedule(m, &g->ev[i], at[i]);
    }
    return 0;
}

static void rig_close(rig *g)
{
    vasm_free(&g->r);
    vax_destroy(g->m);
}

static int run_case(const string_case *c, uint32_t psl, const uint64_t *at, int nat, outcome *o)
{
    rig g;
    memset(o, 0, sizeof *o);
    if (rig_open(&g, c, psl, at, nat) != 0) {
        CHECK(0, "%s: could not set up", c->name);
        rig_close(&g);
        return -1;
    }
    vax_machine *m = g.m;
    uint64_t c0 = m->cost, i0 = m->icount;
    vax_stop_reason why = vax_run(m, 1000000);
    CHECK(why == VAX_STOP_HALT, "%s: stopped by %s (%s)", c->name, vax_stop_reason_name(why), vax_stop_detail(m));
    o->cost = m->cost - c0;
    o->parts = m->icount - i0 - 1;   /* the HALT apart */
    for (int i = 0; i < 6; i++)
        o->r[i] = vax_get_reg(m, i);
    o->psl = vax_get_psl(m);
    o->nlog = (vax_get_reg(m, 10) - LOG) / 4;
    if (o->nlog > 32)
        o->nlog = 32;
    vax_phys_read(m, LOG, o->log, o->nlog * 4);
    vax_phys_read(m, SRC1, o->mem, sizeof o->mem);
    uint32_t instr = g.instr;
    rig_close(&g);
    return (int)instr;
}

static int same_result(const outcome *a, const outcome *b)
{
    return memcmp(a->r, b->r, sizeof a->r) == 0 && (a->psl & 15u) == (b->psl & 15u) &&
           memcmp(a->mem, b->mem, sizeof a->mem) == 0;
}

static void test_case(const string_case *c)
{
    static outcome whole, stops, before, inter, many;
    int instr = run_case(c, 0, NULL, 0, &whole);
    if (instr < 0)
        return;
    CHECK(whole.parts == 1 && whole.nlog == 0, "%s: run whole in one part (%llu)", c->name,
          (unsigned long long)whole.parts);
    CHECK((whole.psl & PSL_FPD) == 0, "%s: FPD clear at the end", c->name);
    /* The instruction's own cost: the HALT's base (and fetch) apart, close
     * enough to place the events inside it. */
    uint64_t span = whole.cost;

    uint64_t at[5];
    for (int i = 0; i < 5; i++)
        at[i] = span * (uint64_t)(2 * i + 1) / 11;   /* 9%, 27%, 45%, 64%, 82% */

    run_case(c, PSL_IPL31, at, 5, &stops);
    CHECK(same_result(&stops, &whole), "%s: stopped at five events, the result is the whole run's", c->name);
    CHECK(stops.cost == whole.cost, "%s: stopped at five events, cost %llu, whole %llu", c->name,
          (unsigned long long)stops.cost, (unsigned long long)whole.cost);
    CHECK(stops.parts == 6 && stops.nlog == 0, "%s: six parts (%llu), no interrupt at IPL 31", c->name,
          (unsigned long long)stops.parts);

    uint64_t now = 0;
    run_case(c, 0, &now, 1, &before);
    CHECK(same_result(&before, &whole), "%s: an interrupt before it changes nothing", c->name);
    CHECK(before.nlog == 2 && before.log[0] == (uint32_t)instr && (before.log[1] & PSL_FPD) == 0,
          "%s: interrupt before the instruction: saved PC %08x PSL %08x", c->name, before.log[0], before.log[1]);

    uint64_t half = span / 2;
    run_case(c, 0, &half, 1, &inter);
    CHECK(same_result(&inter, &whole), "%s: interrupted half way, the result is the whole run's", c->name);
    CHECK(inter.nlog == 2 && inter.log[0] == (uint32_t)instr && (inter.log[1] & PSL_FPD) != 0 &&
              (inter.log[1] & 0x001F0000u) == 0,
          "%s: the interrupt taken part way: saved PC %08x (the opcode %08x), saved PSL %08x with FPD (log %u)",
          c->name, inter.log[0], (uint32_t)instr, inter.log[1], inter.nlog);
    CHECK(inter.parts == 2 + HANDLER_INSTRUCTIONS, "%s: two parts and the handler (%llu)", c->name,
          (unsigned long long)inter.parts);
    CHECK(inter.cost == before.cost, "%s: interrupted half way cost %llu, with the interrupt before it %llu",
          c->name, (unsigned long long)inter.cost, (unsigned long long)before.cost);
    CHECK((inter.psl & PSL_FPD) == 0, "%s: FPD clear once done", c->name);

    run_case(c, 0, at, 5, &many);
    CHECK(same_result(&many, &whole), "%s: five interrupts part way, the result is the whole run's", c->name);
    int all_part_way = many.nlog == 10;
    for (uint32_t i = 0; i + 1 < many.nlog; i += 2)
        all_part_way &= many.log[i] == (uint32_t)instr && (many.log[i + 1] & PSL_FPD) != 0;
    CHECK(all_part_way, "%s: five interrupts, each part way with FPD (%u log words)", c->name, many.nlog);
}

/* Trace: an instruction stopped part way is traced once, after its last
 * part (a stop clears PSL<TP>, as a fault does), with the saved PC past it. */
static void test_trace(void)
{
    static const string_case c = {"MOVC3 traced", "instr: movc3 r6, (r7), (r8)\nnext: nop\nlast: halt\n",
                                  {2400, SRC1, DST, 0}, setup_pattern};
    static outcome whole, stops;
    int instr = run_case(&c, PSL_IPL31 | PSL_T, NULL, 0, &whole);
    if (instr < 0)
        return;
    uint64_t at[3] = {whole.cost / 4, whole.cost / 2, whole.cost * 3 / 4};
    run_case(&c, PSL_IPL31 | PSL_T, at, 3, &stops);
    CHECK(whole.nlog == 4 && stops.nlog == 4 && memcmp(whole.log, stops.log, sizeof whole.log) == 0,
          "trace: the same trace faults with and without stops (%u, %u log words; first saved PC %08x)", whole.nlog,
          stops.nlog, stops.log[0]);
    CHECK(stops.log[0] == (uint32_t)instr + 4, "trace: the first after the MOVC3 (saved PC %08x)", stops.log[0]);
    CHECK(stops.parts == whole.parts + 3, "trace: the MOVC3 ran in four parts (%llu instructions against %llu)",
          (unsigned long long)stops.parts, (unsigned long long)whole.parts);
    CHECK(same_result(&stops, &whole) && stops.cost == whole.cost, "trace: the same result and cost");
}

/* A snapshot of the state between the parts is the guest's state: after
 * an interrupt part way, the registers hold the instruction's state and
 * another machine given them (and the memory) finishes it the same. */
static void test_state_is_in_the_registers(void)
{
    const string_case *c = &cases[0];
    static outcome whole;
    if (run_case(c, 0, NULL, 0, &whole) < 0)
        return;
    rig g;
    uint64_t half = whole.cost / 2;
    if (rig_open(&g, c, PSL_IPL31, &half, 1) != 0) {
        rig_close(&g);
        return;
    }
    vax_machine *m = g.m;
    vax_run(m, 1);   /* the first part */
    CHECK(vax_get_reg(m, 15) == g.instr && (vax_get_psl(m) & PSL_FPD) != 0,
          "stopped part way: PC %08x on the opcode, PSL %08x with FPD", vax_get_reg(m, 15), vax_get_psl(m));
    uint32_t moved = 2400u - (vax_get_reg(m, 0) & 0xFFFFu);
    CHECK(moved > 0 && moved < 2400u, "R0 says %u of 2400 bytes moved", moved);
    /* Move the whole state to a fresh machine. */
    vax_config cfg = {1u << 20};
    vax_machine *n = vax_create(&cfg);
    static uint8_t memory[1u << 20];
    vax_phys_read(m, 0, memory, sizeof memory);
    vax_phys_write(n, 0, memory, sizeof memory);
    vax_set_psl(n, vax_get_psl(m));
    for (int i = 0; i < 16; i++)
        vax_set_reg(n, i, vax_get_reg(m, i));
    CHECK(vax_run(n, 100) == VAX_STOP_HALT, "the fresh machine finishes it");
    int same = 1;
    for (int i = 0; i < 6; i++)
        same &= vax_get_reg(n, i) == whole.r[i];
    static uint8_t dst[REGION - SRC1];
    vax_phys_read(n, SRC1, dst, sizeof dst);
    CHECK(same && memcmp(dst, whole.mem, sizeof dst) == 0, "and ends with the whole run's registers and memory");
    vax_destroy(n);
    rig_close(&g);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        test_case(&cases[i]);
    test_trace();
    test_state_is_in_the_registers();
    return check_summary();
}
