// How the lab worker sends counter samples to the page: in batches, one
// counter-samples message each (protocol.ts), the same for a run on the page's
// worker and for a unit on a pool worker.  The runner takes a sample every 0.1
// to 1 virtual seconds, and the emulator runs tens of virtual seconds a host
// second: tens to hundreds of samples a host second.  A message (and, on the
// page, a redraw of the Counters panel) per sample would cost the page more
// than the drawing shows.  So samples wait here until SAMPLE_BATCH_MS have passed since
// the last batch went, and what is left goes out just before the message that
// must follow it (a step's partial result, the end of the run or unit).
// No DOM: the clock and the sending are the caller's (tests pass their own).

import type { CounterSample, CounterSamplesMessage, FromWorker, SamplesOwner } from './protocol';

/**
 * At most this often (ms) a run's or a unit's samples go to the page.  What
 * needs them is the Counters panel drawing them live, and a redraw 4 times a
 * second reads as live while it leaves the page's thread free (the whole chart
 * is drawn again each time, up to 300 points a counter); the panel
 * that follows the pool's workers is told at most this often too
 * (state/poolCounters.ts), so sending more often would show nothing sooner.
 * The run's 100 ms (labWorker.ts FLUSH_MS), which its samples used to share,
 * is for its console text, which should look typed rather than jump: samples
 * need not keep that pace.
 */
export const SAMPLE_BATCH_MS = 250;

/** A run's or a unit's counter samples on their way to the page, a batch at a time. */
export class SampleBatches {
  private waiting: CounterSample[] = [];
  /** When the last batch went; the first sample goes at once, so the panel draws as soon as there is something. */
  private lastSent = -Infinity;

  constructor(
    private readonly of: SamplesOwner,
    private readonly send: (message: FromWorker) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A sample taken: it goes with its batch once the batch is due. */
  add(sample: CounterSample): void {
    this.waiting.push(sample);
    this.sendIfDue();
  }

  /** Sends the batch waiting if SAMPLE_BATCH_MS have passed since the last: called at the runner's pauses (every few
   *  tens of ms of emulation), so a sample taken before a spell without samples does not wait for the next one. */
  sendIfDue(): void {
    if (this.waiting.length > 0 && this.now() - this.lastSent >= SAMPLE_BATCH_MS) this.sendWaiting();
  }

  /** Sends the samples waiting, then `next` (a step's partial result, the run's or the unit's end), so the page
   *  has every sample before what comes after them. */
  sendThen(next: FromWorker): void {
    this.sendWaiting();
    this.send(next);
  }

  private sendWaiting(): void {
    if (this.waiting.length === 0) return;
    const message: CounterSamplesMessage = { type: 'counter-samples', of: this.of, samples: this.waiting };
    this.waiting = [];
    this.lastSent = this.now();
    this.send(message);
  }
}
