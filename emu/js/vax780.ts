// The whole VAX-11/780 as emu/wasm/vax780_wasm.c builds it (a vax780w * in
// the wasm heap): processor, memory, console, disk over a shared DiskImage
// (diskImage.ts), booted from 4.3BSD's /boot or with the kernel loaded by the
// host — or, without a disk, started by the console's LOAD and START — run in
// slices, its console typed at and read, its counters read.

import {
  CPU_MODELS, DISK_TIMINGS, DISK_TYPES, RA_BLOCKS, RB_SINGLE, StopReason, VAX780_PANICKED, VAX780_REBOOTED,
  type CpuModel, type DiskTiming, type DiskType,
} from './constants';
import type { DiskImage, DiskImages } from './diskImage';
import { hex32, toU64, withString, type VaxWasmModule } from './wasm';

/** What Vax780.run() reports: a vax_stop_reason, or beyond the processor's
 *  stops: the kernel asked for a reboot and got it (multi-user, as the
 *  console does; not a stop, keep running), or the kernel panicked
 *  (panicMessage() says what). */
export const Vax780Stop = { ...StopReason, Rebooted: VAX780_REBOOTED, Panicked: VAX780_PANICKED } as const;
export type Vax780Stop = (typeof Vax780Stop)[keyof typeof Vax780Stop];

