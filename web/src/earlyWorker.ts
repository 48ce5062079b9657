// The lab worker, started by the page's first, small script before the rest
// of the page's code (main.tsx imports the page dynamically, after this): the
// worker's script, the emulator (vax.wasm) and the 4.3BSD image then load
// while the page's own code is still downloading and starting, instead of
// after it (measured with npm run bench:web: README, Performance).  Its
// messages are kept until the page's controller takes the worker
// (WorkerLink.connect), so none is lost.  No React, nothing heavy: this is
// in the page's entry chunk.

import type { FromWorker, ImageRef, ToWorker } from './worker/protocol';

/** The images the lab offers, by manifest (the first loads at once; 4.2BSD only if chosen). */
export function labImageRefs(imageBase: string): ImageRef[] {
  const absolute = (path: string) => new URL(path, location.href).href;
  return [
    { kernel: '4.3BSD', manifestUrl: absolute(`${imageBase}43bsd.json`) },
    { kernel: '4.2BSD', manifestUrl: absolute(`${imageBase}42bsd.json`) },
  ];
}

/** A worker already told to load (init sent), its messages held until someone listens. */
export interface EarlyWorker {
  worker: Worker;
  images: ImageRef[];
  postMessage(message: ToWorker): void;
  /** Set by the page's link: the messages held so far are delivered to it first, in order. */
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null;
}

/** Starts the lab worker and asks it to load the emulator and the first image; null (with why) if it cannot start. */
export function startLabWorker(imageBase: string): { early: EarlyWorker | null; error: string | null } {
  let worker: Worker;
  try {
    worker = new Worker(new URL('./worker/labWorker.ts', import.meta.url), { type: 'module', name: 'vaxlab' });
  } catch (e) {
    return { early: null, error: `The worker did not start: ${String(e)}` };
  }
  const held: MessageEvent<FromWorker>[] = [];
  let handler: ((e: MessageEvent<FromWorker>) => void) | null = null;
  worker.onmessage = (e: MessageEvent<FromWorker>) => {
    if (handler) handler(e);
    else held.push(e);
  };
  const images = labImageRefs(imageBase);
  const early: EarlyWorker = {
    worker,
    images,
    postMessage: (m) => worker.postMessage(m),
    get onmessage() {
      return handler;
    },
    set onmessage(h) {
      handler = h;
      if (h) for (const e of held.splice(0)) h(e);
    },
  };
  worker.postMessage({ type: 'init', images } satisfies ToWorker);
  return { early, error: null };
}
