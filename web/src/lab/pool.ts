// The page's pool of Web Workers for sweeps and for runs spread over
// several workers (experiments/runner/sweep.ts: units, each one step of one
// point, or with several seeds one seed of it).  Each worker is the lab worker's script (web/src/worker) started
// from the pack the first worker loaded, in a SharedArrayBuffer (the page is
// cross-origin isolated: vite.config.ts sends COOP/COEP; emu/js/sharedPack.ts):
// the chunked image's compressed file (about 5 MB), which each worker opens,
// and the cache of its decompressed chunks that they all share (each chunk
// decompressed once: emu/js/sharedChunkCache.ts), or without one the
// whole 174 MB pack, one copy that every worker reads; each machine writes
// into its own copy-on-write overlay.  Without shared memory (a page that is not
// isolated) the pool is unavailable and everything runs on the first
// worker, one unit after the other, as before.  No React.

import type { ExperimentResult } from '../../../experiments/runner/result';
import type { RunProgress } from '../../../experiments/runner/runner';
import type { SweepRequest, UnitExecutor } from '../../../experiments/runner/sweep';
import type {
  CounterSample, FromWorker, ImageManifest, ImageRef, KernelName, MachineStarts, PackImage, ToWorker,
} from '../worker/protocol';
import type { SharedPack } from '../../../emu/js/sharedPack';

/** What the pool needs of a worker (a Worker, or a fake in tests). */
export interface PoolPort {
  postMessage(message: ToWorker): void;
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  terminate(): void;
}

export interface Pack {
  kernel: KernelName;
  pack: SharedPack;
  image: PackImage;
  /** The images' manifests (where a pool worker finds the kernel variants a run or sweep asks for). */
  images: ImageRef[];
  /** The image's manifest: the machine snapshots it ships, which pool workers restore as the first worker does. */
  manifest: ImageManifest | null;
}

/** Told how each unit's machines started, and on which executor (0 = the first). */
export type StartsListener = (starts: MachineStarts, executor: number) => void;

/** The machine's cores (navigator.hardwareConcurrency), at least 1. */
export function cores(): number {
  const n = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 0;
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** The default number of workers: the cores less one (one for the page), at least 1. */
export function defaultJobs(): number {
  return Math.max(1, cores() - 1);
}

/** What a units request is told as its unit runs: its progress, its counter samples (a batch at a time). */
export interface UnitListeners {
  onProgress?: (p: RunProgress) => void;
  onSamples?: (samples: CounterSample[]) => void;
}

type Pending = { resolve: (m: FromWorker) => void; reject: (e: Error) => void; listeners: UnitListeners };
type UnitReply = Extract<FromWorker, { type: 'units-checked' | 'units-progress' | 'units-done' | 'units-failed' }>;

/** A units request's reply or progress, or not a units message at all (a unit's samples: handle). */
function isUnitReply(m: FromWorker): m is UnitReply {
  return m.type === 'units-checked' || m.type === 'units-progress' || m.type === 'units-done' || m.type === 'units-failed';
}

/**
 * A worker's units requests waiting for their replies: each request gets an
 * id, its progress and samples go to its listeners, its reply settles it
 * (units-failed as an error).  The pool's workers and the page's first worker share it.
 */
export class UnitRequests {
  private pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly post: (m: ToWorker) => void) {}

  request(m: Extract<ToWorker, { id: number }>, listeners: UnitListeners = {}): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject, listeners });
      this.post({ ...m, id });
    });
  }

  /** Settles the request `m` answers; false when `m` is not a units reply. */
  handle(m: FromWorker): boolean {
    if (m.type === 'counter-samples') {
      // A unit's samples (a run's are the run's: state/runs.ts).
      if (m.of.kind !== 'unit') return false;
      this.pending.get(m.of.id)?.listeners.onSamples?.(m.samples);
      return true;
    }
    if (!isUnitReply(m)) return false;
    const p = this.pending.get(m.id);
    if (!p) return true;
    if (m.type === 'units-progress') {
      p.listeners.onProgress?.(m.progress);
      return true;
    }
    this.pending.delete(m.id);
    if (m.type === 'units-failed') p.reject(new Error(m.message));
    else p.resolve(m);
    return true;
  }

  /** Every waiting request fails with `e` (the worker died). */
  failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

/** One worker of the pool: started once from the pack, then any number of units, one at a time. */
class PoolWorker {
  private readonly requests: UnitRequests;
  private dead: Error | null = null;
  readonly ready: Promise<void>;

