// The live counters of the pool's workers (poolCounters.ts), in Node: each
// worker's unit and its series as batches arrive, a new unit starting a new
// series, the notifications spaced out (one per LIVE_MS however many batches),
// another run's messages ignored, the end clearing it, and which worker the
// panel follows.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { WorkerProgress } from '../../../../experiments/runner/sweep';
import type { CounterSample } from '../../worker/protocol';
import { LIVE_MS, PoolCounters, watchedWorker, workerChoiceText, type PoolCountersState, type PoolOwner } from './poolCounters';

/** A timer the test fires by hand: what was scheduled, and after how long. */
function manualTimer() {
  const due: { f: () => void; ms: number; cancelled: boolean }[] = [];
  return {
    due,
    schedule: (f: () => void, ms: number) => {
      const t = { f, ms, cancelled: false };
      due.push(t);
      return t;
    },
    cancel: (t: unknown) => {
      (t as { cancelled: boolean }).cancelled = true;
    },
    /** Fires every pending timer. */
    fire() {
      for (const t of due.splice(0)) if (!t.cancelled) t.f();
    },
  };
}

const run: PoolOwner = { kind: 'run', runId: 7 };
const sample = (t: number, values: Record<string, number>): CounterSample => ({ row: 0, t, values });
const busy = (unit: number | null, label = unit === null ? '' : `unit ${unit}`): WorkerProgress => ({ unit, label, done: 0, virtualSeconds: 0 });

test('each worker\'s unit and its samples, told at most once per LIVE_MS; a new unit starts a new series', () => {
  const timer = manualTimer();
  const live = new PoolCounters(timer.schedule, timer.cancel);
  const seen: (PoolCountersState | null)[] = [];
  live.state.subscribe(() => seen.push(live.state.get()));
  live.begin(run, 'execs0null', 2);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0]!.workers.map((w) => [w.unit, w.running, w.series.t.length]), [[null, false, 0], [null, false, 0]]);

  live.progress(run, [busy(0, 'execs0null, seed 1 of 3'), busy(1, 'execs0null, seed 2 of 3')]);
  live.samples(run, { worker: 0, unit: 0, label: 'execs0null, seed 1 of 3' }, [sample(0.1, { 'cpu.sy': 40 }), sample(0.2, { 'cpu.sy': 45 })]);
  live.samples(run, { worker: 1, unit: 1, label: 'execs0null, seed 2 of 3' }, [sample(0.1, { 'cpu.sy': 50, 'faults.sy': 900 })]);
  live.samples(run, { worker: 0, unit: 0, label: 'execs0null, seed 1 of 3' }, [sample(0.3, { 'cpu.sy': 41, 'faults.sy': 800 })]);
  // Four changes, one timer, nothing told yet.
  assert.equal(timer.due.length, 1);
  assert.equal(timer.due[0]!.ms, LIVE_MS);
  assert.equal(seen.length, 1);
  timer.fire();
  assert.equal(seen.length, 2);
  const s = seen[1]!;
  assert.ok(s.version > seen[0]!.version);
  assert.equal(s.experiment, 'execs0null');
  assert.deepEqual(s.workers.map((w) => [w.unit, w.label, w.running]), [[0, 'execs0null, seed 1 of 3', true], [1, 'execs0null, seed 2 of 3', true]]);
  assert.deepEqual(s.workers[0]!.series.t, [0.1, 0.2, 0.3]);
  assert.deepEqual(s.workers[0]!.series.values['cpu.sy'], [40, 45, 41]);
  // A counter a sample lacks is NaN there: every column as long as the times.
  assert.ok(Number.isNaN(s.workers[0]!.series.values['faults.sy']![0]!) && Number.isNaN(s.workers[0]!.series.values['faults.sy']![1]!));
  assert.equal(s.workers[0]!.series.values['faults.sy']![2], 800);
  assert.deepEqual(s.workers[1]!.series, { t: [0.1], values: { 'cpu.sy': [50], 'faults.sy': [900] } });

  // Worker 1's unit ends and it takes unit 2: a series of its own; worker 2's goes on growing.
  live.progress(run, [busy(null), busy(1, 'execs0null, seed 2 of 3')]);
  timer.fire();
  assert.equal(live.state.get()!.workers[0]!.running, false);
  assert.deepEqual(live.state.get()!.workers[0]!.series.t, [0.1, 0.2, 0.3], 'an ended unit\'s series stays until the next');
  live.progress(run, [busy(2, 'execs0null, seed 3 of 3'), busy(1, 'execs0null, seed 2 of 3')]);
  live.samples(run, { worker: 1, unit: 1, label: 'execs0null, seed 2 of 3' }, [sample(0.2, { 'cpu.sy': 52, 'faults.sy': 950 })]);
  timer.fire();
  const after = live.state.get()!;
  assert.deepEqual(after.workers[0], { unit: 2, label: 'execs0null, seed 3 of 3', running: true, series: { t: [], values: {} } });
  assert.deepEqual(after.workers[1]!.series.t, [0.1, 0.2]);
  // Samples that come before the progress naming their unit begin it all the same.
  live.samples(run, { worker: 0, unit: 4, label: 'unit 4' }, [sample(0.1, { 'cpu.sy': 1 })]);
  timer.fire();
  assert.deepEqual(live.state.get()!.workers[0]!.unit, 4);
  assert.deepEqual(live.state.get()!.workers[0]!.series.t, [0.1]);
});

