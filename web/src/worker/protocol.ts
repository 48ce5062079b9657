// The messages between the lab page (web/src/lab/controller.ts) and the lab
// worker (labWorker.ts), as discriminated unions on `type`.  Everything here
// is structured-clone data: no functions, no bigint.
//
// Page → worker: init once, then any number of run/stop and terminal-*.
// Worker → page: loading progress, ready, the run's stream (console, counter
// samples, progress, then exactly one of run-done / run-error), the terminal's
// stream, and the measured speed once a second while anything runs.
//
// Sweeps and runs on several workers (web/src/lab/pool.ts): the first
// worker, in a cross-origin isolated page, hands over the pack in a
// SharedArrayBuffer (pack: the chunked image's file, or the whole pack
// without one; emu/js/sharedPack.ts); the pool's workers start from it
// (init-shared: no download) and run units of a sweep
// (experiments/runner/sweep.ts) one at a time: units-check, units-run, units-stop; a unit
// running sends its progress and its counter samples (units-progress, counter-samples).
//
// Counter samples, a run's or a unit's, come in one message, counter-samples, a batch at a time (sampleBatches.ts),
// the last batch before the message that ends the run or unit.

import type { ExperimentResult } from '../../../experiments/runner/result';
import type { RunProgress } from '../../../experiments/runner/runner';
import type { CounterSample } from '../../../experiments/runner/counters';
import type { DiskTiming } from '../../../emu/js/constants';
import type { KernelCheck, SweepRequest } from '../../../experiments/runner/sweep';
import type { SharedPack } from '../../../emu/js/sharedPack';
import type { ImageManifest } from '../../../emu/js/diskImageLoader';
import type { MachineStarts } from '../../../experiments/runner/bootSnapshots';

export type { CounterSample, ExperimentResult, ImageManifest, MachineStarts, RunProgress };

export type Cpu = '750' | '780';
export type KernelName = '4.3BSD' | '4.2BSD';

/** A disk image the worker can load: its manifest (the installer's 43bsd.json),
 *  which names the gzip'd pack next to it. */
export interface ImageRef {
  kernel: KernelName;
  /** An absolute URL (the worker resolves nothing against its own location). */
  manifestUrl: string;
}

/** How one experiment run is set up (the runner's RunOptions, as data). */
export interface RunConfig {
  kernel: KernelName;
  cpu: Cpu;
  memoryMB: number;
  /** Kernel variables (the runner's `set`). */
  set: Record<string, number>;
  /** Experiment parameters (the runner's `parameters`). */
  parameters: Record<string, number>;
  /** The disk's timing (the runner's `disk`); absent: rp06. */
  disk?: DiskTiming;
  /** The disks' rotation (the runner's `spin`); absent: drifting. */
  spin?: 'locked';
  limitSeconds?: number;
  /** Profile each row's timed command (the runner's `profile`: RowResult.profile). */
  profile?: boolean;
  /** A kernel variant the installer built (experiments/kernels/variants.ts, by name) to boot instead of the
   *  experiment's own (ExperimentSpec.kernel: Table 2's is the paper's, Tables 7 and 8's like-4.2; else the image's
   *  /vmunix), or 'vmunix' for the image's /vmunix: the worker fetches a variant (once) when a run first asks for it. */
  variant?: string;
  /** Each step run with seeds 1..spinSeeds, the row the median run with its range (the runner's `spinSeeds`); absent: 1. */
  spinSeeds?: number;
}

/** Whose counter samples a counter-samples message carries: a run's (its runId), or a unit's of a sweep or of a run
 *  spread over the pool (the id of the units-run request). */
export type SamplesOwner = { kind: 'run'; runId: number } | { kind: 'unit'; id: number };

/** Counter samples taken since the last batch, in the order taken: the Counters panel draws them live (a run keeps
 *  them as its samples; a unit's result keeps its own series, so the page draws the unit's only while it runs). */
export interface CounterSamplesMessage {
  type: 'counter-samples';
  of: SamplesOwner;
  samples: CounterSample[];
}

