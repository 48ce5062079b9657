/*
 * test_fuzz.c — "garbage in" robustness: random and half-random
 * instruction streams must never crash the emulator, hang it, or make it
 * touch host memory outside the machine.  Whatever the guest does, the
 * processor must end up raising the architected faults.
 *
 * Each case is built from one 64-bit seed (a splitmix64 stream; rand() is
 * never used, so a case is the same on every host):
 *   - a machine of 64 KB .. 512 KB, memory filled with random bytes,
 *     zeros, "pointer pages" (longwords that are valid addresses) and
 *     biased instruction streams (opcodes from the opcode table with
 *     random but well-formed operand specifiers);
 *   - sometimes memory management on, with a random-but-mostly-valid
 *     system page table, P0/P1 page tables, random protection codes and
 *     invalid / out-of-memory PTEs;
 *   - a PSL in kernel, executive, supervisor or user mode (always a PSL a
 *     real processor could have), random registers and stack pointers,
 *     pending software and hardware interrupts;
 *   - an SCB whose vectors point to HALT stubs, handlers that pop the
 *     exception parameters and REI, random code, or random longwords;
 *     sometimes a start in compatibility mode or an REI frame into it,
 *     where the words at the PC's low 16 bits run as PDP-11 code;
 *   - well-formed material for the complex instructions: absolute and
 *     self-relative queues, EDITPC patterns, packed decimal strings,
 *     procedures (CALLS/CALLG ... RET) and subroutines (JSB ... RSB);
 *   - in some cases the whole 780 (vax780_create: memory controller,
 *     UBA0 and MBA0/1 with their map registers, an RM03 pack that reads
 *     synthetic data, a TS11 with a small .tap image, the DZ11, console
 *     and clock, and sometimes a UDA50 with an RA81), with device
 *     registers mapped in S0 space and driver-like instruction sequences
 *     that start disk and tape operations and take the UDA50 through its
 *     initialisation with rings and commands in memory.
 * The case then runs several vax_run() slices with random budgets, with
 * random poking through the host API in between, and checks:
 *   - vax_run() returns a valid stop reason and never runs more than its
 *     budget (and exactly the budget when it stops for the budget);
 *   - the PSL the processor leaves is one it may produce: no MBZ bits,
 *     compatibility mode only in user mode without FPD, IS, DV, FU, IV
 *     (REI checks it), PRV >= CUR, the interrupt stack only in
 *     kernel mode, IPL 0 outside kernel mode;
 *   - the stop detail is a terminated string;
 *   - vax_phys_read/write accept exactly the in-memory ranges;
 *   - (every 8th case) the case run again, with every vax_run() slice cut
 *     in two calls, ends in the same state (digest, registers, PSL): the
 *     host's slicing must not change what the guest sees.
 * A hang inside one instruction is caught by an alarm() watchdog around
 * each vax_run() call (30 s, generous for ASan), which prints the seed;
 * crashes and undefined behaviour by the sanitizers in the asan build (a
 * death callback prints the seed), or by signal handlers in the plain
 * build.  Host memory outside the machine: ASan (guest memory is one heap
 * block; UBSan's bounds checks cover the register arrays).
 *
 *   test_fuzz [--iterations N] [--seed S] [--seconds T] [--verbose] [--trace]
 *
 * Case i uses seed S+i (S defaults to 1).  --seed S alone runs just that
 * case (reproduce a failure with --seed S --verbose).  --seconds is only
 * a safety stop (default 60): the run is deterministic by its iteration
 * count; if the time limit cuts it short, that is reported.
 * --trace runs each slice one instruction at a time (vax_run(m, 1)) and
 * prints the instructions that take more than 10 ms; the outcome must be
 * the same as in big slices.
 * The last line is "N passed, M failed"; the exit status is 1 on failure.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "cpu/opcodes.h"
#include "machine.h"
#include "storage/blockdev.h"
#include "system/vax780.h"
#include "unibus/uda50.h"
#include "vax.h"

#define DEFAULT_ITERATIONS 5000
#define DEFAULT_SECONDS 60.0
#ifndef SLICE_TIMEOUT_S
#define SLICE_TIMEOUT_S 30u  /* wall-clock watchdog per vax_run() call (ASan is slow) */
#endif

/* ------------------------------------------------------------------ PRNG */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rnext(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t r32(rng_t *r) { return (uint32_t)(rnext(r) >> 32); }

/* Uniform in [0, n). */
static uint32_t below(rng_t *r, uint32_t n) { return (uint32_t)(((uint64_t)r32(r) * n) >> 32); }

/* True with probability pct/100. */
static int chance(rng_t *r, uint32_t pct) { return below(r, 100) < pct; }

/* ------------------------------------------------ failure reporting state */

static volatile uint64_t g_seed;          /* seed of the case being run */
static volatile int g_in_case;
static int g_passed, g_failed;
static int g_verbose;
static int g_trace;   /* --trace: step one instruction at a time, report slow ones */

static void put_str(int fd, const char *s) { (void)!write(fd, s, strlen(s)); }

static void put_u64(int fd, uint64_t v)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    put_str(fd, b + i);
}

/* Async-signal-safe: name the case that died, and close with the summary
 * line on stdout so that a runner reading it counts the failure. */
static void report_death(const char *why)
{
    put_str(2, "\nFAIL seed=");
    put_u64(2, g_seed);
    put_str(2, ": ");
    put_str(2, why);
    put_str(2, "\nreproduce: test_fuzz --seed ");
    put_u64(2, g_seed);
    put_str(2, " --verbose\n");
    put_u64(1, (uint64_t)g_passed);
    put_str(1, " passed, ");
    put_u64(1, (uint64_t)g_failed + 1);
    put_str(1, " failed\n");
}

static void on_alarm(int sig)
{
    (void)sig;
    report_death("watchdog: one vax_run() call took too long (hang inside an instruction?)");
    abort();
}