export interface Vax780Options {
  /** Physical memory in MB: 0.25 to 64 in steps of 0.25 (256 KB, an MS780-C array), e.g. 4.5 (the
   *  CLI's --mem; 8 is the 780 the paper measured, 4.5 its Table 2 and Table 7 750). */
  memoryMB: number;
  /** The RP06 pack (hp0).  A DiskImage (loadImage/allocImage) is shared:
   *  the system reads it and keeps its own writes in a copy-on-write
   *  overlay, so the image stays pristine and creating a system copies
   *  nothing.  A Uint8Array still works: it is copied into a private image
   *  for this system alone (174 MB each time for the RP06), freed with it.
   *  Either a disk (and boot) or console, not both. */
  disk?: DiskImage | Uint8Array;
  /** Single-user (RB_SINGLE) or multi-user; a reboot is always multi-user. */
  boot?: 'single' | 'multi';
  /** Instead of booting a disk: the 780 console's LOAD and START (the CLI's
   *  --load FILE@ADDR --start ADDR --reg NAME=VALUE), for DEC's standalone
   *  diagnostics.  The system then has no disk. */
  console?: ConsoleStart;
  /** Load /vmunix from the host instead of running /boot (the CLI's --direct). */
  direct?: boolean;
  /** Kernel longword variables to patch before the kernel runs, by name
   *  without the underscore (the CLI's --set NAME=VALUE); needs direct.  A
   *  value is the longword as unsigned (0 to 2^32 - 1) or as a C int
   *  (-2^31 to -1: maxtextcache's -1 is written as 0xFFFFFFFF). */
  set?: Record<string, number>;
  /** The processor modelled (the CLI's --cpu; emu/docs/timing.md): '780'
   *  (the default) or '750', each with its own microcycle, cache and
   *  translation buffer. */
  cpuModel?: CpuModel;
  /** Scales the cost model by nsPerInstruction / 2000 (default 2000: as it
   *  is).  3333 on the 780 model is the old preset "a 750 is 0.6 of a 780". */
  nsPerInstruction?: number;
  /** The disks' spin seed (the CLI's --disk-spin; emu/src/massbus/rp.h):
   *  0 (the default) turns the platters in step with virtual time; N > 0
   *  finds them at a pseudo-random angle at each command, from seed N, as a
   *  spindle not locked to the processor's clock would drift; the same seed
   *  delays each interval-clock interrupt by a pseudo-random fraction of half
   *  a period (emu/src/system/clock.h), so the statistical clock samples the
   *  work instead of falling into step with a loop. */
  diskSpinSeed?: number;
  /** The platters in step with virtual time whatever diskSpinSeed says,
   *  which then draws only the interval clock's delays (vax780w_lock_disk_spin):
   *  a loop that waits for a disk locks onto its rotation, as on a real
   *  machine, and its iterations last whole turns (emu/docs/timing.md, "Whole
   *  turns").  Default false. */
  diskSpinLocked?: boolean;
  /** The disk's timing (the CLI's --disk-timing; emu/src/massbus/rp.c,
   *  "Timing profiles"): 'rp06' (DEC RP06, the default), 'eagle' (a Fujitsu
   *  M2351 Eagle: 3961 rpm, 1.86 MB/s, 18 ms average seek) or 'ideal' (not
   *  a real drive: no seek or rotational latency, the RP06's transfer time
   *  only).  Timing only: the pack, and the geometry 4.3BSD sees, stay the
   *  RP06's (22 sectors x 19 tracks x 815 cylinders). */
  diskTiming?: DiskTiming;
  /** A second RP06 (hp1, drive 1 of the same MASSBUS) over another
   *  copy-on-write view of the same pack (vax780w_add_second_drive): the
   *  guest can mount a file system from it, e.g. /usr from /dev/hp1g, and
   *  read it with another arm than the one over root and swap, as on the
   *  paper's 750 ("two disks on a MASSBUS controller").  The two views do not
   *  see each other's writes: mount each file system from one drive only.
   *  RP06 systems only (default false). */
  secondDrive?: boolean;
  /** An a.out kernel to boot instead of the disk's /vmunix (the CLI's
   *  --kernel-file), e.g. a kernel variant the installer built
   *  (experiments/kernels); needs direct.  `set`, kernelSymbols() and the
   *  panic watch then use its symbol table; a reboot boots it again. */
  kernel?: Uint8Array;
  /** The drive that holds `disk`: 'RP06' (hp0 on the MASSBUS, the default),
   *  or an RA drive on the UDA50 (ra0; emu/src/unibus/uda50.h), which 4.3BSD
   *  boots from with R10 = ra.  An RA image may be shorter than its pack:
   *  the rest reads as zeros (DEC's diagnostic disk is 1.2 MB of an RA81). */
  diskType?: DiskType;
  /** Boot as the 780 console's BOOT command does, through DEC's primary
   *  bootstrap VMB (the bytes of vmb.exe) from ra0 with R5 = flags (0x10:
   *  stop in the Diagnostic Supervisor), at creation and at every reboot;
   *  `boot` and `set` then do not apply and `direct` is refused.  Needs an
   *  RA diskType (the CLI's --console-boot vmb=FILE --boot-flags N). */
  consoleBoot?: { vmb: Uint8Array; flags?: number };
  /** Profile from the first instruction (emu/src/profile/profile.h; the
   *  guest runs exactly as without it): see Vax780System.profileJson.  With
   *  `restore`, from the restored state on. */
  profile?: boolean;
  /** Instead of booting: a machine snapshot (Vax780System.snapshot) of a
   *  system created with these same options (memory, processor, disk and its
   *  timing and spin seed, boot, direct, set, kernel) over the same image,
   *  whose state this one takes: it then runs on exactly as the saved one
   *  would have (emu/src/snapshot/snap.h).  Refused, with the reason, when it
   *  is not a snapshot, is damaged, comes from another emulator build or
   *  image, or the options differ. */
  restore?: Uint8Array;
}


/** Registers a console command file may deposit before START. */
export type ConsoleRegister =
  | 'r0' | 'r1' | 'r2' | 'r3' | 'r4' | 'r5' | 'r6' | 'r7' | 'r8' | 'r9' | 'r10' | 'r11' | 'r12' | 'r13'
  | 'ap' | 'fp' | 'sp';

