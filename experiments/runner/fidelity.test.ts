// The fidelity summaries (fidelity.ts): errors against the paper per row,
// calibration rows shown but not counted, medians and maxima over the
// held-out rows, the spin-seed range carried through.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { kernelResultName } from '../kernels/variants';
import { findExperiment } from './experiments';
import { formatFidelity, table2Fidelity, table7Fidelity, table8Fidelity } from './fidelity';
import type { ExperimentResult, RowResult } from './result';

function row(test: string, real: number, sys: number, paper: { elapsed: number; system: number }, extra: Partial<RowResult> = {}): RowResult {
  return {
    test, command: `/bin/time ./${test}`, iterations: 1, status: 'ok', limitSeconds: 100, step: test, kernelSettings: {},
    guest: { real, user: 0, sys, line: '' },
    paper: { ...paper, scale: 1, iterations: 1, source: 'Table 2', column: '4.3BSD', scaled: false },
    ...extra,
  };
}

function result(rows: RowResult[]): ExperimentResult {
  return {
    format: 'vaxlab-experiment-result', version: 2, experiment: 'table2', title: 't',
    machine: { cpu: '750', nsPerInstruction: 2000, memoryMB: 4.5, memoryNote: '', boot: 'single', direct: true, spinSeeds: 3 },
    image: null, parameters: {}, kernelSettings: {}, compare: '', status: 'ok', rows, group: '', paperRef: '', view: 'table2',
  };
}

test('Table 2: per-row errors, calibration rows not counted, the worst held-out row named', () => {
  const t = table2Fidelity(result([
    row('syscall', 23, 20, { elapsed: 23, system: 20 }, { calibration: true }),
    row('csw', 55, 22, { elapsed: 50, system: 20 }),                      // +10%, +10%
    row('forks0', 18, 17, { elapsed: 20, system: 20 }),                   // -10%, -15%
    row('execs0big', 160, 95, { elapsed: 100, system: 95 },               // +60%, 0%
      { spread: { seeds: 3, real: { min: 150, max: 170 }, user: { min: 0, max: 0 }, sys: { min: 94, max: 96 } } }),
    row('broken', 1, 1, { elapsed: 1, system: 1 }, { status: 'failed' }),
  ]));
  assert.equal(t.rows.length, 4);   // the failed row is left out
  assert.equal(t.rows[0]!.calibration, true);
  assert.ok(Math.abs(t.rows[1]!.cells.elapsed!.errorPercent - 10) < 1e-9);
  const e = t.summary.elapsed!;
  assert.equal(e.heldOut, 3);
  assert.ok(Math.abs(e.medianAbsPercent - 10) < 1e-9);
  assert.ok(Math.abs(e.maxAbsPercent - 60) < 1e-9);
  assert.equal(e.worst, 'execs0big');
  assert.equal(t.summary.system!.worst, 'forks0');
  assert.deepEqual(t.rows[3]!.cells.elapsed!.range, { min: 150, max: 170 });
  const text = formatFidelity(t);
  assert.match(text, /syscall \(calibration\)/);
  assert.match(text, /160 \[150-170\]/);
  assert.match(text, /elapsed: 3 held-out rows, median \|error\| 10\.0%, max 60\.0% \(execs0big\)/);
});

test('Table 8: only rows with the paper\'s page fault service time', () => {
  const t = table8Fidelity(result([
    row('randpage', 440, 56, { elapsed: 569, system: 77.2 }, { derived: { pageFaults: 9400, pfstMs: 6, paperPfstMs: 7.89 } }),
    row('seqpage', 660, 144, { elapsed: 1126, system: 213 }, { derived: { pageFaults: 16925, pfstMs: 8.5 } }),
  ]));
  assert.deepEqual(t.rows.map((r) => r.label), ['randpage']);
  assert.ok(Math.abs(t.summary.pfst!.maxAbsPercent - ((7.89 - 6) / 7.89) * 100) < 1e-9);
});

