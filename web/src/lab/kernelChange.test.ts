// A kernel variant against GENERIC beside the paper's 4.2 → 4.3 change
// (web/src/lab/kernelChange.ts), in Node: which pairs get it, the rows the
// paper reports (Table 2's 4.2 and 4.3 columns, §4.1.1's ls -l figures by the
// caches each kernel has), the direction of both changes, and the table.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { findExperiment } from '../../../experiments/runner/experiments';
import type { ExperimentResult, RowResult } from '../../../experiments/runner/result';
import { EXEC_BYTES, LIKE_42, NO_NAME_CACHE, NO_OFFSET_CACHE, OFILE_SCANS_1985, PROC_SCANS, type KernelVariant } from '../../../experiments/kernels/variants';
import { compareRuns, configDiff, configLine, kernelLabel } from './compare';
import { kernelChange, kernelChangeTable } from './kernelChange';
import type { SharedRun } from './permalink';

/** A row of experiment `experiment`'s step `step` as the runner records it, with the paper's figures of its definition. */
function row(experiment: string, step: string, guest: { real: number; sys: number }, over: Partial<RowResult> = {}): RowResult {
  const spec = findExperiment(experiment)!.steps.find((s) => s.id === step)!;
  const p = spec.paper;
  return {
    test: spec.label, command: spec.command, iterations: p?.count ?? 1, status: 'ok', limitSeconds: 100,
    guest: { real: guest.real, user: 0, sys: guest.sys, line: '' },
    paper: p ? { elapsed: p.elapsed, user: p.user, system: p.system, scale: 1, iterations: p.count, source: p.source, column: p.column, scaled: p.scales } : null,
    step, kernelSettings: { ...spec.kernel },
    ...over,
  };
}

function run(experiment: string, rows: RowResult[], variant: KernelVariant | null): SharedRun {
  const result: ExperimentResult = {
    format: 'vaxlab-experiment-result', version: 2, experiment, title: experiment, group: 'g', paperRef: 'p', view: 'table2',
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: '', boot: 'single', direct: true, spinSeeds: 1 },
    image: { name: '43bsd.dsk.gz', sha256: 'ab' },
    ...(variant ? { kernel: { name: `${variant.name}: ${variant.label}`, sha256: 'cd' } } : {}),
    parameters: {}, kernelSettings: {}, compare: 'c', status: 'ok', rows,
  };
  return { experiment, config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: {}, ...(variant ? { kernel: variant.name } : {}) }, result };
}

test('a variant against GENERIC: Table 2 rows get the paper\'s 4.2 and 4.3 figures beside ours, both read toward 4.3', () => {
  const generic = run('table2', [row('table2', 'forks0', { real: 17.0, sys: 16.6 })], null);
  const variant = run('table2', [row('table2', 'forks0', { real: 20.6, sys: 11.7 })], PROC_SCANS);
  // The variant shown (B), compared with GENERIC (A).
  const k = kernelChange(compareRuns(generic, variant))!;
  assert.equal(k.variant.name, 'proc-scans');
  assert.equal(k.genericSide, 'a');
  const real = k.rows.find((r) => r.figure === 'real')!;
  // Table 2's fork row: 41 s in 4.2BSD, 22 s in 4.3BSD (elapsed).
  assert.deepEqual([real.paperBefore, real.paperAfter, real.paperBeforeWhat, real.paperAfterWhat], [41, 22, '4.2BSD', '4.3BSD']);
  assert.equal(real.paperChange, -46.3);
  assert.deepEqual([real.oursBefore, real.oursAfter, real.oursChange], [20.6, 17.0, -17.5]);
  // Swapped (GENERIC shown): the same rows, the same direction.
  const swapped = kernelChange(compareRuns(variant, generic))!;
  assert.equal(swapped.genericSide, 'b');
  assert.deepEqual(swapped.rows, k.rows);
  // The table: a row per figure, the paper's group and ours.
  const table = kernelChangeTable(k);
  assert.deepEqual(table.columns.map((c) => c.key), ['test', 'figure', 'paper.before', 'paper.after', 'paper.change', 'ours.before', 'ours.after', 'ours.change']);
  assert.deepEqual(table.rows[0]!.cells.map((c) => c.text), ['forks0', 'Elapsed', '41.0', '22.0', '-46.3%', '20.6', '17.0', '-17.5%']);
  assert.match(table.notes[0]!, /everything that changed from 4\.2BSD to 4\.3BSD; ours is only what “4\.3BSD without the threaded process table” reverts/);
});