test('another run\'s messages are ignored; the end clears the state at once and drops a pending notification', () => {
  const timer = manualTimer();
  const live = new PoolCounters(timer.schedule, timer.cancel);
  live.begin(run, 'syscall', 1);
  const before = live.state.get();
  const other: PoolOwner = { kind: 'sweep', id: 7 };
  live.progress(other, [busy(0)]);
  live.samples(other, { worker: 0, unit: 0, label: 'x' }, [sample(1, { a: 1 })]);
  live.samples({ kind: 'run', runId: 8 }, { worker: 0, unit: 0, label: 'x' }, [sample(1, { a: 1 })]);
  live.end(other);
  assert.equal(timer.due.length, 0);
  assert.equal(live.state.get(), before);
  // A worker the state does not have, and an empty batch, change nothing.
  live.samples(run, { worker: 3, unit: 0, label: 'x' }, [sample(1, { a: 1 })]);
  live.samples(run, { worker: 0, unit: 0, label: 'x' }, []);
  assert.equal(timer.due.length, 0);
  live.samples(run, { worker: 0, unit: 0, label: 'x' }, [sample(1, { a: 1 })]);
  assert.equal(timer.due.length, 1);
  live.end(run);
  assert.equal(live.state.get(), null);
  assert.ok(timer.due[0]!.cancelled);
  // Late messages of the run that ended do not bring it back.
  live.samples(run, { worker: 0, unit: 0, label: 'x' }, [sample(2, { a: 2 })]);
  timer.fire();
  assert.equal(live.state.get(), null);
});

test('the worker the panel follows: the one chosen, else the first running, else the first that ran a unit', () => {
  const w = (unit: number | null, running: boolean) => ({ unit, label: unit === null ? '' : `hz=50: syscall`, running, series: { t: [], values: {} } });
  const state = (workers: ReturnType<typeof w>[]): PoolCountersState => ({ owner: run, experiment: 'syscall', workers, version: 1 });
  assert.equal(watchedWorker(state([w(0, true), w(1, true)]), null), 0);
  assert.equal(watchedWorker(state([w(0, false), w(1, true)]), null), 1, 'the first has run out of units');
  assert.equal(watchedWorker(state([w(null, false), w(1, false)]), null), 1);
  assert.equal(watchedWorker(state([w(null, false), w(null, false)]), null), 0);
  assert.equal(watchedWorker(state([w(0, true), w(1, true)]), 1), 1);
  assert.equal(watchedWorker(state([w(0, false), w(1, true)]), 0), 0, 'chosen: kept, even once its unit has ended');
  assert.equal(watchedWorker(state([w(0, true), w(1, true)]), 2), 0, 'a worker there is not (fewer this time)');
  assert.equal(workerChoiceText(w(3, true), 1), 'worker 2: hz=50: syscall');
  assert.equal(workerChoiceText(w(3, false), 0), 'worker 1: hz=50: syscall (ended)');
  assert.equal(workerChoiceText(w(null, false), 2), 'worker 3: starting');
});