  constructor(private readonly port: PoolPort, pack: Pack) {
    this.requests = new UnitRequests((m) => port.postMessage(m));
    let ready!: () => void;
    let failed!: (e: Error) => void;
    this.ready = new Promise((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    this.ready.catch(() => {});
    port.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'ready') ready();
      else if (m.type === 'fatal') this.fail(new Error(m.message), failed);
      else this.requests.handle(m);
    };
    port.onerror = (e) => this.fail(new Error(`a pool worker failed: ${e.message || 'see the browser console'}`), failed);
    port.postMessage({
      type: 'init-shared', kernel: pack.kernel, pack: pack.pack, image: pack.image, images: pack.images, manifest: pack.manifest,
    });
  }

  get alive(): boolean {
    return this.dead === null;
  }

  private fail(e: Error, failed: (e: Error) => void): void {
    this.dead = e;
    failed(e);
    this.requests.failAll(e);
  }

  async request(m: Extract<ToWorker, { id: number }>, listeners: UnitListeners = {}): Promise<FromWorker> {
    await this.ready;
    if (this.dead) throw this.dead;
    return this.requests.request(m, listeners);
  }

  stop(): void {
    this.port.postMessage({ type: 'units-stop' });
  }

  terminate(): void {
    this.port.terminate();
    this.fail(new Error('the pool worker was ended'), () => {});
  }
}

export class WorkerPool {
  private pack: Pack | null = null;
  private workers: PoolWorker[] = [];

  /** spawn: a new worker (the lab worker's script); the default makes a module Worker. */
  constructor(private readonly spawn: (n: number) => PoolPort = (n) =>
    new Worker(new URL('../worker/labWorker.ts', import.meta.url), { type: 'module', name: `vaxlab-pool-${n}` }) as unknown as PoolPort) {}

  /** The first worker's pack message (FromWorker 'pack'). */
  handle(m: FromWorker): void {
    if (m.type === 'pack' && m.kernel === '4.3BSD') {
      this.pack = { kernel: m.kernel, pack: m.pack, image: m.image, images: m.images, manifest: m.manifest };
    }
  }

  /** Whether several workers can run (the page has shared memory and the pack is loaded), or why not. */
  availability(): { available: true } | { available: false; reason: string } {
    if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated !== true) {
      return { available: false, reason: 'this page is not cross-origin isolated, so its workers cannot share the disk image: one worker runs everything' };
    }
    if (!this.pack) return { available: false, reason: 'the disk image is not loaded yet' };
    return { available: true };
  }

  /** Workers started so far (alive). */
  get size(): number {
    return this.workers.filter((w) => w?.alive).length;
  }

  /**
   * `jobs` executors for units of `request`, on workers started from the
   * pack (more are started as needed).  A worker that dies (its unit fails
   * with why) is replaced by a new one for the next unit, so one crash costs
   * one unit, not the rest of the sweep.
   */
  executors(jobs: number, kernel: KernelName, request: SweepRequest, onStarts?: StartsListener): UnitExecutor[] {
    if (!this.pack) throw new Error('the disk image is not loaded yet');
    for (let i = 0; i < jobs; i++) this.worker(i);
    return Array.from({ length: jobs }, (_, i): UnitExecutor => ({
      check: async () => {
        const m = await this.worker(i).request({ type: 'units-check', id: 0, kernel, request });
        return m.type === 'units-checked' ? { problems: m.problems, image: m.image } : { problems: [], image: false };
      },
      run: async (unit, onProgress, onSamples) => {
        const m = await this.worker(i).request({ type: 'units-run', id: 0, kernel, request, unit }, { onProgress, onSamples });
        if (m.type !== 'units-done') throw new Error(`unexpected reply ${m.type}`);
        onStarts?.(m.starts, i);
        return m.result as ExperimentResult;
      },
      stop: () => this.workers[i]?.stop(),
    }));
  }

  /** Worker i of the pool, started (again, if it died) from the pack. */
  private worker(i: number): PoolWorker {
    const w = this.workers[i];
    if (w?.alive) return w;
    w?.terminate();
    const fresh = new PoolWorker(this.spawn(i + 1), this.pack!);
    this.workers[i] = fresh;
    return fresh;
  }

  /** Ends every worker of the pool (their memory goes); the next executors() starts new ones. */
  terminate(): void {
    for (const w of this.workers) w.terminate();
    this.workers = [];
  }
}