/** The console's LOAD and START (emu/src/boot/standalone.h). */
export interface ConsoleStart {
  /** Bytes written "as is" at physical addresses, in order. */
  load: { address: number; data: Uint8Array }[];
  /** The physical address START begins at, with the processor as after
   *  INIT: kernel mode, interrupt stack, IPL 31, memory management off. */
  start: number;
  /** Registers set after INIT (otherwise 0; SP the top of memory). */
  registers?: Partial<Record<ConsoleRegister, number>>;
}

const CONSOLE_REGISTER_NUMBER: Record<ConsoleRegister, number> = {
  r0: 0, r1: 1, r2: 2, r3: 3, r4: 4, r5: 5, r6: 6, r7: 7, r8: 8, r9: 9, r10: 10, r11: 11, r12: 12, r13: 13,
  ap: 12, fp: 13, sp: 14,
};

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
  /** Types as much of text as the console's input queue has room for (in
   *  order, from the start); returns how many characters it took.  A caller
   *  keeps the rest for later (the Terminal tab's long pastes). */
  typeSome(text: string): number;
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
  /** Only the counters named (those the model has; the others are left out):
   *  what a sampler reads once a virtual second, without building the whole
   *  set of over 600 each time. */
  hardwareStatsOf(names: readonly string[]): Record<string, number>;
  /** How many times the guest rebooted itself. */
  reboots(): number;
  /** Why the last run stopped, in words. */
  stopDetail(): string;
  /** The kernel's panic message (what follows "panic: "), '' if it has not
   *  panicked; read from the kernel's panicstr, never from the console text. */
  panicMessage(): string;
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
  /** Writes bytes into kernel memory at a system-space address (the Terminal
   *  tab sets the console tty's window size this way, as TIOCSWINSZ would). */
  writeKernel(address: number, bytes: Uint8Array): void;
  /** The vax_machine * underneath (for the bare-machine functions of the raw module). */
  readonly machinePtr: number;
  /** The profiler (emu/src/system/session.h): start (on from now, or zero the
   *  counts if on), clear (zero the counts: what follows is profiled on its
   *  own), stop (off).  Profiling changes nothing the guest sees. */
  profileStart(): void;
  profileClear(): void;
  profileStop(): void;
  /** The profile so far: the "vaxlab-profile-raw" JSON text
   *  (experiments/profile reads it), or null when profiling is off. */
  profileJson(): string | null;
  /** A machine snapshot of the whole system as it is now (between runs):
   *  processor, memory, TB and cache simulations, devices and their pending
   *  events, the disk's written chunks, console output not read yet, what
   *  the session watches.  `host` (bytes of the caller's own: say, the
   *  console transcript so far) travels in it and comes back from
   *  restoredHost().  Restore it with Vax780Options.restore. */
  snapshot(host?: Uint8Array): Uint8Array;
  /** The host bytes of the snapshot this system was restored from, or null. */
  restoredHost(): Uint8Array | null;
}

/** The module's disk images (diskImage.ts, where each is described) and its systems. */
export interface Vax780Api extends Omit<DiskImages, 'owns' | 'lease'> {
  /** Creates the system, loads the disk and boots it (or restores a snapshot: ready to run()). */
  create(options: Vax780Options): Vax780System;
  stopName(reason: Vax780Stop | number): string;
}

