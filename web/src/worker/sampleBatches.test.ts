// The lab worker's counter-sample batches (sampleBatches.ts), in Node with a
// clock the test moves: the first sample goes at once, the next ones at most
// once per SAMPLE_BATCH_MS, what waits goes before the message that ends the
// run or unit; over a long irregular stream every sample arrives, once, in
// the order taken, each batch sent as soon as it is due.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { CounterSample, FromWorker, SamplesOwner } from './protocol';
import { SAMPLE_BATCH_MS, SampleBatches } from './sampleBatches';

const sample = (t: number): CounterSample => ({ row: 0, t, values: { 'faults.sy': t * 10 } });

/** Batches sent to a log, with the clock's time at each send. */
function harness(of: SamplesOwner = { kind: 'run', runId: 3 }) {
  let clock = 1000;
  const sent: { at: number; message: FromWorker }[] = [];
  const batches = new SampleBatches(of, (message) => sent.push({ at: clock, message }), () => clock);
  return {
    batches, sent,
    advance(ms: number) {
      clock += ms;
    },
    /** The samples' times of each counter-samples message, and the other messages' types, in the order sent. */
    log: () => sent.map(({ message: m }) => (m.type === 'counter-samples' ? m.samples.map((s) => s.t) : m.type)),
  };
}

test('the first sample goes at once; the next wait for SAMPLE_BATCH_MS since the last batch; the rest go before the end', () => {
  const h = harness();
  h.batches.sendIfDue(); // nothing waiting: nothing sent
  assert.deepEqual(h.log(), []);
  h.batches.add(sample(1));
  assert.deepEqual(h.log(), [[1]]);
  assert.deepEqual(h.sent[0]!.message, { type: 'counter-samples', of: { kind: 'run', runId: 3 }, samples: [sample(1)] });
  h.advance(100);
  h.batches.add(sample(2));
  h.advance(100);
  h.batches.add(sample(3));
  h.batches.sendIfDue();
  assert.deepEqual(h.log(), [[1]], 'held: 200 ms since the last batch');
  h.advance(SAMPLE_BATCH_MS - 200);
  h.batches.sendIfDue(); // between slices, no new sample: the batch is due
  assert.deepEqual(h.log(), [[1], [2, 3]]);
  h.advance(10);
  h.batches.add(sample(4));
  h.batches.sendThen({ type: 'run-done', runId: 3, result: { rows: [] } as never, hostSeconds: 1 });
  assert.deepEqual(h.log(), [[1], [2, 3], [4], 'run-done']);
  // Nothing waiting: the end alone.
  h.batches.sendThen({ type: 'run-error', runId: 3, message: 'x' });
  assert.deepEqual(h.log(), [[1], [2, 3], [4], 'run-done', 'run-error']);
});

test('a step\'s partial result follows the samples taken before it; the batch after it waits its turn', () => {
  const h = harness();
  h.batches.add(sample(1));
  h.advance(50);
  h.batches.add(sample(2));
  h.batches.sendThen({ type: 'run-partial', runId: 3, result: { rows: [] } as never });
  h.advance(50);
  h.batches.add(sample(3));
  assert.deepEqual(h.log(), [[1], [2], 'run-partial'], 'a batch went 50 ms ago: sample 3 waits');
  h.advance(SAMPLE_BATCH_MS);
  h.batches.sendIfDue();
  assert.deepEqual(h.log(), [[1], [2], 'run-partial', [3]]);
});

test('a unit\'s long irregular stream: every sample once, in order, the end last; batches spaced, each sent as soon as it is due', () => {
  const h = harness({ kind: 'unit', id: 12 });
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const taken: { t: number; at: number }[] = [];
  let now = 1000;
  /** When the batches were given a chance to go. */
  const calls: number[] = [];
  for (let i = 0; i < 2000; i++) {
    // A slice of 0 to 20 ms; a sample after some of them, now and then several at once, now and then a quiet spell.
    const ms = random() < 0.02 ? 400 * random() : 20 * random();
    h.advance(ms);
    now += ms;
    const r = random();
    const n = r < 0.5 ? 0 : r < 0.9 ? 1 : 3;
    for (let k = 0; k < n; k++) {
      h.batches.add(sample(taken.length));
      taken.push({ t: taken.length, at: now });
    }
    h.batches.sendIfDue();
    calls.push(now);
  }
  h.batches.sendThen({ type: 'units-done', id: 12, result: { rows: [] } as never, starts: { shipped: 0, here: 0, booted: 0 } });

  const batches = h.sent.filter((s) => s.message.type === 'counter-samples');
  assert.equal(h.sent.at(-1)!.message.type, 'units-done');
  assert.equal(h.sent.length, batches.length + 1);
  const arrived = batches.flatMap((b) => (b.message.type === 'counter-samples' ? b.message.samples.map((s) => s.t) : []));
  assert.deepEqual(arrived, taken.map((s) => s.t), 'each sample once, in the order taken');
  assert.ok(batches.length > 50, `${batches.length} batches`);
  for (const b of batches) {
    assert.ok(b.message.type === 'counter-samples' && b.message.samples.length > 0, 'no empty batch');
    assert.deepEqual(b.message.of, { kind: 'unit', id: 12 });
  }
  // Spaced: at least the interval apart (the last, sent with the end, aside).
  for (let i = 1; i < batches.length - 1; i++) {
    assert.ok(batches[i]!.at - batches[i - 1]!.at >= SAMPLE_BATCH_MS, `batch ${i} ${batches[i]!.at - batches[i - 1]!.at} ms after the one before`);
  }
  // Not held back: each batch goes at the first call (a sample taken, or a pause between slices) once its first
  // sample is there and the interval since the batch before has passed.
  let first = 0;
  batches.slice(0, -1).forEach((b, i) => {
    const due = Math.max(taken[first]!.at, i === 0 ? -Infinity : batches[i - 1]!.at + SAMPLE_BATCH_MS);
    assert.equal(b.at, calls.find((c) => c >= due), `batch ${i}`);
    first += b.message.type === 'counter-samples' ? b.message.samples.length : 0;
  });
});
