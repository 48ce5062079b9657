// The Profile view's model (profileView.ts) and profiles in permalinks
// (permalink.ts), in Node, on profile summaries made from fabricated
// profiles whose times are known: the flame graph's tree adds up, search,
// sorting, the diff of two rows, the exports; a link keeps a small run's
// profiles whole, cuts a Table 2 run's to fit (saying so), and a link too
// small for them drops them (saying so).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { buildProfile, KINDS, parseRawProfile, RAW_FORMAT, SLOTS, summarize, type Kind } from '../../../experiments/profile/index';
import type { ProfileSummary } from '../../../experiments/profile/summary';
import { TABLE2_MACHINE, TABLE2_ROWS, rowId } from '../../../experiments/runner/experiments';
import { RESULT_FORMAT, RESULT_VERSION, type ExperimentResult, type RowResult } from '../../../experiments/runner/result';
import { decodePermalink, encodePermalinkDetailed, LINK_PROFILE_MIN_SHARE, LINK_PROFILE_TOP, type SharedRun } from './permalink';
import {
  diffCandidates, flameTree, flatRows, matchedMs, matches, nextSort, profileDiff, profiledRows, profileExports, profileOf,
  type FlameNode,
} from './profileView';

const K = 0x8000_0000;

/** A profile of a program `prog` making `calls` system calls into a kernel of
 *  `width` functions (f0..fN-1 under _syscall), f_i taking `cost(i)`; and an
 *  interrupt and some idle time.  Deterministic. */
function summaryOf(calls: number, width: number, cost: (i: number) => number, prog = 'prog'): ProfileSummary {
  type N = [number, Kind, number, number, number, number, number, (typeof SLOTS)[number], number];
  const nodes: N[] = [
    [-1, 'program', 2, 0, 0, 0, 0, 'user', 0],
    [0, 'start', 2, 0, 0, 1, 10, 'user', 5000],
    [0, 'exception', 0, K + 0x10, 0x40, calls, calls * 3, 'kernel', calls * 300],
    [2, 'call', 0, K + 0x20, 0, calls, calls * 30, 'kernel', calls * 900],
  ];
  for (let i = 0; i < width; i++) nodes.push([3, 'call', 0, K + 0x100 + 16 * i, 0, calls, calls * 5, 'kernel', cost(i)]);
  nodes.push([-1, 'interrupt', 0, K + 0x30, 0xc0, 7, 70, 'interrupt', 7000]);
  const idle = 20_000;
  const symbols: [number, string][] = [[K + 0x10, '_Xsyscall'], [K + 0x20, '_syscall'], [K + 0x30, '_Xhardclock'],
    ...Array.from({ length: width }, (_, i): [number, string] => [K + 0x100 + 16 * i, `_f${String(i).padStart(3, '0')}`])];
  const raw = {
    format: RAW_FORMAT, version: 1, nsPerInstruction: 3333, costDenominator: 2000,
    instructions: nodes.reduce((s, n) => s + n[6], 0), cost: nodes.reduce((s, n) => s + n[8], 0) + idle,
    kernelPath: '/vmunix', slots: SLOTS, kinds: KINDS,
    limits: { nodes: 131072, depth: 2048, contexts: 4096, images: 1024, symbols: 65536 },
    overflow: { nodes: 0, depth: 0, contexts: 0, images: 0 }, contexts: 2, walks: 0, unmatchedReturns: 0,
    images: [{ name: 'vmunix', path: '/vmunix', note: '', symbols }, { name: '(unmapped)', path: '', note: '', symbols: [] },
      { name: prog, path: `/lab/bin/${prog}`, note: '', symbols: [[0, 'start']] }],
    nodes: nodes.map(([parent, kind, image, addr, aux, c, instr, slot, cost], i) => {
      const costs = new Array(SLOTS.length).fill(0);
      costs[SLOTS.indexOf(slot)] = cost;
      if (i === 3) costs[SLOTS.indexOf('idle')] = idle;   // idle skipped in _syscall's frame, say
      return [parent, KINDS.indexOf(kind), image, addr, aux, c, instr, ...costs];
    }),
  };
  return summarize(buildProfile(parseRawProfile(JSON.stringify(raw))), { top: 40, minShare: 0.001 });
}

