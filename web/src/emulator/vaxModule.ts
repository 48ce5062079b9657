// The one typed interface to the WebAssembly emulator, used by the browser
// worker (vax.worker.ts) and by Node (tests, benchmark; see vaxNode.ts,
// which only adds reading the .wasm file from disk).
//
// Mirrors emu/src/vax.h (a bare machine: VaxMachine) and
// emu/wasm/vax780_wasm.c (the whole VAX-11/780 system with a 4.3BSD disk:
// Vax780).  Registers, PSL and addresses are unsigned 32-bit numbers;
// instruction counts, virtual time and the state digest are bigint.

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

/** What Vax780.run() reports: a vax_stop_reason, or Rebooted when the
 *  kernel asked the console to reboot and the system was booted again
 *  (multi-user, as the console does; not a stop, keep running). */
export const Vax780Stop = { ...StopReason, Rebooted: 100 } as const;
export type Vax780Stop = (typeof Vax780Stop)[keyof typeof Vax780Stop];

export interface Vax780Options {
  /** Physical memory in MB: 0.25 to 64 in steps of 0.25 (256 KB, an MS780-C array), e.g. 4.5 (the
   *  CLI's --mem; 8 is the 780 the paper measured, 4.5 its Table 2 and Table 7 750). */
  memoryMB: number;
  /** The RP06 pack (hp0).  A DiskImage (loadImage/allocImage) is shared:
   *  the system reads it and keeps its own writes in a copy-on-write
   *  overlay, so the image stays pristine and creating a system copies
   *  nothing.  A Uint8Array still works: it is copied into a private image
   *  for this system alone (174 MB each time for the RP06), freed with it. */
  disk: DiskImage | Uint8Array;
  /** Single-user (RB_SINGLE) or multi-user; a reboot is always multi-user. */
  boot: 'single' | 'multi';
  /** Load /vmunix from the host instead of running /boot (the CLI's --direct). */
  direct?: boolean;
  /** Kernel longword variables to patch before the kernel runs, by name
   *  without the underscore (the CLI's --set NAME=VALUE); needs direct. */
  set?: Record<string, number>;
  /** An a.out kernel to boot instead of the disk's /vmunix (the CLI's
   *  --kernel-file), e.g. a kernel variant the installer built
   *  (experiments/kernels); needs direct.  `set` and kernelSymbols() then
   *  use its symbol table. */
  kernel?: Uint8Array;
  /** The timing model: virtual ns per instruction (the CLI's --cpu; see
   *  CPU_NS_PER_INSTRUCTION).  Default 2000, a 780. */
  nsPerInstruction?: number;
  /** The disk's timing (the CLI's --disk-timing; emu/src/massbus/rp.c,
   *  "Timing profiles"): 'rp06' (DEC RP06, the default), 'eagle' (a Fujitsu
   *  M2351 Eagle: 3961 rpm, 1.86 MB/s, 18 ms average seek) or 'ideal' (not
   *  a real drive: no seek or rotational latency, the RP06's transfer time
   *  only).  Timing only: the pack, and the geometry 4.3BSD sees, stay the
   *  RP06's (22 sectors x 19 tracks x 815 cylinders). */
  diskTiming?: DiskTiming;
}

/** The disk timing profiles (Vax780Options.diskTiming), the default first. */
export const DISK_TIMINGS = ['rp06', 'eagle', 'ideal'] as const;
export type DiskTiming = (typeof DISK_TIMINGS)[number];

/** The CLI's --cpu presets (emu/tools/vax780.c): a 780 at about 0.5 MIPS, a
 *  750 at 0.6 of that, as the paper assumes. */
export const CPU_NS_PER_INSTRUCTION = { '780': 2000, '750': 3333 } as const;
export type CpuModel = keyof typeof CPU_NS_PER_INSTRUCTION;

