// Node: a sweep's units (sweep.ts) on worker threads.  The pack is read once
// into a SharedArrayBuffer (emu/js/vaxNode.ts loadSharedPack) that every
// thread is given: the chunked image's file (about 5 MB), which each thread
// opens in its wasm memory, with one cache of decompressed chunks that all
// of them share (each chunk decompressed once, by the first thread that
// reads it: emu/js/sharedChunkCache.ts), or, without one, the whole 174 MB pack, which every thread's
// emulator reads through sharedImage — never N copies of the pack.  Each thread makes the
// plan from the same request and runs the units it is sent; the result is
// assembled here in the plan's order, the same bytes for any number of
// threads.  Node-only (worker_threads); the page's workers are
// web/src/worker.

import { Worker } from 'node:worker_threads';

import type { SharedPack } from '../../emu/js/sharedPack';
import type { ExperimentResult } from './result';
import type { RunProgress } from './runner';
import type { KernelCheck, SweepRequest, UnitExecutor } from './sweep';
import { ensureBundle, SWEEP_THREAD_BUNDLE, type ThreadBundlePaths } from './threadBundle';

/** What a thread is started with. */
export interface SweepThreadData {
  request: SweepRequest;
  /** The pack, shared with every thread (the chunked image's file, or the whole pack). */
  pack: SharedPack;
  /** The image's name and SHA-256, as results record it. */
  image: { name: string; sha256?: string } | null;
  /** The kernel variants the sweep boots, by name (RunOptions.kernel: their bytes, name and SHA-256). */
  kernels: Record<string, { name: string; bytes: Uint8Array; sha256?: string }>;
}

export type ToThread =
  | { type: 'check'; id: number }
  | { type: 'memory'; id: number }
  | { type: 'run'; id: number; unit: number }
  | { type: 'stop' };

/** A thread's own figures (process.memoryUsage() in the thread: rss is the whole process's, the heap the thread's). */
export interface ThreadMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export type FromThread =
  | { type: 'ready'; memory: ThreadMemory; typescriptLoader: boolean }
  | { type: 'memory'; id: number; memory: ThreadMemory }
  | { type: 'fatal'; message: string }
  | ({ type: 'checked'; id: number } & KernelCheck)
  | { type: 'progress'; id: number; progress: RunProgress }
  | { type: 'done'; id: number; result: ExperimentResult }
  | { type: 'failed'; id: number; message: string };

/** How a thread loads its code: the bundle built from sweepThread.ts (threadBundle.ts), or sweepThread.ts
 *  itself through tsx's loader (sweepThread.mjs registers it in the thread). */
export type ThreadLoader = 'bundle' | 'tsx';

/** The loader VAXLAB_THREAD_LOADER asks for (bundle when unset). */
export function requestedThreadLoader(): ThreadLoader {
  const v = process.env.VAXLAB_THREAD_LOADER;
  if (v === undefined || v === '' || v === 'bundle') return 'bundle';
  if (v === 'tsx') return 'tsx';
  throw new Error(`VAXLAB_THREAD_LOADER=${v}: it takes bundle (the default) or tsx`);
}

const TSX_ENTRY = new URL('./sweepThread.mjs', import.meta.url);

/** What a thread is started from. */
export interface ThreadEntry {
  url: URL;
  loader: ThreadLoader;
}

/** The bundle of `paths` if it is fresh or can be built again (saying so, one line), else the TypeScript entry
 *  (saying why, one line): never a bundle older than its sources. */
export async function bundledEntryOf(paths: ThreadBundlePaths, say: (line: string) => void): Promise<ThreadEntry> {
  const r = await ensureBundle(paths);
  if (r.bundle === null) {
    say(`vaxlab: the worker threads' bundle cannot be used: ${r.error}; the threads load their TypeScript through tsx`);
    return { url: TSX_ENTRY, loader: 'tsx' };
  }
  if (r.built) say(`vaxlab: built the worker threads' bundle (${r.built.inputs} sources): ${r.built.reason}`);
  return { url: r.bundle, loader: 'bundle' };
}

let bundledEntry: Promise<ThreadEntry> | null = null;

/** The sweep thread's bundled entry, checked against its sources once per process. */
function bundledThreadEntry(): Promise<ThreadEntry> {
  bundledEntry ??= bundledEntryOf(SWEEP_THREAD_BUNDLE, (line) => process.stderr.write(`${line}\n`));
  return bundledEntry;
}