function row(step: string, profile: ProfileSummary | undefined, index = 0): RowResult {
  return {
    test: step, command: `/bin/time ./${step} 1000`, iterations: 1000, status: 'ok', limitSeconds: 120, paper: null, step,
    kernelSettings: {}, guest: { real: 1 + index, user: 0.1, sys: 0.9, line: `${1 + index}.0 real 0.1 user 0.9 sys` },
    ...(profile ? { profile } : {}),
  };
}

function result(rows: RowResult[], experiment = 'syscall'): ExperimentResult {
  return {
    format: RESULT_FORMAT, version: RESULT_VERSION, experiment, title: experiment,
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: TABLE2_MACHINE.memoryNote, boot: 'single', direct: true },
    image: null, parameters: {}, kernelSettings: {}, compare: 'the paper', status: 'ok', rows, group: 'g', paperRef: 'p', view: 'table2',
  };
}

const shared = (r: ExperimentResult): SharedRun => ({
  experiment: r.experiment, config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: {} }, result: r,
});

function sum(n: FlameNode): number {
  return n.selfMs + n.children.reduce((s, c) => s + sum(c), 0);
}

test('flame tree: totals add up, idle under the frame it was skipped in, kernel and user modes', () => {
  const s = summaryOf(1000, 5, (i) => 1000 * (i + 1));
  const p = profileOf(s);
  const all = flameTree(p, 'all');
  const ms = (cost: number) => (cost * 3333) / 2000 / 1e6;
  assert.ok(Math.abs(all.totalMs - ms(s.cost)) < 1e-9, 'the root is the whole run');
  assert.ok(Math.abs(sum(all) - all.totalMs) < 1e-9);
  const xs = all.children.find((c) => c.name === '[prog]')!.children.find((c) => c.name === '_Xsyscall')!;
  const syscall = xs.children.find((c) => c.name === '_syscall')!;
  assert.equal(syscall.calls, 1000);
  assert.ok(syscall.children.some((c) => c.name === '(idle)' && Math.abs(c.totalMs - ms(20_000)) < 1e-9));
  assert.deepEqual(syscall.children.filter((c) => c.name !== '(idle)').map((c) => c.name).slice(0, 2), ['_f004', '_f003'], 'biggest first');
  const kernel = flameTree(p, 'kernel');
  assert.ok(!JSON.stringify(kernel).includes('prog`start'), 'no user code in kernel mode');
  const user = flameTree(p, 'user');
  assert.deepEqual(user.children.map((c) => c.name), ['[prog]']);
  assert.ok(!JSON.stringify(user).includes('(idle)'));
});

test('search: matching names, their time counted once', () => {
  const p = profileOf(summaryOf(1000, 5, (i) => 100_000 * (i + 1)));
  const tree = flameTree(p, 'all');
  assert.ok(matches('_namei', 'NAME') && !matches('_namei', '') && !matches('_iget', 'namei'));
  const f = matchedMs(tree, "_f00");
  const expected = [1, 2, 3, 4, 5].reduce((s, i) => s + (100_000 * i * 3333) / 2000 / 1e6, 0);
  assert.ok(Math.abs(f - expected) < 1e-9);
  assert.equal(matchedMs(tree, '_syscall'), tree.children[0]!.children.find((c) => c.name === '_Xsyscall')!.children[0]!.totalMs,
    'a match covers what is under it');
});

