// The counters the pool's workers send while a run spread over them, or a
// sweep, runs (counter-samples: web/src/worker/protocol.ts), for the Counters
// panel to draw live.  Several units run at once, one a worker, so the page
// keeps each worker's current unit (or, once it has ended, its last) with its
// series so far, and the panel follows one worker: the one the user chose,
// else the first still running (watchedWorker).  Earlier units' series are
// not kept: a finished run's rows and a sweep's points hold their own.
// Subscribers are told at most every LIVE_MS, however many workers send, so
// the page stays smooth.  No React.

import type { WorkerProgress } from '../../../../experiments/runner/sweep';
import type { CounterSample } from '../../worker/protocol';
import { SAMPLE_BATCH_MS } from '../../worker/sampleBatches';
import { appendSample, padCounters, type Series } from '../results';
import { Atom } from './atom';

/** At most this often (ms) are the panel's subscribers told of new samples: as often as each worker sends them
 *  (its batches, worker/sampleBatches.ts), so several workers sending out of step draw the panel no more often
 *  than one. */
export const LIVE_MS = SAMPLE_BATCH_MS;

/** What the pool runs: a run of this page spread over its workers, or a sweep. */
export type PoolOwner = { kind: 'run'; runId: number } | { kind: 'sweep'; id: number };

export interface WorkerCounters {
  /** The unit (experiments/runner/sweep.ts) these counters are of; null before the worker's first. */
  unit: number | null;
  /** What the unit is: "hz=50: syscall, seed 2 of 3" (sweep.ts unitLabel). */
  label: string;
  /** Still running it; false once it has ended and the worker has not begun another. */
  running: boolean;
  /** Its counters so far, grown in place (the state's version says when). */
  series: Series;
}

export interface PoolCountersState {
  owner: PoolOwner;
  /** The experiment the units run (its own counters are the panel's default choice). */
  experiment: string;
  /** One per worker, in the workers' order. */
  workers: WorkerCounters[];
  /** Goes up whenever subscribers are told of new samples or units. */
  version: number;
}

function sameOwner(a: PoolOwner, b: PoolOwner): boolean {
  return a.kind === b.kind && (a.kind === 'run' ? a.runId === (b as typeof a).runId : a.id === (b as typeof a).id);
}

const idle = (): WorkerCounters => ({ unit: null, label: '', running: false, series: { t: [], values: {} } });

/** The live counters of what runs on the pool; `state` is null when nothing does. */
export class PoolCounters {
  readonly state = new Atom<PoolCountersState | null>(null);
  private current: PoolCountersState | null = null;
  private version = 0;
  private timer: unknown = null;

  /** schedule/cancel: the timer that spaces the notifications (tests pass their own). */
  constructor(
    private readonly schedule: (f: () => void, ms: number) => unknown = (f, ms) => setTimeout(f, ms),
    private readonly cancel: (timer: unknown) => void = (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  ) {}

  /** Something starts on `workers` workers: no counters yet. */
  begin(owner: PoolOwner, experiment: string, workers: number): void {
    this.stopTimer();
    this.current = { owner, experiment, workers: Array.from({ length: workers }, idle), version: ++this.version };
    this.state.set(this.current);
  }

  /** The units the workers run now (runUnits' progress): a worker that began another unit starts a new series. */
  progress(owner: PoolOwner, workers: readonly WorkerProgress[]): void {
    const c = this.mine(owner);
    if (!c) return;
    let changed = false;
    workers.forEach((w, i) => {
      const entry = c.workers[i];
      if (!entry) return;
      if (w.unit !== null && (entry.unit !== w.unit || !entry.running)) {
        c.workers[i] = { unit: w.unit, label: w.label, running: true, series: { t: [], values: {} } };
        changed = true;
      } else if (w.unit === null && entry.running) {
        c.workers[i] = { ...entry, running: false };
        changed = true;
      }
    });
    if (changed) this.notify();
  }

  /** A batch of samples from `from.worker`'s unit. */
  samples(owner: PoolOwner, from: { worker: number; unit: number; label: string }, samples: readonly CounterSample[]): void {
    const c = this.mine(owner);
    if (!c || samples.length === 0) return;
    let entry = c.workers[from.worker];
    if (!entry) return;
    if (entry.unit !== from.unit) {
      // Samples before the progress that announces their unit: the unit has begun all the same.
      entry = { unit: from.unit, label: from.label, running: true, series: { t: [], values: {} } };
      c.workers[from.worker] = entry;
    }
    for (const s of samples) appendSample(entry.series, s);
    padCounters(entry.series);
    this.notify();
  }

  /** It ended (finished, stopped or failed): the panel shows what it showed before. */
  end(owner: PoolOwner): void {
    if (!this.mine(owner)) return;
    this.stopTimer();
    this.current = null;
    this.state.set(null);
  }

  private mine(owner: PoolOwner): PoolCountersState | null {
    return this.current && sameOwner(this.current.owner, owner) ? this.current : null;
  }

  private notify(): void {
    if (this.timer !== null) return;
    this.timer = this.schedule(() => {
      this.timer = null;
      if (!this.current) return;
      // A new object (subscribers compare by identity); the series inside are the same, grown in place.
      this.current = { ...this.current, workers: [...this.current.workers], version: ++this.version };
      this.state.set(this.current);
    }, LIVE_MS);
  }

  private stopTimer(): void {
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
  }
}

/** The worker the panel follows: the one chosen (when there is such a worker), else the first still running a
 *  unit, else the first that ran one, else the first. */
export function watchedWorker(state: PoolCountersState, chosen: number | null): number {
  if (chosen !== null && chosen >= 0 && chosen < state.workers.length) return chosen;
  const running = state.workers.findIndex((w) => w.running);
  if (running >= 0) return running;
  return Math.max(0, state.workers.findIndex((w) => w.unit !== null));
}

/** A worker as the panel's choice names it: "worker 2: hz=50: syscall, seed 2 of 3". */
export function workerChoiceText(w: WorkerCounters, index: number): string {
  const what = w.unit === null ? 'starting' : `${w.label}${w.running ? '' : ' (ended)'}`;
  return `worker ${index + 1}: ${what}`;
}
