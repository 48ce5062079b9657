// The page's end of the lab worker (web/src/worker/labWorker.ts): it posts
// to the worker and hands the worker's messages to the parts of the page
// that take them — console and terminal text at once, everything that
// changes state in batches, at most every INBOX_MS, so a fast run does not
// re-render the page for each of its messages.  It keeps the machine's own
// state: the emulator and image loading, readiness, speed.

import type { FromWorker, ImageRef, ToWorker } from '../../worker/protocol';
import { batch, ObjectAtom } from './atom';

export type MachinePhase = 'starting' | 'loading-emulator' | 'loading-image' | 'verifying' | 'ready' | 'error';

export interface MachineState {
  phase: MachinePhase;
  loaded: number;
  total: number | null;
  message: string | null;
  imageBytes: number | null;
  compressedBytes: number | null;
  /** The pack is read from the chunked image as it is (not unpacked whole). */
  chunked: boolean;
  wasmMs: number | null;
  imageMs: number | null;
  /** VAX instructions per host second, measured in the worker (0 when idle). */
  ips: number;
  /** The kernel variants the image's manifest lists (null until the image is ready). */
  variants: string[] | null;
}

/** What the link needs of a worker (a Worker, or a MessagePort in tests). */
export interface WorkerPort {
  postMessage(message: ToWorker): void;
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null;
}

/** How often worker messages are applied to the state (ms). */
export const INBOX_MS = 80;

/** Messages of text, handed on as they come (the console streams take them without a re-render). */
const TEXT = new Set<FromWorker['type']>(['run-console', 'terminal-output']);

export class WorkerLink {
  readonly machine = new ObjectAtom<MachineState>({
    phase: 'starting', loaded: 0, total: null, message: null, imageBytes: null, compressedBytes: null, chunked: false,
    wasmMs: null, imageMs: null, ips: 0, variants: null,
  });

  private port: WorkerPort | null = null;
  private readonly textHandlers: ((m: FromWorker) => void)[] = [];
  private readonly handlers: ((m: FromWorker) => void)[] = [];
  private inbox: FromWorker[] = [];
  private inboxTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly inboxMs = INBOX_MS) {}

  /** Talks to this worker from now on and asks it to load the emulator and the first image (unless whoever
   *  started it did already: initSent). */
  connect(port: WorkerPort, images: ImageRef[], options: { initSent?: boolean } = {}): void {
    this.port = port;
    this.machine.patch({ phase: 'loading-emulator' });
    port.onmessage = (e) => this.receive(e.data);
    if (!options.initSent) this.post({ type: 'init', images });
  }

  /** The worker cannot be used (it did not start, or failed). */
  fail(message: string): void {
    this.machine.patch({ phase: 'error', message });
  }

  post(message: ToWorker): void {
    this.port?.postMessage(message);
  }

  /** Calls handler with each console or terminal text message, as it comes. */
  onText(handler: (m: FromWorker) => void): void {
    this.textHandlers.push(handler);
  }

  /** Calls handler with every other message, in batches (inside batch()). */
  onMessage(handler: (m: FromWorker) => void): void {
    this.handlers.push(handler);
  }

  private receive(m: FromWorker): void {
    if (TEXT.has(m.type)) {
      for (const h of this.textHandlers) h(m);
      return;
    }
    this.inbox.push(m);
    if (this.inboxTimer === null) this.inboxTimer = setTimeout(() => this.drain(), this.inboxMs);
  }

  private drain(): void {
    this.inboxTimer = null;
    const messages = this.inbox.splice(0);
    batch(() => {
      for (const m of messages) {
        this.apply(m);
        for (const h of this.handlers) h(m);
      }
    });
  }

  /** The machine's own messages (the 4.3BSD image's: the page boots that one first). */
  private apply(m: FromWorker): void {
    switch (m.type) {
      case 'loading':
        if (m.kernel !== '4.3BSD') return;
        this.machine.patch({
          phase: m.phase === 'emulator' ? 'loading-emulator' : m.phase === 'verify' ? 'verifying' : 'loading-image',
          loaded: m.loaded,
          total: m.total,
        });
        return;
      case 'ready':
        if (m.kernel !== '4.3BSD') return;
        this.machine.patch({
          phase: 'ready', imageBytes: m.image.bytes, compressedBytes: m.image.compressedBytes, chunked: m.image.chunked === true,
          wasmMs: m.wasmMs,
          imageMs: m.imageMs, loaded: m.image.bytes, total: m.image.bytes, message: null, variants: m.variants,
        });
        return;
      case 'fatal':
        this.fail(m.message);
        return;
      case 'speed':
        this.machine.patch({ ips: m.instructionsPerSecond });
        return;
      default:
    }
  }
}