test('Table 7: rows with a handful of faults in the paper are shown, not counted', async () => {
  const { table7Fidelity } = await import('./fidelity');
  const paging = (test: string, faults: number, paperFaults: number): RowResult => ({
    ...row(test, 10, 1, { elapsed: 10, system: 1 }),
    paper: { elapsed: 10, system: 1, pageFaults: paperFaults, scale: 1, iterations: 1, source: 'Table 7', column: '4.2BSD', scaled: false },
    derived: { pageFaults: faults },
  });
  const t = table7Fidelity(result([paging('gausspage.10', 8, 2), paging('gausspage.80', 4944, 5105)]));
  assert.equal(t.summary.faults!.heldOut, 1);
  assert.equal(t.summary.faults!.worst, 'gausspage.80');
  assert.match(formatFidelity(t), /\+300% \*/);
});

test('seeded paging rows: the median run carries the page-ins\' range, Table 7 shows it, a result with it validates', async () => {
  const { table7Fidelity } = await import('./fidelity');
  const { medianRun } = await import('./runner');
  const { validateResult } = await import('./result');
  const run = (real: number, faults: number): RowResult => ({
    ...row('gausspage.50', real, 18, { elapsed: 175, system: 26.3 }),
    paper: { elapsed: 175, system: 26.3, pageFaults: 1851, scale: 1, iterations: 1, source: 'Table 7', column: '4.2BSD', scaled: false },
    derived: { pageFaults: faults, pfstMs: (18 / faults) * 1000 },
  });
  const median = medianRun([run(118.8, 1330), run(116.6, 1290), run(117.9, 1311)], 3);
  assert.equal(median.guest!.real, 117.9);                        // the median by elapsed time
  assert.equal(median.derived!.pageFaults, 1311);                 // its own count
  assert.deepEqual(median.spread!.pageFaults, { min: 1290, max: 1330 });
  const t = table7Fidelity(result([median]));
  assert.deepEqual(t.rows[0]!.cells.faults!.range, { min: 1290, max: 1330 });
  assert.deepEqual(t.rows[0]!.cells.elapsed!.range, { min: 116.6, max: 118.8 });
  assert.match(formatFidelity(t), /1311 \[1290-1330\]/);
  // Rows without page-ins (Table 2's) get no such range.
  const t2 = medianRun([row('syscall', 23, 20, { elapsed: 23, system: 20.4 }), row('syscall', 23.1, 20, { elapsed: 23, system: 20.4 })], 2);
  assert.equal(t2.spread!.pageFaults, undefined);
  const json = JSON.parse(JSON.stringify({ ...result([median]), experiment: 'table7', view: 'paging' }));
  assert.equal(validateResult(json, 'r').rows[0]!.spread!.pageFaults!.max, 1330);
  json.rows[0].spread.pageFaults.min = 'many';
  assert.throws(() => validateResult(json, 'r'), /pageFaults/);
});

test('each table names the kernel its result ran on (Table 2 boots the paper\'s by default, Tables 7 and 8 like-4.2)', () => {
  const onVariant = { ...result([row('forks0', 21.4, 20.3, { elapsed: 22, system: 21.5 })]), kernel: { name: 'ofile-scans-1985' } };
  assert.match(table2Fidelity(onVariant).title, /, kernel ofile-scans-1985$/);
  assert.doesNotMatch(table2Fidelity(result([row('forks0', 19.6, 18.4, { elapsed: 22, system: 21.5 })])).title, /kernel/);
  // Tables 7 and 8 against the paper's 4.2BSD column, on like-4.2 named as the runner names it: 4.3BSD without ...
  const randpage = row('randpage', 440, 56, { elapsed: 569, system: 77.2 }, { derived: { pageFaults: 9400, pfstMs: 6, paperPfstMs: 7.89 } });
  const paging = { ...result([randpage]), experiment: 'table7', view: 'paging' as const,
    kernel: { name: kernelResultName(findExperiment('table7')!.kernel!) } };
  const like42 = ', kernel like-4.2: 4.3BSD without the name caches, string exec copying, the process lists, the clock\'s savings, ' +
    'the reschedule cancel at a context switch, the two-handed page clock and the 1985 paging thresholds';
  assert.equal(table7Fidelity(paging).title, `Table 7 (paging), against its 4.2BSD column${like42}`);
  assert.equal(table8Fidelity(paging).title, `Table 8 (page fault service time, ms), against its 4.2BSD column${like42}`);
  assert.doesNotMatch(like42, /4\.2BSD/);
});

