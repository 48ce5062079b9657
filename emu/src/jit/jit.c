/*
 * jit.c — the block compiler (jit.h): regions, the scanner, the
 * WebAssembly emitter, installing, and the helpers compiled code calls.
 *
 * A region is one page of code, keyed by its virtual page (branch targets
 * and PC-relative operands depend on it) and its physical page (its bytes).
 * execute.c calls jit_enter at the fetch shortcut's refill; a page entered
 * there JIT_HOT times is compiled from every offset it was entered at,
 * following its branches within the page, and compiled again (at most
 * JIT_MAX_COMPILES times) when it is entered elsewhere.
 *
 * The code of a region is one WebAssembly function: a loop around a
 * br_table over its blocks (a block starts at an entry, a branch target, or
 * after an instruction compiled as a call of the interpreter), in address
 * order, so that a block falls through into the next.  Each compiled
 * instruction does what execute.c's fast form does for it:
 *   - the instruction buffer's block (ifetch_account_mapped), left out
 *     where the instruction before it in the same block started in the
 *     same 8-byte block (then the test is known to fail);
 *   - the opcode's base cost; the undo log's reset;
 *   - register, literal and immediate operands inline; memory operands of
 *     the modes decode.c's decode_at takes inline, with the host look-up
 *     (tlb.h), the access test, the cache model's hit test and the charge
 *     as decode.c and mmu.h make them, calling mmu.c only on a miss; the
 *     other modes through decode.c's own _at decoders;
 *   - the semantics and condition codes as exec_integer.h and
 *     exec_branch.h have them; a requested trap through cpu_set_trap;
 *   - the count and the loop's two limits, where the interpreter tests them.
 * The instruction count and the cost live in locals, stored before every
 * call and every return and loaded again after each call (with the run
 * limit, which a device may clear).  Every other instruction is a call of
 * cpu_execute_step, then a dispatch on r[15] through the region's map of
 * block starts.
 *
 * Stale code: each block first compares its instructions' bytes with the
 * bytes it was compiled from (64-bit compares against constants), so a
 * page rewritten by anything while compiled code was not running (the
 * guest, DMA, a restore, another process in the same frame) is seen before
 * a stale instruction runs: the region is dropped.  While it runs, a write
 * that compiled code makes inline into the page, or any call that may
 * write memory (a slow path), makes the next instruction boundary compare
 * the rest of the block with the saved bytes (jit_h_verify) and check that
 * the fetch shortcut still maps the page, before going on.
 */
#if defined(VAX_JIT) && VAX_JIT && defined(__EMSCRIPTEN__)

#include <emscripten.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/decode.h"
#include "cpu/exec.h"
#include "cpu/opcodes.h"
#include "jit/jit.h"
#include "mmu/mmu.h"

#define JIT_REGIONS 4096
#ifndef JIT_HOT
#define JIT_HOT 10000
#endif
#define JIT_MAX_COMPILES 4
#define JIT_MAX_INSNS 600
#define JIT_MAX_BLOCKS 400

typedef struct jit_region {
    uint32_t vpn;           /* va >> 9 */
    uint32_t ppa;           /* the physical page's address */
    uint32_t dead;          /* set by compiled code: the page's bytes changed */
    int slot;               /* the function's index in the table, 0 when none */
    uint32_t heat, compiles, misses;
    uint8_t *host;          /* the page's host address */
    uint32_t seen[16];      /* offsets entered at (bits) */
    int16_t entry_map[512]; /* offset -> block, or -1 */
    uint8_t bytes[512];     /* the page as compiled */
} jit_region;

typedef struct vax_jit {
    jit_region *regions[JIT_REGIONS];
    uint32_t scratch[4];    /* out-parameters of the helpers: a value, an address */
    uint16_t zero16;        /* a charge of nothing (push_l's write) */
    modloc scratch_ml;      /* a modify operand's location */
    uint32_t hot;           /* entries before a page is compiled */
    int end_at_calls;       /* leave compiled code at an instruction not compiled, instead of calling the interpreter */
    uint32_t step_census[256]; /* opcodes run through cpu_execute_step */
    int free_slots[4096];
    int nfree;
    /* Counters (jit_stats). */
    double entries, not_run, compiles, bytes, compile_ms, insns, stepped, stale, dropped, insns_compiled;
} vax_jit;

/* ---- Installing: JavaScript compiles the bytes and puts the function
 * into the module's table.  imports: the table indices of the functions
 * the region calls, in the order of the region's import section. */
EM_JS(int, jit_install, (const uint8_t *bytes, int len, const int *imports, int nimports, int slot), {
    var code = HEAPU8.slice(bytes, bytes + len);
    if (globalThis.jitModuleSink) globalThis.jitModuleSink(code);
    var mod = new WebAssembly.Module(code);
    var env = { m: wasmMemory };
    for (var i = 0; i < nimports; i++)
        env['f' + i] = wasmTable.get(HEAP32[(imports >> 2) + i]);
    var inst = new WebAssembly.Instance(mod, { e: env });
    if (slot === 0) {
        slot = wasmTable.length;
        wasmTable.grow(1);
    }
    wasmTable.set(slot, inst.exports.f);
    return slot;
});

EM_JS(void, jit_uninstall, (int slot), { wasmTable.set(slot, null); });

/* ---- Helpers compiled code calls ---- */

static int jit_h_step(vax_machine *m)
{
    vax_jit *j = m->jit;
    j->stepped++;
    uint32_t pc = m->cpu.r[15];
    if ((pc >> 9) == m->ib_tag)
        j->step_census[*(const uint8_t *)(m->ib_bias + pc)]++;
    cpu_execute_step(m);
    return 0;
}

static int jit_h_trap(vax_machine *m, int code)
{
    return cpu_trap_status(m, code);
}

static int jit_h_rlog(vax_machine *m, int reg, int delta)
{
    rlog_add(m, reg, delta);
    return 0;
}

/* decode.c's modify_memory without its charge (compiled code made it),
 * for the cases compiled code does not take inline. */
static int jit_h_modify_mem(vax_machine *m, uint32_t va, int size, modloc *ml, uint32_t *v)
{
    uint32_t mode_key = psl_mode_key(m);
    const xlat_entry *e = XLAT_SLOT(m->xlat, va);
    if (e->tag == va >> 9 && xlat_allows(e->write_modes, mode_key)) {
        uint8_t *h = xlat_host(e, va);
        if (inline_read_fits(va, size)) {
            uint32_t blk = xlat_block(e, va);
            ml->host = h;
            if (!cache_holds_block(&m->cache, blk))
                return mem_read_missed_block(m, blk, h, size, v);
            *v = load_le(h, size);
            return 0;
        }
        if ((va & 511u) <= 512u - (uint32_t)size) {
            ml->host = h;
            uint32_t pa = xlat_pa(e, va);
            if (!cache_hits(&m->cache, pa, size))
                return mem_read_missed(m, pa, h, size, v);
            *v = load_le(h, size);
            return 0;
        }
    }
    ml->host = NULL;
    ml->loc.reg = -1;
    ml->loc.addr = va;
    return mem_read_modify_slow(m, va, size, (int)(mode_key & 3u), v);
}

static int jit_h_mod_write(vax_machine *m, modloc *ml, int size, uint32_t v)
{
    return mod_write(m, ml, size, v);
}

/* After a call of the interpreter, r[15] in the page at an offset with no
 * block: noted as an entry, for the next compile (jit_enter). */
static int jit_h_note(jit_region *r, int off)
{
    if (!(r->seen[off >> 5] & (1u << (off & 31)))) {
        r->seen[off >> 5] |= 1u << (off & 31);
        r->misses++;
    }
    return 0;
}

/* Are bytes [from, to) of the page still those compiled? */
static int jit_h_verify(jit_region *r, int from, int to)
{
    return to <= from || memcmp(r->host + from, r->bytes + from, (size_t)(to - from)) == 0;
}

/* The functions a region imports, in import order, with their types. */
enum {
    F_STEP, F_RMB, F_RSLOW, F_WSLOW, F_IFMISS, F_RAT1, F_RAT2, F_RAT4, F_WAT1, F_WAT2, F_WAT4,
    F_MAT1, F_MAT2, F_MAT4, F_AAT1, F_AAT2, F_AAT4, F_AAT8, F_TRAP, F_MODMEM, F_MODWB, F_VERIFY, F_RLOG, F_NOTE,
    F_COUNT
};
enum { T_I1, T_I2, T_I3, T_I4, T_I5, T_V2, T_COUNT };   /* (i32 x n) -> i32; (i32 i32) -> () */
static const uint8_t import_type[F_COUNT] = {
    [F_STEP] = T_I1, [F_RMB] = T_I5, [F_RSLOW] = T_I5, [F_WSLOW] = T_I5, [F_IFMISS] = T_V2,
    [F_RAT1] = T_I4, [F_RAT2] = T_I4, [F_RAT4] = T_I4, [F_WAT1] = T_I4, [F_WAT2] = T_I4, [F_WAT4] = T_I4,
    [F_MAT1] = T_I5, [F_MAT2] = T_I5, [F_MAT4] = T_I5, [F_AAT1] = T_I4, [F_AAT2] = T_I4, [F_AAT4] = T_I4,
    [F_AAT8] = T_I4, [F_TRAP] = T_I2, [F_MODMEM] = T_I5, [F_MODWB] = T_I4, [F_VERIFY] = T_I3, [F_RLOG] = T_I3, [F_NOTE] = T_I2,
};

static int import_index[F_COUNT];

#define FNIDX(f) ((int)(uintptr_t)(f))
static void imports_init(void)
{
    if (import_index[F_STEP])
        return;
    import_index[F_STEP] = FNIDX(jit_h_step);
    import_index[F_RMB] = FNIDX(mem_read_missed_block);
    import_index[F_RSLOW] = FNIDX(mem_read_slow);
    import_index[F_WSLOW] = FNIDX(mem_write_slow);
    import_index[F_IFMISS] = FNIDX(ifetch_block_missed);
    import_index[F_RAT1] = FNIDX(op_read_at_b);
    import_index[F_RAT2] = FNIDX(op_read_at_w);
    import_index[F_RAT4] = FNIDX(op_read_at_l);
    import_index[F_WAT1] = FNIDX(op_write_at_b);
    import_index[F_WAT2] = FNIDX(op_write_at_w);
    import_index[F_WAT4] = FNIDX(op_write_at_l);
    import_index[F_MAT1] = FNIDX(op_modify_at_b);
    import_index[F_MAT2] = FNIDX(op_modify_at_w);
    import_index[F_MAT4] = FNIDX(op_modify_at_l);
    import_index[F_AAT1] = FNIDX(op_addr_at_b);
    import_index[F_AAT2] = FNIDX(op_addr_at_w);
    import_index[F_AAT4] = FNIDX(op_addr_at_l);
    import_index[F_AAT8] = FNIDX(op_addr_at_q);
    import_index[F_TRAP] = FNIDX(jit_h_trap);
    import_index[F_MODMEM] = FNIDX(jit_h_modify_mem);
    import_index[F_MODWB] = FNIDX(jit_h_mod_write);
    import_index[F_VERIFY] = FNIDX(jit_h_verify);
    import_index[F_RLOG] = FNIDX(jit_h_rlog);
    import_index[F_NOTE] = FNIDX(jit_h_note);
}

/* ---- The byte buffer and WebAssembly's encodings ---- */

typedef struct {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void wb_byte(wbuf *b, uint8_t v)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 4096;
        b->p = realloc(b->p, b->cap);
    }
    b->p[b->n++] = v;
}

static void wb_bytes(wbuf *b, const uint8_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wb_byte(b, v[i]);
}

static void wb_uleb(wbuf *b, uint32_t v)
{
    do {
        uint8_t x = v & 0x7F;
        v >>= 7;
        wb_byte(b, (uint8_t)(x | (v ? 0x80 : 0)));
    } while (v);
}

static void wb_sleb(wbuf *b, int64_t v)
{
    for (;;) {
        uint8_t x = v & 0x7F;
        v >>= 7;   /* arithmetic */
        if ((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40))) {
            wb_byte(b, x);
            return;
        }
        wb_byte(b, (uint8_t)(x | 0x80));
    }
}