/** A whole VAX-11/780 (a vax780w * in the wasm heap), already booted. */
export interface Vax780System {
  /** Frees the system and its disk overlay (and its private image if it was
   *  created from a Uint8Array); any later call throws. */
  destroy(): void;
  /** One vax_run() of at most `instructions` instructions (the CLI uses
   *  slices of 200,000 between looks at the console output). */
  run(instructions: number | bigint): Vax780Stop;
  /** Types text on the console terminal (characters as bytes, code & 0xff;
   *  use "\r" for Return).  Throws if the input queue (8192) overflows. */
  type(text: string): void;
  /** Console output since the last call (7-bit ASCII, NULs dropped). */
  readConsole(): string;
  /** Console output bytes lost because readConsole() was not called in
   *  time (the C side keeps 64 KB). */
  consoleDropped(): bigint;
  /** Virtual time since power-on, in ns. */
  timeNs(): bigint;
  instructionCount(): bigint;
  /** The hardware model's counters by name (emu/src/system/vax780_stats.h):
   *  instructions and virtual ns by mode and idle, system calls (chmk.N),
   *  interrupts by SCB vector (intr.vec.0x0c0), faults, context switches,
   *  TB misses, per-disk I/O (disk.hp0.xfers ...), console/DZ/TS counts. */
  hardwareStats(): Record<string, number>;
  /** How many times the guest rebooted itself. */
  reboots(): number;
  /** Why the last run stopped, in words. */
  stopDetail(): string;
  /** Bytes of the disk this system holds privately: the overlay's written
   *  chunks (64 KB each, so one written sector counts 65536). */
  dirtyBytes(): number;
  /** Addresses of kernel symbols (with the underscore: '_cnt') from the
   *  symbol table of /vmunix on the disk; null for a symbol the kernel
   *  lacks.  Reads the kernel file from the image: call once, not per sample. */
  kernelSymbols(names: string[]): Record<string, number | null>;
  /** Bytes of kernel memory at a system-space address (4.3BSD maps its
   *  text, data and bss at 0x80000000 + the physical address). */
  readKernel(address: number, length: number): Uint8Array;
  /** The vax_machine * underneath (for the bare-machine functions of the raw module). */
  readonly machinePtr: number;
}

/** A disk image in wasm memory: the pristine pack that any number of Vax780
 *  systems share.  The systems never write it (each keeps its writes in its
 *  own overlay), so one image serves every machine of an experiment. */
export interface DiskImage {
  /** Bytes. */
  readonly size: number;
  /** Systems created over it and not yet destroyed. */
  readonly users: number;
  /** True once dispose() was called. */
  readonly disposed: boolean;
  /** A copy of bytes [offset, offset + length) (checks and digests). */
  read(offset: number, length: number): Uint8Array;
  /** Calls f with a view of the whole image in wasm memory and returns its
   *  result.  The view is valid only during the call (wasm memory may grow
   *  later and detach it) and must not be written.  For consumers that take
   *  the bytes synchronously, such as crypto.subtle.digest (which copies its
   *  input before returning its promise). */
  withBytes<T>(f: (bytes: Uint8Array) => T): T;
  /** Frees the image's wasm memory.  Deferred, not refused, while systems
   *  use it: the memory goes when the last of them is destroyed.  Either way
   *  no new system may be created over it.  A second call does nothing. */
  dispose(): void;
}

/** Fills a new DiskImage piece by piece (a download decompressing straight
 *  into wasm memory, without a whole copy in JavaScript). */
export interface DiskImageWriter {
  /** The image's size, fixed by allocImage. */
  readonly size: number;
  /** Copies chunk into the image at offset; throws RangeError past the end. */
  write(offset: number, chunk: Uint8Array): void;
  /** The finished image.  Throws if some byte was never written (the
   *  writer then stays open: write the rest, or abort). */
  done(): DiskImage;
  /** Frees the buffer (after an error); done() is no longer possible.  A
   *  call after done() does nothing. */
  abort(): void;
}

