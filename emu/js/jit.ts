// The block compiler's switch (emu/src/jit, docs/speed.md round twenty-four):
// present only in the module built with `make -C emu wasm WASM_JIT=1`.

import type { VaxWasmModule } from './wasm';

interface JitExports {
  _vaxw_jit_enable?: (machine: number, on: number) => number;
  _vaxw_jit_stats?: (machine: number, out: number) => void;
  _vaxw_jit_timing_digest?: (machine: number) => bigint;
}

export interface JitStats {
  /** Entries into compiled code, and hook calls that ran nothing. */
  entries: number;
  notRun: number;
  /** Regions compiled (recompiles included), module bytes, milliseconds spent. */
  compiles: number;
  bytes: number;
  compileMs: number;
  /** Instructions run from compiled code: inline, and through the interpreter's one-instruction calls. */
  instructions: number;
  stepped: number;
  /** Regions dropped because their bytes changed; replaced by another page; live. */
  stale: number;
  replaced: number;
  live: number;
  /** VAX instructions compiled (recompiles included). */
  compiled: number;
}

/** Does this module have the block compiler? */
export function jitBuilt(mod: VaxWasmModule): boolean {
  return typeof (mod as unknown as JitExports)._vaxw_jit_enable === 'function';
}

/** Turns the compiler on or off for a machine (a vax_machine pointer). */
/** hot: entries before a page is compiled (0: the default); endAtCalls: leave compiled
 *  code at every instruction it does not compile instead of calling the interpreter. */
export function setJit(mod: VaxWasmModule, machine: number, on: boolean, hot = 0, endAtCalls = false): void {
  const f = (mod as unknown as JitExports)._vaxw_jit_enable;
  if (!f) throw new Error('this module has no block compiler: build it with `make -C emu wasm WASM_JIT=1`');
  const h = Math.max(1, hot);
  f(machine, on ? (endAtCalls ? -Math.max(2, h) : h) : 0);
}

export function jitStats(mod: VaxWasmModule, machine: number): JitStats {
  const f = (mod as unknown as JitExports)._vaxw_jit_stats;
  if (!f) throw new Error('this module has no block compiler');
  const p = mod._malloc(12 * 8);
  try {
    f(machine, p);
    const v = new Float64Array(mod.HEAPU8.buffer, p, 12).slice();
    return {
      entries: v[0], notRun: v[1], compiles: v[2], bytes: v[3], compileMs: v[4],
      instructions: v[5], stepped: v[6], stale: v[7], replaced: v[8], live: v[9], compiled: v[10],
    };
  } finally {
    mod._free(p);
  }
}

/** The timing state's digest (cost, cache, TB, instruction buffer, statistics,
 *  undo log, condition codes): what compiled code must leave as the interpreter does. */
export function timingDigest(mod: VaxWasmModule, machine: number): bigint {
  const f = (mod as unknown as JitExports)._vaxw_jit_timing_digest;
  if (!f) throw new Error('this module has no block compiler');
  return BigInt.asUintN(64, f(machine));
}