/* WebAssembly opcodes used. */
enum {
    W_BLOCK = 0x02, W_LOOP = 0x03, W_IF = 0x04, W_ELSE = 0x05, W_END = 0x0B, W_BR = 0x0C, W_BR_IF = 0x0D,
    W_BR_TABLE = 0x0E, W_RETURN = 0x0F, W_CALL = 0x10, W_DROP = 0x1A, W_SELECT = 0x1B,
    W_LGET = 0x20, W_LSET = 0x21, W_LTEE = 0x22,
    W_I32_LOAD = 0x28, W_I64_LOAD = 0x29, W_I32_LOAD8_S = 0x2C, W_I32_LOAD8_U = 0x2D, W_I32_LOAD16_S = 0x2E,
    W_I32_LOAD16_U = 0x2F, W_I64_LOAD16_U = 0x33, W_I32_STORE = 0x36, W_I64_STORE = 0x37, W_I32_STORE8 = 0x3A,
    W_I32_STORE16 = 0x3B, W_I32_CONST = 0x41, W_I64_CONST = 0x42,
    W_I32_EQZ = 0x45, W_I32_EQ = 0x46, W_I32_NE = 0x47, W_I32_LT_S = 0x48, W_I32_LT_U = 0x49, W_I32_GT_S = 0x4A,
    W_I32_GT_U = 0x4B, W_I32_LE_S = 0x4C, W_I32_LE_U = 0x4D, W_I32_GE_S = 0x4E, W_I32_GE_U = 0x4F,
    W_I64_EQ = 0x51, W_I64_NE = 0x52, W_I64_LT_S = 0x53, W_I64_LT_U = 0x54, W_I64_GT_S = 0x55, W_I64_LE_S = 0x57,
    W_I64_GE_S = 0x59,
    W_I32_ADD = 0x6A, W_I32_SUB = 0x6B, W_I32_MUL = 0x6C, W_I32_AND = 0x71, W_I32_OR = 0x72, W_I32_XOR = 0x73,
    W_I32_SHL = 0x74, W_I32_SHR_S = 0x75, W_I32_SHR_U = 0x76,
    W_I64_ADD = 0x7C, W_I64_SUB = 0x7D, W_I32_WRAP = 0xA7, W_I64_EXTEND_S = 0xAC, W_I64_EXTEND_U = 0xAD,
    W_I32_EXT8 = 0xC0, W_I32_EXT16 = 0xC1,
};
#define BT_VOID 0x40


/* ---- The emitter ---- */

/* The functions a region's module defines after its imports: the region
 * itself, then helpers its instructions share (a memory read's or write's
 * miss, a modify operand's access and write-back, the instruction buffer's
 * block, the checks after a write or a call), so that each compiled
 * instruction stays short: V8's optimising compile costs about as much per
 * byte of a module as the code saves (docs/speed.md, round twenty-four).
 * Every helper takes three i32s and returns one. */
enum {
    D_MAIN, D_RD1, D_RD2, D_RD4, D_WR1, D_WR2, D_WR4, D_MD1, D_MD2, D_MD4, D_MW1, D_MW2, D_MW4, D_IFA, D_CHK,
    D_COUNT
};
#define FN(d) (F_COUNT + (d))
/* Globals: a helper's fault status; "check the page and the shortcut
 * before the next instruction"; a modify operand's host address (0: its
 * location is in scratch_ml). */
enum { G_ST, G_LEAVE, G_MLH, G_COUNT };

/* Locals: 0-2 the parameters (the region's function has one, and 1 and 2
 * as plain locals), then i32s, then one i64. */
enum {
    L_P0, L_P1, L_P2, L_NEXT, L_VA, L_E, L_BLK, L_H, L_A, L_B, L_R, L_S, L_COND, L_V, L_XPC, L_IPC, L_CARRY,
    L_I32_END,
    L_IC0 = L_I32_END, L_CL, L_I64_END
};

enum { IK_INLINE, IK_STEP, IK_EXIT };   /* how an instruction is compiled */

typedef struct {
    vax_machine *m;
    jit_region *r;
    vax_jit *j;
    wbuf c;                 /* the function being written */
    const uint8_t *bytes;   /* the page */
    uint32_t page_va;
    int nblocks;
    int block_start[JIT_MAX_BLOCKS + 1];
    int16_t block_of[512];  /* offset -> block, or -1 */
    uint8_t is_start[512];
    int cur_block;
    int depth;              /* constructs open inside the current block's code */
    int rlog_known;         /* rlog_n is known (the count below): no helper has run */
    int rlog_count;
    int may_leave;          /* the instruction may set G_LEAVE */
    int ninsns;
} emitter;

#define E (&e->c)
#define MA(field) ((uint32_t)(uintptr_t)&(field))

static void op(emitter *e, uint8_t o) { wb_byte(E, o); }
static void i32c(emitter *e, uint32_t v) { op(e, W_I32_CONST); wb_sleb(E, (int32_t)v); }
static void i64c(emitter *e, int64_t v) { op(e, W_I64_CONST); wb_sleb(E, v); }
static void lget(emitter *e, int l) { op(e, W_LGET); wb_uleb(E, (uint32_t)l); }
static void lset(emitter *e, int l) { op(e, W_LSET); wb_uleb(E, (uint32_t)l); }
static void ltee(emitter *e, int l) { op(e, W_LTEE); wb_uleb(E, (uint32_t)l); }
static void gget(emitter *e, int g) { op(e, 0x23); wb_uleb(E, (uint32_t)g); }
static void gset(emitter *e, int g) { op(e, 0x24); wb_uleb(E, (uint32_t)g); }
static void mem(emitter *e, uint8_t o) { op(e, o); wb_uleb(E, 0); wb_uleb(E, 0); }
static void memo(emitter *e, uint8_t o, uint32_t offset) { op(e, o); wb_uleb(E, 0); wb_uleb(E, offset); }
static void call(emitter *e, int f) { op(e, W_CALL); wb_uleb(E, (uint32_t)f); }
static void if_(emitter *e) { op(e, W_IF); op(e, BT_VOID); e->depth++; }
static void else_(emitter *e) { op(e, W_ELSE); }
static void end_(emitter *e) { op(e, W_END); e->depth--; }
static void ret(emitter *e) { op(e, W_RETURN); }

/* Loads at a constant address. */
static void ld32(emitter *e, uint32_t a) { i32c(e, 0); memo(e, W_I32_LOAD, a); }
static void ld8u(emitter *e, uint32_t a) { i32c(e, 0); memo(e, W_I32_LOAD8_U, a); }
static void ld64(emitter *e, uint32_t a) { i32c(e, 0); memo(e, W_I64_LOAD, a); }
static void ld16u64(emitter *e, uint32_t a) { i32c(e, 0); memo(e, W_I64_LOAD16_U, a); }
/* A store of a constant at a constant address. */
static void st32c(emitter *e, uint32_t a, uint32_t v) { i32c(e, a); i32c(e, v); mem(e, W_I32_STORE); }
static void st8c(emitter *e, uint32_t a, uint32_t v) { i32c(e, a); i32c(e, v); mem(e, W_I32_STORE8); }

static void load_sized(emitter *e, int size)
{
    mem(e, size == 1 ? W_I32_LOAD8_U : size == 2 ? W_I32_LOAD16_U : W_I32_LOAD);
}
static void store_sized(emitter *e, int size)
{
    mem(e, size == 1 ? W_I32_STORE8 : size == 2 ? W_I32_STORE16 : W_I32_STORE);
}

static uint32_t mask_of(int size) { return size == 1 ? 0xFFu : size == 2 ? 0xFFFFu : 0xFFFFFFFFu; }

/* The i32 on the stack sign-extended from size bytes, as an i64. */
static void sext64(emitter *e, int size)
{
    if (size == 1)
        op(e, W_I32_EXT8);
    else if (size == 2)
        op(e, W_I32_EXT16);
    op(e, W_I64_EXTEND_S);
}

/* The branch depths, from the current block's code: the dispatch loop,
 * the exit block and the fault block outside it. */
static uint32_t depth_loop(emitter *e) { return (uint32_t)(e->nblocks - 1 - e->cur_block + e->depth); }
static uint32_t depth_exit(emitter *e) { return depth_loop(e) + 1; }
static uint32_t depth_fault(emitter *e) { return depth_loop(e) + 2; }

/* Leave compiled code with r[15] = pc (the exit block stores it, and
 * instr_pc from L_IPC: the last instruction's, as the loop leaves it). */
static void exit_to(emitter *e, uint32_t pc)
{
    i32c(e, pc);
    lset(e, L_XPC);
    op(e, W_BR);
    wb_uleb(E, depth_exit(e));
}

/* After a call that left its status in G_ST: a fault leaves. */
static void fault_check(emitter *e)
{
    gget(e, G_ST);
    op(e, W_BR_IF);
    wb_uleb(E, depth_fault(e));
}

/* The status of the call just made: into G_ST, and a fault leaves. */
static void status_check(emitter *e)
{
    gset(e, G_ST);
    fault_check(e);
}

static void mark_leave(emitter *e)
{
    i32c(e, 1);
    gset(e, G_LEAVE);
}

/* cost += the 16-bit cost at address a (m->cost in memory). */
static void charge(emitter *e, uint32_t a)
{
    i32c(e, MA(e->m->cost));
    ld64(e, MA(e->m->cost));
    ld16u64(e, a);
    op(e, W_I64_ADD);
    mem(e, W_I64_STORE);
}

/* rlog_add(reg, delta), after the register's change. */
static void rlog(emitter *e, int reg, int delta)
{
    vax_cpu *c = &e->m->cpu;
    if (e->rlog_known && e->rlog_count < 8) {
        int k = e->rlog_count++;
        st8c(e, MA(c->rlog_reg[k]), (uint32_t)reg);
        st8c(e, MA(c->rlog_delta[k]), (uint32_t)delta);
        st8c(e, MA(c->rlog_n), (uint32_t)(k + 1));
        return;
    }
    if (e->rlog_known)   /* 8 already: rlog_add drops it */
        return;
    i32c(e, MA(*e->m));
    i32c(e, (uint32_t)reg);
    i32c(e, (uint32_t)delta);
    call(e, F_RLOG);
    op(e, W_DROP);
}

static uint32_t scratch_v(emitter *e) { return MA(e->j->scratch[0]); }

/* ---- The shared helpers' bodies ---- */

/* The host look-up's slot of L_VA into L_E; pushes whether it holds the
 * page and allows the access in the current mode (modes_offset: that of
 * read_modes or write_modes): tlb.h, xlat_allows. */
static void emit_xlat_test(emitter *e, uint32_t modes_offset)
{
    vax_machine *m = e->m;
    lget(e, L_VA);
    i32c(e, 9);
    op(e, W_I32_SHR_U);
    lget(e, L_VA);
    i32c(e, 22);
    op(e, W_I32_SHR_U);
    op(e, W_I32_ADD);
    i32c(e, XLAT_SIZE - 1);
    op(e, W_I32_AND);
    i32c(e, (uint32_t)sizeof(xlat_entry));
    op(e, W_I32_MUL);
    i32c(e, MA(m->xlat[0]));
    op(e, W_I32_ADD);
    ltee(e, L_E);
    memo(e, W_I32_LOAD, (uint32_t)offsetof(xlat_entry, tag));
    lget(e, L_VA);
    i32c(e, 9);
    op(e, W_I32_SHR_U);
    op(e, W_I32_EQ);
    lget(e, L_E);
    memo(e, W_I32_LOAD, modes_offset);
    ld32(e, MA(m->cpu.psl_without_cc));
    i32c(e, PSL_CUR_SHIFT);
    op(e, W_I32_SHR_U);
    op(e, W_I32_SHR_U);
    i32c(e, 1);
    op(e, W_I32_AND);
    op(e, W_I32_AND);
}

/* mmu.h's inline_read_fits(L_VA, size), pushed. */
static void emit_fits(emitter *e, int size)
{
    lget(e, L_VA);
    if (size == 4) {
        i32c(e, 3);
        op(e, W_I32_AND);
        op(e, W_I32_EQZ);
    } else {
        i32c(e, 7);
        op(e, W_I32_AND);
        i32c(e, 8u - (uint32_t)size);
        op(e, W_I32_LE_U);
    }
}

