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
import type { SweepRequest, UnitExecutor } from './sweep';

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
  | { type: 'run'; id: number; unit: number }
  | { type: 'stop' };

export type FromThread =
  | { type: 'ready'; memory: number }
  | { type: 'fatal'; message: string }
  | { type: 'checked'; id: number; problems: string[] }
  | { type: 'progress'; id: number; progress: RunProgress }
  | { type: 'done'; id: number; result: ExperimentResult }
  | { type: 'failed'; id: number; message: string };

const THREAD_ENTRY = new URL('./sweepThread.mjs', import.meta.url);

/** One worker thread as a UnitExecutor.  A thread that dies fails its unit and is started again for the next. */
class ThreadExecutor implements UnitExecutor {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, {
    resolve: (m: FromThread) => void; reject: (e: Error) => void; onProgress?: (p: RunProgress) => void;
  }>();

  constructor(private readonly data: SweepThreadData) {}

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_ENTRY, { workerData: this.data });
    worker.on('message', (m: FromThread) => {
      if (m.type === 'ready') return;
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

  private request(m: { type: 'check' } | { type: 'run'; unit: number }, onProgress?: (p: RunProgress) => void): Promise<FromThread> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.thread().postMessage({ ...m, id } satisfies ToThread);
    });
  }

  async check(): Promise<string[]> {
    const m = await this.request({ type: 'check' });
    return m.type === 'checked' ? m.problems : [];
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

/** `jobs` worker threads for the sweep of `request`, over the shared pack (and the kernels it boots); close() ends them. */
export function threadExecutors(request: SweepRequest, jobs: number, pack: SharedPack,
  image: SweepThreadData['image'], kernels: SweepThreadData['kernels'] = {}): { executors: UnitExecutor[]; close(): Promise<void> } {
  const executors = Array.from({ length: jobs }, () => new ThreadExecutor({ request, pack, image, kernels }));
  return { executors, close: async () => void (await Promise.all(executors.map((e) => e.close()))) };
}