static void on_crash(int sig)
{
    report_death(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "SIGILL");
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Present when built with a sanitizer (gcc or clang); lets the sanitizer
 * report which case it died in. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void on_sanitizer_death(void)
{
    if (g_in_case)
        report_death("sanitizer error (see the report above)");
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    if (__sanitizer_set_death_callback) {
        __sanitizer_set_death_callback(on_sanitizer_death);
    } else {
        /* No sanitizer runtime: catch plain crashes ourselves. */
        sa.sa_handler = on_crash;
        sa.sa_flags = SA_RESETHAND;
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
        sigaction(SIGFPE, &sa, NULL);
        sigaction(SIGILL, &sa, NULL);
    }
}

/* ------------------------------------------------------- case description */

#define MAX_RESERVED_PAGES 64

typedef struct {
    rng_t rng;
    uint8_t *img;            /* host image of physical memory, loaded at the end */
    uint8_t *reserved;       /* per physical page: holds a table, keep streams off */
    uint32_t memsize, npages;
    int mapen;
    uint32_t sbr, slr;       /* physical SPT, length in entries */
    uint32_t p0br, p0lr, p1br, p1lr;
    uint32_t scbb, pcbb;
    uint32_t psl;
    uint32_t stub_va;        /* page of handler stubs (virtual) */
    uint32_t ptr_va[4];      /* pointer pages (virtual) */
    int nptr;
    uint32_t queue_va;       /* page of well-formed queues (virtual) */
    uint32_t hot_va;         /* a page many registers point into */
    uint32_t proc_va[3];     /* procedures: entry mask, code, RET */
    uint32_t sub_va[3];      /* subroutines: code, RSB */
    uint32_t pat_va, pat_pa; /* page of EDITPC patterns, 8 slots of 64 bytes */
    uint8_t pat_digits[8];   /* source digits each pattern consumes */
    int npat;
    /* Whole-system cases: the 780 with its adapters and devices. */
    vax780 *sys;
    uint32_t io_pa[12];      /* physical I/O pages that answer */
    uint32_t io_s0vpn;       /* S0 page mapping io_pa[0] (MAPEN cases) */
    uint64_t seed;
    vax_blockdev disk_bd, tape_bd, ra_bd;
    int has_uda;             /* an RA81 on a UDA50 (772150, in io page 9) */
    uint8_t *tape;
} fcase;

/* Handler stubs, at these offsets in the stub page. */
enum {
    STUB_HALT = 0x00,    /* HALT */
    STUB_REI0 = 0x10,    /* REI */
    STUB_REI1 = 0x20,    /* TSTL (SP)+ ; REI */
    STUB_REI2 = 0x30,    /* ADDL2 #8,SP ; REI */
    STUB_MCHK = 0x40,    /* ADDL2 (SP)+,SP ; REI */
    STUB_LOOP = 0x50,    /* BRB . (a tight loop: only the budget ends it) */
    STUB_NOPS = 0x60     /* NOP NOP NOP REI */
};

static uint32_t img_rd32(const fcase *c, uint32_t pa)
{
    uint32_t v = 0;
    if (pa < c->memsize && c->memsize - pa >= 4)
        memcpy(&v, c->img + pa, 4);
    return v;
}

static void img_wr32(fcase *c, uint32_t pa, uint32_t v)
{
    if (pa < c->memsize && c->memsize - pa >= 4)
        memcpy(c->img + pa, &v, 4);
}

/* Translate a virtual address with the case's tables, as the MMU would but
 * ignoring protection.  Returns 1 and *pa if mapped to memory. */
static int host_translate(const fcase *c, uint32_t va, uint32_t *pa)
{
    if (!c->mapen) {
        uint32_t p = va & 0x3FFFFFFFu;
        if (p >= c->memsize)
            return 0;
        *pa = p;
        return 1;
    }
    uint32_t vpn = (va >> 9) & 0x1FFFFFu, pte_pa;
    switch (va >> 30) {
    case 2:
        if (vpn >= c->slr)
            return 0;
        pte_pa = c->sbr + vpn * 4;
        break;
    case 0:
    case 1: {
        if ((va >> 30) == 0 ? vpn >= c->p0lr : vpn < c->p1lr)
            return 0;
        uint32_t pteva = ((va >> 30) == 0 ? c->p0br : c->p1br) + vpn * 4;
        uint32_t svpn = (pteva >> 9) & 0x1FFFFFu;
        if ((pteva >> 30) != 2 || svpn >= c->slr)
            return 0;
        uint32_t spte = img_rd32(c, c->sbr + svpn * 4);
        if (!(spte & 0x80000000u))
            return 0;
        pte_pa = ((spte & 0x1FFFFFu) << 9) | (pteva & 511u);
        break;
    }
    default:
        return 0;
    }
    if (pte_pa >= c->memsize)
        return 0;
    uint32_t pte = img_rd32(c, pte_pa);
    if (!(pte & 0x80000000u))
        return 0;
    uint32_t p = ((pte & 0x1FFFFFu) << 9) | (va & 511u);
    if (p >= c->memsize)
        return 0;
    *pa = p;
    return 1;
}

/* A random virtual address that is mapped (most of the time). */
static uint32_t pick_va(fcase *c)
{
    rng_t *r = &c->rng;
    for (int tries = 0; tries < 8; tries++) {
        uint32_t va, pa;
        if (!c->mapen) {
            va = below(r, c->memsize);
        } else {
            uint32_t k = below(r, 10);
            if (k < 5)
                va = 0x80000000u + below(r, c->slr ? c->slr * 512u : 512u);
            else if (k < 8)
                va = below(r, (c->p0lr ? c->p0lr : 1) * 512u);
            else
                va = 0x40000000u + c->p1lr * 512u + below(r, (0x200000u - c->p1lr) * 512u);
        }
        if (host_translate(c, va, &pa))
            return va;
    }
    return r32(r);
}

/* A value for a register or an operand: addresses, boundaries, junk. */
static uint32_t pick_value(fcase *c)
{
    rng_t *r = &c->rng;
    static const uint32_t special[] = {0,          1,          2,          3,          4,          0x7F,
                                       0x80,       0xFF,       0x7FFF,     0x8000,     0xFFFF,     0x10000,
                                       0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x20000000, 0x3FFFFFFC,
                                       0x40000000, 0x7FFFFFFC, 0xBFFFFFFC, 0xC0000000, 0xFFFFFE00, 31,
                                       32,         33,         64,         0xFFFFFFE0};
    uint32_t k = below(r, 100);
    if (c->sys && chance(r, 25)) { /* a device register */
        uint32_t i = below(r, 12), off = below(r, 128) * 4;
        if (chance(r, 30))
            off = below(r, 512);
        if (c->mapen && chance(r, 90))
            return 0x80000000u + (c->io_s0vpn + i) * 512 + off;
        return c->io_pa[i] + off;
    }
    if (k < 32)
        return pick_va(c);
    if (k < 40) /* quadword aligned: queue headers and entries */
        return pick_va(c) & ~7u;
    if (k < 50) { /* an address near the end of a page, to cross it */
        uint32_t a = pick_va(c);
        return (a | 511u) - below(r, 8);
    }
    if (k < 55) /* near the end of memory */
        return (c->mapen ? 0x80000000u : 0) + c->memsize - 1 - below(r, 8);
    if (k < 70)
        return special[below(r, sizeof special / sizeof special[0])];
    if (k < 85)
        return below(r, 64);
    return r32(r);
}

/* Mark physical page as holding a structure. */
static void reserve_page(fcase *c, uint32_t page)
{
    if (page < c->npages)
        c->reserved[page] = 1;
}

static uint32_t free_page(fcase *c)
{
    for (int i = 0; i < 64; i++) {
        uint32_t p = 1 + below(&c->rng, c->npages - 1);
        if (!c->reserved[p])
            return p;
    }
    return 1 + below(&c->rng, c->npages - 1);
}

/* ------------------------------------------------ instruction generation */

/* Emit one byte at virtual address *va (if it maps to an unreserved page). */
static void eb(fcase *c, uint32_t *va, uint32_t byte)
{
    uint32_t pa;
    if (host_translate(c, *va, &pa) && !c->reserved[pa >> 9])
        c->img[pa] = (uint8_t)byte;
    (*va)++;
}

static void emit_n(fcase *c, uint32_t *va, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        eb(c, va, (v >> (8 * i)) & 0xFF);
}

/* A general register for an addressing mode: mostly R0..R13, at times SP,
 * rarely PC (most PC forms are UNPREDICTABLE and must fault cleanly). */
static uint32_t pick_reg(fcase *c)
{
    uint32_t k = below(&c->rng, 100);
    if (k < 85)
        return below(&c->rng, 14);
    if (k < 97)
        return 14;
    return 15;
}

static uint32_t small_disp(fcase *c, int n)
{
    rng_t *r = &c->rng;
    if (chance(r, 70))
        return (uint32_t)((int32_t)below(r, 129) - 64);
    return n == 1 ? below(r, 256) : n == 2 ? below(r, 65536) : r32(r);
}

/* Emit an operand specifier for access type acc and data type dt. */
static void emit_spec(fcase *c, uint32_t *va, int acc, int dt, int in_index)
{
    rng_t *r = &c->rng;
    int size = dt ? dt_size(dt) : 4;
    uint32_t k = below(r, 100);
    int readable = acc == ACC_R;
    if (!in_index) {
        if (readable && k < 18) {
            eb(c, va, below(r, 64)); /* short literal */
            return;
        }
        if (acc != ACC_A && k < 45) {
            uint32_t reg = pick_reg(c);
            if (size == 8 && reg > 12 && chance(r, 90))
                reg = below(r, 13);
            eb(c, va, 0x50 | reg);
            return;
        }
        if (readable && k < 52) {
            eb(c, va, 0x8F); /* immediate */
            for (int i = 0; i < size; i++)
                eb(c, va, i < 4 ? (pick_value(c) & 0xFF) : below(r, 256));
            return;
        }
        if (k < 54) { /* whatever the access type: may be a reserved mode */
            eb(c, va, below(r, 256));
            return;
        }
        if (k < 62) { /* index mode with a memory base */
            uint32_t x = pick_reg(c);
            if (x == 15 && chance(r, 80))
                x = below(r, 14);
            eb(c, va, 0x40 | x);
            emit_spec(c, va, acc, dt, 1);
            return;
        }
    }
    /* Memory modes 6..F. */
    uint32_t mode = 6 + below(r, 10);
    uint32_t reg = pick_reg(c);
    switch (mode) {
    case 6: case 7:
        eb(c, va, (mode << 4) | reg);
        return;
    case 8:
        if (reg == 15 && chance(r, 70))
            reg = below(r, 14);
        if (reg == 15) { /* immediate in a memory mode context */
            eb(c, va, 0x8F);
            for (int i = 0; i < size; i++)
                eb(c, va, below(r, 256));
            return;
        }
        eb(c, va, 0x80 | reg);
        return;
    case 9:
        if (chance(r, 30)) { /* absolute */
            eb(c, va, 0x9F);
            emit_n(c, va, pick_value(c), 4);
            return;
        }
        eb(c, va, 0x90 | reg);
        return;
    default: { /* displacement (deferred): A B C D E F */
        int n = mode < 12 ? 1 : mode < 14 ? 2 : 4;
        if (chance(r, 20))
            reg = 15;
        eb(c, va, (mode << 4) | reg);
        uint32_t d;
        if (reg == 15 || chance(r, 60))
            d = small_disp(c, n);
        else
            d = n == 4 ? pick_value(c) : small_disp(c, n);
        emit_n(c, va, d, n);
        return;
    }
    }
}

static int pick_opcode(fcase *c)
{
    rng_t *r = &c->rng;
    for (;;) {
        if (chance(r, 3))
            return (int)below(r, 256); /* anything, reserved opcodes included */
        int op = (int)below(r, 256);
        const vax_opinfo *oi = &vax_opcodes[op];
        if (!oi->name || !oi->name[0] || (oi->flags & OPF_RESERVED))
            continue;
        if (op == 0x00 && below(r, 40))
            continue; /* HALT ends the run: keep it rare */
        if ((oi->flags & OPF_ESCAPE) && below(r, 8))
            continue;
        return op;
    }
}

/* An EDITPC pattern in a free slot of the pattern page (or an old one
 * reused) that consumes *digits source digits; returns its address. */
static uint32_t make_pattern(fcase *c, uint32_t *digits)
{
    rng_t *r = &c->rng;
    if (c->npat >= 8) {
        int k = (int)below(r, 8);
        *digits = c->pat_digits[k];
        return c->pat_va + 64u * (uint32_t)k;
    }
    int k = c->npat++;
    uint8_t *p = c->img + c->pat_pa + 64u * (uint32_t)k;
    uint32_t left = below(r, 32), n = 0;
    c->pat_digits[k] = (uint8_t)left;
    *digits = left;
    int longout = chance(r, 10); /* many fill bytes: a long output */
    while (n < 60) {
        uint32_t q = longout ? 75 : below(r, 100);
        if (longout && left && chance(r, 10))
            q = 0;
        if (left && q < 45) { /* EO$MOVE / EO$FLOAT */
            uint32_t d = 1 + below(r, 15);
            if (d > left)
                d = left;
            p[n++] = (uint8_t)((chance(r, 60) ? 0x90 : 0xA0) | d);
            left -= d;
        } else if (q < 70) { /* one-byte-operand operators */
            uint32_t o = 0x40 + below(r, chance(r, 80) ? 7 : 8);
            p[n++] = (uint8_t)o;
            p[n++] = (uint8_t)(o == 0x45 || o == 0x46 ? below(r, 6) : 0x20 + below(r, 64));
        } else if (q < 80) {
            p[n++] = (uint8_t)(0x80 | (longout ? 15 : 1 + below(r, 15))); /* EO$FILL */
        } else if (q < 90) {
            p[n++] = (uint8_t)(1 + below(r, 4)); /* END_FLOAT .. STORE_SIGN */
        } else if (!left || chance(r, 10)) {
            break;
        }
    }
    p[n < 64 ? n : 63] = chance(r, 95) ? 0x00 : (uint8_t)below(r, 256); /* EO$END */
    return c->pat_va + 64u * (uint32_t)k;
}

/* Address of byte `off` of device page io_pa[idx] as the code sees it. */
static uint32_t io_addr(const fcase *c, int idx, uint32_t off)
{
    return c->mapen ? 0x80000000u + (c->io_s0vpn + (uint32_t)idx) * 512 + off : c->io_pa[idx] + off;
}

/* MOVL #v, @#a  /  MOVW #v, @#a */
static void emit_move_abs(fcase *c, uint32_t *va, int size, uint32_t v, uint32_t a)
{
    eb(c, va, size == 4 ? 0xD0 : 0xB0);
    eb(c, va, 0x8F);
    emit_n(c, va, v, size);
    eb(c, va, 0x9F);
    emit_n(c, va, a, 4);
}

/* A short driver-like sequence that starts a device operation: an RM03
 * transfer through MBA0, a TS11 command packet, or DZ11 register writes. */
/* TSTW @#a: a read of a device register. */
static void emit_read_abs(fcase *c, uint32_t *va, uint32_t a)
{
    eb(c, va, 0xB5);
    eb(c, va, 0x9F);
    emit_n(c, va, a, 4);
}

/* The UDA50's port (IP at 772150, SA at 772152; UNIBUS pages 0 and 1 map
 * the hot page): its initialisation steps with plausible or random words,
 * ring descriptors and command envelopes in the hot page, IP reads that
 * make it poll. */
static void emit_uda_snippet(fcase *c, uint32_t *va)
{
    rng_t *r = &c->rng;
    uint32_t ip = io_addr(c, 9, 0x068), sa = io_addr(c, 9, 0x06A);
    switch (below(r, 8)) {
    case 0:
        emit_move_abs(c, va, 2, 0, ip);   /* hard initialisation */
        break;
    case 1:   /* step 1: rings of 1..8, IE sometimes, a vector */
        emit_move_abs(c, va, 2, chance(r, 80) ? 0x8000u | below(r, 4) << 11 | below(r, 4) << 8 | (chance(r, 50) ? 0x80u : 0) |
                                                   below(r, 128)
                                             : r32(r) & 0xFFFF,
                      sa);
        break;
    case 2:   /* step 2: the ring base, low bits, in the hot page */
        emit_move_abs(c, va, 2, chance(r, 85) ? 8 + 4 * below(r, 64) : r32(r) & 0xFFFF, sa);
        break;
    case 3:   /* step 3 (high bits) or step 4 (GO) */
        emit_move_abs(c, va, 2, chance(r, 85) ? below(r, 2) : r32(r) & 0xFFFF, sa);
        break;
    case 4: { /* a descriptor, mostly the port's, pointing into the hot page */
        uint32_t off = 4 * below(r, 100);
        uint32_t d = chance(r, 80) ? 0xC0000000u | (4 + 4 * below(r, 240)) : r32(r);
        emit_move_abs(c, va, 4, d, c->hot_va + off);
        emit_read_abs(c, va, ip);
        break;
    }
    case 5: { /* an envelope and the start of a command: length, opcode */
        uint32_t off = 4 * below(r, 120);
        static const uint32_t ops[] = {0x03, 0x04, 0x08, 0x09, 0x0A, 0x21, 0x22, 0x41, 0x42, 0x01, 0x02, 0x7F};
        emit_move_abs(c, va, 4, chance(r, 80) ? 60 : r32(r), c->hot_va + off);
        emit_move_abs(c, va, 4, chance(r, 80) ? ops[below(r, sizeof ops / sizeof ops[0])] : r32(r),
                      c->hot_va + off + 12);
        emit_move_abs(c, va, 4, below(r, 4096), c->hot_va + off + 16);   /* byte count */
        emit_read_abs(c, va, ip);
        break;
    }
    case 6: { /* the whole initialisation, with delays the port needs between steps,
               * then GO, a command in the ring and an IP read */
        uint32_t ring = 8 + 4 * below(r, 16);   /* ring base in the hot page (rings of 1) */
        uint32_t steps[4] = {0x8000u | (chance(r, 50) ? 0x80u : 0) | below(r, 128), ring, 0, 1};
        emit_move_abs(c, va, 2, 0, ip);
        for (int i = 0; i < 4; i++) {
            /* MOVZWL #n, R0 ; SOBGTR R0, . : about 2 us an iteration */
            eb(c, va, 0x3C);
            eb(c, va, 0x8F);
            emit_n(c, va, i == 0 ? 700 : 80, 2);
            eb(c, va, 0x50);
            eb(c, va, 0xF5);
            eb(c, va, 0x50);
            eb(c, va, 0xFD);
            emit_move_abs(c, va, 2, steps[i], sa);
        }
        /* response slot (the port's), command slot (the port's) -> messages after the rings */
        emit_move_abs(c, va, 4, 0xC0000000u | (ring + 0x40), c->hot_va + ring);
        emit_move_abs(c, va, 4, 0xC0000000u | (ring + 0x80), c->hot_va + ring + 4);
        emit_move_abs(c, va, 4, 60, c->hot_va + ring + 0x3C);
        emit_move_abs(c, va, 4, 60, c->hot_va + ring + 0x7C);
        emit_move_abs(c, va, 4, chance(r, 50) ? 0x41u : r32(r) & 0x7F, c->hot_va + ring + 0x88);   /* opcode */
        emit_move_abs(c, va, 4, below(r, 2048), c->hot_va + ring + 0x8C);                        /* count */
        emit_read_abs(c, va, ip);
        break;
    }
    default:
        emit_read_abs(c, va, ip);
        break;
    }
}

static void emit_device_snippet(fcase *c, uint32_t *va)
{
    rng_t *r = &c->rng;
    if (c->has_uda && chance(r, 30)) {
        emit_uda_snippet(c, va);
        return;
    }
    uint32_t k = below(r, 3);
    if (k == 0) {
        static const uint32_t rp_func[] = {001, 005, 007, 011, 013, 015, 017, 021, 023, 031, 051, 061, 071, 071, 061};
        uint32_t unit = chance(r, 85) ? 0 : below(r, 8), drv = 0x80 * unit;
        emit_move_abs(c, va, 4, below(r, 256 * 512), io_addr(c, 4, 0x0C));           /* MBA VAR */
        emit_move_abs(c, va, 4, 0u - (1 + below(r, chance(r, 80) ? 4096 : 65536)),   /* MBA BCR */
                      io_addr(c, 4, 0x10));
        emit_move_abs(c, va, 4, chance(r, 80) ? below(r, 5) << 8 | below(r, 32) : r32(r),
                      io_addr(c, 5, drv + 5 * 4));                                     /* RPDA */
        emit_move_abs(c, va, 4, chance(r, 80) ? below(r, 823) : r32(r) & 0xFFFF,
                      io_addr(c, 5, drv + 10 * 4));                                    /* RPDC */
        if (chance(r, 30))
            emit_move_abs(c, va, 4, r32(r) & 0xFFFF, io_addr(c, 5, drv + 4 * below(r, 32)));
        emit_move_abs(c, va, 4, rp_func[below(r, sizeof rp_func / sizeof rp_func[0])] | (chance(r, 30) ? 0100 : 0),
                      io_addr(c, 5, drv));                                             /* RPCS1 */
    } else if (k == 1) {
        /* TS11 packet at UNIBUS address off (UBA map 0/1 -> the hot page). */
        uint32_t off = below(r, 120) * 4;
        uint32_t cmd = 0x8000u | (chance(r, 50) ? 0x4000u : 0) | (below(r, 16) << 8) | below(r, 32);
        emit_move_abs(c, va, 4, cmd | ((off + 16) << 16), c->hot_va + off);
        emit_move_abs(c, va, 4, (chance(r, 70) ? 2 + below(r, 1024) : r32(r)) << 16, c->hot_va + off + 4);
        emit_move_abs(c, va, 2, off, io_addr(c, 9, 0x150));                            /* TSDB */
        if (chance(r, 20))
            emit_move_abs(c, va, 2, 0, io_addr(c, 9, 0x152));                          /* TSSR: init */
    } else {
        int n = 1 + (int)below(r, 4);
        for (int i = 0; i < n; i++)
            emit_move_abs(c, va, 2, r32(r) & 0xFFFF, io_addr(c, 8, 0x40 + 2 * below(r, 4)));
    }
}

/* Emit one instruction at *va. */
static void emit_instruction(fcase *c, uint32_t *va)
{
    rng_t *r = &c->rng;
    if (c->sys && chance(r, 4)) {
        emit_device_snippet(c, va);
        return;
    }
    int op = pick_opcode(c);
    if (op == 0x38 && c->pat_va && chance(r, 80)) {
        /* EDITPC srclen, srcaddr, pattern, dstaddr with a pattern that
         * fits the source's length. */
        uint32_t digits;
        uint32_t pat = make_pattern(c, &digits);
        eb(c, va, 0x38);
        eb(c, va, digits);
        eb(c, va, 0x9F);
        emit_n(c, va, c->hot_va + below(r, 480), 4);
        eb(c, va, 0x9F);
        emit_n(c, va, pat, 4);
        if (chance(r, 70)) {
            eb(c, va, 0x9F);
            emit_n(c, va, c->hot_va + below(r, 400), 4);
        } else {
            emit_spec(c, va, ACC_A, DT_B, 0);
        }
        return;
    }
    const vax_opinfo *oi = &vax_opcodes[op];
    eb(c, va, (uint32_t)op);
    if (oi->flags & OPF_ESCAPE) {
        eb(c, va, below(r, 256));
        return;
    }
    if (oi->flags & OPF_CASE) {
        int dt = SPEC_DT(oi->spec[0]);
        uint32_t limit = below(r, 8);
        emit_spec(c, va, ACC_R, dt, 0); /* selector */
        if (chance(r, 80)) {
            eb(c, va, below(r, 4));     /* base: literal */
            eb(c, va, limit);           /* limit: literal */
        } else {
            emit_spec(c, va, ACC_R, dt, 0);
            emit_spec(c, va, ACC_R, dt, 0);
        }
        for (uint32_t i = 0; i <= limit; i++)
            emit_n(c, va, small_disp(c, 2) & ~1u, 2);
        return;
    }
    for (int i = 0; i < oi->nspec; i++) {
        int acc = SPEC_ACC(oi->spec[i]), dt = SPEC_DT(oi->spec[i]);
        if (acc == ACC_B) {
            int n = dt == DT_B ? 1 : 2;
            emit_n(c, va, small_disp(c, n), n);
            continue;
        }
        /* Bit fields: position and size mostly small, so that register
         * bases and in-range fields happen. */
        if (acc == ACC_R && (dt == DT_L || dt == DT_B) && i + 1 < oi->nspec &&
            (SPEC_ACC(oi->spec[i + 1]) == ACC_V ||
             (i + 2 < oi->nspec && SPEC_ACC(oi->spec[i + 2]) == ACC_V)) &&
            op != 0xF0 && chance(r, 60)) {
            eb(c, va, below(r, 40));
            continue;
        }
        if (op == 0xF0 && (i == 1 || i == 2) && chance(r, 60)) { /* INSV pos, size */
            eb(c, va, below(r, 40));
            continue;
        }
        /* Packed decimal: string lengths mostly 0..31 (a few beyond). */
        if ((oi->flags & OPF_PACKED) && acc == ACC_R && dt == DT_W && chance(r, 75)) {
            eb(c, va, below(r, 34));
            continue;
        }
        /* Address operands: sometimes an absolute address in the queue
         * page (always for the queue instructions, mostly) or in the hot
         * page (overlapping string moves). */
        if (acc == ACC_A) {
            int queue_op = op == 0x0E || op == 0x0F || (op >= 0x5C && op <= 0x5F);
            int string_op = (op >= 0x28 && op <= 0x2F) || (op >= 0x39 && op <= 0x3B) || op == 0x0B ||
                            (oi->flags & OPF_PACKED);
            if (chance(r, queue_op ? 70 : string_op ? 50 : 15)) {
                static const uint32_t qo[] = {0, 64, 128, 192, 256, 320, 384, 448, 456, 464, 472};
                uint32_t a = chance(r, queue_op ? 90 : 30) ? c->queue_va + qo[below(r, sizeof qo / sizeof qo[0])]
                                                           : c->hot_va + below(r, 160);
                eb(c, va, 0x9F);
                emit_n(c, va, a, 4);
                continue;
            }
        }
        /* CALLS/CALLG to a procedure, JSB to a subroutine. */
        if ((op == 0xFA || op == 0xFB) && i == 1 && c->proc_va[0] && chance(r, 70)) {
            eb(c, va, 0x9F);
            emit_n(c, va, c->proc_va[below(r, 3)], 4);
            continue;
        }
        if (op == 0x16 && c->sub_va[0] && chance(r, 70)) {
            eb(c, va, 0x9F);
            emit_n(c, va, c->sub_va[below(r, 3)], 4);
            continue;
        }
        /* MTPR src, ipr / MFPR ipr, dst: the register number as a literal. */
        if (((op == 0xDA && i == 1) || (op == 0xDB && i == 0)) && chance(r, 70)) {
            eb(c, va, below(r, 64));
            continue;
        }
        emit_spec(c, va, acc, dt, 0);
    }
}

/* Emit n instructions at va; returns the address after them. */
static uint32_t emit_stream(fcase *c, uint32_t va, int n)
{
    for (int i = 0; i < n; i++)
        emit_instruction(c, &va);
    return va;
}

/* ------------------------------------------------------- page tables */

static const uint8_t common_prot[] = {2, 3, 4, 4, 4, 15, 12, 13, 14, 5, 6, 8};

static uint32_t random_prot(fcase *c)
{
    if (chance(&c->rng, 60))
        return common_prot[below(&c->rng, sizeof common_prot)];
    return below(&c->rng, 16);
}

static uint32_t make_pte(uint32_t pfn, uint32_t prot, int valid, int modified)
{
    return (valid ? 0x80000000u : 0) | (prot << 27) | (modified ? 0x04000000u : 0) | (pfn & 0x1FFFFFu);
}

/* Make the S0 page holding physical page `page` (identity-mapped) valid
 * and kernel-writable, unless the case wants chaos. */
static void fix_s0_page(fcase *c, uint32_t page, int chaos)
{
    if (page >= c->slr || chaos)
        return;
    img_wr32(c, c->sbr + page * 4, make_pte(page, chance(&c->rng, 80) ? 4 : 2, 1, chance(&c->rng, 80)));
}

static void build_page_tables(fcase *c)
{
    rng_t *r = &c->rng;
    int chaos = chance(r, 8); /* leave even the vital pages to chance */
    uint32_t k = below(r, 10);
    c->slr = k < 7 ? c->npages : k < 9 ? c->npages + below(r, 64) : 1 + below(r, c->npages);
    if (c->sys && k < 9)
        c->slr = c->npages + 12 + below(r, 8);
    uint32_t spt_pages = (c->slr * 4 + 511) / 512;
    uint32_t spt_page = below(r, c->npages > spt_pages ? c->npages - spt_pages : 1);
    c->sbr = spt_page * 512;
    if (chance(r, 3))
        c->sbr = (c->npages - 1) * 512; /* runs off the end of memory */
    for (uint32_t i = 0; i < spt_pages; i++)
        reserve_page(c, spt_page + i);
    for (uint32_t i = 0; i < c->slr; i++) {
        uint32_t pfn = i;
        uint32_t q = below(r, 100);
        if (q >= 85)
            pfn = q < 95 ? below(r, c->npages) : r32(r);
        img_wr32(c, c->sbr + i * 4, make_pte(pfn, random_prot(c), chance(r, 90), chance(r, 70)));
    }
    for (uint32_t i = 0; i < spt_pages; i++)
        fix_s0_page(c, spt_page + i, chaos);
    if (c->sys) {
        /* S0 pages after memory map the device pages. */
        c->io_s0vpn = c->npages;
        for (uint32_t i = 0; i < 12; i++)
            if (c->io_s0vpn + i < c->slr)
                img_wr32(c, c->sbr + (c->io_s0vpn + i) * 4,
                         make_pte(c->io_pa[i] >> 9, chance(r, 90) ? 4 : random_prot(c), chance(r, 95), 1));
    }

    /* P0 and P1 page tables, in S0 space (identity pages). */
    uint32_t p0pg = free_page(c), p1pg = free_page(c);
    reserve_page(c, p0pg);
    reserve_page(c, p1pg);
    fix_s0_page(c, p0pg, chaos);
    fix_s0_page(c, p1pg, chaos);
    c->p0br = 0x80000000u + p0pg * 512;
    c->p0lr = below(r, 129);
    if (chance(r, 5))
        c->p0lr = below(r, 0x400000); /* beyond its page table */
    c->p1lr = 0x200000u - below(r, 129);
    c->p1br = 0x80000000u + p1pg * 512 - c->p1lr * 4;
    if (chance(r, 5))
        c->p0br = r32(r) & ~3u;
    if (chance(r, 5))
        c->p1br = r32(r) & ~3u;
    for (uint32_t v = 0; v < c->p0lr && v < 128; v++)
        img_wr32(c, (p0pg * 512) + v * 4,
                 make_pte(chance(r, 95) ? free_page(c) : r32(r), random_prot(c), chance(r, 88), chance(r, 70)));
    for (uint32_t v = c->p1lr; v < 0x200000u; v++)
        img_wr32(c, (p1pg * 512) + (v - c->p1lr) * 4,
                 make_pte(chance(r, 95) ? free_page(c) : r32(r), random_prot(c), chance(r, 88), chance(r, 70)));
}

/* ----------------------------------------------------------- SCB, stubs */

static void build_stubs(fcase *c, uint32_t stub_pa)
{
    static const uint8_t stubs[][8] = {
        {0x00},                   /* HALT */
        {0x02},                   /* REI */
        {0xD5, 0x8E, 0x02},       /* TSTL (SP)+ ; REI */
        {0xC0, 0x08, 0x5E, 0x02}, /* ADDL2 #8,SP ; REI */
        {0xC0, 0x8E, 0x5E, 0x02}, /* ADDL2 (SP)+,SP ; REI */
        {0x11, 0xFE},             /* BRB . */
        {0x01, 0x01, 0x01, 0x02}, /* NOP NOP NOP REI */
    };
    for (unsigned i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
        memcpy(c->img + stub_pa + 0x10 * i, stubs[i], 8);
}

/* The stub that suits an SCB vector (it pops that exception's params). */
static uint32_t handler_for(uint32_t off)
{
    switch (off) {
    case 0x04: return STUB_MCHK;
    case 0x20: case 0x24: return STUB_REI2;
    case 0x30: case 0x34: case 0x40: case 0x44: case 0x48: case 0x4C: return STUB_REI1;
    default: return STUB_REI0;
    }
}

static void build_scb(fcase *c, uint32_t *code_vas, int ncode)
{
    rng_t *r = &c->rng;
    for (uint32_t off = 0; off < 0x400; off += 4) {
        uint32_t k = below(r, 100), vec;
        if (k < 35)
            vec = c->stub_va + STUB_HALT;
        else if (k < 65)
            vec = c->stub_va + (chance(r, 90) ? handler_for(off) : STUB_NOPS);
        else if (k < 85)
            vec = code_vas[below(r, (uint32_t)ncode)];
        else if (k < 88)
            vec = c->stub_va + STUB_LOOP;
        else if (k < 97)
            vec = pick_value(c);
        else
            vec = r32(r);
        if (k < 88) { /* code 0 (kernel stack) or 1 (interrupt stack) */
            vec &= ~3u;
            if (chance(r, 25))
                vec |= 1;
        }
        img_wr32(c, c->scbb + off, vec);
    }
}

/* ------------------------------------------------------------- the PSL */

static uint32_t pick_psl(fcase *c, int *mode_out)
{
    rng_t *r = &c->rng;
    uint32_t psl = below(r, 16); /* condition codes */
    if (chance(r, 30))
        psl |= PSL_IV;
    if (chance(r, 20))
        psl |= PSL_DV;
    if (chance(r, 20))
        psl |= PSL_FU;
    if (chance(r, 8))
        psl |= PSL_T;
    if (chance(r, 6))
        psl |= PSL_FPD; /* resume a "partly done" instruction from garbage */
    uint32_t k = below(r, 100);
    int cur;
    if (k < 30) {
        cur = 0;
        psl |= PSL_IS | ((1 + below(r, 31)) << PSL_IPL_SHIFT);
    } else if (k < 55) {
        cur = 0;
        psl |= below(r, 32) << PSL_IPL_SHIFT;
    } else {
        cur = k < 65 ? 1 : k < 72 ? 2 : 3;
    }
    uint32_t prv = (uint32_t)cur + below(r, 4 - (uint32_t)cur);
    psl |= ((uint32_t)cur << PSL_CUR_SHIFT) | (prv << PSL_PRV_SHIFT);
    *mode_out = cur;
    return psl;
}

/* A stack pointer: mostly in mapped memory, longword aligned. */
static uint32_t pick_sp(fcase *c)
{
    uint32_t v = pick_value(c);
    if (chance(&c->rng, 85))
        v = (pick_va(c) & ~3u) + 0x100;
    return v;
}

/* --------------------------------------------------------- build a case */

/* ---------------------------------------------------- the whole system */

static void console_sink(void *ctx, uint8_t ch)
{
    (void)ctx;
    (void)ch;
}

/* A synthetic disk pack: every sector reads as bytes derived from the
 * case's seed and its offset (so a case stays deterministic); writes are
 * accepted and dropped, except that a few sectors fail. */
static int disk_read(const vax_blockdev *bd, uint64_t offset, void *buf, size_t len)
{
    const fcase *c = bd->ctx;
    if (offset > bd->size || len > bd->size - offset)
        return -1;
    uint8_t *b = buf;
    for (size_t i = 0; i < len; i += 8) {
        rng_t t = {c->seed ^ ((offset + i) * 0x9E3779B97F4A7C15ull)};
        uint64_t v = (offset + i) % 4096 < 2048 ? 0 : rnext(&t);
        for (size_t j = 0; j < 8 && i + j < len; j++)
            b[i + j] = (uint8_t)(v >> (8 * j));
    }
    return ((offset / 512) % 997 == 13) ? -1 : 0;
}

static int disk_write(const vax_blockdev *bd, uint64_t offset, const void *buf, size_t len)
{
    (void)buf;
    if (offset > bd->size || len > bd->size - offset)
        return -1;
    return ((offset / 512) % 991 == 7) ? -1 : 0;
}

/* A SIMH .tap image with a few records and tape marks, some damaged. */
static void make_tape(fcase *c, uint8_t *t, uint32_t size)
{
    rng_t *r = &c->rng;
    uint32_t p = 0;
    memset(t, 0, size);
    while (p + 16 < size && !chance(r, 3)) {
        uint32_t k = below(r, 10);
        if (k < 2) { /* tape mark */
            memset(t + p, 0, 4);
            p += 4;
            continue;
        }
        uint32_t len = chance(r, 50) ? 512 : 1 + below(r, 2048);
        if (p + 8 + len + 1 > size)
            break;
        uint32_t hdr = len | (chance(r, 5) ? 0x80000000u : 0);
        memcpy(t + p, &hdr, 4);
        for (uint32_t i = 0; i < len; i++)
            t[p + 4 + i] = (uint8_t)rnext(r);
        uint32_t q = p + 4 + len + (len & 1);
        uint32_t trl = chance(r, 3) ? hdr + 1 : hdr; /* a corrupt trailer */
        memcpy(t + q, &trl, 4);
        p = q + 4;
    }
    if (p + 4 <= size && chance(r, 50)) {
        uint32_t eom = 0xFFFFFFFFu;
        memcpy(t + p, &eom, 4);
    }
}

static vax_machine *build_system(fcase *c)
{
    rng_t *r = &c->rng;
    vax780_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_kb = 1024;
    if (chance(r, 60)) {
        c->disk_bd.ctx = c;
        c->disk_bd.size = 32ull * 5 * 823 * 512; /* an RM03 */
        c->disk_bd.read_only = chance(r, 20);
        c->disk_bd.read = disk_read;
        c->disk_bd.write = disk_write;
        cfg.disk[0].type = "RM03";
        cfg.disk[0].image = &c->disk_bd;
    }
    if (chance(r, 50)) {
        /* An RA81 reading the same synthetic data (a few blocks fail). */
        c->ra_bd.ctx = c;
        c->ra_bd.size = ra_type_bytes(ra_type_find("RA81"));
        c->ra_bd.read_only = chance(r, 20);
        c->ra_bd.read = disk_read;
        c->ra_bd.write = disk_write;
        cfg.ra[0].type = "RA81";
        cfg.ra[0].image = &c->ra_bd;
        c->has_uda = 1;
    }
    if (chance(r, 50)) {
        uint32_t size = 16384;
        c->tape = malloc(size);
        if (c->tape) {
            make_tape(c, c->tape, size);
            blockdev_memory(&c->tape_bd, c->tape, size, chance(r, 30));
            cfg.tape = &c->tape_bd;
        }
    }
    char err[200];
    c->sys = vax780_create(&cfg, err, sizeof err);
    if (!c->sys) {
        fprintf(stderr, "vax780_create: %s\n", err);
        return NULL;
    }
    vax780_set_console_output(c->sys, console_sink, NULL);
    if (chance(r, 30))
        vax780_console_type(c->sys, "boot\r", 5);
    /* Device pages: memory controller (TR1); UBA0 (TR3) registers and map;
     * MBA0 (TR8) registers, drive registers and map; MBA1 (TR9); the
     * UNIBUS pages of the DZ11 and the TS11; a nexus with nothing. */
    static const uint32_t io[12] = {0x20002000u, 0x20006000u, 0x20006800u, 0x20006A00u,
                                    0x20010000u, 0x20010400u, 0x20010800u, 0x20012000u,
                                    0x20100000u + 0x3E000u, 0x20100000u + 0x3F400u, 0x20004000u,
                                    0x20100000u + 0x3E800u};
    memcpy(c->io_pa, io, sizeof io);
    /* Map registers mostly valid, so DMA reaches memory. */
    vax_machine *m = c->sys->m;
    uint32_t npages = vax_memory_bytes(m) / 512;
    for (uint32_t i = 0; i < 496; i++)
        if (chance(r, 70))
            bus_write(m, 0x20006800u + 4 * i, 4, 0x80000000u | below(r, npages + 8));
    for (uint32_t i = 0; i < 256; i++)
        if (chance(r, 70))
            bus_write(m, 0x20010800u + 4 * i, 4, 0x80000000u | below(r, npages + 8));
    return m;
}

static vax_machine *build_case(uint64_t seed, fcase *c)
{
    memset(c, 0, sizeof *c);
    c->rng.s = seed;
    c->seed = seed;
    rng_t *r = &c->rng;
    vax_machine *m;
    if (chance(r, 15)) {
        m = build_system(c);
    } else {
        static const uint32_t sizes[] = {64u << 10, 128u << 10, 256u << 10, 256u << 10, 256u << 10, 512u << 10};
        vax_config cfg = {sizes[below(r, sizeof sizes / sizeof sizes[0])]};
        m = vax_create(&cfg);
    }
    if (!m)
        return NULL;
    c->memsize = vax_memory_bytes(m);
    c->npages = c->memsize / 512;
    c->img = malloc(c->memsize);
    c->reserved = calloc(c->npages, 1);
    if (!c->img || !c->reserved)
        return m;   /* the caller frees */

    /* Background: random bytes, zeros, or a mix per page. */
    uint32_t fill = below(r, 10);
    for (uint32_t p = 0; p < c->npages; p++) {
        uint32_t kind = fill < 5 ? 0 : fill < 6 ? 1 : below(r, 2);
        uint8_t *pg = c->img + p * 512;
        if (kind == 0) {
            for (uint32_t i = 0; i < 512; i += 8) {
                uint64_t v = rnext(r);
                memcpy(pg + i, &v, 8);
            }
        } else {
            memset(pg, 0, 512);
        }
    }

    c->mapen = chance(r, 45);
    reserve_page(c, 0);
    c->scbb = free_page(c) * 512;
    if (c->scbb / 512 + 1 >= c->npages)
        c->scbb = 512;
    reserve_page(c, c->scbb / 512);
    reserve_page(c, c->scbb / 512 + 1);
    if (chance(r, 2))
        c->scbb = r32(r) & 0x3FFFFE00u; /* probably outside memory */
    if (c->mapen)
        build_page_tables(c);

    int mode;
    c->psl = pick_psl(c, &mode);
    if (!c->mapen && mode != 0 && chance(r, 60)) {
        /* Without memory management every page is accessible in every
         * mode; still interesting, but keep most non-kernel cases mapped. */
        c->mapen = 1;
        build_page_tables(c);
    }

    uint32_t stub_page = free_page(c);
    reserve_page(c, stub_page);
    build_stubs(c, stub_page * 512);
    c->stub_va = (c->mapen ? 0x80000000u : 0) + stub_page * 512;
    if (c->mapen)
        fix_s0_page(c, stub_page, 0);

    /* Pointer pages: longwords that are addresses (for deferred modes). */
    c->nptr = 1 + (int)below(r, 3);
    for (int i = 0; i < c->nptr; i++) {
        uint32_t pg = free_page(c);
        for (uint32_t off = 0; off < 512; off += 4)
            img_wr32(c, pg * 512 + off, chance(r, 80) ? pick_va(c) : pick_value(c));
        reserve_page(c, pg);
        c->ptr_va[i] = (c->mapen ? 0x80000000u : 0) + pg * 512;
    }

    /* A page of queues: an absolute queue (header +0, entries +64, +128,
     * +192) and a self-relative one (header +256, entries +320, +384), and
     * free entries after them, for INSQUE/REMQUE/INSQHI/... to work on. */
    {
        uint32_t pg = free_page(c), b = pg * 512;
        uint32_t va0 = (c->mapen ? 0x80000000u : 0) + b;
        reserve_page(c, pg);
        if (c->mapen)
            fix_s0_page(c, pg, chance(r, 10));
        static const uint32_t absq[] = {0, 64, 128, 192};
        for (int i = 0; i < 4; i++) {
            img_wr32(c, b + absq[i], va0 + absq[(i + 1) % 4]);
            img_wr32(c, b + absq[i] + 4, va0 + absq[(i + 3) % 4]);
        }
        static const uint32_t relq[] = {256, 320, 384};
        int nrel = (int)below(r, 4); /* 0: empty queue */
        for (int i = 0; i < 3; i++) {
            uint32_t next = i + 1 < nrel ? relq[i + 1] : relq[0];
            uint32_t prev = i == 0 ? relq[nrel ? nrel - 1 : 0] : relq[i - 1];
            if (i >= nrel && i > 0)
                continue;
            img_wr32(c, b + relq[i], next - relq[i]);
            img_wr32(c, b + relq[i] + 4, prev - relq[i]);
        }
        if (chance(r, 10))
            img_wr32(c, b + 256, img_rd32(c, b + 256) | 1); /* interlock held */
        c->queue_va = va0;
    }
    c->hot_va = pick_va(c) & ~511u;
    {
        uint32_t pg = free_page(c);
        reserve_page(c, pg);
        if (c->mapen)
            fix_s0_page(c, pg, chance(r, 10));
        c->pat_pa = pg * 512;
        c->pat_va = (c->mapen ? 0x80000000u : 0) + pg * 512;
    }
    if (c->sys) {
        /* UNIBUS pages 0 and 1 -> the hot page (TS11 command packets). */
        uint32_t pa;
        if (host_translate(c, c->hot_va, &pa)) {
            bus_write(m, 0x20006800u, 4, 0x80000000u | (pa >> 9));
            bus_write(m, 0x20006804u, 4, 0x80000000u | ((pa >> 9) + 1));
        }
    }
    {
        /* Its contents: bytes as they are, decimal digit characters, or
         * valid packed decimal digits with plausible signs. */
        uint32_t pa, kind = below(r, 3);
        if (kind && host_translate(c, c->hot_va, &pa) && !c->reserved[pa >> 9]) {
            static const char chars[] = "0123456789+- 0123456789";
            for (uint32_t i = 0; i < 512; i++) {
                uint8_t b;
                if (kind == 1)
                    b = (uint8_t)chars[below(r, sizeof chars - 1)];
                else
                    b = (uint8_t)((below(r, 10) << 4) | (chance(r, 75) ? below(r, 10) : 10 + below(r, 6)));
                c->img[(pa & ~511u) + i] = b;
            }
        }
    }

    /* Code: the starting PC, a few handler bodies, scattered streams. */
    uint32_t code_vas[8];
    int ncode = 0;
    uint32_t pc = pick_va(c);
    if (mode != 0 && c->mapen && chance(r, 80)) {
        /* Prefer process space for a non-kernel mode. */
        uint32_t pa;
        for (int t = 0; t < 16; t++) {
            uint32_t v = chance(r, 60) ? below(r, (c->p0lr ? c->p0lr : 1) * 512u)
                                       : 0x40000000u + c->p1lr * 512u + below(r, (0x200000u - c->p1lr) * 512u);
            if (host_translate(c, v, &pa)) {
                pc = v;
                break;
            }
        }
    }
    if (mode == MODE_USER && chance(r, 25)) {
        /* A PDP-11 program: compatibility mode, at a 16-bit address of P0
         * space (whatever code is put there runs as PDP-11 words). */
        uint32_t pa, lim = c->mapen ? (c->p0lr ? c->p0lr : 1) * 512u : c->memsize;
        if (lim > 0x10000u)
            lim = 0x10000u;
        for (int t = 0; t < 16; t++) {
            uint32_t v = below(r, lim) & ~1u;
            if (host_translate(c, v, &pa)) {
                pc = v;
                c->psl = (c->psl & ~(PSL_FPD | PSL_IV | PSL_DV | PSL_FU)) | PSL_CM;
                break;
            }
        }
    }
    code_vas[ncode++] = pc;
    for (int i = 0; i < 7; i++)
        code_vas[ncode++] = pick_va(c);
    int biased = chance(r, 85);
    if (biased) {
        /* Procedures and subroutines near the code (same region). */
        for (int i = 0; i < 3; i++) {
            uint32_t pa;
            c->proc_va[i] = pc + 256 + below(r, 4096);
            if (!host_translate(c, c->proc_va[i], &pa))
                c->proc_va[i] = pick_va(c);
            c->sub_va[i] = pc + 256 + below(r, 4096);
            if (!host_translate(c, c->sub_va[i], &pa))
                c->sub_va[i] = pick_va(c);
        }
        for (int i = 0; i < ncode; i++)
            emit_stream(c, code_vas[i], 8 + (int)below(r, 120));
        int extra = (int)below(r, 16);
        for (int i = 0; i < extra; i++)
            emit_stream(c, pick_va(c), 4 + (int)below(r, 60));
        for (int i = 0; i < 3; i++) {
            uint32_t v = c->proc_va[i];
            uint32_t mask = below(r, 0x1000) | (chance(r, 30) ? 0x4000u : 0) | (chance(r, 20) ? 0x8000u : 0) |
                            (chance(r, 3) ? 0x1000u : 0);
            emit_n(c, &v, mask, 2);
            v = emit_stream(c, v, (int)below(r, 8));
            eb(c, &v, 0x04); /* RET */
            v = emit_stream(c, c->sub_va[i], (int)below(r, 8));
            eb(c, &v, 0x05); /* RSB */
        }
    }
    build_scb(c, code_vas, ncode);

    /* PCB for LDPCTX/SVPCTX. */
    c->pcbb = chance(r, 90) ? free_page(c) * 512 : (r32(r) & 0x3FFFFFFCu);

    /* A plausible REI frame on top of the stack, sometimes. */
    uint32_t sps[5];
    for (int i = 0; i < 5; i++)
        sps[i] = pick_sp(c);
    int slot = (c->psl & PSL_IS) ? 4 : mode;
    if (chance(r, 30)) {
        uint32_t pa;
        if (host_translate(c, sps[slot], &pa) && pa + 8 <= c->memsize && !c->reserved[pa >> 9]) {
            int nm = mode + (int)below(r, 4 - (uint32_t)mode);
            uint32_t npsl = ((uint32_t)nm << PSL_CUR_SHIFT) | ((uint32_t)nm << PSL_PRV_SHIFT) | below(r, 16) |
                            (chance(r, 15) ? PSL_FPD : 0) | (chance(r, 10) ? PSL_T : 0);
            if (nm == 0)
                npsl |= below(r, 1 + PSL_GET_IPL(c->psl)) << PSL_IPL_SHIFT;
            uint32_t npc = pick_va(c);
            /* Sometimes into compatibility mode (user mode, no FPD): the
             * PDP-11 runs whatever words it finds at the low 16 bits of
             * the address, which REI keeps. */
            if (nm == MODE_USER && chance(r, 30))
                npsl = (npsl & ~PSL_FPD) | PSL_CM;
            img_wr32(c, pa, npc);
            img_wr32(c, pa + 4, npsl);
        }
    }

    /* Load everything into the machine. */
    vax_phys_write(m, 0, c->img, c->memsize);
    vax_set_ipr(m, IPR_SCBB, c->scbb);
    vax_set_ipr(m, IPR_PCBB, c->pcbb);
    if (c->mapen) {
        vax_set_ipr(m, IPR_SBR, c->sbr);
        vax_set_ipr(m, IPR_SLR, c->slr);
        vax_set_ipr(m, IPR_P0BR, c->p0br);
        vax_set_ipr(m, IPR_P0LR, c->p0lr);
        vax_set_ipr(m, IPR_P1BR, c->p1br);
        vax_set_ipr(m, IPR_P1LR, c->p1lr);
        vax_set_ipr(m, IPR_MAPEN, 1);
    } else if (chance(r, 50)) {
        /* Tables for a guest that turns MAPEN on by itself. */
        vax_set_ipr(m, IPR_SBR, free_page(c) * 512);
        vax_set_ipr(m, IPR_SLR, below(r, c->npages + 16));
    }
    vax_set_psl(m, c->psl);
    for (int i = 0; i < 5; i++)
        vax_set_ipr(m, IPR_KSP + i, sps[i]);
    static const uint32_t queue_offs[] = {0, 64, 128, 192, 256, 320, 384, 448, 456, 464, 472};
    for (int i = 0; i < 14; i++) {
        uint32_t k = below(r, 100), v;
        if (k < 12)
            v = c->ptr_va[below(r, (uint32_t)c->nptr)] + below(r, 128) * 4;
        else if (k < 24)
            v = c->queue_va + queue_offs[below(r, sizeof queue_offs / sizeof queue_offs[0])];
        else if (k < 40)
            v = c->hot_va + below(r, 160); /* overlapping strings */
        else
            v = pick_value(c);
        vax_set_reg(m, i, v);
    }
    vax_set_reg(m, 15, pc);
    vax_set_ipr(m, IPR_ASTLVL, below(r, 5));
    if (chance(r, 20))
        vax_set_ipr(m, IPR_SISR, r32(r));
    if (chance(r, 15)) {
        int n = 1 + (int)below(r, 3);
        for (int i = 0; i < n; i++)
            machine_irq_raise(m, 16 + (int)below(r, 16), (int)below(r, 32),
                              chance(r, 90) ? 0x100 + 4 * below(r, 64) : below(r, 0x10000));
    }
    return m;
}

static void free_case(fcase *c)
{
    free(c->tape);
    c->tape = NULL;
    free(c->img);
    free(c->reserved);
    c->img = NULL;
    c->reserved = NULL;
}

/* ------------------------------------------------------------ checking */

static char g_msg[512];

static int check_psl(uint32_t psl)
{
    uint32_t cur = PSL_GET_CUR(psl), prv = PSL_GET_PRV(psl), ipl = PSL_GET_IPL(psl);
    if (psl & PSL_MBZ)
        snprintf(g_msg, sizeof g_msg, "PSL %08X has MBZ bits set (%08X)", psl, psl & PSL_MBZ);
    else if ((psl & PSL_CM) && (cur != 3 || (psl & (PSL_FPD | PSL_IS | PSL_DV | PSL_FU | PSL_IV))))
        snprintf(g_msg, sizeof g_msg, "PSL %08X: compatibility mode outside user mode or with FPD/IS/DV/FU/IV",
                 psl);
    else if ((psl & PSL_IS) && cur != 0)
        snprintf(g_msg, sizeof g_msg, "PSL %08X: interrupt stack outside kernel mode", psl);
    else if (prv < cur)
        snprintf(g_msg, sizeof g_msg, "PSL %08X: previous mode more privileged than current", psl);
    else if (cur != 0 && ipl != 0)
        snprintf(g_msg, sizeof g_msg, "PSL %08X: IPL %u outside kernel mode", psl, ipl);
    else
        return 0;
    return -1;
}

/* Host-API pokes between run slices; also checks phys access bounds. */
static int poke_host_api(vax_machine *m, fcase *c)
{
    rng_t *r = &c->rng;
    uint32_t size = vax_memory_bytes(m);
    if (size != c->memsize) {
        snprintf(g_msg, sizeof g_msg, "vax_memory_bytes %u, expected %u", size, c->memsize);
        return -1;
    }
    uint8_t buf[64];
    for (int i = 0; i < 4; i++) {
        uint32_t pa = chance(r, 50) ? size - below(r, 80) : r32(r);
        size_t len = below(r, 65);
        int expect = (pa <= size && len <= size - pa) ? 0 : -1;
        int got = vax_phys_read(m, pa, buf, len);
        if (got != expect) {
            snprintf(g_msg, sizeof g_msg, "vax_phys_read(%08X, %zu) = %d, expected %d", pa, len, got, expect);
            return -1;
        }
        if (expect == 0 && chance(r, 30)) {
            for (size_t j = 0; j < len; j++)
                buf[j] = (uint8_t)rnext(r);
            if (vax_phys_write(m, pa, buf, len) != 0) {
                snprintf(g_msg, sizeof g_msg, "vax_phys_write(%08X, %zu) failed", pa, len);
                return -1;
            }
        } else if (expect != 0 && vax_phys_write(m, pa, buf, len) != -1) {
            snprintf(g_msg, sizeof g_msg, "vax_phys_write(%08X, %zu) accepted an out-of-range write", pa, len);
            return -1;
        }
    }
    if (chance(r, 30))
        vax_set_reg(m, (int)below(r, 16), pick_value(c));
    if (chance(r, 20)) {
        int ipr = (int)below(r, 72) - 4;
        /* Leave MAPEN alone mostly: it is the case's design.  IPL only
         * in kernel mode (the console could set any, but then the PSL
         * would not be one the processor made). */
        if ((ipr != IPR_MAPEN || chance(r, 20)) && (ipr != IPR_IPL || PSL_GET_CUR(vax_get_psl(m)) == 0))
            vax_set_ipr(m, ipr, pick_value(c));
    }
    if (chance(r, 20))
        (void)vax_get_ipr(m, (int)below(r, 72) - 4);
    if (chance(r, 10))
        machine_irq_raise(m, 16 + (int)below(r, 16), (int)below(r, 32), 0x100 + 4 * below(r, 64));
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    uint64_t instructions;
    uint64_t digest;
    int stops[8];
} case_result;

/* --trace: the same slice one instruction at a time (which must not change
 * what happens), printing every instruction that takes more than 10 ms of
 * wall-clock time with its PC and first bytes. */
static vax_stop_reason run_stepping(vax_machine *m, const fcase *c, uint64_t budget)
{
    vax_stop_reason st = VAX_STOP_BUDGET;
    uint64_t start = vax_instruction_count(m);
    while (vax_instruction_count(m) - start < budget) {
        uint32_t pc = vax_get_reg(m, 15), psl = vax_get_psl(m);
        uint32_t regs[16];
        for (int i = 0; i < 16; i++)
            regs[i] = vax_get_reg(m, i);
        uint8_t bytes[12] = {0};
        uint32_t pa = pc;
        if (vax_get_ipr(m, IPR_MAPEN) == 0 || host_translate(c, pc, &pa))
            vax_phys_read(m, pa, bytes, sizeof bytes);
        double t = now_s();
        st = vax_run(m, 1);
        t = now_s() - t;
        if (t > 0.01) {
            printf("    slow: %.3f s at PC %08X PSL %08X:", t, pc, psl);
            for (size_t i = 0; i < sizeof bytes; i++)
                printf(" %02X", bytes[i]);
            printf("\n     ");
            for (int i = 0; i < 16; i++)
                printf(" R%d=%08X", i, regs[i]);
            printf("\n");
        }
        if (st != VAX_STOP_BUDGET)
            break;
    }
    return st;
}

/* One slice cut into two vax_run() calls at `cut` instructions: how the
 * host slices the run must not change what the guest sees. */
static vax_stop_reason run_split(vax_machine *m, uint64_t budget, uint64_t cut)
{
    uint64_t start = vax_instruction_count(m);
    vax_stop_reason st = vax_run(m, cut < budget ? cut : budget);
    if (st != VAX_STOP_BUDGET)
        return st;
    uint64_t done = vax_instruction_count(m) - start;
    return vax_run(m, budget - done);
}

/* Run one case; 0 if every check held.  split != 0 (the determinism
 * rerun): every slice is run as two vax_run() calls. */
static int run_case(uint64_t seed, case_result *res, int split)
{
    fcase c;
    memset(res, 0, sizeof *res);
    vax_machine *m = build_case(seed, &c);
    if (!m || !c.img || !c.reserved) {
        snprintf(g_msg, sizeof g_msg, "cannot create the machine");
        if (c.sys)
            vax780_destroy(c.sys);
        else
            vax_destroy(m);
        free_case(&c);
        return -1;
    }
    rng_t *r = &c.rng;
    if (g_verbose)
        printf("seed %llu: %u KB, MAPEN %d, PSL %08X, PC %08X, SCBB %08X, SBR %08X SLR %u\n",
               (unsigned long long)seed, c.memsize >> 10, c.mapen, vax_get_psl(m), vax_get_reg(m, 15), c.scbb,
               c.sbr, c.slr);
    int rc = 0;
    int nruns = 1 + (int)below(r, 6);
    for (int run = 0; run < nruns && rc == 0; run++) {
        uint64_t budget = chance(r, 10) ? below(r, 4) : 1 + below(r, chance(r, 50) ? 400 : 5000);
        if (c.sys && chance(r, 50))
            budget = 1 + below(r, 30000); /* give device events time to fire */
        uint64_t before = vax_instruction_count(m);
        alarm(SLICE_TIMEOUT_S);
        vax_stop_reason st = g_trace  ? run_stepping(m, &c, budget)
                             : split ? run_split(m, budget, budget / 2 + (seed + (uint64_t)run) % 3)
                                     : vax_run(m, budget);
        alarm(0);
        uint64_t done = vax_instruction_count(m) - before;
        res->instructions += done;
        uint32_t psl = vax_get_psl(m);
        const char *detail = vax_stop_detail(m);
        if (g_verbose)
            printf("  run %d: budget %llu, ran %llu, stop %s (%s), PC %08X PSL %08X SP %08X\n", run,
                   (unsigned long long)budget, (unsigned long long)done, vax_stop_reason_name(st), detail,
                   vax_get_reg(m, 15), psl, vax_get_reg(m, 14));
        if ((int)st < 0 || st > VAX_STOP_SCB_HALT || (st == VAX_STOP_HOST_REQUEST && !c.sys)) {
            snprintf(g_msg, sizeof g_msg, "run %d: invalid stop reason %d", run, (int)st);
            rc = -1;
        } else if (done > budget) {
            snprintf(g_msg, sizeof g_msg, "run %d: ran %llu instructions on a budget of %llu", run,
                     (unsigned long long)done, (unsigned long long)budget);
            rc = -1;
        } else if (st == VAX_STOP_BUDGET && done != budget) {
            snprintf(g_msg, sizeof g_msg, "run %d: stopped for the budget after %llu of %llu instructions", run,
                     (unsigned long long)done, (unsigned long long)budget);
            rc = -1;
        } else if (!detail || memchr(detail, 0, 160) == NULL) {
            snprintf(g_msg, sizeof g_msg, "run %d: stop detail is not a terminated string", run);
            rc = -1;
        } else if (check_psl(psl) != 0) {
            char tmp[sizeof g_msg];
            memcpy(tmp, g_msg, sizeof tmp);
            snprintf(g_msg, sizeof g_msg, "run %d (stop %s: %.160s): %.300s", run, vax_stop_reason_name(st),
                     detail, tmp);
            rc = -1;
        }
        if (rc)
            break;
        res->stops[st & 7]++;
        if (st != VAX_STOP_BUDGET) {
            /* Go on from wherever the processor stopped, or from a
             * console-like restart, or somewhere random. */
            uint32_t k = below(r, 3);
            if (k == 1) {
                vax_set_psl(m, PSL_IS | (31u << PSL_IPL_SHIFT));
                vax_set_reg(m, 14, pick_sp(&c));
            }
            if (k >= 1)
                vax_set_reg(m, 15, pick_va(&c));
        }
        if (poke_host_api(m, &c) != 0) {
            rc = -1;
            break;
        }
    }
    res->digest = vax_state_digest(m);
    for (int i = 0; i < 16; i++)
        res->digest = res->digest * 31 + vax_get_reg(m, i);
    res->digest = res->digest * 31 + vax_get_psl(m);
    if (g_verbose)
        printf("  end: %llu instructions, state digest %016llX\n", (unsigned long long)res->instructions,
               (unsigned long long)res->digest);
    if (c.sys)
        vax780_destroy(c.sys);
    else
        vax_destroy(m);
    free_case(&c);
    return rc;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--iterations N] [--seed S] [--seconds T] [--verbose] [--trace]\n", argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t base_seed = 1;
    long iterations = -1;
    double seconds = DEFAULT_SECONDS;
    int seed_given = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            base_seed = strtoull(argv[++i], NULL, 0);
            seed_given = 1;
        } else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
            iterations = strtol(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            g_verbose = 1;
        } else if (!strcmp(argv[i], "--trace")) {
            g_trace = g_verbose = 1;
        } else {
            usage(argv[0]);
        }
    }
    if (iterations < 0)
        iterations = seed_given ? 1 : DEFAULT_ITERATIONS;
    setvbuf(stdout, NULL, _IOLBF, 0);
    install_handlers();

    double t0 = now_s();
    uint64_t total_instr = 0;
    int stops[8] = {0};
    long done_cases = 0;
    int timed_out = 0;
    for (long i = 0; i < iterations; i++) {
        if (seconds > 0 && now_s() - t0 > seconds) {
            timed_out = 1;
            break;
        }
        uint64_t seed = base_seed + (uint64_t)i;
        g_seed = seed;
        g_in_case = 1;
        case_result res;
        int rc = run_case(seed, &res, 0);
        if (rc == 0 && (seed % 8 == 0 || seed_given)) {
            /* Determinism: the same seed must give the same machine, also
             * when the host cuts the slices differently. */
            case_result again;
            int rc2 = run_case(seed, &again, 1);
            if (rc2 != 0 || again.digest != res.digest || again.instructions != res.instructions) {
                snprintf(g_msg, sizeof g_msg,
                         "rerun with the slices cut in two differs: digest %016llX/%016llX, "
                         "instructions %llu/%llu",
                         (unsigned long long)res.digest, (unsigned long long)again.digest,
                         (unsigned long long)res.instructions, (unsigned long long)again.instructions);
                rc = -1;
            }
        }
        g_in_case = 0;
        done_cases++;
        total_instr += res.instructions;
        for (int k = 0; k < 8; k++)
            stops[k] += res.stops[k];
        if (rc == 0) {
            g_passed++;
        } else {
            g_failed++;
            printf("FAIL seed=%llu: %s\n", (unsigned long long)seed, g_msg);
            printf("reproduce: test_fuzz --seed %llu --verbose\n", (unsigned long long)seed);
        }
    }
    double dt = now_s() - t0;
    printf("fuzz: %ld cases (seeds %llu..%llu), %llu instructions in %.1f s (%.0f cases/s, %.0f instr/s)\n",
           done_cases, (unsigned long long)base_seed, (unsigned long long)(base_seed + (uint64_t)done_cases - 1),
           (unsigned long long)total_instr, dt, dt > 0 ? (double)done_cases / dt : 0.0,
           dt > 0 ? (double)total_instr / dt : 0.0);
    printf("fuzz: stops: budget %d, halt %d, double-fault %d, scb-halt %d, host-request %d\n",
           stops[VAX_STOP_BUDGET], stops[VAX_STOP_HALT], stops[VAX_STOP_DOUBLE_FAULT], stops[VAX_STOP_SCB_HALT],
           stops[VAX_STOP_HOST_REQUEST]);
    if (timed_out)
        printf("fuzz: safety stop: the %.0f s limit ended the run after %ld of %ld cases\n", seconds, done_cases,
               iterations);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