/* L_BLK = the physical block of L_VA in L_E's page, L_H its host address;
 * pushes whether the cache holds the block (cache.h, cache_holds_block). */
static void emit_block_and_cache_test(emitter *e)
{
    vax_machine *m = e->m;
    lget(e, L_E);
    memo(e, W_I32_LOAD, (uint32_t)offsetof(xlat_entry, block_delta));
    lget(e, L_VA);
    i32c(e, 3);
    op(e, W_I32_SHR_U);
    op(e, W_I32_ADD);
    lset(e, L_BLK);
    lget(e, L_E);
    memo(e, W_I32_LOAD, (uint32_t)offsetof(xlat_entry, host_bias));
    lget(e, L_VA);
    op(e, W_I32_ADD);
    lset(e, L_H);
    lget(e, L_BLK);
    ld32(e, MA(m->cache.set_mask));
    op(e, W_I32_AND);
    i32c(e, 8);
    op(e, W_I32_MUL);
    i32c(e, MA(m->cache.tag[0]));
    op(e, W_I32_ADD);
    ltee(e, L_S);
    memo(e, W_I32_LOAD, 0);
    lget(e, L_BLK);
    op(e, W_I32_EQ);
    lget(e, L_S);
    memo(e, W_I32_LOAD, 4);
    lget(e, L_BLK);
    op(e, W_I32_EQ);
    op(e, W_I32_OR);
}

/* The current mode (psl_mode_key & 3), pushed. */
static void emit_mode(emitter *e)
{
    ld32(e, MA(e->m->cpu.psl_without_cc));
    i32c(e, PSL_CUR_SHIFT);
    op(e, W_I32_SHR_U);
    i32c(e, 3);
    op(e, W_I32_AND);
}

/* G_LEAVE if the host address in local hl is in the page compiled. */
static void emit_code_page_check(emitter *e, int hl)
{
    lget(e, hl);
    i32c(e, (uint32_t)(uintptr_t)e->r->host);
    op(e, W_I32_SUB);
    i32c(e, 512);
    op(e, W_I32_LT_U);
    if_(e);
    mark_leave(e);
    end_(e);
}

/* A call's status into G_ST; if a fault, return 0 from the helper. */
static void helper_status(emitter *e)
{
    gset(e, G_ST);
    gget(e, G_ST);
    if_(e);
    i32c(e, 0);
    ret(e);
    end_(e);
}

/* rd(va, charge): cost += *charge; a read of size bytes at va in the
 * current mode (decode.c's read_at after the decode: mmu.h mem_read). */
static void helper_read(emitter *e, int size)
{
    vax_machine *m = e->m;

    i32c(e, MA(m->cost));
    ld64(e, MA(m->cost));
    lget(e, L_P1);
    memo(e, W_I64_LOAD16_U, 0);
    op(e, W_I64_ADD);
    mem(e, W_I64_STORE);
    lget(e, L_P0);
    lset(e, L_VA);
    emit_xlat_test(e, (uint32_t)offsetof(xlat_entry, read_modes));
    emit_fits(e, size);
    op(e, W_I32_AND);
    if_(e);
    emit_block_and_cache_test(e);
    if_(e);
    lget(e, L_H);
    load_sized(e, size);
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    lget(e, L_BLK);
    lget(e, L_H);
    i32c(e, (uint32_t)size);
    i32c(e, scratch_v(e));
    call(e, F_RMB);
    helper_status(e);
    ld32(e, scratch_v(e));
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    lget(e, L_VA);
    i32c(e, (uint32_t)size);
    emit_mode(e);
    i32c(e, scratch_v(e));
    call(e, F_RSLOW);
    mark_leave(e);
    helper_status(e);
    ld32(e, scratch_v(e));
}

/* wr(va, v, charge): cost += *charge; a write (mmu.h mem_write). */
static void helper_write(emitter *e, int size)
{
    vax_machine *m = e->m;
    i32c(e, MA(m->cost));
    ld64(e, MA(m->cost));
    lget(e, L_P2);
    memo(e, W_I64_LOAD16_U, 0);
    op(e, W_I64_ADD);
    mem(e, W_I64_STORE);
    lget(e, L_P0);
    lset(e, L_VA);
    emit_xlat_test(e, (uint32_t)offsetof(xlat_entry, write_modes));
    lget(e, L_VA);
    i32c(e, 511);
    op(e, W_I32_AND);
    i32c(e, 512u - (uint32_t)size);
    op(e, W_I32_LE_U);
    op(e, W_I32_AND);
    if_(e);
    lget(e, L_E);
    memo(e, W_I32_LOAD, (uint32_t)offsetof(xlat_entry, host_bias));
    lget(e, L_VA);
    op(e, W_I32_ADD);
    ltee(e, L_H);
    lget(e, L_P1);
    store_sized(e, size);
    emit_code_page_check(e, L_H);
    i32c(e, 0);
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    lget(e, L_VA);
    i32c(e, (uint32_t)size);
    emit_mode(e);
    lget(e, L_P1);
    call(e, F_WSLOW);
    gset(e, G_ST);
    mark_leave(e);
    i32c(e, 0);
}

/* md(va, charge): cost += *charge; a modify operand's read (decode.c's
 * modify_memory), its host address in G_MLH. */
static void helper_modify(emitter *e, int size)
{
    vax_machine *m = e->m;
    vax_jit *j = e->j;
    i32c(e, MA(m->cost));
    ld64(e, MA(m->cost));
    lget(e, L_P1);
    memo(e, W_I64_LOAD16_U, 0);
    op(e, W_I64_ADD);
    mem(e, W_I64_STORE);
    lget(e, L_P0);
    lset(e, L_VA);
    emit_xlat_test(e, (uint32_t)offsetof(xlat_entry, write_modes));
    emit_fits(e, size);
    op(e, W_I32_AND);
    if_(e);
    emit_block_and_cache_test(e);
    lget(e, L_H);
    gset(e, G_MLH);
    if_(e);
    lget(e, L_H);
    load_sized(e, size);
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    lget(e, L_BLK);
    lget(e, L_H);
    i32c(e, (uint32_t)size);
    i32c(e, scratch_v(e));
    call(e, F_RMB);
    helper_status(e);
    ld32(e, scratch_v(e));
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    lget(e, L_VA);
    i32c(e, (uint32_t)size);
    i32c(e, MA(j->scratch_ml));
    i32c(e, scratch_v(e));
    call(e, F_MODMEM);
    ld32(e, MA(j->scratch_ml.host));
    gset(e, G_MLH);
    mark_leave(e);
    helper_status(e);
    ld32(e, scratch_v(e));
}

/* mw(v): the modify operand's write-back (decode.h mod_write). */
static void helper_mod_write(emitter *e, int size)
{
    vax_machine *m = e->m;
    gget(e, G_MLH);
    if_(e);
    gget(e, G_MLH);
    ltee(e, L_H);
    lget(e, L_P0);
    store_sized(e, size);
    emit_code_page_check(e, L_H);
    i32c(e, 0);
    ret(e);
    end_(e);
    i32c(e, MA(*m));
    i32c(e, MA(e->j->scratch_ml));
    i32c(e, (uint32_t)size);
    lget(e, L_P0);
    call(e, F_MODWB);
    gset(e, G_ST);
    mark_leave(e);
    i32c(e, 0);
}

/* ifa(block, blk): the instruction buffer's block (mmu.h,
 * ifetch_account_mapped), blk the physical one. */
static void helper_ifetch(emitter *e)
{
    vax_machine *m = e->m;
    ld32(e, MA(m->ifetch_block));
    lget(e, L_P0);
    op(e, W_I32_NE);
    if_(e);
    i32c(e, MA(m->ifetch_block));
    lget(e, L_P0);
    mem(e, W_I32_STORE);
    lget(e, L_P1);
    ld32(e, MA(m->cache.set_mask));
    op(e, W_I32_AND);
    i32c(e, 8);
    op(e, W_I32_MUL);
    i32c(e, MA(m->cache.tag[0]));
    op(e, W_I32_ADD);
    ltee(e, L_S);
    memo(e, W_I32_LOAD, 0);
    lget(e, L_P1);
    op(e, W_I32_NE);
    lget(e, L_S);
    memo(e, W_I32_LOAD, 4);
    lget(e, L_P1);
    op(e, W_I32_NE);
    op(e, W_I32_AND);
    if_(e);
    i32c(e, MA(*m));
    lget(e, L_P1);
    i32c(e, 3);
    op(e, W_I32_SHL);
    call(e, F_IFMISS);
    end_(e);
    end_(e);
    i32c(e, 0);
}

/* chk(from, to): after a write into the page or a call: G_LEAVE cleared;
 * 1 when the fetch shortcut still maps the page and bytes [from, to) are
 * still those compiled. */
static void helper_check(emitter *e)
{
    vax_machine *m = e->m;
    i32c(e, 0);
    gset(e, G_LEAVE);
    ld32(e, MA(m->ib_tag));
    i32c(e, e->page_va >> 9);
    op(e, W_I32_EQ);
    if_(e);
    i32c(e, (uint32_t)(uintptr_t)e->r);
    lget(e, L_P0);
    lget(e, L_P1);
    call(e, F_VERIFY);
    ret(e);
    end_(e);
    i32c(e, 0);
}

/* ---- Operands, in the region's code ---- */

/* Push three arguments for a helper: a, b, c. */
static void args3(emitter *e, uint32_t a, uint32_t b, uint32_t c)
{
    i32c(e, a);
    i32c(e, b);
    i32c(e, c);
}

/* ---- Operand specifiers ---- */

enum { OK_LIT, OK_REG, OK_IMM, OK_MEM, OK_HELP };
enum { MM_PLAIN_REG, MM_AUTODEC, MM_AUTOINC, MM_DISP, MM_INDEX };

typedef struct {
    int kind;
    int rn, rx;       /* register; index register */
    int mm;           /* OK_MEM: how the address is formed (MM_*) */
    uint32_t disp;    /* displacement; or the literal, or the immediate */
    int form;         /* SPEC_FORM_* */
    int len;
    uint32_t pc;      /* the specifier's address */
} opnd;

/* The length of any specifier at off (size: the operand's), or 0 past the page. */
static int spec_len(const uint8_t *b, int off, int size)
{
    if (off >= 512)
        return 0;
    int mode = b[off] >> 4, rn = b[off] & 15, n;
    switch (mode) {
    case 4:
        n = spec_len(b, off + 1, size);
        return n ? 1 + n : 0;
    case 8: n = rn == 15 ? 1 + (size > 4 ? size : size) : 1; break;
    case 9: n = rn == 15 ? 5 : 1; break;
    case 10: case 11: n = 2; break;
    case 12: case 13: n = 3; break;
    case 14: case 15: n = 5; break;
    default: n = 1; break;
    }
    return off + n <= 512 ? n : 0;
}

static uint32_t le_at(const uint8_t *b, int off, int size)
{
    uint32_t v = 0;
    for (int i = size - 1; i >= 0; i--)
        v = (v << 8) | b[off + i];
    return v;
}

