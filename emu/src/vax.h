/*
 * vax.h — the public interface of the vaxlab VAX-11/780 emulator library.
 *
 * Everything a host program (the command-line machine, the tests, the
 * benchmark, the WebAssembly glue) needs is declared here; the internals
 * live in the per-subsystem headers under cpu/, mmu/ and bus/.
 *
 * All state of one emulated machine is held in one vax_machine object,
 * so several machines can live in one process.
 */
#ifndef VAX_H
#define VAX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vax_machine vax_machine;

/* Why vax_run() returned. */
typedef enum {
    VAX_STOP_BUDGET = 0,      /* the instruction budget was used up */
    VAX_STOP_HALT,            /* the guest executed HALT in kernel mode */
    VAX_STOP_DOUBLE_FAULT,    /* an exception while taking an exception: the
                                 780 would halt ("interrupt stack not valid",
                                 machine check in machine check, ...) */
    VAX_STOP_HOST_REQUEST,    /* vax_request_stop() was called */
    VAX_STOP_SCB_HALT         /* an SCB vector with code 2 or 3 (WCS/halt) */
} vax_stop_reason;

typedef struct {
    uint32_t memory_bytes;    /* physical memory; rounded down to 64 KB */
} vax_config;

/* Create a machine; NULL if memory cannot be had.  The processor starts as
 * after a console INIT: kernel mode, interrupt stack, IPL 31, MAPEN off. */
vax_machine *vax_create(const vax_config *cfg);
void vax_destroy(vax_machine *m);

/* Console INIT: the processor returns to its power-up state, pending
 * interrupt requests and device events are dropped; memory and virtual
 * time are kept.  Devices are reset by their owners (vax780_init). */
void vax_reset(vax_machine *m);

/* Execute at most max_instructions instructions (exceptions and interrupts
 * taken do not count).  Returns the reason it stopped. */
vax_stop_reason vax_run(vax_machine *m, uint64_t max_instructions);
const char *vax_stop_reason_name(vax_stop_reason r);

/* A short human-readable explanation of the last stop (e.g. "HALT at PC
 * 80001234", "kernel stack not valid while taking ACV at PC ..."). */
const char *vax_stop_detail(const vax_machine *m);

/* Registers: 0..15 are R0..R15 (R14 = SP, R15 = PC). */
uint32_t vax_get_reg(const vax_machine *m, int n);
void vax_set_reg(vax_machine *m, int n, uint32_t value);
uint32_t vax_get_psl(const vax_machine *m);
void vax_set_psl(vax_machine *m, uint32_t psl);   /* switches stacks as needed */

/* Privileged (internal processor) registers by their MTPR number. */
uint32_t vax_get_ipr(vax_machine *m, int ipr);
void vax_set_ipr(vax_machine *m, int ipr, uint32_t value);

/* Physical memory access from the host.  Return 0, or -1 if the range is
 * outside memory. */
int vax_phys_write(vax_machine *m, uint32_t pa, const void *src, size_t len);
int vax_phys_read(const vax_machine *m, uint32_t pa, void *dst, size_t len);
uint32_t vax_memory_bytes(const vax_machine *m);

/* Counters. */
uint64_t vax_instruction_count(const vax_machine *m);

/* A 64-bit FNV-1a digest of the whole architectural state (registers,
 * PSL, internal registers, physical memory).  Used to show that two
 * builds (native and WebAssembly) computed exactly the same thing. */
uint64_t vax_state_digest(const vax_machine *m);

/* Ask a running vax_run() to return soon (safe from a callback). */
void vax_request_stop(vax_machine *m);

/* Idle skipping (off after vax_create; the 780 system model turns it on).
 * When the processor, in kernel mode, is in a loop that provably cannot
 * leave before the next device event (it only reads memory, sets condition
 * codes, branches, and writes IPL with the value it already has, with no
 * interrupt deliverable), or in a counted delay loop (SOBGTR, SOBGEQ,
 * AOBLSS, AOBLEQ on a register, branching to itself), vax_run() advances
 * the instruction count by whole iterations of the loop, up to the next
 * device event or the end of the budget, instead of running them
 * (cpu/idle.c).  The skipped iterations count as executed, so the guest,
 * the instruction count and virtual time are exactly as without skipping;
 * only host time is saved.  The statistics (stats.h) book them as idle. */
void vax_set_idle_skip(vax_machine *m, int on);

/* Timing: the processor modelled, 780 (the default) or 750 — each with its
 * own microcycle, cache and translation buffer (cpu/timing.h,
 * emu/docs/timing.md).  Only before the first instruction.  Returns 0, or
 * -1 for another number. */
int vax_set_cpu_model(vax_machine *m, int model);

/* Timing: replace the cost model (cpu/timing.h, the default) with a fixed
 * cost of ns per instruction and nothing else — the first, flat model, kept
 * to compare with.  Only before the first instruction. */
void vax_set_timing_flat(vax_machine *m, uint32_t ns);

/* Profiling (profile/profile.h): an exact call-graph profile of what the
 * processor runs, by address (a bare machine has no symbols; the 780 system,
 * system/session.h, adds them).  Changes nothing the guest sees.  start: on,
 * counting from now (0, or -1 out of host memory); clear: counts to zero;
 * stop: off.  json: the profile so far, a malloc'd NUL-terminated JSON text
 * ("vaxlab-profile-raw") the caller frees, NULL when off; *len its length
 * (len may be NULL). */
int vax_profile_start(vax_machine *m);
void vax_profile_clear(vax_machine *m);
void vax_profile_stop(vax_machine *m);
char *vax_profile_json(vax_machine *m, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
