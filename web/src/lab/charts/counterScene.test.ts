// The counter chart's scene drawn a few samples at a time (as a live run's
// chart is) against the same data drawn whole: nextScene must come out as
// sceneOf, and the changes the drawing makes to its elements must turn the
// scene drawn last into the new one.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { ChartPanel } from '../counterNames';
import {
  applyChanges, type ChartScene, type ChartSeries, formatValue, MAX_POINT_CIRCLES, nextScene, sceneChanges, sceneOf, type SceneInput,
} from './counterScene';

const PANELS: ChartPanel[] = [
  { key: 'faults.sy', heading: 'system calls /s', source: 'vmstat faults: sy', title: '', axis: '/s', ids: ['faults.sy'], legend: [] },
  {
    key: '%:cpu', heading: 'CPU time %', source: '', title: '', axis: '%', ids: ['cpu.us', 'cpu.sy', 'cpu.id'],
    legend: ['user (us)', 'system (sy)', 'idle (id)'],
  },
];
const NAMES = { 'faults.sy': { name: 'system calls', unit: '/s' }, 'cpu.us': { name: 'user', unit: '%' } };
const COLOURS = ['faults.sy', 'cpu.us', 'cpu.sy', 'cpu.id'];
const colourIndex = (id: string) => COLOURS.indexOf(id);