/* acc: ACC_R, ACC_W, ACC_M, ACC_A. */
static opnd parse_spec(emitter *e, int off, int size, int acc)
{
    const uint8_t *b = e->bytes;
    opnd o;
    memset(&o, 0, sizeof o);
    int spec = b[off], mode = spec >> 4, rn = spec & 15;
    o.pc = e->page_va + (uint32_t)off;
    o.rn = rn;
    o.len = spec_len(b, off, size);
    o.kind = OK_HELP;
    switch (mode) {
    case 0: case 1: case 2: case 3:
        if (acc == ACC_R) {
            o.kind = OK_LIT;
            o.disp = (uint32_t)spec;
        }
        break;
    case 5:
        if (rn != 15 && acc != ACC_A)
            o.kind = OK_REG;
        break;
    case 6:
        o.kind = OK_MEM;
        o.mm = MM_PLAIN_REG;
        o.form = SPEC_FORM_PLAIN;
        break;
    case 7:
        if (rn != 15) {
            o.kind = OK_MEM;
            o.mm = MM_AUTODEC;
            o.form = SPEC_FORM_PLAIN;
        }
        break;
    case 8:
        if (rn == 15) {
            if (acc == ACC_R && size <= 4) {
                o.kind = OK_IMM;
                o.disp = le_at(b, off + 1, size);
            }
        } else {
            o.kind = OK_MEM;
            o.mm = MM_AUTOINC;
            o.form = SPEC_FORM_PLAIN;
        }
        break;
    case 10:
        o.kind = OK_MEM;
        o.mm = MM_DISP;
        o.form = SPEC_FORM_DISP;
        o.disp = (uint32_t)(int32_t)(int8_t)b[off + 1];
        break;
    case 12:
        o.kind = OK_MEM;
        o.mm = MM_DISP;
        o.form = SPEC_FORM_DISP;
        o.disp = (uint32_t)(int32_t)(int16_t)le_at(b, off + 1, 2);
        break;
    case 14:
        o.kind = OK_MEM;
        o.mm = MM_DISP;
        o.form = SPEC_FORM_DISP;
        o.disp = le_at(b, off + 1, 4);
        break;
    case 4: {
        int base = b[off + 1];
        if (rn != 15 && (base >> 4) == 6 && (base & 15) != 15) {
            o.kind = OK_MEM;
            o.mm = MM_INDEX;
            o.form = SPEC_FORM_INDEX;
            o.rx = rn;
            o.rn = base & 15;
        }
        break;
    }
    default:
        break;
    }
    if (o.len == 0)
        o.kind = OK_HELP;
    return o;
}


/* The memory operand's address into L_VA, with decode_at's side effects
 * (autoincrement, autodecrement and their undo log). */
static void emit_address(emitter *e, const opnd *o, int size)
{
    vax_cpu *c = &e->m->cpu;
    uint32_t end = o->pc + (uint32_t)o->len;
    switch (o->mm) {
    case MM_PLAIN_REG:
        if (o->rn == 15)
            i32c(e, o->pc + 1);
        else
            ld32(e, MA(c->r[o->rn]));
        lset(e, L_VA);
        break;
    case MM_AUTODEC:
        i32c(e, MA(c->r[o->rn]));
        ld32(e, MA(c->r[o->rn]));
        i32c(e, (uint32_t)size);
        op(e, W_I32_SUB);
        ltee(e, L_VA);
        mem(e, W_I32_STORE);
        rlog(e, o->rn, -size);
        break;
    case MM_AUTOINC:
        ld32(e, MA(c->r[o->rn]));
        lset(e, L_VA);
        i32c(e, MA(c->r[o->rn]));
        lget(e, L_VA);
        i32c(e, (uint32_t)size);
        op(e, W_I32_ADD);
        mem(e, W_I32_STORE);
        rlog(e, o->rn, size);
        break;
    case MM_DISP:
        if (o->rn == 15) {
            i32c(e, end + o->disp);
        } else {
            ld32(e, MA(c->r[o->rn]));
            i32c(e, o->disp);
            op(e, W_I32_ADD);
        }
        lset(e, L_VA);
        break;
    default:   /* MM_INDEX */
        ld32(e, MA(c->r[o->rn]));
        ld32(e, MA(c->r[o->rx]));
        i32c(e, (uint32_t)size);
        op(e, W_I32_MUL);
        op(e, W_I32_ADD);
        lset(e, L_VA);
        break;
    }
}

/* A call of one of decode.c's _at decoders (f) for the specifier o, with
 * out-parameters out1 (and out2 when not 0); its status checked. */
static void emit_at_call(emitter *e, const opnd *o, int f, uint32_t out1, uint32_t out2, int value_local)
{
    i32c(e, MA(*e->m));
    i32c(e, (uint32_t)(uintptr_t)(e->r->host + (o->pc & 511u)));
    i32c(e, o->pc);
    if (value_local >= 0)
        lget(e, value_local);
    else
        i32c(e, out1);
    if (out2)
        i32c(e, out2);
    call(e, f);
    status_check(e);
    mark_leave(e);
    e->may_leave = 1;
    e->rlog_known = 0;
}

/* The hit path of a read of size bytes at L_VA in the region's code (the
 * charge made): the host look-up, the access test, the cache model's hit
 * test and the load, as mmu.h's mem_read_mode; anything else through the
 * module's helper (charging nothing more), which calls mmu.c. */
static void emit_inline_read(emitter *e, int size, int dl)
{
    op(e, W_BLOCK);
    op(e, BT_VOID);
    e->depth++;
    emit_xlat_test(e, (uint32_t)offsetof(xlat_entry, read_modes));
    emit_fits(e, size);
    op(e, W_I32_AND);
    if_(e);
    emit_block_and_cache_test(e);
    if_(e);
    lget(e, L_H);
    load_sized(e, size);
    lset(e, dl);
    op(e, W_BR);
    wb_uleb(E, 2);
    end_(e);
    end_(e);
    lget(e, L_VA);
    i32c(e, MA(e->j->zero16));
    i32c(e, 0);
    call(e, FN(size == 1 ? D_RD1 : size == 2 ? D_RD2 : D_RD4));
    lset(e, dl);
    fault_check(e);
    end_(e);
}

/* The same for a write of local vl (mmu.h, mem_write_mode). */
static void emit_inline_write(emitter *e, int size, int vl)
{
    op(e, W_BLOCK);
    op(e, BT_VOID);
    e->depth++;
    emit_xlat_test(e, (uint32_t)offsetof(xlat_entry, write_modes));
    lget(e, L_VA);
    i32c(e, 511);
    op(e, W_I32_AND);
    i32c(e, 512u - (uint32_t)size);
    op(e, W_I32_LE_U);
    op(e, W_I32_AND);
    if_(e);
    lget(e, L_E);
    memo(e, W_I32_LOAD, (uint32_t)offsetof(xlat_entry, host_bias));
    lget(e, L_VA);
    op(e, W_I32_ADD);
    ltee(e, L_H);
    lget(e, vl);
    store_sized(e, size);
    emit_code_page_check(e, L_H);
    op(e, W_BR);
    wb_uleb(E, 1);
    end_(e);
    lget(e, L_VA);
    lget(e, vl);
    i32c(e, MA(e->j->zero16));
    call(e, FN(size == 1 ? D_WR1 : size == 2 ? D_WR2 : D_WR4));
    op(e, W_DROP);
    fault_check(e);
    end_(e);
}

/* An operand read (dc_read): its value into local dl. */
static void emit_read(emitter *e, const opnd *o, int size, int dl)
{
    vax_machine *m = e->m;
    int fat = size == 1 ? F_RAT1 : size == 2 ? F_RAT2 : F_RAT4;
    switch (o->kind) {
    case OK_LIT:
        i32c(e, o->disp);
        lset(e, dl);
        return;
    case OK_REG:
        ld32(e, MA(m->cpu.r[o->rn]));
        if (size < 4) {
            i32c(e, mask_of(size));
            op(e, W_I32_AND);
        }
        lset(e, dl);
        return;
    case OK_IMM:
        /* The first instruction after a refill takes the checked form's
         * immediate (decode.h, dc_read). */
        ld64(e, MA(m->icount));
        ld64(e, MA(m->ib_refill_icount));
        op(e, W_I64_EQ);
        if_(e);
        emit_at_call(e, o, fat, scratch_v(e), 0, -1);
        ld32(e, scratch_v(e));
        lset(e, dl);
        else_(e);
        charge(e, MA(m->tm.read));
        i32c(e, o->disp);
        lset(e, dl);
        end_(e);
        return;
    case OK_MEM:
        emit_address(e, o, size);
        charge(e, MA(m->tm.mem_read[o->form]));
        emit_inline_read(e, size, dl);
        e->may_leave = 1;
        return;
    default:
        emit_at_call(e, o, fat, scratch_v(e), 0, -1);
        ld32(e, scratch_v(e));
        lset(e, dl);
        return;
    }
}

/* An operand write (dc_write) of local vl. */
static void emit_write(emitter *e, const opnd *o, int size, int vl)
{
    vax_machine *m = e->m;
    if (o->kind == OK_REG) {
        i32c(e, MA(m->cpu.r[o->rn]));
        lget(e, vl);
        store_sized(e, size);
        return;
    }
    if (o->kind == OK_MEM) {
        emit_address(e, o, size);
        charge(e, MA(m->tm.mem_write[o->form]));
        emit_inline_write(e, size, vl);
        e->may_leave = 1;
        return;
    }
    emit_at_call(e, o, size == 1 ? F_WAT1 : size == 2 ? F_WAT2 : F_WAT4, 0, 0, vl);
}

/* A modify operand (dc_modify): its value into dl; a memory one's
 * location in G_MLH (and scratch_ml). */
static void emit_modify(emitter *e, const opnd *o, int size, int dl)
{
    vax_machine *m = e->m;
    if (o->kind == OK_REG) {
        ld32(e, MA(m->cpu.r[o->rn]));
        if (size < 4) {
            i32c(e, mask_of(size));
            op(e, W_I32_AND);
        }
        lset(e, dl);
        return;
    }
    if (o->kind == OK_MEM) {
        emit_address(e, o, size);
        lget(e, L_VA);
        i32c(e, MA(m->tm.mem_modify[o->form]));
        i32c(e, 0);
        call(e, FN(size == 1 ? D_MD1 : size == 2 ? D_MD2 : D_MD4));
        lset(e, dl);
        fault_check(e);
        e->may_leave = 1;
        return;
    }
    emit_at_call(e, o, size == 1 ? F_MAT1 : size == 2 ? F_MAT2 : F_MAT4, MA(e->j->scratch_ml), scratch_v(e), -1);
    ld32(e, scratch_v(e));
    lset(e, dl);
    ld32(e, MA(e->j->scratch_ml.host));
    gset(e, G_MLH);
}

/* mod_write of local vl to the operand emit_modify located. */
static void emit_mod_write(emitter *e, const opnd *o, int size, int vl)
{
    vax_machine *m = e->m;
    if (o->kind == OK_REG) {
        i32c(e, MA(m->cpu.r[o->rn]));
        lget(e, vl);
        store_sized(e, size);
        return;
    }
    lget(e, vl);
    i32c(e, 0);
    i32c(e, 0);
    call(e, FN(size == 1 ? D_MW1 : size == 2 ? D_MW2 : D_MW4));
    op(e, W_DROP);
    fault_check(e);
    e->may_leave = 1;
}

/* An address operand (dc_addr) into dl. */
static void emit_addr(emitter *e, const opnd *o, int size, int dl)
{
    vax_machine *m = e->m;
    if (o->kind == OK_MEM) {
        emit_address(e, o, size);
        charge(e, MA(m->tm.mem_addr[o->form]));
        lget(e, L_VA);
        lset(e, dl);
        return;
    }
    emit_at_call(e, o, size == 1 ? F_AAT1 : size == 2 ? F_AAT2 : size == 4 ? F_AAT4 : F_AAT8, scratch_v(e), 0, -1);
    ld32(e, scratch_v(e));
    lset(e, dl);
}

/* push_l(local vl) (exec.h): mem_write_l at r14 - 4, uncharged, then r14. */
static void emit_push(emitter *e, int vl)
{
    vax_machine *m = e->m;
    ld32(e, MA(m->cpu.r[14]));
    i32c(e, 4);
    op(e, W_I32_SUB);
    lset(e, L_VA);
    emit_inline_write(e, 4, vl);
    i32c(e, MA(m->cpu.r[14]));
    lget(e, L_VA);
    mem(e, W_I32_STORE);
    e->may_leave = 1;
}

/* Condition codes. */
static void cc_nz_from(emitter *e, int l, int size)
{
    i32c(e, MA(e->m->cpu.cc_nz));
    lget(e, l);
    sext64(e, size);
    mem(e, W_I64_STORE);
}
static void cc_v_const(emitter *e, uint32_t v) { st32c(e, MA(e->m->cpu.cc_v), v); }
static void cc_c_const(emitter *e, uint32_t v) { st32c(e, MA(e->m->cpu.cc_c), v); }

/* ---- Instructions ---- */

