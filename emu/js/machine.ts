// The bare machine: a VAX processor and its memory (a vax_machine * in the
// wasm heap), as emu/src/vax.h declares it — no devices, no disk.  For raw
// guest code: the identity tests, the CPU benchmark, the start page's demo.

import { StopReason } from './constants';
import { hex32, toU64, type VaxWasmModule } from './wasm';

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
  /** The vax_machine pointer in the module's memory (for what the typed API
   *  does not cover, such as the block compiler's switch, js/jit.ts). */
  readonly handle: number;
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
  /** The profiler (vax_profile_*, emu/src/profile/profile.h): on from now, by
   *  address (a bare machine has no symbols); changes nothing the guest sees. */
  profileStart(): void;
  profileClear(): void;
  profileStop(): void;
  /** The profile so far ("vaxlab-profile-raw" JSON text), null when off. */
  profileJson(): string | null;
}

export const DEFAULT_SLICE = 4_000_000n;

/** Creating bare machines, and the names of their stop reasons, over one module. */
export interface BareMachines {
  create(options: VaxCreateOptions): VaxMachine;
  stopReasonName(reason: StopReason | number): string;
}

export function bareMachines(mod: VaxWasmModule): BareMachines {
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
      get handle() {
        return h();
      },
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
      profileStart() {
        if (mod._vax_profile_start(h()) !== 0) throw new Error('profileStart: out of memory');
      },
      profileClear() {
        mod._vax_profile_clear(h());
      },
      profileStop() {
        mod._vax_profile_stop(h());
      },
      profileJson() {
        const p = mod._vax_profile_json(h(), 0);
        if (p === 0) return null;
        try {
          return mod.UTF8ToString(p);
        } finally {
          mod._free(p);
        }
      },
    };
    return machine;
  }
  return { create, stopReasonName };
}
