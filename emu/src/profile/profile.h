/*
 * profile.h — the processor's profiler: an exact, charge-free gprof.
 *
 * What it records (while on; vax_machine.prof is NULL when off, and then the
 * hooks below are never called):
 *
 *   - a calling-context tree (CCT): one node per distinct path of calls
 *     (CALLS/CALLG and JSB/BSB) from a root, with its call count, the
 *     instructions it executed itself and the virtual time (the machine's
 *     cost counter, machine.h) it took itself, split by processor mode;
 *   - roots: each exception (system calls by CHMK, page faults, ...) taken by
 *     a process starts a root under that process's program; each interrupt
 *     starts a root of its own; a program's user-mode code starts at its
 *     entry (exec) or at a signal trampoline;
 *   - one shadow stack per hardware stack: per process context (LDPCTX names
 *     the context by its PCB's physical address, PCBB) the kernel, executive,
 *     supervisor and user stacks, and one interrupt stack for the machine.
 *
 * Attribution is per instruction and exact, with nothing done per
 * instruction: the cost counter only moves forward, and every instruction
 * between two profiler events belongs to the frame on top of the current
 * shadow stack.  At each event (a call, a return, an exception, an
 * interrupt, REI, LDPCTX, a change of mode seen by the statistics, an idle
 * skip) the cost and instructions since the previous event are charged to
 * that frame's node, in the mode the statistics (stats.h) book them in — so
 * the nodes' costs add up, mode by mode, to exactly the time the statistics
 * give.  The profiler reads the machine and writes only its own memory:
 * virtual time, the guest and every result are the same with it on or off.
 *
 * Returns are matched to frames by where the frame lives on its stack: a
 * CALLS frame by its FP (RET), a JSB frame by the address of its return PC
 * (RSB), an exception or interrupt by the address of its saved PC (REI).
 * Frames below the returning one are dropped (a longjmp abandoned them).
 * When execution lands where the shadow stack knows nothing (a process
 * created by fork returning through savectx's context, profiling started in
 * the middle of a run, a longjmp into another function), the stack is
 * rebuilt by walking the VAX call frames (FP chain) with the image's
 * symbols; those frames have no call counted.
 *
 * Symbols: the host gives the kernel's (image 0) and a way to find a
 * program's by its name (4.3BSD's u.u_comm); the profile refers to code by
 * image and address, and the JSON dump carries the symbol tables, so the
 * TypeScript side (experiments/profile/) can name everything.
 *
 * Memory is bounded: at most PROFILE_MAX_NODES nodes (a call beyond that is
 * charged to its caller and counted as an overflow), shadow stacks of at
 * most PROFILE_MAX_DEPTH frames, PROFILE_MAX_CONTEXTS process contexts and
 * PROFILE_MAX_IMAGES programs.
 */
#ifndef VAX_PROFILE_H
#define VAX_PROFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vax_machine vax_machine;
typedef struct vax_profile vax_profile;

#define PROFILE_MAX_NODES (1u << 17)
#define PROFILE_MAX_DEPTH 2048u
#define PROFILE_MAX_CONTEXTS 4096u
#define PROFILE_MAX_IMAGES 1024u
#define PROFILE_MAX_SYMBOLS (1u << 16)

/* The cost slots: the five of the statistics (stats.h VAX_STATS_KERNEL ..
 * VAX_STATS_INTERRUPT) and the idle loops skipped over (cpu/idle.c). */
#define PROFILE_SLOT_IDLE 5
#define PROFILE_NSLOTS 6

/* Node kinds (the dump's second field). */
enum {
    PROFILE_PROGRAM = 0,   /* a program's root: image = the program */
    PROFILE_INTERRUPT,     /* an interrupt: addr = handler, aux = SCB offset */
    PROFILE_EXCEPTION,     /* an exception or CHMx: addr = handler, aux = SCB offset */
    PROFILE_CALL,          /* CALLS/CALLG: addr = the procedure's entry mask */
    PROFILE_JSB,           /* JSB/BSBB/BSBW: addr = the target */
    PROFILE_RESUME,        /* a frame found by walking the stack (no call seen):
                              addr = the function's entry (its symbol), or the PC */
    PROFILE_START          /* a program's user code: aux 0 = at its entry after exec,
                              1 = a signal trampoline, 2 = found running */
};

/* Images (the dump's "images"): 0 is the kernel, 1 code run with memory
 * management off (boot), 2.. the programs met, by name. */