enum { ALU_ADD_, ALU_SUB_, ALU_BIS_, ALU_BIC_, ALU_XOR_ };

typedef struct {
    int kind;        /* IK_* */
    int len;         /* 0: not known */
    int cls;         /* what it is (C_*), for IK_INLINE */
    int size, size2; /* operand sizes */
    int alu;
    int opcode;
    uint32_t target; /* branches: the target */
    int cond_branch, uncond;
    opnd o[3];
    int nops;
} insn;

enum {
    C_MOV, C_CMP, C_BIT, C_CLR, C_TST, C_MCOM, C_MNEG, C_MOVZ, C_MOVA, C_PUSHA, C_PUSHL, C_ALU2, C_ALU3,
    C_INCDEC, C_BR, C_BCOND, C_BSB, C_AOB, C_SOB
};

/* The opcodes compiled inline: all among execute.c's fast switch's own
 * (DC_FAST, not DC_FAST_CHECKED_IMM), so that their charges are the fast
 * form's. */
static int classify(int opc, insn *in)
{
    in->size = in->size2 = 4;
    switch (opc) {
    case 0x90: in->size = 1; return C_MOV;
    case 0xB0: in->size = 2; return C_MOV;
    case 0xD0: return C_MOV;
    case 0x91: in->size = 1; return C_CMP;
    case 0xB1: in->size = 2; return C_CMP;
    case 0xD1: return C_CMP;
    case 0x93: in->size = 1; return C_BIT;
    case 0xB3: in->size = 2; return C_BIT;
    case 0xD3: return C_BIT;
    case 0x94: in->size = 1; return C_CLR;
    case 0xB4: in->size = 2; return C_CLR;
    case 0xD4: return C_CLR;
    case 0x95: in->size = 1; return C_TST;
    case 0xB5: in->size = 2; return C_TST;
    case 0xD5: return C_TST;
    case 0xD2: return C_MCOM;
    case 0xCE: return C_MNEG;
    case 0x9A: in->size = 1; in->size2 = 4; return C_MOVZ;
    case 0x9B: in->size = 1; in->size2 = 2; return C_MOVZ;
    case 0x3C: in->size = 2; in->size2 = 4; return C_MOVZ;
    case 0x9E: in->size = 1; return C_MOVA;
    case 0x3E: in->size = 2; return C_MOVA;
    case 0xDE: return C_MOVA;
    case 0x7E: in->size = 8; return C_MOVA;
    case 0x9F: in->size = 1; return C_PUSHA;
    case 0xDF: return C_PUSHA;
    case 0xDD: return C_PUSHL;
    case 0x80: in->size = 1; in->alu = ALU_ADD_; return C_ALU2;
    case 0x81: in->size = 1; in->alu = ALU_ADD_; return C_ALU3;
    case 0x82: in->size = 1; in->alu = ALU_SUB_; return C_ALU2;
    case 0x83: in->size = 1; in->alu = ALU_SUB_; return C_ALU3;
    case 0x88: in->size = 1; in->alu = ALU_BIS_; return C_ALU2;
    case 0x89: in->size = 1; in->alu = ALU_BIS_; return C_ALU3;
    case 0x8A: in->size = 1; in->alu = ALU_BIC_; return C_ALU2;
    case 0x8B: in->size = 1; in->alu = ALU_BIC_; return C_ALU3;
    case 0x8C: in->size = 1; in->alu = ALU_XOR_; return C_ALU2;
    case 0x8D: in->size = 1; in->alu = ALU_XOR_; return C_ALU3;
    case 0xA0: in->size = 2; in->alu = ALU_ADD_; return C_ALU2;
    case 0xA1: in->size = 2; in->alu = ALU_ADD_; return C_ALU3;
    case 0xA2: in->size = 2; in->alu = ALU_SUB_; return C_ALU2;
    case 0xA3: in->size = 2; in->alu = ALU_SUB_; return C_ALU3;
    case 0xC0: in->alu = ALU_ADD_; return C_ALU2;
    case 0xC1: in->alu = ALU_ADD_; return C_ALU3;
    case 0xC2: in->alu = ALU_SUB_; return C_ALU2;
    case 0xC3: in->alu = ALU_SUB_; return C_ALU3;
    case 0xC8: in->alu = ALU_BIS_; return C_ALU2;
    case 0xC9: in->alu = ALU_BIS_; return C_ALU3;
    case 0xCA: in->alu = ALU_BIC_; return C_ALU2;
    case 0xCB: in->alu = ALU_BIC_; return C_ALU3;
    case 0xCC: in->alu = ALU_XOR_; return C_ALU2;
    case 0xCD: in->alu = ALU_XOR_; return C_ALU3;
    case 0x96: in->size = 1; in->alu = ALU_ADD_; return C_INCDEC;
    case 0x97: in->size = 1; in->alu = ALU_SUB_; return C_INCDEC;
    case 0xB6: in->size = 2; in->alu = ALU_ADD_; return C_INCDEC;
    case 0xB7: in->size = 2; in->alu = ALU_SUB_; return C_INCDEC;
    case 0xD6: in->alu = ALU_ADD_; return C_INCDEC;
    case 0xD7: in->alu = ALU_SUB_; return C_INCDEC;
    case 0x11: in->size = 1; return C_BR;
    case 0x31: in->size = 2; return C_BR;
    case 0x12: case 0x13: case 0x14: case 0x15: case 0x18: case 0x19: case 0x1A: case 0x1B:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F:
        return C_BCOND;
    case 0x10: in->size = 1; return C_BSB;
    case 0x30: in->size = 2; return C_BSB;
    case 0xF2: case 0xF3: return C_AOB;
    case 0xF4: case 0xF5: return C_SOB;
    default: return -1;
    }
}

/* The length of any instruction at off from the opcode table, 0 when not
 * known (CASE's table, escapes, past the page). */
static int insn_len_generic(const uint8_t *b, int off)
{
    const vax_opinfo *oi = &vax_opcodes[b[off]];
    if (oi->flags & (OPF_CASE | OPF_ESCAPE | OPF_RESERVED))
        return 0;
    int p = off + 1;
    for (int i = 0; i < oi->nspec; i++) {
        int s = oi->spec[i];
        if (SPEC_ACC(s) == ACC_B) {
            p += dt_size(SPEC_DT(s));
        } else {
            int n = spec_len(b, p, dt_size(SPEC_DT(s)));
            if (!n)
                return 0;
            p += n;
        }
        if (p > 512)
            return 0;
    }
    return p - off;
}

static void decode_insn(emitter *e, int off, insn *in)
{
    const uint8_t *b = e->bytes;
    memset(in, 0, sizeof *in);
    in->opcode = b[off];
    if (off > 512 - DC_WINDOW) {
        in->kind = IK_EXIT;
        return;
    }
    int cls = classify(in->opcode, in);
    in->len = insn_len_generic(b, off);
    if (cls < 0 || in->len == 0) {
        in->kind = IK_STEP;
        return;
    }
    in->kind = IK_INLINE;
    in->cls = cls;
    int p = off + 1, sz = in->size;
    uint32_t pc = e->page_va + (uint32_t)off;
    switch (cls) {
    case C_MOV: case C_MCOM: case C_MNEG:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, sz, ACC_W); p += in->o[1].len;
        in->nops = 2;
        break;
    case C_MOVZ:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, in->size2, ACC_W); p += in->o[1].len;
        in->nops = 2;
        break;
    case C_CMP: case C_BIT:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, sz, ACC_R); p += in->o[1].len;
        in->nops = 2;
        break;
    case C_CLR:
        in->o[0] = parse_spec(e, p, sz, ACC_W); p += in->o[0].len;
        in->nops = 1;
        break;
    case C_TST: case C_PUSHL:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->nops = 1;
        break;
    case C_MOVA:
        in->o[0] = parse_spec(e, p, sz, ACC_A); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, 4, ACC_W); p += in->o[1].len;
        in->nops = 2;
        break;
    case C_PUSHA:
        in->o[0] = parse_spec(e, p, sz, ACC_A); p += in->o[0].len;
        in->nops = 1;
        break;
    case C_ALU2:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, sz, ACC_M); p += in->o[1].len;
        in->nops = 2;
        break;
    case C_ALU3:
        in->o[0] = parse_spec(e, p, sz, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, sz, ACC_R); p += in->o[1].len;
        in->o[2] = parse_spec(e, p, sz, ACC_W); p += in->o[2].len;
        in->nops = 3;
        break;
    case C_INCDEC:
        in->o[0] = parse_spec(e, p, sz, ACC_M); p += in->o[0].len;
        in->nops = 1;
        break;
    case C_BR: case C_BSB:
        in->uncond = 1;
        if (sz == 1) {
            in->target = pc + 2 + (uint32_t)(int32_t)(int8_t)b[p];
            p += 1;
        } else {
            in->target = pc + 3 + (uint32_t)(int32_t)(int16_t)le_at(b, p, 2);
            p += 2;
        }
        break;
    case C_BCOND:
        in->cond_branch = 1;
        in->target = pc + 2 + (uint32_t)(int32_t)(int8_t)b[p];
        p += 1;
        break;
    case C_AOB:
        in->o[0] = parse_spec(e, p, 4, ACC_R); p += in->o[0].len;
        in->o[1] = parse_spec(e, p, 4, ACC_M); p += in->o[1].len;
        in->nops = 2;
        in->cond_branch = 1;
        in->target = pc + (uint32_t)(p - off) + 1 + (uint32_t)(int32_t)(int8_t)b[p];
        p += 1;
        break;
    case C_SOB:
        in->o[0] = parse_spec(e, p, 4, ACC_M); p += in->o[0].len;
        in->nops = 1;
        in->cond_branch = 1;
        in->target = pc + (uint32_t)(p - off) + 1 + (uint32_t)(int32_t)(int8_t)b[p];
        p += 1;
        break;
    default:
        break;
    }
    for (int i = 0; i < in->nops; i++)
        if (in->o[i].len == 0) {
            in->kind = IK_STEP;
            return;
        }
    if (p - off != in->len)   /* the two decodings disagree: leave it to the interpreter */
        in->kind = IK_STEP;
}


/* The ALU (exec_integer.h, alu) on L_A (src) and L_B (dst): the result
 * in L_R, for ADD and SUB V in L_COND (PSL_V or 0) and C in L_CARRY.
 * Nothing stored: the codes come after the destination's write
 * (emit_alu_commit), as alu_commit follows it. */
static void emit_alu(emitter *e, int alu, int size)
{
    uint32_t mask = mask_of(size);
    int vshift = 8 * size - 2;
    if (size < 4) {
        lget(e, L_A);
        i32c(e, mask);
        op(e, W_I32_AND);
        lset(e, L_A);
        lget(e, L_B);
        i32c(e, mask);
        op(e, W_I32_AND);
        lset(e, L_B);
    }
    switch (alu) {
    case ALU_ADD_: case ALU_SUB_:
        lget(e, L_B);
        lget(e, L_A);
        op(e, alu == ALU_ADD_ ? W_I32_ADD : W_I32_SUB);
        if (size < 4) {
            i32c(e, mask);
            op(e, W_I32_AND);
        }
        lset(e, L_R);
        if (alu == ALU_ADD_) {
            lget(e, L_A);
            lget(e, L_B);
            op(e, W_I32_XOR);
            i32c(e, 0xFFFFFFFFu);
            op(e, W_I32_XOR);
            lget(e, L_A);
            lget(e, L_R);
            op(e, W_I32_XOR);
            op(e, W_I32_AND);
        } else {
            lget(e, L_A);
            lget(e, L_B);
            op(e, W_I32_XOR);
            lget(e, L_B);
            lget(e, L_R);
            op(e, W_I32_XOR);
            op(e, W_I32_AND);
        }
        i32c(e, (uint32_t)vshift);
        op(e, W_I32_SHR_U);
        i32c(e, PSL_V);
        op(e, W_I32_AND);
        lset(e, L_COND);
        if (alu == ALU_ADD_) {
            lget(e, L_R);
            lget(e, L_A);
        } else {
            lget(e, L_B);
            lget(e, L_A);
        }
        op(e, W_I32_LT_U);
        lset(e, L_CARRY);
        break;
    default:
        lget(e, L_B);
        lget(e, L_A);
        if (alu == ALU_BIC_) {
            i32c(e, 0xFFFFFFFFu);
            op(e, W_I32_XOR);
            op(e, W_I32_AND);
        } else {
            op(e, alu == ALU_BIS_ ? W_I32_OR : W_I32_XOR);
        }
        lset(e, L_R);
        break;
    }
}