export function vax780Systems(
  mod: VaxWasmModule, images: DiskImages, stopReasonName: (reason: number) => string,
): Vax780Api {
  const ERR_LEN = 256;
  let hardwareStatNames: string[] | undefined; // vax780w_stats_names(), read once
  let hardwareStatIndex: Map<string, number> | undefined; // each name's place in vax780w_stats()'s array
  const statNames = (): string[] => (hardwareStatNames ??= mod.UTF8ToString(mod._vax780w_stats_names()).split(','));
  /** vax780w_stats() into a scratch array, then `use` on its n words (BigUint64 little-endian). */
  const withStats = <T>(w: number, use: (view: DataView, n: number) => T): T => {
    const names = statNames();
    const p = mod._malloc(names.length * 8);
    if (p === 0) throw new Error('malloc failed');
    try {
      const n = Math.min(mod._vax780w_stats(w, p, names.length) >>> 0, names.length);
      return use(new DataView(mod.HEAPU8.buffer, p, n * 8), n);
    } finally {
      mod._free(p);
    }
  };

  function createVax780(options: Vax780Options): Vax780System {
    const { memoryMB, disk, direct = false, set = {}, nsPerInstruction, diskTiming, diskType = 'RP06', consoleBoot, kernel,
      cpuModel, diskSpinSeed, diskSpinLocked = false, secondDrive = false, profile = false, restore } = options;
    if (restore !== undefined && (!(restore instanceof Uint8Array) || restore.length === 0)) {
      throw new TypeError('restore: the bytes of a machine snapshot (Vax780System.snapshot)');
    }
    if (kernel !== undefined && (!direct || !(kernel instanceof Uint8Array) || kernel.length === 0 || consoleBoot !== undefined)) {
      throw new Error('kernel: a non-empty Uint8Array, with direct (the host loads the kernel), not with consoleBoot');
    }
    if (options.console !== undefined) {
      if (restore !== undefined) throw new Error('restore needs a disk: a system started by LOAD and START is not restored');
      if (disk !== undefined || options.boot !== undefined || direct || Object.keys(set).length > 0 || consoleBoot !== undefined) {
        throw new Error('console (LOAD and START) replaces booting: not with disk, boot, direct, set or consoleBoot');
      }
      return createDiskless(options, options.console);
    }
    if (disk === undefined) throw new TypeError('a disk (or console LOAD and START) is needed');
    if (!(DISK_TYPES as readonly string[]).includes(diskType)) {
      throw new RangeError(`diskType must be one of ${DISK_TYPES.join(', ')}, got ${String(diskType)}`);
    }
    if (diskType !== 'RP06') {
      const size = disk instanceof Uint8Array ? disk.length : disk.size;
      const max = RA_BLOCKS[diskType] * 512;
      if (size > max || size % 512 !== 0) {
        throw new RangeError(`an ${diskType} image is at most ${max} bytes in whole 512-byte blocks, not ${size}`);
      }
    }
    if (consoleBoot !== undefined) {
      if (diskType === 'RP06') throw new Error('consoleBoot boots VMB from the UDA50: it needs an RA diskType');
      if (direct || Object.keys(set).length > 0) throw new Error('consoleBoot boots through VMB: not with direct or set');
      if (!(consoleBoot.vmb instanceof Uint8Array) || consoleBoot.vmb.length === 0 || consoleBoot.vmb.length % 512 !== 0) {
        throw new RangeError('consoleBoot.vmb must be the bytes of VMB: a whole number of 512-byte blocks');
      }
      const flags = consoleBoot.flags ?? 0;
      if (!Number.isInteger(flags) || flags < 0 || flags > 0xffff_ffff) {
        throw new RangeError(`consoleBoot.flags must be an integer from 0 to 0xFFFFFFFF, got ${flags}`);
      }
    }
    // VMB boots what the disk says; the BSD boot flags do not apply.
    const boot = consoleBoot !== undefined ? options.boot ?? 'single' : options.boot;
    if (diskTiming !== undefined && !(DISK_TIMINGS as readonly string[]).includes(diskTiming)) {
      throw new RangeError(`diskTiming must be one of ${DISK_TIMINGS.join(', ')}, got ${String(diskTiming)}`);
    }
    if (nsPerInstruction !== undefined && (!Number.isInteger(nsPerInstruction) || nsPerInstruction < 1 || nsPerInstruction > 1_000_000)) {
      throw new RangeError(`nsPerInstruction must be an integer from 1 to 1000000, got ${nsPerInstruction}`);
    }
    if (cpuModel !== undefined && !(CPU_MODELS as readonly string[]).includes(cpuModel)) {
      throw new RangeError(`cpuModel must be one of ${CPU_MODELS.join(', ')}, got ${String(cpuModel)}`);
    }
    if (diskSpinSeed !== undefined && (!Number.isInteger(diskSpinSeed) || diskSpinSeed < 0 || diskSpinSeed > 0xffff_ffff)) {
      throw new RangeError(`diskSpinSeed must be an integer from 0 to 4294967295, got ${diskSpinSeed}`);
    }
    if (typeof secondDrive !== 'boolean') throw new TypeError(`secondDrive must be a boolean, got ${String(secondDrive)}`);
    if (secondDrive && diskType !== 'RP06') throw new Error('secondDrive: a second RP06 needs an RP06 system');
    if (typeof memoryMB !== 'number' || !Number.isInteger(memoryMB * 4) || memoryMB < 0.25 || memoryMB > 64) {
      throw new RangeError(`memoryMB must be a multiple of 0.25 (256 KB) from 0.25 to 64, got ${String(memoryMB)}`);
    }
    if (disk instanceof Uint8Array) {
      if (disk.length === 0 || disk.length > 0xffff_ffff) {
        throw new RangeError('disk must be a DiskImage or a non-empty Uint8Array under 4 GB');
      }
    } else if (!images.owns(disk)) {
      throw new TypeError('disk must be a DiskImage of this module (vax780.loadImage/allocImage/sharedImage) or a Uint8Array');
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
      // A 32-bit word, written as its two's complement when negative (below): a signed variable's -1, such as
      // maxtextcache's, is one a kernel may be given.
      if (!Number.isInteger(value) || value < -0x8000_0000 || value > 0xffff_ffff) {
        throw new RangeError(`set ${name}: value must be an integer from -2147483648 to 4294967295, got ${value}`);
      }
    }

    // A Uint8Array becomes a private image, disposed at once: with this
    // system counted as its user it then lives exactly as long as the
    // system (and goes here if creation fails).
    const image = disk instanceof Uint8Array ? images.loadImage(disk) : disk;
    const st = images.lease(image);
    if (image !== disk) image.dispose();
    const release = st.release;
    const errPtr = mod._malloc(ERR_LEN);
    let handle = 0;
    try {
      if (errPtr === 0) throw new Error('malloc failed');
      // The system reads the image through its own copy-on-write overlay
      // and never writes it; the image stays ours (st) to free.
      const howto = boot === 'single' ? RB_SINGLE : 0;
      // A chunked image is decompressed as the system reads it; an image in
      // JavaScript memory (sharedImage), or whose chunks are in memory shared
      // with other workers (openSharedChunked), is read through the vaxImageRead import.
      handle = st.kind === 'chunked'
        ? withString(mod, diskType === 'RP06' ? '' : diskType, (t) =>
          mod._vax780w_create_chunked(memoryMB * 1024, st.ptr, t, direct ? 1 : 0, howto, errPtr, ERR_LEN))
        : st.source !== 0 // 'js' and 'shared-chunked': read through vaxImageRead
          ? withString(mod, diskType === 'RP06' ? '' : diskType, (t) =>
            mod._vax780w_create_js(memoryMB * 1024, st.source, st.size, t, direct ? 1 : 0, howto, errPtr, ERR_LEN))
          : diskType === 'RP06'
            ? mod._vax780w_create(memoryMB * 1024, st.ptr, st.size, direct ? 1 : 0, howto, errPtr, ERR_LEN)
            : withString(mod, diskType, (t) => mod._vax780w_create_ra(memoryMB * 1024, st.ptr, st.size, t, direct ? 1 : 0, howto, errPtr, ERR_LEN));
      if (handle === 0) throw new Error(`vax780 create: ${mod.UTF8ToString(errPtr)}`);
    } catch (e) {
      release();
      throw e;
    } finally {
      if (errPtr !== 0) mod._free(errPtr);
    }
    const lastError = (): string => mod.UTF8ToString(mod._vax780w_error(handle));
    try {
      // Before the disk timing and the spin seed, which apply to every drive.
      if (secondDrive && mod._vax780w_add_second_drive(handle) !== 0) throw new Error(`secondDrive: ${lastError()}`);
      if (cpuModel !== undefined && mod._vax780w_set_cpu_model(handle, Number(cpuModel)) !== 0) {
        throw new Error(`cpuModel: ${lastError()}`);
      }
      if (nsPerInstruction !== undefined && mod._vax780w_set_ns_per_instruction(handle, nsPerInstruction) !== 0) {
        throw new Error(`nsPerInstruction: ${lastError()}`);
      }
      if (diskTiming !== undefined) {
        withString(mod, diskTiming, (p) => {
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
      if (diskSpinSeed !== undefined && mod._vax780w_set_disk_spin_seed(handle, diskSpinSeed >>> 0) !== 0) {
        throw new Error(`diskSpinSeed: ${lastError()}`);
      }
      if (diskSpinLocked && mod._vax780w_lock_disk_spin(handle) !== 0) throw new Error(`diskSpinLocked: ${lastError()}`);
      for (const [name, value] of settings) {
        withString(mod, name, (p) => {
          if (mod._vax780w_add_setting(handle, p, value >>> 0) !== 0) throw new Error(`set ${name}: ${lastError()}`);
        });
      }
      if (consoleBoot !== undefined) {
        const vmb = consoleBoot.vmb;
        const p = mod._malloc(vmb.length);
        if (p === 0) throw new Error('malloc failed');
        try {
          mod.HEAPU8.set(vmb, p);
          if (mod._vax780w_set_vmb(handle, p, vmb.length, (consoleBoot.flags ?? 0) >>> 0) !== 0) {
            throw new Error(`consoleBoot: ${lastError()}`);
          }
        } finally {
          mod._free(p);
        }
      }
      if (profile && mod._vax780w_profile_start(handle) !== 0) throw new Error(`profile: ${lastError()}`);
      if (restore !== undefined) {
        const p = mod._malloc(restore.length + 32);
        if (p === 0) throw new Error('restore: malloc failed');
        try {
          mod.HEAPU8.set(st.identity, p);
          mod.HEAPU8.set(restore, p + 32);
          if (mod._vax780w_restore(handle, p + 32, restore.length, p) !== 0) throw new Error(lastError());
        } finally {
          mod._free(p);
        }
      } else if (mod._vax780w_boot(handle) !== 0) {
        throw new Error(`boot: ${lastError()}`);
      }
    } catch (e) {
      mod._vax780w_destroy(handle);
      release();
      throw e;
    }

    return systemObject(handle, release, st.identity);
  }

  /** A system without a disk, started by the console's LOAD and START. */
  function createDiskless(options: Vax780Options, con: ConsoleStart): Vax780System {
    const { memoryMB, nsPerInstruction, diskTiming, kernel, cpuModel } = options;
    if (diskTiming !== undefined) throw new Error('diskTiming needs a disk');
    if (options.secondDrive) throw new Error('secondDrive needs a disk');
    if (kernel !== undefined) throw new Error('kernel needs a disk (the kernel mounts its root from hp0)');
    if (cpuModel !== undefined && !(CPU_MODELS as readonly string[]).includes(cpuModel)) {
      throw new RangeError(`cpuModel must be one of ${CPU_MODELS.join(', ')}, got ${String(cpuModel)}`);
    }
    if (!Array.isArray(con.load) || con.load.length === 0) throw new RangeError('console.load: at least one { address, data }');
    const u32 = (v: unknown, what: string): number => {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff_ffff) {
        throw new RangeError(`${what} must be an integer from 0 to 0xFFFFFFFF, got ${String(v)}`);
      }
      return v;
    };
    for (const [i, seg] of con.load.entries()) {
      u32(seg.address, `console.load[${i}].address`);
      if (!(seg.data instanceof Uint8Array) || seg.data.length === 0) throw new RangeError(`console.load[${i}].data: non-empty bytes`);
    }
    u32(con.start, 'console.start');
    const regs = Object.entries(con.registers ?? {}).map(([name, v]) => {
      if (!Object.hasOwn(CONSOLE_REGISTER_NUMBER, name)) {
        throw new RangeError(`console.registers: unknown register "${name}" (r0..r13, ap, fp, sp)`);
      }
      return [CONSOLE_REGISTER_NUMBER[name as ConsoleRegister], u32(v, `console.registers.${name}`)] as const;
    });
    const errPtr = mod._malloc(ERR_LEN);
    if (errPtr === 0) throw new Error('malloc failed');
    let handle = 0;
    try {
      handle = mod._vax780w_create(memoryMB * 1024, 0, 0, 0, 0, errPtr, ERR_LEN);
      if (handle === 0) throw new Error(`vax780 create: ${mod.UTF8ToString(errPtr)}`);
    } finally {
      mod._free(errPtr);
    }
    const lastError = (): string => mod.UTF8ToString(mod._vax780w_error(handle));
    try {
      if (cpuModel !== undefined && mod._vax780w_set_cpu_model(handle, Number(cpuModel)) !== 0) {
        throw new Error(`cpuModel: ${lastError()}`);
      }
      if (nsPerInstruction !== undefined && mod._vax780w_set_ns_per_instruction(handle, nsPerInstruction) !== 0) {
        throw new Error(`nsPerInstruction: ${lastError()}`);
      }
      for (const [i, seg] of con.load.entries()) {
        const p = mod._malloc(seg.data.length);
        if (p === 0) throw new Error('malloc failed');
        try {
          mod.HEAPU8.set(seg.data, p);
          if (mod._vax780w_console_load(handle, seg.address >>> 0, p, seg.data.length) !== 0) {
            throw new RangeError(`console.load[${i}]: ${lastError()}`);
          }
        } finally {
          mod._free(p);
        }
      }
      if (options.profile && mod._vax780w_profile_start(handle) !== 0) throw new Error(`profile: ${lastError()}`);
      if (mod._vax780w_console_start(handle, con.start >>> 0) !== 0) throw new RangeError(`console.start: ${lastError()}`);
      const machine = mod._vax780w_machine(handle);
      for (const [n, v] of regs) mod._vax_set_reg(machine, n, v >>> 0);
    } catch (e) {
      mod._vax780w_destroy(handle);
      throw e;
    }
    return systemObject(handle, () => {}, null);
  }

  /** The Vax780System over a created and started vax780w handle; release
   *  runs once, after destroy(). */
  function systemObject(created: number, release: () => void, identity: Uint8Array | null): Vax780System {
    let handle = created;
    const lastError = (): string => mod.UTF8ToString(mod._vax780w_error(handle));
    const h = (): number => {
      if (handle === 0) throw new Error('Vax780System used after destroy()');
      return handle;
    };
    const READ_CHUNK = 65536;
    /** Queues what fits of text (the C side takes at most 8192 pending); how many characters it took. */
    const typeSome = (text: string): number => {
      const w = h();
      if (text.length === 0) return 0;
      const p = mod._malloc(text.length);
      if (p === 0) throw new Error('malloc failed');
      try {
        const heap = mod.HEAPU8;
        for (let i = 0; i < text.length; i++) heap[p + i] = text.charCodeAt(i) & 0xff;
        return mod._vax780w_type(w, p, text.length) >>> 0;
      } finally {
        mod._free(p);
      }
    };

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
        const n = typeSome(text);
        if (n < text.length) {
          throw new RangeError(`console input overflow: ${text.length - n} of ${text.length} characters not queued`);
        }
      },
      typeSome,
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
        const names = statNames();
        return withStats(h(), (view, n) => {
          const out: Record<string, number> = {};
          for (let i = 0; i < n; i++) out[names[i]] = Number(view.getBigUint64(i * 8, true));
          return out;
        });
      },
      hardwareStatsOf(wanted) {
        const index = (hardwareStatIndex ??= new Map(statNames().map((name, i) => [name, i])));
        return withStats(h(), (view, n) => {
          const out: Record<string, number> = {};
          for (const name of wanted) {
            const i = index.get(name);
            if (i !== undefined && i < n) out[name] = Number(view.getBigUint64(i * 8, true));
          }
          return out;
        });
      },
      reboots() {
        return mod._vax780w_reboots(h()) >>> 0;
      },
      stopDetail() {
        const p = mod._vax780w_stop_detail(h());
        return p ? mod.UTF8ToString(p) : '';
      },
      panicMessage() {
        return mod.UTF8ToString(mod._vax780w_panic(h()));
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
            const found = withString(mod, batch.join('\n'), (p) => mod._vax780w_kernel_symbols(w, p, vals, batch.length));
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
      profileStart() {
        if (mod._vax780w_profile_start(h()) !== 0) throw new Error(`profileStart: ${lastError()}`);
      },
      profileClear() {
        mod._vax780w_profile_clear(h());
      },
      profileStop() {
        mod._vax780w_profile_stop(h());
      },
      profileJson() {
        const w = h();
        const p = mod._vax780w_profile_json(w);
        if (p === 0) return null;
        // The dump is ASCII (profile.c escapes the rest), so bytes are characters.
        return new TextDecoder('latin1').decode(mod.HEAPU8.subarray(p, p + (mod._vax780w_profile_json_length(w) >>> 0)));
      },
      snapshot(host) {
        const w = h();
        if (identity === null) throw new Error('snapshot: a system without a disk is not saved');
        if (host !== undefined && !(host instanceof Uint8Array)) throw new TypeError('snapshot: host must be a Uint8Array');
        const hostLen = host?.length ?? 0;
        const p = mod._malloc(32 + hostLen);
        if (p === 0) throw new Error('snapshot: malloc failed');
        try {
          mod.HEAPU8.set(identity, p);
          if (host) mod.HEAPU8.set(host, p + 32);
          const s = mod._vax780w_snapshot(w, p, p + 32, hostLen);
          if (s === 0) throw new Error(lastError());
          const bytes = mod.HEAPU8.slice(s, s + (mod._vax780w_snapshot_length(w) >>> 0));
          mod._vax780w_snapshot_free(w);
          return bytes;
        } finally {
          mod._free(p);
        }
      },
      restoredHost() {
        const w = h();
        const p = mod._vax780w_restored_host(w);
        return p === 0 ? null : mod.HEAPU8.slice(p, p + (mod._vax780w_restored_host_length(w) >>> 0));
      },
      writeKernel(address, bytes) {
        const w = h();
        if (!Number.isInteger(address) || address < 0x8000_0000 || address + bytes.length > 0x1_0000_0000) {
          throw new RangeError(`writeKernel: ${hex32(address)} is not a system-space address`);
        }
        if (bytes.length === 0) return;
        if (bytes.length > 1 << 20) throw new RangeError(`writeKernel: length ${bytes.length}`);
        const p = mod._malloc(bytes.length);
        if (p === 0) throw new Error('malloc failed');
        try {
          mod.HEAPU8.set(bytes, p);
          if (mod._vax_phys_write(mod._vax780w_machine(w), address - 0x8000_0000, p, bytes.length) !== 0) {
            throw new RangeError(`writeKernel ${hex32(address)}+${bytes.length} outside memory`);
          }
        } finally {
          mod._free(p);
        }
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

  return {
    loadImage: images.loadImage,
    allocImage: images.allocImage,
    openChunked: images.openChunked,
    openSharedChunked: images.openSharedChunked,
    sharedImage: images.sharedImage,
    allocSharedImage: images.allocSharedImage,
    create: createVax780,
    stopName: (reason) => (reason === Vax780Stop.Rebooted ? 'rebooted'
      : reason === Vax780Stop.Panicked ? 'kernel panic' : stopReasonName(reason)),
  };
}
