/*
 * test_profile.c — the profiler (src/profile/profile.h) on a bare machine:
 * exact call counts from CALLS/RET, JSB/RSB and BSBW, an exception (CHMK) as
 * a root of its own, recursion as a chain of nodes; the nodes' costs and
 * instructions adding up to the run's, mode by mode as the statistics book
 * them; the guest running exactly as without the profiler; clearing; and the
 * bounds (more distinct call paths than nodes, a recursion deeper than the
 * shadow stack) counted, not crashed on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm/vasm.h"
#include "stats.h"
#include "vax.h"

#include "check.h"

/* Kernel mode on the kernel stack, memory management off.  The SCB is at 0;
 * CHMK's vector (0x40) goes to chmk_handler. */
static const char program[] =
    "        .org 0x200\n"
    "start:  moval chmk_handler, @#0x40\n"
    "        mtpr $0, $17\n"
    "        movl $5, r6\n"
    "loop:   calls $0, f\n"
    "        chmk $7\n"
    "        sobgtr r6, loop\n"
    "        pushl $3\n"
    "        calls $1, rec\n"
    "        halt\n"
    "f:      .word 0\n"
    "        calls $0, g\n"
    "        calls $0, g\n"
    "        ret\n"
    "g:      .word 0\n"
    "        jsb h\n"
    "        bsbw h2\n"
    "        ret\n"
    "h:      movl r0, r0\n"
    "        rsb\n"
    "h2:     rsb\n"
    "rec:    .word 0\n"
    "        decl 4(ap)\n"
    "        beql rec_out\n"
    "        pushl 4(ap)\n"
    "        calls $1, rec\n"
    "rec_out: ret\n"
    "        .align 4\n"
    "chmk_handler:\n"
    "        addl2 $4, sp\n"
    "        rei\n";

typedef struct {
    long long v[13];   /* parent kind image addr aux calls instructions cost x6 */
} node;

/* The "nodes" array of a profile dump, and a few totals. */
typedef struct {
    node *n;
    int count;
    long long instructions, cost, overflow_nodes, overflow_depth;
} dump;

