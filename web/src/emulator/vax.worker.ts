// Browser Web Worker: loads the wasm emulator (vax.wasm is fetched by URL),
// runs the demo program and posts the result to the page.

import { runDemo, type DemoResult } from './demo';
import { loadVax } from './vaxModule';

export type WorkerMessage =
  | { type: 'loading' }
  | { type: 'status'; result: DemoResult; loadMs: number; runMs: number }
  | { type: 'error'; message: string };

function post(message: WorkerMessage): void {
  self.postMessage(message);
}

async function main(): Promise<void> {
  post({ type: 'loading' });
  const t0 = performance.now();
  const api = await loadVax();
  const t1 = performance.now();
  const result = runDemo(api);
  const t2 = performance.now();
  post({ type: 'status', result, loadMs: t1 - t0, runMs: t2 - t1 });
}

main().catch((e: unknown) => {
  post({ type: 'error', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
});