/* alu_commit's codes: N and Z from L_R; V from L_COND and C from L_CARRY
 * (ADD, SUB), or V clear and C kept (BIS, BIC, XOR). */
static void emit_alu_commit(emitter *e, int alu, int size)
{
    cc_nz_from(e, L_R, size);
    if (alu == ALU_ADD_ || alu == ALU_SUB_) {
        i32c(e, MA(e->m->cpu.cc_v));
        lget(e, L_COND);
        mem(e, W_I32_STORE);
        i32c(e, MA(e->m->cpu.cc_c));
        lget(e, L_CARRY);
        mem(e, W_I32_STORE);
    } else {
        cc_v_const(e, 0);
    }
}


/* The block a target pc starts, or -1. */
static int block_at(emitter *e, uint32_t target)
{
    if ((target >> 9) != (e->page_va >> 9))
        return -1;
    return e->block_of[target & 511u];
}

/* Go to the block of pc (through the dispatch loop), or leave there. */
static void goto_pc(emitter *e, uint32_t pc)
{
    int k = block_at(e, pc);
    if (k < 0) {
        exit_to(e, pc);
        return;
    }
    i32c(e, (uint32_t)k);
    lset(e, L_NEXT);
    op(e, W_BR);
    wb_uleb(E, depth_loop(e));
}

/* A V (L_COND) may request a trap: cpu_trap_status, with r[15] already
 * the next instruction's (from L_XPC), as the loop's full tail takes it. */
static void emit_overflow_trap(emitter *e)
{
    lget(e, L_COND);
    if_(e);
    i32c(e, MA(e->m->cpu.r[15]));
    lget(e, L_XPC);
    mem(e, W_I32_STORE);
    i32c(e, MA(*e->m));
    i32c(e, ARITH_INT_OVERFLOW);
    call(e, F_TRAP);
    status_check(e);
    end_(e);
}

/* One instruction compiled inline.  known_block: the 8-byte block the
 * instruction buffer is known to hold (the previous instruction's in this
 * block), or -1.  rest_to: the end of the block's compiled bytes. */
static void emit_inline(emitter *e, int off, const insn *in, int known_block, int rest_to)
{
    vax_machine *m = e->m;
    uint32_t pc = e->page_va + (uint32_t)off;
    uint32_t next = pc + (uint32_t)in->len;
    int sz = in->size;
    e->rlog_known = 1;
    e->rlog_count = 0;
    e->may_leave = 0;
    i32c(e, pc);
    lset(e, L_IPC);
    /* The next instruction's pc, for the exits (a branch's is set below). */
    i32c(e, in->uncond ? in->target : next);
    lset(e, L_XPC);
    /* The instruction buffer (ifetch_account_mapped): the region's page is
     * the fetch shortcut's, so the physical block is a constant. */
    uint32_t block = pc >> 3;
    if ((int64_t)block != known_block) {
        if (known_block < 0) {
            ld32(e, MA(m->ifetch_block));
            i32c(e, block);
            op(e, W_I32_NE);
            if_(e);
        }
        args3(e, block, block + m->ib_block_delta, 0);
        call(e, FN(D_IFA));
        op(e, W_DROP);
        if (known_block < 0)
            end_(e);
    }
    charge(e, MA(m->tm.op[in->opcode]));
    st8c(e, MA(m->cpu.rlog_n), 0);   /* execute.c: c->rlog_n = 0 before each */

    const opnd *o = in->o;
    switch (in->cls) {
    case C_MOV:
        emit_read(e, &o[0], sz, L_A);
        emit_write(e, &o[1], sz, L_A);
        cc_nz_from(e, L_A, sz);
        cc_v_const(e, 0);
        break;
    case C_MOVZ:
        emit_read(e, &o[0], sz, L_A);
        emit_write(e, &o[1], in->size2, L_A);
        cc_nz_from(e, L_A, in->size2);
        cc_v_const(e, 0);
        break;
    case C_MCOM:
        emit_read(e, &o[0], sz, L_A);
        lget(e, L_A);
        i32c(e, 0xFFFFFFFFu);
        op(e, W_I32_XOR);
        lset(e, L_A);
        emit_write(e, &o[1], sz, L_A);
        cc_nz_from(e, L_A, sz);
        cc_v_const(e, 0);
        break;
    case C_MNEG:
        emit_read(e, &o[0], sz, L_A);
        i32c(e, 0);
        lset(e, L_B);
        emit_alu(e, ALU_SUB_, sz);
        emit_write(e, &o[1], sz, L_R);
        emit_alu_commit(e, ALU_SUB_, sz);
        emit_overflow_trap(e);
        break;
    case C_CMP:
        emit_read(e, &o[0], sz, L_A);
        emit_read(e, &o[1], sz, L_B);
        i32c(e, MA(m->cpu.cc_nz));
        lget(e, L_A);
        sext64(e, sz);
        lget(e, L_B);
        sext64(e, sz);
        op(e, W_I64_SUB);
        mem(e, W_I64_STORE);
        cc_v_const(e, 0);
        i32c(e, MA(m->cpu.cc_c));
        lget(e, L_A);
        lget(e, L_B);
        op(e, W_I32_LT_U);
        mem(e, W_I32_STORE);
        break;
    case C_BIT:
        emit_read(e, &o[0], sz, L_A);
        emit_read(e, &o[1], sz, L_B);
        lget(e, L_A);
        lget(e, L_B);
        op(e, W_I32_AND);
        lset(e, L_R);
        cc_nz_from(e, L_R, sz);
        cc_v_const(e, 0);
        break;
    case C_CLR:
        i32c(e, 0);
        lset(e, L_A);
        emit_write(e, &o[0], sz, L_A);
        i32c(e, MA(m->cpu.cc_nz));
        i64c(e, 0);
        mem(e, W_I64_STORE);
        cc_v_const(e, 0);
        break;
    case C_TST:
        emit_read(e, &o[0], sz, L_A);
        cc_nz_from(e, L_A, sz);
        cc_v_const(e, 0);
        cc_c_const(e, 0);
        break;
    case C_MOVA:
        emit_addr(e, &o[0], sz, L_A);
        emit_write(e, &o[1], 4, L_A);
        cc_nz_from(e, L_A, 4);
        cc_v_const(e, 0);
        break;
    case C_PUSHA: case C_PUSHL:
        if (in->cls == C_PUSHA)
            emit_addr(e, &o[0], sz, L_A);
        else
            emit_read(e, &o[0], 4, L_A);
        emit_push(e, L_A);
        cc_nz_from(e, L_A, 4);
        cc_v_const(e, 0);
        break;
    case C_ALU2:
        emit_read(e, &o[0], sz, L_A);
        emit_modify(e, &o[1], sz, L_B);
        emit_alu(e, in->alu, sz);
        emit_mod_write(e, &o[1], sz, L_R);
        emit_alu_commit(e, in->alu, sz);
        if (in->alu == ALU_ADD_ || in->alu == ALU_SUB_)
            emit_overflow_trap(e);
        break;
    case C_ALU3:
        emit_read(e, &o[0], sz, L_A);
        emit_read(e, &o[1], sz, L_B);
        emit_alu(e, in->alu, sz);
        emit_write(e, &o[2], sz, L_R);
        emit_alu_commit(e, in->alu, sz);
        if (in->alu == ALU_ADD_ || in->alu == ALU_SUB_)
            emit_overflow_trap(e);
        break;
    case C_INCDEC:
        emit_modify(e, &o[0], sz, L_B);
        i32c(e, 1);
        lset(e, L_A);
        emit_alu(e, in->alu, sz);
        emit_mod_write(e, &o[0], sz, L_R);
        emit_alu_commit(e, in->alu, sz);
        emit_overflow_trap(e);
        break;
    case C_BR:
        break;
    case C_BSB:
        i32c(e, next);
        lset(e, L_A);
        emit_push(e, L_A);
        break;
    case C_BCOND: {
        /* exec_branch.h, condition */
        int opc = in->opcode;
        uint32_t nz = MA(m->cpu.cc_nz), cv = MA(m->cpu.cc_v), cc = MA(m->cpu.cc_c);
        switch (opc) {
        case 0x12: ld32(e, nz); i32c(e, 0); op(e, W_I32_NE); break;   /* the low 32 bits */
        case 0x13: ld32(e, nz); op(e, W_I32_EQZ); break;
        case 0x14: ld64(e, nz); i64c(e, 0); op(e, W_I64_GT_S); break;
        case 0x15: ld64(e, nz); i64c(e, 0); op(e, W_I64_LE_S); break;
        case 0x18: ld64(e, nz); i64c(e, 0); op(e, W_I64_GE_S); break;
        case 0x19: ld64(e, nz); i64c(e, 0); op(e, W_I64_LT_S); break;
        case 0x1A: case 0x1B:
            ld32(e, cc);
            ld32(e, nz);
            op(e, W_I32_EQZ);
            op(e, W_I32_OR);
            if (opc == 0x1A)
                op(e, W_I32_EQZ);
            else {
                i32c(e, 0);
                op(e, W_I32_NE);
            }
            break;
        case 0x1C: ld32(e, cv); op(e, W_I32_EQZ); break;
        case 0x1D: ld32(e, cv); i32c(e, 0); op(e, W_I32_NE); break;
        case 0x1E: ld32(e, cc); op(e, W_I32_EQZ); break;
        default: ld32(e, cc); i32c(e, 0); op(e, W_I32_NE); break;
        }
        lset(e, L_COND);
        i32c(e, in->target);
        i32c(e, next);
        lget(e, L_COND);
        op(e, W_SELECT);
        lset(e, L_XPC);
        break;
    }
    case C_AOB: case C_SOB: {
        int aob = in->cls == C_AOB;
        if (aob) {
            emit_read(e, &o[0], 4, L_A);   /* the limit */
            emit_modify(e, &o[1], 4, L_B);
        } else {
            emit_modify(e, &o[0], 4, L_B);
        }
        lget(e, L_B);
        i32c(e, aob ? 1u : 0xFFFFFFFFu);
        op(e, W_I32_ADD);
        lset(e, L_R);
        emit_mod_write(e, aob ? &o[1] : &o[0], 4, L_R);
        /* V when r is 0x80000000 (AOB) or 0x7FFFFFFF (SOB) */
        lget(e, L_R);
        i32c(e, aob ? 0x80000000u : 0x7FFFFFFFu);
        op(e, W_I32_EQ);
        i32c(e, 1);
        op(e, W_I32_SHL);
        lset(e, L_V);
        cc_nz_from(e, L_R, 4);
        i32c(e, MA(m->cpu.cc_v));
        lget(e, L_V);
        mem(e, W_I32_STORE);
        lget(e, L_R);
        if (aob) {
            lget(e, L_A);
            op(e, in->opcode == 0xF3 ? W_I32_LE_S : W_I32_LT_S);
        } else {
            i32c(e, 0);
            op(e, in->opcode == 0xF5 ? W_I32_GT_S : W_I32_GE_S);
        }
        lset(e, L_COND);
        i32c(e, in->target);
        i32c(e, next);
        lget(e, L_COND);
        op(e, W_SELECT);
        lset(e, L_XPC);
        /* the V's trap request (cpu_trap_status), with r[15] the next pc */
        lget(e, L_V);
        if_(e);
        i32c(e, MA(m->cpu.r[15]));
        lget(e, L_XPC);
        mem(e, W_I32_STORE);
        i32c(e, MA(*m));
        i32c(e, ARITH_INT_OVERFLOW);
        call(e, F_TRAP);
        status_check(e);
        end_(e);
        break;
    }
    default:
        break;
    }
    /* The tail: the count and the limits (execute.c, simple_no_trap). */
    i32c(e, MA(m->icount));
    ld64(e, MA(m->icount));
    i64c(e, 1);
    op(e, W_I64_ADD);
    mem(e, W_I64_STORE);
    ld64(e, MA(m->icount));
    ld64(e, MA(m->run_limit));
    op(e, W_I64_LT_U);
    ld64(e, MA(m->cost));
    lget(e, L_CL);
    op(e, W_I64_LT_U);
    op(e, W_I32_AND);
    op(e, W_I32_EQZ);
    op(e, W_BR_IF);
    wb_uleb(E, depth_exit(e));
    /* After a write into the page or a call: the fetch shortcut and the
     * rest of the block checked, else back to the loop. */
    if (e->may_leave) {
        gget(e, G_LEAVE);
        if_(e);
        if (in->cond_branch || in->uncond) {
            i32c(e, 0);
            gset(e, G_LEAVE);
            op(e, W_BR);
            wb_uleb(E, depth_exit(e));
        } else {
            args3(e, (uint32_t)(off + in->len), (uint32_t)rest_to, 0);
            call(e, FN(D_CHK));
            op(e, W_I32_EQZ);
            op(e, W_BR_IF);
            wb_uleb(E, depth_exit(e));
        }
        end_(e);
    }
    if (in->uncond) {
        goto_pc(e, in->target);
    } else if (in->cond_branch) {
        lget(e, L_COND);
        if_(e);
        goto_pc(e, in->target);
        end_(e);
    }
    e->ninsns++;
}