static long long number_after(const char *json, const char *key)
{
    const char *p = strstr(json, key);
    return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

static int parse_dump(const char *json, dump *d)
{
    memset(d, 0, sizeof *d);
    d->instructions = number_after(json, "\"instructions\":");
    d->cost = number_after(json, "\"cost\":");
    d->overflow_nodes = number_after(json, "\"overflow\":{\"nodes\":");
    d->overflow_depth = number_after(json, "\"depth\":");   /* the first "depth" is the limit's */
    const char *ov = strstr(json, "\"overflow\":");
    if (ov)
        d->overflow_depth = number_after(ov, "\"depth\":");
    const char *p = strstr(json, "\"nodes\":[");
    if (!p)
        return -1;
    p += 9;
    int cap = 0;
    while (*p == '[' || *p == ',') {
        if (*p == ',')
            p++;
        if (*p != '[')
            break;
        p++;
        if (d->count == cap) {
            cap = cap ? cap * 2 : 64;
            node *nn = realloc(d->n, sizeof *nn * (size_t)cap);
            if (!nn)
                return -1;
            d->n = nn;
        }
        node *n = &d->n[d->count++];
        for (int i = 0; i < 13; i++) {
            char *end;
            n->v[i] = strtoll(p, &end, 10);
            if (end == p)
                return -1;
            p = end + 1;   /* past ',' or ']' */
        }
    }
    return 0;
}

static long long self_cost(const node *n)
{
    long long s = 0;
    for (int i = 7; i < 13; i++)
        s += n->v[i];
    return s;
}

/* The node with this kind and address whose parent has the given
 * address (-1: any parent), or -1. */
static int find(const dump *d, int kind, uint32_t addr, long long parent_addr)
{
    for (int i = 0; i < d->count; i++) {
        const node *n = &d->n[i];
        if (n->v[1] != kind || (uint32_t)n->v[3] != addr)
            continue;
        if (parent_addr < 0 || (n->v[0] >= 0 && d->n[n->v[0]].v[3] == parent_addr))
            return i;
    }
    return -1;
}

static vax_machine *machine_with(const vasm_result *a)
{
    vax_config cfg = { 1u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!m)
        return NULL;
    vax_phys_write(m, a->base, a->bytes, a->len);
    vax_set_psl(m, 0x001F0000u);   /* kernel mode, IPL 31, the kernel stack */
    vax_set_reg(m, 14, 0x8000);
    vax_set_reg(m, 15, 0x200);
    return m;
}

static uint32_t sym(const vasm_result *a, const char *name)
{
    uint32_t v = 0;
    CHECK(vasm_symbol(a, name, &v) == 0, "no symbol %s", name);
    return v;
}

enum { K_PROGRAM, K_INTERRUPT, K_EXCEPTION, K_CALL, K_JSB, K_RESUME, K_START };

static void test_exact_counts(void)
{
    vasm_result a;
    CHECK(vasm_assemble(program, 0, &a) == 0, "assembly failed: line %d: %s", a.error_line, a.error);
    vax_machine *m = machine_with(&a);
    CHECK(m && vax_profile_start(m) == 0, "profiler did not start");
    CHECK(vax_run(m, 100000) == VAX_STOP_HALT, "program did not halt: %s", vax_stop_detail(m));
    size_t len = 0;
    char *json = vax_profile_json(m, &len);
    CHECK(json && len == strlen(json), "no profile, or its length is wrong");
    dump d;
    CHECK(json && parse_dump(json, &d) == 0, "profile does not parse");
    uint32_t f = sym(&a, "f"), g = sym(&a, "g"), h = sym(&a, "h"), h2 = sym(&a, "h2"), rec = sym(&a, "rec");
    uint32_t handler = sym(&a, "chmk_handler");

    int nf = find(&d, K_CALL, f, -1), ng = find(&d, K_CALL, g, f), nh = find(&d, K_JSB, h, g);
    int nh2 = find(&d, K_JSB, h2, g);
    CHECK(nf >= 0 && d.n[nf].v[5] == 5, "f: 5 calls, got %lld", nf >= 0 ? d.n[nf].v[5] : -1);
    CHECK(ng >= 0 && d.n[ng].v[5] == 10, "g under f: 10 calls, got %lld", ng >= 0 ? d.n[ng].v[5] : -1);
    CHECK(nh >= 0 && d.n[nh].v[5] == 10, "h (JSB) under g: 10 calls");
    CHECK(nh2 >= 0 && d.n[nh2].v[5] == 10, "h2 (BSBW) under g: 10 calls");
    /* h runs MOVL and RSB each time, h2 RSB: instructions exact. */
    CHECK(nh >= 0 && d.n[nh].v[6] == 20, "h: 20 instructions, got %lld", nh >= 0 ? d.n[nh].v[6] : -1);
    CHECK(nh2 >= 0 && d.n[nh2].v[6] == 10, "h2: 10 instructions");
    /* g: CALLS is the caller's; g runs JSB, BSBW, RET per call. */
    CHECK(ng >= 0 && d.n[ng].v[6] == 30, "g: 30 instructions, got %lld", ng >= 0 ? d.n[ng].v[6] : -1);

    int ne = find(&d, K_EXCEPTION, handler, -1);
    CHECK(ne >= 0 && d.n[ne].v[5] == 5 && d.n[ne].v[4] == 0x40, "CHMK: 5 entries through SCB 0x40");
    CHECK(ne >= 0 && d.n[d.n[ne].v[0]].v[1] == K_PROGRAM, "an exception is a root under its program");
    CHECK(ne >= 0 && d.n[ne].v[6] == 10, "handler: ADDL2 and REI per entry, got %lld", ne >= 0 ? d.n[ne].v[6] : -1);

    /* Recursion: a chain of three nodes, one call each. */
    int r1 = find(&d, K_CALL, rec, -1);
    int r2 = find(&d, K_CALL, rec, rec);
    CHECK(r1 >= 0 && r2 >= 0 && r2 != r1, "recursion: rec under rec");
    int depth = 0;
    for (int i = 0; i < d.count; i++)
        if (d.n[i].v[1] == K_CALL && (uint32_t)d.n[i].v[3] == rec) {
            depth++;
            CHECK(d.n[i].v[5] == 1, "each level of rec called once");
        }
    CHECK(depth == 3, "rec: 3 levels, got %d", depth);

    /* Everything adds up: costs and instructions to the run's, the kernel
     * slot to the statistics' kernel time. */
    long long cost = 0, instr = 0, kernel = 0;
    for (int i = 0; i < d.count; i++) {
        cost += self_cost(&d.n[i]);
        instr += d.n[i].v[6];
        kernel += d.n[i].v[7];
        CHECK(d.n[i].v[0] < i, "node %d's parent comes before it", i);
    }
    vax_stats st;
    vax_stats_get(m, &st);
    CHECK(cost == d.cost && instr == d.instructions, "nodes sum to %lld/%lld, totals %lld/%lld", cost, instr, d.cost,
          d.instructions);
    CHECK((uint64_t)instr == vax_instruction_count(m), "instructions %lld, machine %llu", instr,
          (unsigned long long)vax_instruction_count(m));
    CHECK((uint64_t)kernel == st.ns_mode[VAX_STATS_KERNEL], "kernel slot %lld, statistics %llu", kernel,
          (unsigned long long)st.ns_mode[VAX_STATS_KERNEL]);
    CHECK((uint64_t)cost == st.ns_total, "cost %lld, virtual ns %llu (780 scale)", cost,
          (unsigned long long)st.ns_total);

    /* Clearing: the counts start again, the totals with them. */
    vax_profile_clear(m);
    char *json2 = vax_profile_json(m, NULL);
    dump d2;
    CHECK(json2 && parse_dump(json2, &d2) == 0 && d2.cost == 0 && d2.instructions == 0, "cleared profile not empty");
    CHECK(d2.count == 0, "a cleared profile writes no nodes (it has %d)", d2.count);
    /* Running on after a clear: only what ran since is written, with the
     * tree's shape (its ancestors) kept. */
    vax_set_reg(m, 15, sym(&a, "loop"));
    vax_set_reg(m, 6, 1);
    CHECK(vax_run(m, 100000) == VAX_STOP_HALT, "second run did not halt");
    free(json2);
    json2 = vax_profile_json(m, NULL);
    free(d2.n);
    CHECK(json2 && parse_dump(json2, &d2) == 0, "profile after the clear does not parse");
    int nf2 = find(&d2, K_CALL, f, -1);
    CHECK(nf2 >= 0 && d2.n[nf2].v[5] == 1, "after the clear: f called once");
    long long c2 = 0;
    for (int i = 0; i < d2.count; i++)
        c2 += self_cost(&d2.n[i]);
    CHECK(c2 == d2.cost && d2.cost > 0, "after the clear the nodes add up to the new total");
    vax_profile_stop(m);
    CHECK(vax_profile_json(m, NULL) == NULL, "a profile after stop");
    free(json);
    free(json2);
    free(d.n);
    free(d2.n);
    vax_destroy(m);
    vasm_free(&a);
}

static void test_guest_unchanged(void)
{
    vasm_result a;
    CHECK(vasm_assemble(program, 0, &a) == 0, "assembly failed");
    vax_machine *off = machine_with(&a), *on = machine_with(&a);
    CHECK(off && on && vax_profile_start(on) == 0, "machines");
    vax_stop_reason r1 = vax_run(off, 100000), r2 = vax_run(on, 100000);
    vax_stats s1, s2;
    vax_stats_get(off, &s1);
    vax_stats_get(on, &s2);
    CHECK(r1 == r2 && vax_state_digest(off) == vax_state_digest(on), "the profiler changed the guest");
    CHECK(memcmp(&s1, &s2, sizeof s1) == 0, "the profiler changed the statistics");
    vax_destroy(off);
    vax_destroy(on);
    vasm_free(&a);
}

/* 140,000 JSBs to distinct addresses: more call paths than the tree holds. */
static void test_node_cap(void)
{
    static const char many[] =
        "        .org 0x200\n"
        "        movl $0x10000, r7\n"
        "next:   jsb (r7)\n"
        "        incl r7\n"
        "        cmpl r7, $0x10000+140000\n"
        "        blss next\n"
        "        halt\n";
    vasm_result a;
    CHECK(vasm_assemble(many, 0, &a) == 0, "assembly failed");
    vax_machine *m = machine_with(&a);
    uint8_t rsb[4096];
    memset(rsb, 0x05, sizeof rsb);
    for (uint32_t p = 0x10000; p < 0x10000 + 140000; p += sizeof rsb)
        vax_phys_write(m, p, rsb, sizeof rsb);
    CHECK(vax_profile_start(m) == 0, "profiler");
    CHECK(vax_run(m, 2000000) == VAX_STOP_HALT, "did not halt: %s", vax_stop_detail(m));
    char *json = vax_profile_json(m, NULL);
    dump d;
    CHECK(json && parse_dump(json, &d) == 0, "profile does not parse");
    long long cost = 0;
    for (int i = 0; i < d.count; i++)
        cost += self_cost(&d.n[i]);
    CHECK(d.count == 131072, "the tree stops at its cap: %d nodes", d.count);
    CHECK(d.overflow_nodes > 0, "overflow counted: %lld", d.overflow_nodes);
    CHECK(cost == d.cost, "costs still add up beyond the cap");
    free(json);
    free(d.n);
    vax_destroy(m);
    vasm_free(&a);
}

/* A recursion 3000 deep, deeper than a shadow stack. */
static void test_deep_recursion(void)
{
    static const char deep[] =
        "        .org 0x200\n"
        "        pushl $3000\n"
        "        calls $1, rec\n"
        "        halt\n"
        "rec:    .word 0\n"
        "        decl 4(ap)\n"
        "        beql rec_out\n"
        "        pushl 4(ap)\n"
        "        calls $1, rec\n"
        "rec_out: ret\n";
    vasm_result a;
    CHECK(vasm_assemble(deep, 0, &a) == 0, "assembly failed");
    vax_machine *m = machine_with(&a);
    vax_set_reg(m, 14, 0xF0000);   /* 3000 frames of 24 bytes need room */
    CHECK(vax_profile_start(m) == 0, "profiler");
    CHECK(vax_run(m, 100000) == VAX_STOP_HALT, "did not halt: %s", vax_stop_detail(m));
    char *json = vax_profile_json(m, NULL);
    dump d;
    CHECK(json && parse_dump(json, &d) == 0, "profile does not parse");
    long long cost = 0, instr = 0;
    for (int i = 0; i < d.count; i++) {
        cost += self_cost(&d.n[i]);
        instr += d.n[i].v[6];
    }
    CHECK(d.overflow_depth > 0, "depth overflow counted");
    CHECK(cost == d.cost && instr == d.instructions, "costs add up after the shadow stack overflowed");
    free(json);
    free(d.n);
    vax_destroy(m);
    vasm_free(&a);
}

int main(void)
{
    test_exact_counts();
    test_guest_unchanged();
    test_node_cap();
    test_deep_recursion();
    return check_summary();
}
