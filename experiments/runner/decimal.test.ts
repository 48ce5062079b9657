// roundFixed must be Number(x.toFixed(digits)) to the bit: results are JSON
// bytes, and the identity tests compare them. Checked against toFixed itself
// on values of every shape the runner rounds (rates, percentages, seconds,
// KB), on exact ties and near-ties (where the fast path must step aside), and
// on the special values.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { roundFixed, roundFixedFast } from './decimal';

const viaString = (x: number, digits: number): number => Number(x.toFixed(digits));

/** A small, seeded generator: the same values every run. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

function assertSame(x: number, digits: number): void {
  const got = roundFixed(x, digits);
  const want = viaString(x, digits);
  if (!Object.is(got, want)) assert.fail(`roundFixed(${x}, ${digits}) = ${got}, toFixed gives ${want}`);
}

test('roundFixed equals Number(toFixed) on 400,000 values of the shapes the runner rounds', () => {
  const rnd = generator(1985);
  let fast = 0;
  let all = 0;
  for (let i = 0; i < 100_000; i++) {
    const digits = i % 7;
    const values = [
      rnd() * 10 ** (rnd() * 12 - 4), // rates and sizes over many decades
      Math.floor(rnd() * 1e6) / Math.floor(1 + rnd() * 1000), // ratios of counts
      (100 * Math.floor(rnd() * 5000)) / Math.floor(1 + rnd() * 5000), // percentages
      Number(BigInt(Math.floor(rnd() * 2 ** 40))) / 1e9, // nanoseconds to seconds
    ];
    for (const x of values) {
      assertSame(x, digits);
      assertSame(-x, digits);
      all += 1;
      if (roundFixedFast(x, digits) !== undefined) fast += 1;
    }
  }
  // The point of the module: nearly every value is rounded without strings.
  assert.ok(fast / all > 0.99, `the fast path took ${fast} of ${all} values`);
});

test('roundFixed on ties and near-ties takes toFixed\'s side (the fast path steps aside there)', () => {
  const rnd = generator(4243);
  for (let i = 0; i < 50_000; i++) {
    const digits = i % 6;
    const tie = (Math.floor(rnd() * 1e6) + 0.5) / 10 ** digits; // decimal ties, inexact in binary
    for (const x of [tie, tie + 1e-9, tie - 1e-9, tie * (1 + 2 ** -50), tie * (1 - 2 ** -50)]) {
      assertSame(x, digits);
      assertSame(-x, digits);
    }
  }
  // Classic cases: 1.005 is just below its decimal, 2.5 an exact binary tie.
  for (const x of [0.5, 1.5, 2.5, 1.005, 1.0049999999999999, 0.125, 0.375, 8.345, 1.45]) {
    for (let digits = 0; digits <= 4; digits++) assertSame(x, digits);
  }
});

test('roundFixed on zeros, tiny and huge values, and the special values', () => {
  const values = [0, -0, -0.0001, 0.0001, 5e-324, -5e-324, 2 ** 40, 2 ** 40 + 0.5, 2 ** 53, 1e21, -1e21, 1e300,
    NaN, Infinity, -Infinity];
  for (const x of values) for (let digits = 0; digits <= 22; digits++) assertSame(x, digits);
  for (const x of [NaN, Infinity, -Infinity, 1e21, 2 ** 40]) assert.equal(roundFixedFast(x, 2), undefined, `${x} goes to toFixed`);
  assert.equal(roundFixedFast(1.5, 0), undefined, 'an exact tie goes to toFixed');
  assert.equal(roundFixedFast(1, 23), undefined, 'more digits than exact powers of ten go to toFixed');
  assert.ok(Object.is(roundFixed(-0.0001, 2), -0), 'a small negative rounds to -0, as toFixed\'s "-0.00" reads');
  assert.ok(Object.is(roundFixed(-0, 2), 0), '-0 rounds to +0, as toFixed\'s "0.00" reads');
});