#define PROFILE_IMAGE_KERNEL 0u
#define PROFILE_IMAGE_UNMAPPED 1u

/* A symbol table: the text symbols of an image, any order (the profiler
 * sorts them).  names holds the NUL-terminated names; name[i] is symbol i's
 * offset in it.  Start from all zeros, add with profile_symbols_add, free
 * with profile_symbols_free. */
typedef struct {
    uint32_t n, cap;
    uint32_t *value;
    uint32_t *name;
    char *names;
    uint32_t names_len, names_cap;
} profile_symbols;

/* 0, or -1 when out of host memory or past PROFILE_MAX_SYMBOLS. */
int profile_symbols_add(profile_symbols *s, uint32_t value, const char *name);
void profile_symbols_free(profile_symbols *s);

typedef struct {
    /* A process's name: comm_len bytes at physical PCBB + comm_offset
     * (4.3BSD: u.u_comm, 136 bytes into the u area, whose first bytes are
     * the PCB).  comm_len 0: contexts are not named. */
    uint32_t comm_offset, comm_len;
    /* The kernel routine that gives a process a new program (4.3BSD:
     * _execve).  After a call of it, a return to user mode anywhere but
     * where the process entered the kernel starts the new program.  0: none. */
    uint32_t exec_routine;
    /* Where the kernel came from, for the dump ("/vmunix"); NULL: unknown. */
    const char *kernel_path;
    /* Finds a program's symbols by its name: fills *syms and path (where it
     * was found) and returns 0, or returns -1 with note saying why not ("not
     * found in /lab/bin:/bin", "stripped").  NULL: programs have no symbols.
     * Called once per name, from inside vax_run. */
    int (*find_program)(void *ctx, const char *name, profile_symbols *syms, char *path, size_t pathlen, char *note,
                         size_t notelen);
    void *find_ctx;
} profile_config;

/* Turn profiling on (kernel: the kernel's symbols, taken over, or NULL), or
 * off (freeing everything).  On from now: counts start at zero.  Returns 0,
 * or -1 (out of host memory: profiling stays off). */
int profile_enable(vax_machine *m, const profile_config *cfg, profile_symbols *kernel);
void profile_disable(vax_machine *m);

/* Zero every count, keeping the shadow stacks and the tree's shape: what
 * follows is profiled on its own (the instruction and cost totals too). */
void profile_clear(vax_machine *m);

/* The profile so far as JSON ("vaxlab-profile-raw", version 1; format in
 * profile.c), malloc'd, with its length; NULL if off or out of memory. */
char *profile_json(vax_machine *m, size_t *len);

/* ---- Hooks (called by the processor only while m->prof is set) ---- */

/* Charge the cost and instructions (up to instruction count `boundary`)
 * since the last event to the current frame in slot.  stats.c calls it
 * before every change of accounting slot. */
void profile_account(vax_machine *m, int slot, uint64_t boundary);
/* An idle skip of cost `cost` has just been added (machine_account_idle). */
void profile_idle(vax_machine *m);
/* CALLS/CALLG (jsb 0; key = the new FP) or JSB/BSBx (jsb 1; key = the
 * address of the pushed return PC) to entry; after the instruction's work. */
void profile_call(vax_machine *m, uint32_t entry, uint32_t key, int jsb);
/* RET (key = the FP it returns from) or RSB (key = the address the return
 * PC was popped from), landing at pc with the registers already restored. */
void profile_return(vax_machine *m, uint32_t key, uint32_t pc);
/* An exception, CHMx or interrupt taken: the new PSL is in force, key is
 * the address of the saved PC on the new stack; old_psl and saved_pc are
 * what was interrupted.  boundary: the instruction count from which the
 * handler's instructions count (icount + 1 inside an instruction). */
void profile_exception(vax_machine *m, uint32_t scb_offset, uint32_t handler, uint32_t key, uint32_t old_psl,
                       uint32_t saved_pc, int interrupt, uint64_t boundary);
/* REI from the stack slot old_slot, whose saved PC was at key; the new PSL
 * and PC are in force. */
void profile_rei(vax_machine *m, uint32_t key, int old_slot);
/* LDPCTX: the context of PCBB is loaded. */
void profile_ldpctx(vax_machine *m);
/* A console INIT (vax_reset): every process context is gone. */
void profile_machine_reset(vax_machine *m);

#endif
