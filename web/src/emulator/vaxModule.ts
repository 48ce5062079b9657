// The one typed interface to the WebAssembly emulator, used by the browser
// worker (vax.worker.ts) and by Node (tests, benchmark; see vaxNode.ts,
// which only adds reading the .wasm file from disk).
//
// Mirrors emu/src/vax.h.  Registers, PSL and addresses are unsigned 32-bit
// numbers; instruction counts and the state digest are bigint.

import type { VaxWasmModule, VaxWasmModuleOptions } from '../../../emu/build/wasm/vax.mjs';

/** vax_stop_reason from vax.h. */
export const StopReason = {
  Budget: 0,
  Halt: 1,
  DoubleFault: 2,
  HostRequest: 3,
  ScbHalt: 4,
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

export interface VaxLoadOptions {
  /** The bytes of vax.wasm.  Required in Node; in the browser omit it and
   *  the module fetches vax.wasm (its URL is rewritten by Vite). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Browser: explicit URL of vax.wasm, if not the one next to vax.mjs. */
  wasmUrl?: string | URL;
  /** Where the C side's stdout/stderr go (default: console). */
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

export interface VaxCreateOptions {
  /** Physical memory in bytes (rounded down to 64 KB by the emulator). */
  memoryBytes: number;
}

export interface VaxRunResult {
  reason: StopReason;
  /** Instructions executed by this call (exceptions/interrupts not counted). */
  executed: bigint;
}

/** One emulated machine (a vax_machine * in the wasm heap). */
export interface VaxMachine {
  /** Frees the machine; any later call throws. */
  destroy(): void;
  /** vax_run(): at most maxInstructions instructions in one call. */
  run(maxInstructions: number | bigint): StopReason;
  /** Runs `total` instructions in vax_run() calls of at most `slice` each,
   *  stopping early on any stop reason other than Budget.  Long single calls
   *  are slow in V8 (baseline tier) and block the worker, hence slices.
   *  Same loop as emu/tools/vaxrun.c. */
  runSliced(total: number | bigint, slice?: number | bigint): VaxRunResult;
  /** Asks a running vax_run() to return soon. */
  requestStop(): void;
  stopDetail(): string;
  getReg(n: number): number;
  setReg(n: number, value: number): void;
  getPsl(): number;
  setPsl(psl: number): void;
  getIpr(ipr: number): number;
  setIpr(ipr: number, value: number): void;
  /** Copies bytes into physical memory; throws RangeError outside memory. */
  physWrite(pa: number, bytes: Uint8Array): void;
  /** Copies bytes out of physical memory; throws RangeError outside memory. */
  physRead(pa: number, length: number): Uint8Array;
  memoryBytes(): number;
  instructionCount(): bigint;
  /** vax_state_digest(): 64-bit FNV-1a of the architectural state, unsigned. */
  stateDigest(): bigint;
}

export interface VaxMachineApi {
  create(options: VaxCreateOptions): VaxMachine;
  stopReasonName(reason: StopReason | number): string;
  /** The raw Emscripten module, for whatever the typed API does not cover. */
  readonly module: VaxWasmModule;
}

export const DEFAULT_SLICE = 4_000_000n;
const ABI_VERSION = 1;

/** A 64-bit digest as 16 lowercase hex digits (the format vaxrun prints). */
export function digestHex(digest: bigint): string {
  return BigInt.asUintN(64, digest).toString(16).padStart(16, '0');
}

/** A 32-bit value as 8 uppercase hex digits (the format vaxrun prints). */
export function hex32(value: number): string {
  return (value >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

function toU64(n: number | bigint, what: string): bigint {
  const v = typeof n === 'bigint' ? n : BigInt(Math.trunc(n));
  if (v < 0n || v > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} out of range: ${n}`);
  return v;
}

export async function loadVax(options: VaxLoadOptions = {}): Promise<VaxMachineApi> {
  // Dynamic import: Vite bundles it (and vax.wasm as an asset); in Node it
  // fails with a clear "cannot find module" if `make -C emu wasm` was not run.
  const { default: createVaxModule } = await import('../../../emu/build/wasm/vax.mjs');
  const moduleOptions: VaxWasmModuleOptions = {};
  if (options.wasmBinary) moduleOptions.wasmBinary = options.wasmBinary;
  if (options.wasmUrl) {
    const url = String(options.wasmUrl);
    moduleOptions.locateFile = (path, dir) => (path.endsWith('.wasm') ? url : dir + path);
  }
  if (options.print) moduleOptions.print = options.print;
  if (options.printErr) moduleOptions.printErr = options.printErr;
  const mod = await createVaxModule(moduleOptions);

  const abi = mod._vaxw_abi_version();
  if (abi !== ABI_VERSION) {
    throw new Error(`vax.wasm glue ABI ${abi}, expected ${ABI_VERSION}: rebuild with make -C emu wasm`);
  }

  const stopReasonName = (reason: number): string => mod.UTF8ToString(mod._vax_stop_reason_name(reason));

  function create({ memoryBytes }: VaxCreateOptions): VaxMachine {
    if (!Number.isInteger(memoryBytes) || memoryBytes <= 0 || memoryBytes > 0xffff_ffff) {
      throw new RangeError(`memoryBytes must be a positive 32-bit integer, got ${memoryBytes}`);
    }
    let handle = mod._vaxw_create(memoryBytes >>> 0);
    if (handle === 0) throw new Error(`vax_create failed for ${memoryBytes} bytes`);

    const h = (): number => {
      if (handle === 0) throw new Error('VaxMachine used after destroy()');
      return handle;
    };

    const machine: VaxMachine = {
      destroy() {
        if (handle !== 0) mod._vax_destroy(handle);
        handle = 0;
      },
      run(maxInstructions) {
        return mod._vax_run(h(), toU64(maxInstructions, 'maxInstructions')) as StopReason;
      },
      runSliced(total, slice = DEFAULT_SLICE) {
        const m = h();
        let left = toU64(total, 'total');
        let step = toU64(slice, 'slice');
        if (step === 0n) step = left > 0n ? left : 1n;
        const start = BigInt.asUintN(64, mod._vax_instruction_count(m));
        let reason: StopReason = StopReason.Budget;
        while (left > 0n) {
          const n = left < step ? left : step;
          const before = BigInt.asUintN(64, mod._vax_instruction_count(m));
          reason = mod._vax_run(m, n) as StopReason;
          const done = BigInt.asUintN(64, mod._vax_instruction_count(m)) - before;
          left = done >= left ? 0n : left - done;
          if (reason !== StopReason.Budget) break;
          if (done === 0n) break; // no progress: do not spin
        }
        return { reason, executed: BigInt.asUintN(64, mod._vax_instruction_count(m)) - start };
      },
      requestStop() {
        mod._vax_request_stop(h());
      },
      stopDetail() {
        const p = mod._vax_stop_detail(h());
        return p ? mod.UTF8ToString(p) : '';
      },
      getReg(n) {
        if (!Number.isInteger(n) || n < 0 || n > 15) throw new RangeError(`register ${n}`);
        return mod._vax_get_reg(h(), n) >>> 0;
      },
      setReg(n, value) {
        if (!Number.isInteger(n) || n < 0 || n > 15) throw new RangeError(`register ${n}`);
        mod._vax_set_reg(h(), n, value | 0);
      },
      getPsl() {
        return mod._vax_get_psl(h()) >>> 0;
      },
      setPsl(psl) {
        mod._vax_set_psl(h(), psl | 0);
      },
      getIpr(ipr) {
        return mod._vax_get_ipr(h(), ipr) >>> 0;
      },
      setIpr(ipr, value) {
        mod._vax_set_ipr(h(), ipr, value | 0);
      },
      physWrite(pa, bytes) {
        const m = h();
        if (bytes.length === 0) return;
        const p = mod._malloc(bytes.length);
        if (p === 0) throw new Error('malloc failed');
        try {
          mod.HEAPU8.set(bytes, p); // read HEAPU8 after malloc: memory may have grown
          if (mod._vax_phys_write(m, pa | 0, p, bytes.length) !== 0) {
            throw new RangeError(`physWrite ${hex32(pa)}+${bytes.length} outside memory`);
          }
        } finally {
          mod._free(p);
        }
      },
      physRead(pa, length) {
        const m = h();
        if (length === 0) return new Uint8Array(0);
        const p = mod._malloc(length);
        if (p === 0) throw new Error('malloc failed');
        try {
          if (mod._vax_phys_read(m, pa | 0, p, length) !== 0) {
            throw new RangeError(`physRead ${hex32(pa)}+${length} outside memory`);
          }
          return mod.HEAPU8.slice(p, p + length);
        } finally {
          mod._free(p);
        }
      },
      memoryBytes() {
        return mod._vax_memory_bytes(h()) >>> 0;
      },
      instructionCount() {
        return BigInt.asUintN(64, mod._vax_instruction_count(h()));
      },
      stateDigest() {
        return BigInt.asUintN(64, mod._vax_state_digest(h()));
      },
    };
    return machine;
  }

  return { create, stopReasonName, module: mod };
}