/* An instruction through the interpreter (cpu_execute_step), then the
 * dispatch on r[15] through the region's map of blocks. */
static void emit_step(emitter *e, int off)
{
    vax_machine *m = e->m;
    uint32_t pc = e->page_va + (uint32_t)off;
    st32c(e, MA(m->cpu.r[15]), pc);
    i32c(e, MA(*m));
    call(e, F_STEP);
    op(e, W_DROP);
    /* the limits; the PSL's trace and compatibility bits and a pending
     * trap; the fetch shortcut on this page: else back to the loop, as
     * the step left it */
    ld64(e, MA(m->icount));
    ld64(e, MA(m->run_limit));
    op(e, W_I64_LT_U);
    ld64(e, MA(m->cost));
    ld64(e, MA(m->cost_limit));
    op(e, W_I64_LT_U);
    op(e, W_I32_AND);
    op(e, W_I32_EQZ);
    ld32(e, MA(m->cpu.psl_without_cc));
    i32c(e, PSL_T | PSL_TP | PSL_CM);
    op(e, W_I32_AND);
    op(e, W_I32_OR);
    ld8u(e, MA(m->cpu.trap_pending));
    op(e, W_I32_OR);
    ld32(e, MA(m->ib_tag));
    i32c(e, e->page_va >> 9);
    op(e, W_I32_NE);
    op(e, W_I32_OR);
    ld32(e, MA(m->cpu.r[15]));
    i32c(e, e->page_va);
    op(e, W_I32_SUB);
    ltee(e, L_V);
    i32c(e, 511);
    op(e, W_I32_GT_U);
    op(e, W_I32_OR);
    if_(e);
    i32c(e, 0);
    ret(e);
    end_(e);
    lget(e, L_V);
    i32c(e, 1);
    op(e, W_I32_SHL);
    i32c(e, MA(e->r->entry_map[0]));
    op(e, W_I32_ADD);
    memo(e, W_I32_LOAD16_S, 0);
    ltee(e, L_NEXT);
    i32c(e, 0);
    op(e, W_I32_LT_S);
    if_(e);
    i32c(e, (uint32_t)(uintptr_t)e->r);
    lget(e, L_V);
    call(e, F_NOTE);
    op(e, W_DROP);
    i32c(e, 0);
    ret(e);
    end_(e);
    op(e, W_BR);
    wb_uleb(E, depth_loop(e));
    e->ninsns++;
}

/* The block's start: its compiled bytes [start, to) compared with what
 * they were. */
static void emit_verify(emitter *e, int start, int to)
{
    int len = to - start;
    if (len <= 0)
        return;
    uint32_t host = (uint32_t)(uintptr_t)e->r->host;
    int first = 1;
    for (int p = start; p < to;) {
        int n = to - p;
        int w = n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
        if (n < 8 && len >= 8) {
            p = to - 8;   /* the last 8 bytes, overlapping */
            w = 8;
        }
        i32c(e, 0);
        if (w == 8) {
            memo(e, W_I64_LOAD, host + (uint32_t)p);
            uint64_t v = 0;
            for (int i = 7; i >= 0; i--)
                v = (v << 8) | e->bytes[p + i];
            i64c(e, (int64_t)v);
            op(e, W_I64_NE);
        } else {
            memo(e, w == 4 ? W_I32_LOAD : w == 2 ? W_I32_LOAD16_U : W_I32_LOAD8_U, host + (uint32_t)p);
            i32c(e, le_at(e->bytes, p, w));
            op(e, W_I32_NE);
        }
        if (!first)
            op(e, W_I32_OR);
        first = 0;
        p += w;
    }
    if_(e);
    st32c(e, MA(e->r->dead), 1);
    ld64(e, MA(e->m->icount));
    lget(e, L_IC0);
    op(e, W_I64_EQ);
    if_(e);
    i32c(e, JIT_NOT_RUN);
    ret(e);
    end_(e);
    exit_to(e, e->page_va + (uint32_t)start);
    end_(e);
}

/* ---- Scanning a region: its block starts ---- */

static void scan(emitter *e)
{
    int work[1024], nwork = 0;
    uint8_t visited[512];
    memset(visited, 0, sizeof visited);
    memset(e->is_start, 0, sizeof e->is_start);
    for (int off = 0; off < 512; off++)
        if (e->r->seen[off >> 5] & (1u << (off & 31))) {
            e->is_start[off] = 1;
            work[nwork++] = off;
        }
    int budget = JIT_MAX_INSNS;
    while (nwork > 0 && budget > 0) {
        int off = work[--nwork];
        while (off < 512 && !visited[off] && budget-- > 0) {
            visited[off] = 1;
            insn in;
            decode_insn(e, off, &in);
            if (in.kind == IK_EXIT)
                break;
            if (in.kind == IK_STEP) {
                if (in.len && off + in.len <= 512 - DC_WINDOW && !e->is_start[off + in.len] && nwork < 1000) {
                    e->is_start[off + in.len] = 1;
                    work[nwork++] = off + in.len;
                }
                break;
            }
            if (in.cond_branch || in.uncond) {
                uint32_t t = in.target;
                if ((t >> 9) == (e->page_va >> 9) && (t & 511u) <= 512u - DC_WINDOW && !e->is_start[t & 511u] &&
                    nwork < 1000) {
                    e->is_start[t & 511u] = 1;
                    work[nwork++] = (int)(t & 511u);
                }
                if (in.cls == C_BSB && off + in.len <= 512 - DC_WINDOW && !e->is_start[off + in.len] &&
                    nwork < 1000) {
                    e->is_start[off + in.len] = 1;   /* where its RSB comes back */
                    work[nwork++] = off + in.len;
                }
                if (in.uncond)
                    break;
            }
            off += in.len;
        }
    }
    e->nblocks = 0;
    for (int off = 0; off < 512; off++) {
        e->block_of[off] = -1;
        if (e->is_start[off] && e->nblocks < JIT_MAX_BLOCKS) {
            e->block_of[off] = (int16_t)e->nblocks;
            e->block_start[e->nblocks++] = off;
        }
    }
    e->block_start[e->nblocks] = 512;
}

/* The end of the bytes compiled inline in the block from start (the
 * straight line up to the next block, a transfer, a call of the
 * interpreter or the page's tail). */
static int block_inline_end(emitter *e, int k)
{
    int off = e->block_start[k], limit = e->block_start[k + 1], end = off;
    while (off < limit) {
        insn in;
        decode_insn(e, off, &in);
        if (in.kind != IK_INLINE)
            break;
        end = off + in.len;
        if (in.uncond)
            break;
        off += in.len;
    }
    return end;
}


static void emit_block(emitter *e, int k)
{
    int off = e->block_start[k], limit = e->block_start[k + 1];
    int rest_to = block_inline_end(e, k);
    e->cur_block = k;
    e->depth = 0;
    emit_verify(e, off, rest_to);
    int64_t known_block = -1;
    for (;;) {
        if (off >= limit) {
            /* into the next block: by falling through when it starts here */
            if (off == limit && k + 1 < e->nblocks)
                return;
            goto_pc(e, e->page_va + (uint32_t)off);
            return;
        }
        insn in;
        decode_insn(e, off, &in);
        if (in.kind == IK_EXIT) {
            exit_to(e, e->page_va + (uint32_t)off);
            return;
        }
        if (in.kind == IK_STEP) {
            if (e->j->end_at_calls)
                exit_to(e, e->page_va + (uint32_t)off);
            else
                emit_step(e, off);
            return;
        }
        emit_inline(e, off, &in, (int)known_block, rest_to);
        if (in.uncond)
            return;
        known_block = (e->page_va + (uint32_t)off) >> 3;
        off += in.len;
    }
}

/* ---- The module ---- */

static void section(wbuf *out, uint8_t id, const wbuf *body)
{
    wb_byte(out, id);
    wb_uleb(out, (uint32_t)body->n);
    wb_bytes(out, body->p, body->n);
}

static void name(wbuf *b, const char *s)
{
    wb_uleb(b, (uint32_t)strlen(s));
    wb_bytes(b, (const uint8_t *)s, strlen(s));
}

/* The locals of a function with nparams parameters. */
static void locals_decl(emitter *e, int nparams)
{
    wb_uleb(E, 2);
    wb_uleb(E, (uint32_t)(L_I32_END - nparams));
    wb_byte(E, 0x7F);
    wb_uleb(E, L_I64_END - L_I32_END);
    wb_byte(E, 0x7E);
}

/* The region's function: prologue, dispatch, blocks, exits. */
static void emit_main(emitter *e)
{
    vax_machine *m = e->m;
    locals_decl(e, 1);
    ld64(e, MA(m->icount));
    lset(e, L_IC0);
    ld64(e, MA(m->cost_limit));
    lset(e, L_CL);
    ld32(e, MA(m->cpu.instr_pc));
    lset(e, L_IPC);
    ld32(e, MA(m->cpu.r[15]));
    lset(e, L_XPC);
    lget(e, L_P0);
    lset(e, L_NEXT);
    op(e, W_BLOCK);   /* the fault exit */
    op(e, BT_VOID);
    op(e, W_BLOCK);   /* the exit */
    op(e, BT_VOID);
    op(e, W_LOOP);
    op(e, BT_VOID);
    for (int k = e->nblocks - 1; k >= 0; k--) {
        op(e, W_BLOCK);
        op(e, BT_VOID);
    }
    lget(e, L_NEXT);
    op(e, W_BR_TABLE);
    wb_uleb(E, (uint32_t)e->nblocks);
    for (int k = 0; k < e->nblocks; k++)
        wb_uleb(E, (uint32_t)k);
    wb_uleb(E, (uint32_t)e->nblocks + 1);   /* default: the exit */
    for (int k = 0; k < e->nblocks; k++) {
        op(e, W_END);   /* block k ends: its code follows */
        emit_block(e, k);
    }
    op(e, 0x00);   /* unreachable: every block's code ends in a transfer */
    op(e, W_END);  /* loop */
    op(e, 0x00);
    op(e, W_END);  /* the exit: r[15] and instr_pc as the loop leaves them */
    /* Nothing ran (the entry's first instruction is one compiled code
     * leaves at): the loop goes on as if not called, into the fast form,
     * without testing its limits again (a refill's charge may have reached
     * cost_limit, and the instruction runs all the same). */
    ld64(e, MA(m->icount));
    lget(e, L_IC0);
    op(e, W_I64_EQ);
    if_(e);
    i32c(e, JIT_NOT_RUN);
    ret(e);
    end_(e);
    i32c(e, MA(m->cpu.r[15]));
    lget(e, L_XPC);
    mem(e, W_I32_STORE);
    i32c(e, MA(m->cpu.instr_pc));
    lget(e, L_IPC);
    mem(e, W_I32_STORE);
    i32c(e, 0);
    ret(e);
    op(e, W_END);  /* the fault exit: instr_pc, and the status */
    i32c(e, MA(m->cpu.instr_pc));
    lget(e, L_IPC);
    mem(e, W_I32_STORE);
    gget(e, G_ST);
    i32c(e, 0);
    gset(e, G_ST);
    op(e, W_END);
}