/** A run's samples: one a virtual second (some missing), system calls growing, CPU percentages summing to 100. */
function samples(n: number, seed = 1): ChartSeries {
  const s: ChartSeries = { t: [], values: { 'faults.sy': [], 'cpu.us': [], 'cpu.sy': [], 'cpu.id': [] } };
  let r = seed;
  const random = () => ((r = (r * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < n; i++) {
    s.t.push(0.4 + i * 0.97);
    s.values['faults.sy']!.push(i % 17 === 5 ? Number.NaN : 800 * i + 3000 * random());
    const us = 60 * random();
    const sy = (100 - us) * random();
    s.values['cpu.us']!.push(us);
    s.values['cpu.sy']!.push(sy);
    s.values['cpu.id']!.push(100 - us - sy);
  }
  return s;
}

/** The first n samples of `all` (as a live series holds them n samples in). */
function upTo(all: ChartSeries, n: number): ChartSeries {
  return { t: all.t.slice(0, n), values: Object.fromEntries(Object.entries(all.values).map(([k, v]) => [k, v.slice(0, n)])) };
}

function input(series: ChartSeries, seriesA: ChartSeries | null = null, innerW = 300): SceneInput {
  return { series, seriesA, panels: PANELS, names: NAMES, innerW, colourIndex };
}

/** Grows a chart from nothing to `all`'s length, `step(i)` samples at a time, checking each draw against a whole one.
 *  Where a panel's axes stayed, its lines' circles must all stay and its paths be extended: the count of such
 *  panel draws, and of all. */
function grow(all: ChartSeries, step: (i: number) => number, seriesA: ChartSeries | null = null, innerW = 300) {
  let drawn: ChartScene | null = null;
  let quiet = 0;
  let panelDraws = 0;
  for (let n = 1, i = 0; n <= all.t.length; n += step(i++)) {
    const data = input(upTo(all, n), seriesA, innerW);
    const whole = sceneOf(data);
    if (drawn === null) {
      drawn = whole;
      continue;
    }
    const next = nextScene(drawn, data);
    assert.deepEqual(next, whole, `${n} samples: the scene worked out from the one before is the whole one`);
    const changes = sceneChanges(drawn, next);
    assert.deepEqual(applyChanges(drawn, changes, next), whole, `${n} samples: the changes drawn make the whole scene`);
    for (const [p, c] of changes.entries()) {
      panelDraws++;
      if (c.xAxis || c.yAxis || c.remakeLines) continue;
      quiet++;
      for (const [k, lc] of c.lines.entries()) {
        const before = drawn.panels[p]!.lines[k]!;
        const after = next.panels[p]!.lines[k]!;
        if (after.circles.length > 1) assert.deepEqual(lc.changed, [], `${n} samples: circles kept where they were`);
        if (before.whole && after.whole && before.d !== null) assert.ok(after.d!.startsWith(before.d), `${n} samples: path extended`);
      }
    }
    drawn = next;
  }
  return { quiet, panelDraws };
}

test('a chart drawn a few samples at a time is the chart drawn whole from the same samples', () => {
  const all = samples(260);
  // 1 to 5 samples a draw, as a live run's batches bring them.
  const { quiet, panelDraws } = grow(all, (i) => 1 + (i % 5));
  assert.ok(panelDraws > 100);
  // Most draws only add (the axes stay while the samples stay within their nice domains).
  assert.ok(quiet > panelDraws / 2, `${quiet} of ${panelDraws} panel draws left the axes`);
});

test('the same holds past the circles\' limit, with a line decimated to the plot\'s width, and with run A under B', () => {
  const all = samples(MAX_POINT_CIRCLES + 40, 7);
  grow(all, (i) => 7 + (i % 3), null, 120); // more than 2 per pixel column: decimated
  const a = samples(90, 3);
  grow(samples(120, 5), (i) => 2 + (i % 4), a);
});

test('the changes of a draw with no new samples are none; of one whose samples changed, the changed circles', () => {
  const all = samples(40);
  const drawn = sceneOf(input(all));
  for (const c of sceneChanges(drawn, nextScene(drawn, input(all)))) {
    assert.equal(c.xAxis || c.yAxis || c.remakeLines, false);
    for (const lc of c.lines) assert.deepEqual(lc, { remake: false, changed: [], removeFrom: lc.removeFrom, added: [], values: false });
  }
  // A sample corrected in place (not appended): its circle moves, the path is written again, all else stays.
  const changed = upTo(all, 40);
  changed.values['faults.sy']![10] = changed.values['faults.sy']![10]! + 1;
  const next = nextScene(drawn, input(changed));
  assert.deepEqual(next, sceneOf(input(changed)));
  const lc = sceneChanges(drawn, next)[0]!.lines[0]!;
  assert.equal(lc.changed.length, 1);
  assert.ok(lc.d !== undefined);
  // Fewer samples (another row's series): circles removed.
  const fewer = nextScene(drawn, input(upTo(all, 20)));
  assert.deepEqual(fewer, sceneOf(input(upTo(all, 20))));
  const changes = sceneChanges(drawn, fewer);
  assert.deepEqual(applyChanges(drawn, changes, fewer), fewer);
});

test('the next step of a live run: drawn over the last step\'s chart, an empty series empties the plots, then its samples draw them', () => {
  const empty: ChartSeries = { t: [], values: {} };
  const last = sceneOf(input(samples(30)));
  // Its first draw: no samples yet.  Every line is remade with no points (no path, no circle), on the axes of nothing.
  const cleared = nextScene(last, input(empty));
  assert.deepEqual(cleared, sceneOf(input(empty)));
  for (const panel of cleared.panels) {
    assert.deepEqual(panel.xDomain, [0, 1]);
    for (const l of panel.lines) assert.deepEqual([l.points.length, l.d, l.circles.length, l.values], [0, null, 0, null]);
  }
  const changes = sceneChanges(last, cleared);
  assert.ok(changes.every((c) => c.lines.every((lc) => lc.remake)));
  assert.deepEqual(applyChanges(last, changes, cleared), cleared);
  // Then the step's samples, a few at a time, over the emptied chart: as if drawn whole.
  const step = samples(12, 9);
  let drawn = cleared;
  for (const n of [1, 3, 12]) {
    const next = nextScene(drawn, input(upTo(step, n)));
    assert.deepEqual(next, sceneOf(input(upTo(step, n))), `${n} samples of the next step`);
    assert.deepEqual(applyChanges(drawn, sceneChanges(drawn, next), next), next);
    drawn = next;
  }
});

test('values are written as toLocaleString(\'en-US\') writes them (the formatter is made once)', () => {
  for (const v of [0, 0.3, 0.00123, 0.0456, 1.005, 12.345, 99.95, 100, 999.5, 1000, 1234.5, 4012.3, 9999, 9999.6, -3.25, -1234]) {
    const a = Math.abs(v);
    const expected = Number(v.toPrecision(a >= 1000 ? 4 : 3)).toLocaleString('en-US');
    if (a < 1e4 && !(a !== 0 && a < 0.001)) assert.equal(formatValue(v), expected, `${v}`);
  }
  assert.equal(formatValue(4012.3), '4,012');
  assert.equal(formatValue(12345), '12.3k');
});
