// A worker thread of a Node sweep (sweepNode.ts; started from its bundle,
// threadBundle.ts, or through sweepThread.mjs and tsx): loads the wasm emulator, opens the pack the main
// thread shares (emu/js/sharedPack.ts: its chunked image, or the whole pack
// read where it is), makes the sweep's plan from its request and runs the
// units it is sent, one at a time.  Between emulator slices it yields to its event loop, so a
// stop message gets through within a slice.

import { parentPort, workerData } from 'node:worker_threads';

import { openSharedPack } from '../../emu/js/sharedPack';
import { loadVaxNode } from '../../emu/js/vaxNode';
import type { SweepThreadData, ThreadMemory, ToThread, FromThread } from './sweepNode';
import { SweepUnitRunner } from './sweep';

const port = parentPort!;
const data = workerData as SweepThreadData;
const post = (m: FromThread) => port.postMessage(m);
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const memory = (): ThreadMemory => {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external, arrayBuffers };
};

/** Whether a TypeScript loader serves this thread: tsx's resolves an import without an extension to the .ts
 *  file there, Node alone does not.  (An absolute URL: in the bundle, import.meta.resolve resolves from the
 *  bundle's place.) */
function typescriptLoader(): boolean {
  try {
    return import.meta.resolve(new URL('./sweep', import.meta.url).href).endsWith('.ts');
  } catch {
    return false;
  }
}

let runner: SweepUnitRunner;
try {
  const api = await loadVaxNode();
  runner = new SweepUnitRunner(api.vax780, openSharedPack(api.vax780, data.pack), data.request,
    (name) => (Object.hasOwn(data.kernels, name) ? data.kernels[name] : undefined));
} catch (e) {
  post({ type: 'fatal', message: `the worker could not start: ${message(e)}` });
  throw e;
}

let abort: AbortController | null = null;
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Progress goes out at most this often (ms). */
const PROGRESS_MS = 200;

port.on('message', (m: ToThread) => {
  switch (m.type) {
    case 'memory':
      post({ type: 'memory', id: m.id, memory: memory() });
      return;
    case 'check':
      try {
        post({ type: 'checked', id: m.id, ...runner.check() });
      } catch (e) {
        post({ type: 'failed', id: m.id, message: message(e) });
      }
      return;
    case 'run': {
      abort = new AbortController();
      let last = 0;
      runner.run(m.unit, {
        signal: abort.signal,
        image: data.image ?? undefined,
        pause: yieldNow,
        onProgress: (progress) => {
          const now = performance.now();
          if (now - last < PROGRESS_MS) return;
          last = now;
          post({ type: 'progress', id: m.id, progress });
        },
      }).then(
        (result) => post({ type: 'done', id: m.id, result }),
        (e) => post({ type: 'failed', id: m.id, message: message(e) }),
      ).finally(() => {
        abort = null;
      });
      return;
    }
    case 'stop':
      abort?.abort();
      return;
  }
});
post({ type: 'ready', memory: memory(), typescriptLoader: typescriptLoader() });