static void emit_helper(emitter *e, int d)
{
    locals_decl(e, 3);
    switch (d) {
    case D_RD1: helper_read(e, 1); break;
    case D_RD2: helper_read(e, 2); break;
    case D_RD4: helper_read(e, 4); break;
    case D_WR1: helper_write(e, 1); break;
    case D_WR2: helper_write(e, 2); break;
    case D_WR4: helper_write(e, 4); break;
    case D_MD1: helper_modify(e, 1); break;
    case D_MD2: helper_modify(e, 2); break;
    case D_MD4: helper_modify(e, 4); break;
    case D_MW1: helper_mod_write(e, 1); break;
    case D_MW2: helper_mod_write(e, 2); break;
    case D_MW4: helper_mod_write(e, 4); break;
    case D_IFA: helper_ifetch(e); break;
    default: helper_check(e); break;
    }
    op(e, W_END);
}

static int compile_region(vax_machine *m, jit_region *r)
{
    vax_jit *j = m->jit;
    double t0 = emscripten_get_now();
    emitter *e = calloc(1, sizeof *e);
    e->m = m;
    e->r = r;
    e->j = j;
    memcpy(r->bytes, r->host, 512);
    e->bytes = r->bytes;
    e->page_va = r->vpn << 9;
    scan(e);
    if (e->nblocks == 0) {
        free(e);
        return -1;
    }
    wbuf mod = {0}, s = {0}, code = {0};
    /* The bodies: the region's, then the helpers'. */
    wb_uleb(&code, D_COUNT);
    for (int d = 0; d < D_COUNT; d++) {
        e->c.n = 0;
        if (d == D_MAIN)
            emit_main(e);
        else
            emit_helper(e, d);
        wb_uleb(&code, (uint32_t)e->c.n);
        wb_bytes(&code, e->c.p, e->c.n);
    }

    static const uint8_t magic[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
    wb_bytes(&mod, magic, 8);
    /* types: (i32 x n) -> i32 for n = 1..5, and (i32 i32) -> () */
    wb_uleb(&s, T_COUNT);
    for (int t = 0; t < T_COUNT; t++) {
        int n = t == T_V2 ? 2 : t + 1;
        wb_byte(&s, 0x60);
        wb_uleb(&s, (uint32_t)n);
        for (int i = 0; i < n; i++)
            wb_byte(&s, 0x7F);
        if (t == T_V2) {
            wb_uleb(&s, 0);
        } else {
            wb_uleb(&s, 1);
            wb_byte(&s, 0x7F);
        }
    }
    section(&mod, 1, &s);
    s.n = 0;
    /* imports: the functions, then the memory */
    wb_uleb(&s, F_COUNT + 1);
    for (int f = 0; f < F_COUNT; f++) {
        char nm[4] = {'f', 0, 0, 0};
        if (f >= 10) {
            nm[1] = (char)('0' + f / 10);
            nm[2] = (char)('0' + f % 10);
        } else {
            nm[1] = (char)('0' + f);
        }
        name(&s, "e");
        name(&s, nm);
        wb_byte(&s, 0x00);
        wb_uleb(&s, import_type[f]);
    }
    name(&s, "e");
    name(&s, "m");
    wb_byte(&s, 0x02);
    wb_byte(&s, 0x00);
    wb_uleb(&s, 1);
    section(&mod, 2, &s);
    s.n = 0;
    wb_uleb(&s, D_COUNT);
    for (int d = 0; d < D_COUNT; d++)
        wb_uleb(&s, d == D_MAIN ? T_I1 : T_I3);
    section(&mod, 3, &s);
    s.n = 0;
    wb_uleb(&s, G_COUNT);
    for (int g = 0; g < G_COUNT; g++) {
        wb_byte(&s, 0x7F);
        wb_byte(&s, 0x01);
        wb_byte(&s, W_I32_CONST);
        wb_byte(&s, 0x00);
        wb_byte(&s, W_END);
    }
    section(&mod, 6, &s);
    s.n = 0;
    wb_uleb(&s, 1);
    name(&s, "f");
    wb_byte(&s, 0x00);
    wb_uleb(&s, FN(D_MAIN));
    section(&mod, 7, &s);
    section(&mod, 10, &code);

    int slot = r->slot;
    if (slot == 0 && j->nfree > 0)
        slot = j->free_slots[--j->nfree];
    r->slot = jit_install(mod.p, (int)mod.n, import_index, F_COUNT, slot);
    for (int off = 0; off < 512; off++)
        r->entry_map[off] = e->block_of[off];
    r->compiles++;
    r->misses = 0;
    j->compiles++;
    j->bytes += (double)mod.n;
    j->insns_compiled += e->ninsns;
    free(mod.p);
    free(s.p);
    free(code.p);
    free(e->c.p);
    free(e);
    j->compile_ms += emscripten_get_now() - t0;
    return 0;
}

/* ---- Regions and the way in ---- */

static uint32_t region_hash(uint32_t vpn, uint32_t ppa)
{
    uint32_t h = vpn * 0x9E3779B1u ^ (ppa >> 9) * 0x85EBCA77u;
    return (h >> 12) & (JIT_REGIONS - 1);
}

static void region_drop(vax_jit *j, jit_region *r)
{
    if (r->slot) {
        jit_uninstall(r->slot);
        if (j->nfree < (int)(sizeof j->free_slots / sizeof j->free_slots[0]))
            j->free_slots[j->nfree++] = r->slot;
    }
    free(r);
}

int jit_enter(vax_machine *m, uint32_t pc)
{
    vax_jit *j = m->jit;
    if (m->prof || (m->cpu.psl_without_cc & (PSL_T | PSL_TP | PSL_CM)) || m->cpu.trap_pending)
        return JIT_NOT_RUN;
    uint32_t vpn = pc >> 9, ppa = m->ib_pa & ~511u, off = pc & 511u;
    uint32_t h = region_hash(vpn, ppa);
    jit_region *r = j->regions[h];
    if (!r || r->vpn != vpn || r->ppa != ppa) {
        if (r) {
            region_drop(j, r);
            j->dropped++;
        }
        r = calloc(1, sizeof *r);
        r->vpn = vpn;
        r->ppa = ppa;
        memset(r->entry_map, 0xFF, sizeof r->entry_map);
        j->regions[h] = r;
    }
    r->host = (uint8_t *)(m->ib_bias + (vpn << 9));
    if (!(r->seen[off >> 5] & (1u << (off & 31)))) {
        r->seen[off >> 5] |= 1u << (off & 31);
        if (r->slot)
            r->misses++;
    }
    /* Compile when hot; again when entries it lacks have been seen. */
    if (r->entry_map[off] < 0 || r->misses >= 1) {
        r->heat++;
        if (r->heat >= j->hot && r->compiles < JIT_MAX_COMPILES && compile_region(m, r) == 0)
            r->heat = 0;
        if (r->entry_map[off] < 0) {
            j->not_run++;
            return JIT_NOT_RUN;
        }
    }
    uint64_t ic0 = m->icount;
    int (*fn)(int) = (int (*)(int))(uintptr_t)r->slot;
    int st = fn(r->entry_map[off]);
    j->entries++;
    j->insns += (double)(m->icount - ic0);
    if (r->dead) {
        j->stale++;
        j->regions[h] = NULL;
        region_drop(j, r);
    }
    if (st == JIT_NOT_RUN)
        j->not_run++;
    return st;
}

int jit_enable(vax_machine *m, int on)
{
    if (on && !m->jit) {
        imports_init();
        m->jit = calloc(1, sizeof *m->jit);
        /* on: 1, or the threshold; negative, the threshold with every
         * instruction not compiled ending compiled code (the measurement of
         * docs/speed.md round twenty-four). */
        m->jit->end_at_calls = on < 0;
        if (on < 0)
            on = -on;
        m->jit->hot = on > 1 ? (uint32_t)on : JIT_HOT;
    } else if (!on && m->jit) {
        for (int i = 0; i < JIT_REGIONS; i++)
            if (m->jit->regions[i])
                region_drop(m->jit, m->jit->regions[i]);
        free(m->jit);
        m->jit = NULL;
    }
    return m->jit != NULL;
}

/* entries, not run, compiles, module bytes, compile ms, instructions run
 * in compiled code (the interpreter's steps included), steps, stale
 * regions dropped, regions replaced, regions live. */
void jit_stats(const vax_machine *m, double out[12])
{
    memset(out, 0, 12 * sizeof out[0]);
    const vax_jit *j = m->jit;
    if (!j)
        return;
    out[0] = j->entries;
    out[1] = j->not_run;
    out[2] = j->compiles;
    out[3] = j->bytes;
    out[4] = j->compile_ms;
    out[5] = j->insns;
    out[6] = j->stepped;
    out[7] = j->stale;
    out[8] = j->dropped;
    int live = 0;
    for (int i = 0; i < JIT_REGIONS; i++)
        live += j->regions[i] != NULL;
    out[9] = live;
    out[10] = j->insns_compiled;
}

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

/* What the state digest (vax_state_digest) leaves out and compiled code
 * must keep as the interpreter does: the cost, the cache model's tags,
 * replacement state and misses, the TB's entries and replacement state,
 * the instruction buffer's block, the statistics, the undo log and
 * instr_pc.  For the tests (emu/wasm/jit.test.ts), run with the compiler
 * and without. */
uint64_t jit_timing_digest(const vax_machine *m)
{
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv(h, &m->cost, sizeof m->cost);
    h = fnv(h, &m->icount, sizeof m->icount);
    h = fnv(h, m->cache.tag, sizeof m->cache.tag);
    h = fnv(h, &m->cache.random, sizeof m->cache.random);
    h = fnv(h, &m->cache.misses, sizeof m->cache.misses);
    for (size_t i = 0; i < sizeof m->tlb.e / sizeof m->tlb.e[0]; i++) {
        h = fnv(h, &m->tlb.e[i].tag, 4);
        h = fnv(h, &m->tlb.e[i].pa, 4);
        h = fnv(h, &m->tlb.e[i].access, 4);
    }
    h = fnv(h, m->tlb.next_victim, sizeof m->tlb.next_victim);
    h = fnv(h, &m->ifetch_block, sizeof m->ifetch_block);
    h = fnv(h, &m->stats, sizeof m->stats);
    h = fnv(h, &m->acct_slot, sizeof m->acct_slot);
    h = fnv(h, &m->acct_icount, sizeof m->acct_icount);
    h = fnv(h, &m->acct_ns, sizeof m->acct_ns);
    h = fnv(h, &m->cpu.instr_pc, sizeof m->cpu.instr_pc);
    h = fnv(h, &m->cpu.rlog_n, sizeof m->cpu.rlog_n);
    h = fnv(h, m->cpu.rlog_reg, sizeof m->cpu.rlog_reg);
    h = fnv(h, m->cpu.rlog_delta, sizeof m->cpu.rlog_delta);
    h = fnv(h, &m->cpu.cc_nz, sizeof m->cpu.cc_nz);
    h = fnv(h, &m->cpu.cc_v, sizeof m->cpu.cc_v);
    h = fnv(h, &m->cpu.cc_c, sizeof m->cpu.cc_c);
    return h;
}

/* The JavaScript side's switch (emu/js, the tests and benchmarks). */
EMSCRIPTEN_KEEPALIVE int vaxw_jit_enable(vax_machine *m, int on) { return jit_enable(m, on); }
EMSCRIPTEN_KEEPALIVE void vaxw_jit_stats(vax_machine *m, double *out) { jit_stats(m, out); }
EMSCRIPTEN_KEEPALIVE uint32_t *vaxw_jit_step_census(vax_machine *m) { return m->jit ? m->jit->step_census : NULL; }
EMSCRIPTEN_KEEPALIVE uint64_t vaxw_jit_timing_digest(vax_machine *m) { return jit_timing_digest(m); }

#else
typedef int jit_not_built;
#endif