test('flat table: sorted by a column, a click turns it around; names up, numbers down', () => {
  const p = profileOf(summaryOf(1000, 5, (i) => 1000 * (i + 1)));
  const bySelf = flatRows(p, 'kernel', { column: 'selfMs', descending: true });
  assert.ok(bySelf.every((e, i) => i === 0 || bySelf[i - 1]!.selfMs >= e.selfMs));
  let sort = nextSort({ column: 'selfMs', descending: true }, 'name');
  assert.deepEqual(sort, { column: 'name', descending: false });
  const byName = flatRows(p, 'kernel', sort);
  assert.deepEqual(byName.map((e) => e.name), [...byName.map((e) => e.name)].sort());
  sort = nextSort(sort, 'name');
  assert.equal(flatRows(p, 'kernel', sort)[0]!.name, byName[byName.length - 1]!.name);
  assert.deepEqual(nextSort(sort, 'calls'), { column: 'calls', descending: true });
});

test('diff of two rows: which functions got faster or slower', () => {
  const slow = summaryOf(1000, 5, (i) => 1000 * (i + 1));
  const fast = summaryOf(1000, 5, (i) => (i === 4 ? 100 : 1000 * (i + 1)));
  const d = profileDiff(slow, fast, 'kernel');
  assert.equal(d[0]!.name, '_f004', 'the biggest change first');
  assert.ok(d[0]!.deltaTotalMs < 0);
  const r = result([row('a', slow), row('b', undefined), row('c', fast)]);
  assert.deepEqual(profiledRows(r).map((x) => x.step), ['a', 'c']);
  assert.deepEqual(diffCandidates(r, 'a').map((x) => x.step), ['c']);
});

test('exports: speedscope JSON and folded stacks of a row', () => {
  const s = summaryOf(1000, 3, (i) => 1000 * (i + 1));
  const r = result([row('syscall', s)]);
  const { speedscope, folded } = profileExports(r, r.rows[0]!, 'all');
  const file = JSON.parse(speedscope) as { $schema: string; profiles: { name: string; weights: number[] }[] };
  assert.match(file.$schema, /speedscope/);
  assert.match(file.profiles[0]!.name, /^syscall syscall: \/bin\/time/);
  assert.match(folded, /^\[prog\];_Xsyscall;_syscall;_f002 \d+$/m);
  assert.match(folded, /^\[prog\];_Xsyscall;_syscall;\(idle\) \d+$/m);
});

test('permalinks: a small run keeps its profiles whole; Table 2\'s are cut to fit, saying so; too big, dropped', async () => {
  const small = result([row('syscall', summaryOf(100_000, 20, (i) => 5000 * (i + 1)))]);
  const one = await encodePermalinkDetailed(shared(small));
  assert.equal(one.reduction, undefined);
  assert.deepEqual((await decodePermalink(one.value)).result.rows[0]!.profile, small.rows[0]!.profile);

  // 29 rows, each with a wide profile: the whole does not fit in a link.
  const rows = TABLE2_ROWS.map((r, i) => row(rowId(r.test), summaryOf(1000 + i, 120, (k) => 1000 + ((k * 7919 + i * 104729) % 5000), `p${i}`), i));
  const big = result(rows, 'table2');
  const link = await encodePermalinkDetailed(shared(big));
  assert.equal(link.reduction?.profiles, 'reduced');
  assert.match(link.reduction!.note, new RegExp(`profiles were cut to their top ${LINK_PROFILE_TOP} functions`));
  const back = await decodePermalink(link.value);
  for (const [i, r] of back.result.rows.entries()) {
    const p = r.profile!;
    assert.ok(p.top.length <= LINK_PROFILE_TOP && p.minShare >= LINK_PROFILE_MIN_SHARE);
    assert.deepEqual(p.top, big.rows[i]!.profile!.top.slice(0, LINK_PROFILE_TOP), 'the top functions as they were');
    // Nothing lost: the kept contexts still add up to the row's time.
    const q = profileOf(p);
    let self = 0;
    for (const f of q.functions.values()) self += f.selfCost;
    assert.equal(self + q.idleCost, p.cost);
  }
  console.log(`Table 2 with profiles: ${link.value.length.toLocaleString('en-US')} characters (profiles cut); ` +
    `one syscall row with its profile: ${one.value.length.toLocaleString('en-US')}`);
});