test('ls -l: §4.1.1\'s figure for the caches each kernel has (22.3 s before the per-process cache, 3.3 after, 3.7 with both)', () => {
  const ls = (v: KernelVariant | null, sys: number, nchsize?: number) =>
    run('ls-l', [row('ls-l', 'ls', { real: sys + 5, sys }, nchsize === undefined ? {} : { kernelSettings: { nchsize } })], v);
  const noOffset = kernelChange(compareRuns(ls(null, 3.2), ls(NO_OFFSET_CACHE, 20.6)))!;
  assert.equal(noOffset.rows.length, 1);
  assert.deepEqual([noOffset.rows[0]!.paperBefore, noOffset.rows[0]!.paperAfter, noOffset.rows[0]!.figure], [22.3, 3.7, 'sys']);
  assert.equal(noOffset.rows[0]!.paperBeforeWhat, 'before the per-process cache');
  assert.equal(noOffset.rows[0]!.oursChange, -84.5);
  const noName = kernelChange(compareRuns(ls(null, 3.2), ls(NO_NAME_CACHE, 2.7)))!;
  assert.deepEqual([noName.rows[0]!.paperBefore, noName.rows[0]!.paperAfter], [3.3, 3.7]);
  assert.equal(kernelChange(compareRuns(ls(null, 3.2), ls(LIKE_42, 17.5)))!.rows[0]!.paperBefore, 22.3);
  // With the name cache off on both (nchsize=0): the offset cache alone against none.
  assert.deepEqual(kernelChange(compareRuns(ls(null, 2.7, 0), ls(NO_OFFSET_CACHE, 20.0, 0)))!.rows.map((r) => [r.paperBefore, r.paperAfter]), [[22.3, 3.3]]);
  // A variant that keeps both caches: the paper reports no ls -l change for it, so no row (and no table).
  assert.equal(kernelChange(compareRuns(ls(null, 3.2), ls(EXEC_BYTES, 3.2))), null);
});

test('only a variant against GENERIC: two variants, two GENERICs, or no row the paper reports give none', () => {
  const t2 = (v: KernelVariant | null) => run('table2', [row('table2', 'syscall', { real: 24.5, sys: 20 })], v);
  assert.equal(kernelChange(compareRuns(t2(null), t2(null))), null);
  assert.equal(kernelChange(compareRuns(t2(EXEC_BYTES), t2(PROC_SCANS))), null);
  assert.notEqual(kernelChange(compareRuns(t2(null), t2(EXEC_BYTES))), null);
  // A spring-1985 variant takes back a change made after the paper's measurements, not part of its 4.2 -> 4.3
  // change: no 4.2 -> 4.3 table beside it (its rows are compared as any two runs are).
  const forks = (v: KernelVariant | null) => run('table2', [row('table2', 'forks0', { real: 19.6, sys: 18.4 })], v);
  assert.equal(kernelChange(compareRuns(forks(null), forks(OFILE_SCANS_1985))), null);
  assert.equal(kernelChange(compareRuns(forks(OFILE_SCANS_1985), forks(null))), null);
  const namework = (v: KernelVariant | null) => run('ls-l', [row('namecache', 'namework.nch154', { real: 10, sys: 5 })], v);
  assert.equal(kernelChange(compareRuns(namework(null), namework(NO_NAME_CACHE))), null);
  // A failed row: ours is missing, the paper's still shown.
  const failed = run('table2', [row('table2', 'syscall', { real: 1, sys: 1 }, { status: 'failed', guest: undefined })], EXEC_BYTES);
  const k = kernelChange(compareRuns(t2(null), failed))!;
  assert.equal(k.rows[0]!.oursBefore, null);
  assert.equal(kernelChangeTable(k).rows[0]!.status, 'failed');
});

test('the kernel in words: labels say "4.3BSD without …", never 4.2BSD; the settings differ by the kernel', () => {
  const a = run('table2', [row('table2', 'syscall', { real: 24.5, sys: 20 })], null);
  const b = run('table2', [row('table2', 'syscall', { real: 24.7, sys: 21.6 })], LIKE_42);
  assert.equal(kernelLabel(a.result), '4.3BSD');
  assert.equal(kernelLabel(b.result), LIKE_42.label);
  assert.doesNotMatch(kernelLabel(b.result), /4\.2BSD/);
  assert.deepEqual(configDiff(a, b).map((d) => [d.name, d.a, d.b]), [['kernel', 'kernel=/vmunix', 'kernel=like-4.2']]);
  assert.match(configLine(b), /^VAX-11\/750, 4\.5 MB, 4\.3BSD without the name caches/);
});