test('Table 7\'s free-memory probes: each counted row\'s faults with less and more free memory, shown beside its error', async () => {
  const { FREE_MEMORY_PROBE_KB, table7CountedSteps } = await import('./fidelity');
  const paging = (test: string, faults: number, paperFaults: number): RowResult => ({
    ...row(test, 70, 12, { elapsed: 81, system: 13.6 }),
    paper: { elapsed: 81, system: 13.6, pageFaults: paperFaults, scale: 1, iterations: 1, source: 'Table 7', column: '4.2BSD', scaled: false },
    derived: { pageFaults: faults },
  });
  const main = result([paging('gausspage.30', 8, 2), paging('gausspage.40', 376, 260), paging('gausspage.50', 1938, 1851)]);
  // Only the rows whose counts are compared are probed.
  assert.deepEqual(table7CountedSteps(main), ['gausspage.40', 'gausspage.50']);
  // The probe runs hold those steps alone; one of them failed in the "more free" run.
  const lessFree = result([paging('gausspage.40', 426, 260), paging('gausspage.50', 2010, 1851)]);
  const moreFree = result([paging('gausspage.40', 253, 260), { ...paging('gausspage.50', 0, 1851), status: 'failed' }]);
  const t = table7Fidelity(main, { lessFree, moreFree });
  assert.deepEqual(t.rows[1]!.cells.faults!.freeMemory, { kb: FREE_MEMORY_PROBE_KB, lessFree: 426, moreFree: 253 });
  assert.equal(t.rows[0]!.cells.faults!.freeMemory, undefined);   // not probed
  assert.equal(t.rows[2]!.cells.faults!.freeMemory, undefined);   // its probe did not finish: nothing half-shown
  assert.equal(t.rows[1]!.cells.elapsed!.freeMemory, undefined);  // faults only
  // The summary is the kernel's own memory's, as without probes.
  assert.deepEqual(t.summary, table7Fidelity(main).summary);
  const text = formatFidelity(t);
  assert.match(text, new RegExp(`${FREE_MEMORY_PROBE_KB} KB less / more free`));
  assert.match(text, /gausspage\.40 +\| +376 \| +260 \| +\+45% \| +426 \/ 253 \|/);
  assert.match(text, /knife edge of free memory/);
  // Without probes, no such column or note.
  assert.doesNotMatch(formatFidelity(table7Fidelity(main)), /less \/ more free|knife edge/);
});

test('the heading is the title without the kernel (the page names the kernel apart); a locked run says so in both', () => {
  const onVariant = { ...result([row('forks0', 21.4, 20.3, { elapsed: 22, system: 21.5 })]), kernel: { name: 'paper-1985: 4.3BSD as of spring 1985' } };
  const t = table2Fidelity(onVariant);
  assert.equal(t.heading, 'Table 2 (4.3BSD column), VAX-11/750');
  assert.equal(t.title, `${t.heading}, kernel paper-1985: 4.3BSD as of spring 1985`);
  const locked = table2Fidelity({ ...onVariant, machine: { ...onVariant.machine, spin: 'locked' } });
  assert.match(locked.heading, /^Table 2 \(4\.3BSD column\), VAX-11\/750, .*locked/);
  assert.ok(locked.title.startsWith(locked.heading) && !locked.heading.includes('kernel'));
});