export type ToWorker =
  /** Load the emulator and the first image in `images` (the others on demand). */
  | { type: 'init'; images: ImageRef[] }
  | { type: 'run'; runId: number; experiment: string; config: RunConfig }
  /** Stop the run: it ends with run-done, status 'failed', failure kind 'stopped'. */
  | { type: 'stop'; runId: number }
  /** Boot the multi-user system for the Terminal tab (restarts it if one is running). */
  | { type: 'terminal-start'; cpu: Cpu; memoryMB: number; realtime: boolean }
  /** Characters typed in the terminal (xterm's onData). */
  | { type: 'terminal-input'; text: string }
  /** The terminal's size (xterm's columns and rows): the console tty's window size. */
  | { type: 'terminal-size'; cols: number; rows: number }
  /** realtime: follow wall time; otherwise run as fast as the host can. */
  | { type: 'terminal-speed'; realtime: boolean }
  | { type: 'terminal-stop' }
  /** A worker of the pool: the emulator, and the pack the first worker loaded (shared, not copied); the
   *  image's manifest, whose machine snapshots it restores as the first worker does. */
  | { type: 'init-shared'; kernel: KernelName; pack: SharedPack; image: PackImage; images: ImageRef[]; manifest: ImageManifest | null }
  /** The checks of a sweep's settings that need the kernel (before any unit runs): units-checked.
   *  A sweep over kernel variants (or with one) has the worker fetch those first. */
  | { type: 'units-check'; id: number; kernel: KernelName; request: SweepRequest }
  /** Runs one unit of the sweep (one step of one point, or one seed of it): units-progress, then units-done or units-failed. */
  | { type: 'units-run'; id: number; kernel: KernelName; request: SweepRequest; unit: number }
  /** Stops the unit running: it ends with its step 'stopped' (units-done). */
  | { type: 'units-stop' };

/** The pack's name and SHA-256, as results record them. */
export interface PackImage {
  name: string;
  sha256?: string;
}

/** emulator: vax.wasm; image: the pack downloading; verify: its SHA-256 being checked. */
export type LoadPhase = 'emulator' | 'image' | 'verify';

export type TerminalPhase = 'off' | 'booting' | 'running' | 'stopped' | 'error';

export type FromWorker =
  /** loaded/total: bytes of the image written so far / its size (decompressed). */
  | { type: 'loading'; phase: LoadPhase; kernel: KernelName; loaded: number; total: number | null }
  | {
      type: 'ready';
      kernel: KernelName;
      /** compressedBytes: the file downloaded (the chunked image, or the gzipped pack); chunked: the pack is read
       *  from the chunked image, a chunk decompressed the first time it is read, never unpacked whole. */
      image: { name: string; sha256?: string; bytes: number; compressedBytes: number; chunked?: boolean };
      /** The kernel variants the image's manifest lists (fetched only when a run asks for one). */
      variants: string[];
      wasmMs: number;
      imageMs: number;
    }
  /** The worker cannot go on (no emulator, no image). */
  | { type: 'fatal'; message: string }
  | { type: 'run-started'; runId: number }
  /** A kernel variant is being fetched (the first time it is asked for); runId: the run that asked (a sweep's check
   *  or unit has none). */
  | { type: 'kernel-loading'; variant: string; runId?: number }
  | { type: 'run-console'; runId: number; text: string }
  | CounterSamplesMessage
  | { type: 'run-progress'; runId: number; progress: RunProgress; hostSeconds: number }
  /** The result so far: before the first step (no rows), then after each (the runner's onPartial). */
  | { type: 'run-partial'; runId: number; result: ExperimentResult }
  /** The run finished (its rows may have failed, or been stopped). */
  | { type: 'run-done'; runId: number; result: ExperimentResult; hostSeconds: number }
  /** The run could not run at all (an exception, not a failed row). */
  | { type: 'run-error'; runId: number; message: string }
  | { type: 'terminal-output'; text: string }
  | {
      type: 'terminal-status';
      phase: TerminalPhase;
      message?: string;
      virtualSeconds: number;
      realtime: boolean;
    }
  /** VAX instructions per host second over the last second, all machines together. */
  | { type: 'speed'; instructionsPerSecond: number; running: { run: boolean; terminal: boolean } }
  /** The pack, in shared memory, for the pool's workers (only when the page is cross-origin isolated). */
  | { type: 'pack'; kernel: KernelName; pack: SharedPack; image: PackImage; images: ImageRef[]; manifest: ImageManifest | null }
  | ({ type: 'units-checked'; id: number } & KernelCheck)
  | { type: 'units-progress'; id: number; progress: RunProgress }
  /** starts: how the unit's machines started (restored from a snapshot, or booted). */
  | { type: 'units-done'; id: number; result: ExperimentResult; starts: MachineStarts }
  /** The unit could not run (an exception, not a failed step). */
  | { type: 'units-failed'; id: number; message: string };

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : e.message;
  return String(e);
}