export interface Vax780Api {
  /** Copies bytes into wasm memory once, as a shared DiskImage. */
  loadImage(bytes: Uint8Array): DiskImage;
  /** An empty image of size bytes, to be written in pieces. */
  allocImage(size: number): DiskImageWriter;
  /** Creates the system, loads the disk and boots it (ready to run()). */
  create(options: Vax780Options): Vax780System;
  stopName(reason: Vax780Stop | number): string;
}

export interface VaxMachineApi {
  create(options: VaxCreateOptions): VaxMachine;
  /** The whole VAX-11/780 system booting 4.3BSD. */
  readonly vax780: Vax780Api;
  stopReasonName(reason: StopReason | number): string;
  /** The raw Emscripten module, for whatever the typed API does not cover. */
  readonly module: VaxWasmModule;
}

export const DEFAULT_SLICE = 4_000_000n;
const ABI_VERSION = 6;

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

  // ------------------------------------------------------- disk images
  // What create() needs to know about an image, kept out of the DiskImage
  // object so that callers cannot alter it and an image of another module
  // instance (another wasm memory) is recognised and refused.
  interface ImageState {
    ptr: number; // 0 once freed
    size: number;
    users: number;
    disposed: boolean;
  }
  const imageStates = new WeakMap<DiskImage, ImageState>();

  function freeIfUnused(st: ImageState): void {
    if (st.disposed && st.users === 0 && st.ptr !== 0) {
      mod._vax780w_image_free(st.ptr);
      st.ptr = 0;
    }
  }

  function allocImageBuffer(size: number): number {
    if (!Number.isInteger(size) || size <= 0 || size > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${size}`);
    }
    const ptr = mod._vax780w_image_alloc(size);
    if (ptr === 0) throw new Error(`cannot allocate ${size} bytes of wasm memory for the disk image`);
    return ptr;
  }

  function makeImage(ptr: number, size: number): DiskImage {
    const st: ImageState = { ptr, size, users: 0, disposed: false };
    const at = (): number => {
      if (st.disposed) throw new Error('DiskImage used after dispose()');
      return st.ptr;
    };
    const image: DiskImage = {
      size,
      get users() {
        return st.users;
      },
      get disposed() {
        return st.disposed;
      },
      read(offset, length) {
        const p = at();
        if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > size) {
          throw new RangeError(`DiskImage.read ${offset}+${length} outside the ${size}-byte image`);
        }
        return mod.HEAPU8.slice(p + offset, p + offset + length);
      },
      withBytes(f) {
        const p = at();
        return f(mod.HEAPU8.subarray(p, p + size));
      },
      dispose() {
        if (st.disposed) return;
        st.disposed = true;
        freeIfUnused(st);
      },
    };
    imageStates.set(image, st);
    return image;
  }

  function loadImage(bytes: Uint8Array): DiskImage {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('loadImage takes a Uint8Array');
    const ptr = allocImageBuffer(bytes.length);
    mod.HEAPU8.set(bytes, ptr); // HEAPU8 read after the allocation: memory may have grown
    return makeImage(ptr, bytes.length);
  }

  function allocImage(size: number): DiskImageWriter {
    const ptr = allocImageBuffer(size);
    // The written ranges [start, end).  A stream writes in order, so each
    // write extends the last range and the list stays one entry long.
    let ranges: [number, number][] = [];
    let state: 'open' | 'done' | 'aborted' = 'open';
    return {
      size,
      write(offset, chunk) {
        if (state !== 'open') throw new Error(`DiskImageWriter.write after ${state === 'done' ? 'done()' : 'abort()'}`);
        if (!(chunk instanceof Uint8Array)) throw new TypeError('DiskImageWriter.write takes a Uint8Array');
        if (!Number.isInteger(offset) || offset < 0 || offset + chunk.length > size) {
          throw new RangeError(`DiskImageWriter.write ${offset}+${chunk.length} outside the ${size}-byte image`);
        }
        if (chunk.length === 0) return;
        mod.HEAPU8.set(chunk, ptr + offset);
        const last = ranges[ranges.length - 1];
        if (last && offset >= last[0] && offset <= last[1]) last[1] = Math.max(last[1], offset + chunk.length);
        else ranges.push([offset, offset + chunk.length]);
      },
      done() {
        if (state !== 'open') throw new Error(`DiskImageWriter.done after ${state === 'done' ? 'done()' : 'abort()'}`);
        ranges.sort((a, b) => a[0] - b[0]);
        const merged: [number, number][] = [];
        for (const r of ranges) {
          const last = merged[merged.length - 1];
          if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
          else merged.push([r[0], r[1]]);
        }
        ranges = merged;
        const covered = merged.length > 0 && merged[0]![0] === 0 ? merged[0]![1] : 0;
        if (covered < size) {
          throw new Error(`disk image incomplete: byte ${covered} of ${size} (and maybe more) never written`);
        }
        state = 'done';
        return makeImage(ptr, size);
      },
      abort() {
        if (state !== 'open') return;
        state = 'aborted';
        mod._vax780w_image_free(ptr);
      },
    };
  }

  // ------------------------------------------------------------ Vax780
  const ERR_LEN = 256;
  let hardwareStatNames: string[] | undefined; // vax780w_stats_names(), read once

  function createVax780(options: Vax780Options): Vax780System {
    const { memoryMB, disk, boot, direct = false, set = {}, nsPerInstruction, diskTiming, kernel } = options;
    if (kernel !== undefined && (!direct || !(kernel instanceof Uint8Array) || kernel.length === 0)) {
      throw new Error('kernel: a non-empty Uint8Array, with direct (the host loads the kernel)');
    }
    if (diskTiming !== undefined && !(DISK_TIMINGS as readonly string[]).includes(diskTiming)) {
      throw new RangeError(`diskTiming must be one of ${DISK_TIMINGS.join(', ')}, got ${String(diskTiming)}`);
    }
    if (nsPerInstruction !== undefined && (!Number.isInteger(nsPerInstruction) || nsPerInstruction < 1 || nsPerInstruction > 1_000_000)) {
      throw new RangeError(`nsPerInstruction must be an integer from 1 to 1000000, got ${nsPerInstruction}`);
    }
    if (typeof memoryMB !== 'number' || !Number.isInteger(memoryMB * 4) || memoryMB < 0.25 || memoryMB > 64) {
      throw new RangeError(`memoryMB must be a multiple of 0.25 (256 KB) from 0.25 to 64, got ${String(memoryMB)}`);
    }
    if (disk instanceof Uint8Array) {
      if (disk.length === 0 || disk.length > 0xffff_ffff) {
        throw new RangeError('disk must be a DiskImage or a non-empty Uint8Array under 4 GB');
      }
    } else if (!imageStates.has(disk)) {
      throw new TypeError('disk must be a DiskImage of this module (vax780.loadImage/allocImage) or a Uint8Array');
    } else if (disk.disposed) {
      throw new Error('disk: the DiskImage was disposed');
    }
    if (boot !== 'single' && boot !== 'multi') throw new RangeError(`boot must be 'single' or 'multi', got ${boot}`);
    const settings = Object.entries(set);
    if (settings.length > 0 && !direct) {
      throw new Error('set needs direct: only then does the host load the kernel and can patch it before it runs');
    }
    for (const [name, value] of settings) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new RangeError(`set: bad variable name "${name}"`);
      if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
        throw new RangeError(`set ${name}: value must be an integer from 0 to 4294967295, got ${value}`);
      }
    }

    // A Uint8Array becomes a private image, disposed at once: with this
    // system counted as its user it then lives exactly as long as the
    // system (and goes here if creation fails).
    const image = disk instanceof Uint8Array ? loadImage(disk) : disk;
    const st = imageStates.get(image)!;
    st.users++;
    if (image !== disk) image.dispose();
    const release = (): void => {
      st.users--;
      freeIfUnused(st);
    };
    const errPtr = mod._malloc(ERR_LEN);
    let handle = 0;
    try {
      if (errPtr === 0) throw new Error('malloc failed');
      // The system reads the image through its own copy-on-write overlay
      // and never writes it; the image stays ours (st) to free.
      const howto = boot === 'single' ? 2 : 0;
      handle = mod._vax780w_create(memoryMB * 1024, st.ptr, st.size, direct ? 1 : 0, howto, errPtr, ERR_LEN);
      if (handle === 0) throw new Error(`vax780 create: ${mod.UTF8ToString(errPtr)}`);
    } catch (e) {
      release();
      throw e;
    } finally {
      if (errPtr !== 0) mod._free(errPtr);
    }
    const lastError = (): string => mod.UTF8ToString(mod._vax780w_error(handle));
    try {
      if (nsPerInstruction !== undefined && mod._vax780w_set_ns_per_instruction(handle, nsPerInstruction) !== 0) {
        throw new Error(`nsPerInstruction: ${lastError()}`);
      }
      if (diskTiming !== undefined) {
        withString(diskTiming, (p) => {
          if (mod._vax780w_set_disk_timing(handle, p) !== 0) throw new Error(`diskTiming: ${lastError()}`);
        });
      }
      if (kernel !== undefined) {
        const kp = mod._malloc(kernel.length);
        if (kp === 0) throw new Error('kernel: malloc failed');
        try {
          mod.HEAPU8.set(kernel, kp); // HEAPU8 read after the allocation: memory may have grown
          if (mod._vax780w_set_kernel(handle, kp, kernel.length) !== 0) throw new Error(`kernel: ${lastError()}`);
        } finally {
          mod._free(kp);
        }
      }
      for (const [name, value] of settings) {
        withString(name, (p) => {
          if (mod._vax780w_add_setting(handle, p, value >>> 0) !== 0) throw new Error(`set ${name}: ${lastError()}`);
        });
      }
      if (mod._vax780w_boot(handle) !== 0) throw new Error(`boot: ${lastError()}`);
    } catch (e) {
      mod._vax780w_destroy(handle);
      release();
      throw e;
    }

    const h = (): number => {
      if (handle === 0) throw new Error('Vax780System used after destroy()');
      return handle;
    };
    const READ_CHUNK = 65536;

    return {
      machinePtr: mod._vax780w_machine(handle),
      destroy() {
        if (handle === 0) return;
        mod._vax780w_destroy(handle);
        handle = 0;
        release();
      },
      dirtyBytes() {
        return Number(mod._vax780w_dirty_bytes(h()));
      },
      run(instructions) {
        const r = mod._vax780w_run(h(), toU64(instructions, 'instructions'));
        if (r < 0) throw new Error(`reboot failed: ${lastError()}`);
        return r as Vax780Stop;
      },
      type(text) {
        const w = h();
        if (text.length === 0) return;
        const p = mod._malloc(text.length);
        if (p === 0) throw new Error('malloc failed');
        try {
          const heap = mod.HEAPU8;
          for (let i = 0; i < text.length; i++) heap[p + i] = text.charCodeAt(i) & 0xff;
          const n = mod._vax780w_type(w, p, text.length) >>> 0;
          if (n < text.length) {
            throw new RangeError(`console input overflow: ${text.length - n} of ${text.length} characters not queued`);
          }
        } finally {
          mod._free(p);
        }
      },
      readConsole() {
        const w = h();
        const pending = mod._vax780w_console_pending(w) >>> 0;
        if (pending === 0) return '';
        const p = mod._malloc(READ_CHUNK);
        if (p === 0) throw new Error('malloc failed');
        let out = '';
        try {
          for (;;) {
            const n = mod._vax780w_console_read(w, p, READ_CHUNK) >>> 0;
            if (n === 0) break;
            const bytes = mod.HEAPU8.subarray(p, p + n);
            for (let i = 0; i < n; i += 8192) {
              out += String.fromCharCode(...bytes.subarray(i, Math.min(n, i + 8192)));
            }
          }
        } finally {
          mod._free(p);
        }
        return out;
      },
      consoleDropped() {
        return BigInt.asUintN(64, mod._vax780w_console_dropped(h()));
      },
      timeNs() {
        return BigInt.asUintN(64, mod._vax780w_time_ns(h()));
      },
      instructionCount() {
        return BigInt.asUintN(64, mod._vax780w_instruction_count(h()));
      },
      hardwareStats() {
        const w = h();
        const names = (hardwareStatNames ??= mod.UTF8ToString(mod._vax780w_stats_names()).split(','));
        const p = mod._malloc(names.length * 8);
        if (p === 0) throw new Error('malloc failed');
        try {
          const n = Math.min(mod._vax780w_stats(w, p, names.length) >>> 0, names.length);
          const view = new DataView(mod.HEAPU8.buffer, p, n * 8);
          const out: Record<string, number> = {};
          for (let i = 0; i < n; i++) out[names[i]] = Number(view.getBigUint64(i * 8, true));
          return out;
        } finally {
          mod._free(p);
        }
      },
      reboots() {
        return mod._vax780w_reboots(h()) >>> 0;
      },
      stopDetail() {
        const p = mod._vax780w_stop_detail(h());
        return p ? mod.UTF8ToString(p) : '';
      },
      kernelSymbols(names) {
        const w = h();
        for (const n of names) {
          if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(n)) throw new RangeError(`kernelSymbols: bad symbol name "${n}"`);
        }
        const out: Record<string, number | null> = {};
        for (let i = 0; i < names.length; i += 64) {
          const batch = names.slice(i, i + 64);
          const vals = mod._malloc(4 * batch.length);
          if (vals === 0) throw new Error('malloc failed');
          try {
            const found = withString(batch.join('\n'), (p) => mod._vax780w_kernel_symbols(w, p, vals, batch.length));
            if (found < 0) throw new Error(`kernelSymbols: ${lastError()}`);
            batch.forEach((n, j) => {
              const v = mod.HEAPU32[(vals >>> 2) + j]! >>> 0;
              out[n] = v === 0 ? null : v;
            });
          } finally {
            mod._free(vals);
          }
        }
        return out;
      },
      readKernel(address, length) {
        const w = h();
        if (!Number.isInteger(address) || address < 0x8000_0000 || address > 0xffff_ffff) {
          throw new RangeError(`readKernel: ${hex32(address)} is not a system-space address`);
        }
        if (!Number.isInteger(length) || length < 0 || length > 1 << 20) throw new RangeError(`readKernel: length ${length}`);
        if (length === 0) return new Uint8Array(0);
        const p = mod._malloc(length);
        if (p === 0) throw new Error('malloc failed');
        try {
          const pa = address - 0x8000_0000;
          if (mod._vax_phys_read(mod._vax780w_machine(w), pa, p, length) !== 0) {
            throw new RangeError(`readKernel ${hex32(address)}+${length} outside memory`);
          }
          return mod.HEAPU8.slice(p, p + length);
        } finally {
          mod._free(p);
        }
      },
    };
  }

  /** Calls f with a NUL-terminated copy of an ASCII string in wasm memory. */
  function withString<T>(text: string, f: (ptr: number) => T): T {
    const p = mod._malloc(text.length + 1);
    if (p === 0) throw new Error('malloc failed');
    try {
      const heap = mod.HEAPU8;
      for (let i = 0; i < text.length; i++) heap[p + i] = text.charCodeAt(i) & 0xff;
      heap[p + text.length] = 0;
      return f(p);
    } finally {
      mod._free(p);
    }
  }

  const vax780: Vax780Api = {
    loadImage,
    allocImage,
    create: createVax780,
    stopName: (reason) => (reason === Vax780Stop.Rebooted ? 'rebooted' : stopReasonName(reason)),
  };

  return { create, stopReasonName, vax780, module: mod };
}