/** Where threads of `loader` start from. */
export function threadEntry(loader: ThreadLoader): Promise<ThreadEntry> {
  return loader === 'tsx' ? Promise.resolve({ url: TSX_ENTRY, loader: 'tsx' }) : bundledThreadEntry();
}

/** A thread as it started: from what, and what it said when ready. */
export interface ThreadStart {
  loader: ThreadLoader;
  /** The thread found a TypeScript loader (tsx) serving it. */
  typescriptLoader: boolean;
  memory: ThreadMemory;
}

/** The command line of a thread that loads plain JavaScript: the parent's, less tsx (a `node --import tsx`
 *  parent passes its flags on to its threads). */
function execArgvWithoutTsx(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '--import' || a === '--require' || a === '--loader' || a === '-r') && /^tsx(\/|$)/.test(argv[i + 1] ?? '')) i++;
    else if (!/^--(import|require|loader)=tsx(\/|$)/.test(a)) out.push(a);
  }
  return out;
}

/** One worker thread as a UnitExecutor.  A thread that dies fails its unit and is started again for the next. */
class ThreadExecutor implements UnitExecutor {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, {
    resolve: (m: FromThread) => void; reject: (e: Error) => void; onProgress?: (p: RunProgress) => void;
  }>();

  /** Every thread this executor started, once it said it was ready. */
  readonly starts: ThreadStart[] = [];

  constructor(private readonly data: SweepThreadData, private readonly loader: ThreadLoader) {}

  private thread(entry: ThreadEntry): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(entry.url, {
      workerData: this.data,
      ...(entry.loader === 'bundle' ? { execArgv: execArgvWithoutTsx() } : {}),
    });
    worker.on('message', (m: FromThread) => {
      if (m.type === 'ready') {
        this.starts.push({ loader: entry.loader, typescriptLoader: m.typescriptLoader, memory: m.memory });
        return;
      }
      if (m.type === 'fatal') {
        this.fail(new Error(m.message));
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'progress') {
        p.onProgress?.(m.progress);
        return;
      }
      this.pending.delete(m.id);
      if (m.type === 'failed') p.reject(new Error(m.message));
      else p.resolve(m);
    });
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`the worker thread exited (code ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private fail(e: Error): void {
    this.worker = null;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  private async request(m: { type: 'check' } | { type: 'memory' } | { type: 'run'; unit: number },
    onProgress?: (p: RunProgress) => void): Promise<FromThread> {
    const entry = await threadEntry(this.loader);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.thread(entry).postMessage({ ...m, id } satisfies ToThread);
    });
  }

  /** The thread's memory now (starting it if it is not running). */
  async memory(): Promise<ThreadMemory> {
    const m = await this.request({ type: 'memory' });
    if (m.type !== 'memory') throw new Error(`unexpected reply ${m.type}`);
    return m.memory;
  }

  async check(): Promise<KernelCheck> {
    const m = await this.request({ type: 'check' });
    return m.type === 'checked' ? { problems: m.problems, image: m.image } : { problems: [], image: false };
  }

  async run(unit: number, onProgress: (progress: RunProgress) => void): Promise<ExperimentResult> {
    const m = await this.request({ type: 'run', unit }, onProgress);
    if (m.type !== 'done') throw new Error(`unexpected reply ${m.type}`);
    return m.result;
  }

  stop(): void {
    this.worker?.postMessage({ type: 'stop' } satisfies ToThread);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/** A pool of worker threads. */
export interface ThreadPool {
  executors: UnitExecutor[];
  /** Each executor's thread's memory now (starting the threads not running). */
  memory(): Promise<ThreadMemory[]>;
  /** The threads started so far, each as it said when ready. */
  starts(): ThreadStart[];
  close(): Promise<void>;
}

/** `jobs` worker threads for the sweep of `request`, over the shared pack (and the kernels it boots); close() ends
 *  them.  The threads load the bundle unless `loader` (by default VAXLAB_THREAD_LOADER) says tsx. */
export function threadExecutors(request: SweepRequest, jobs: number, pack: SharedPack,
  image: SweepThreadData['image'], kernels: SweepThreadData['kernels'] = {},
  loader: ThreadLoader = requestedThreadLoader()): ThreadPool {
  const executors = Array.from({ length: jobs }, () => new ThreadExecutor({ request, pack, image, kernels }, loader));
  return {
    executors,
    memory: () => Promise.all(executors.map((e) => e.memory())),
    starts: () => executors.flatMap((e) => e.starts),
    close: async () => void (await Promise.all(executors.map((e) => e.close()))),
  };
}
