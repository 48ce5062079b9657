/*
 * jit.h — the block compiler: VAX code compiled to WebAssembly at run time
 * (docs/speed.md, "Round twenty-four").  Only in the WebAssembly build made
 * with `make wasm WASM_JIT=1` (VAX_JIT defined); every other build has
 * none of it, and the instruction loop not even its hook.
 *
 * The one way in is execute.c's refill of the fetch shortcut (the PC has
 * moved to another page), where the loop leaves its fast path anyway: no
 * test is added to any instruction the interpreter runs.  Compiled code
 * runs the instructions of one page of code, each exactly as the fast form
 * of the interpreter does (the same checks, charges, counts, codes and
 * stores, in the same order), and calls the interpreter itself, one
 * instruction at a time (cpu_execute_step), for every instruction it does
 * not compile.
 */
#ifndef VAX_JIT_H
#define VAX_JIT_H

#include "machine.h"

/* jit_enter's answer when nothing ran: the interpreter goes on as if it
 * had not been called.  Any other value but 0 is an instruction's status
 * (a fault, or a trap it requested), for the loop's full tail. */
#define JIT_NOT_RUN 0x7FFF0000

/* At the fetch shortcut's refill for pc (execute.c), the shortcut mapping
 * pc's page: run compiled code from pc if there is some.  0: instructions
 * ran and completed, the next one is at r[15] (or a limit was reached, and
 * cpu.instr_pc is the last one's, as the loop leaves it). */
int jit_enter(vax_machine *m, uint32_t pc);

/* One instruction through the interpreter (execute.c compiled again with
 * EXEC_STEP, jit/jit_step.c). */
void cpu_execute_step(vax_machine *m);

/* Turn the compiler on (1) or off (0) for m; returns 1 when on. */
int jit_enable(vax_machine *m, int on);

/* Counters: see jit.c, jit_stats. */
void jit_stats(const vax_machine *m, double out[12]);

/* A digest of the timing state (jit.c), for the tests. */
uint64_t jit_timing_digest(const vax_machine *m);

#endif
