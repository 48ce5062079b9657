// Comparing two runs (web/src/lab/compare.ts, with the runner's resultView.ts), in Node: rows aligned, the
// configuration's difference in words, the table, the chart's series, the
// CSV of both, and what "Compare with…" offers.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { ExperimentResult, RowResult } from '../../../experiments/runner/result';
import { alignRows, comparisonTable } from '../../../experiments/runner/resultView';
import { TOGGLES } from '../../../experiments/runner/toggles';
import {
  candidateFor, compareBlocker, compareCandidates, compareRuns, COMPARISON_CSV_COLUMNS, comparisonBars, comparisonCsv,
  configDiff, configLine, defaultKernelNote, formatConfigDiff, ownKernelWords, imageLabel, kernelDefault, kernelLabel, originText, resultKernel,
  runLabels, sameRun, shortFigure,
} from './compare';
import type { HistoryEntry } from './history';
import type { SharedRun } from './permalink';
import { CSV_COLUMNS, resultBars } from './results';

function row(over: Partial<RowResult> = {}): RowResult {
  return {
    test: 'syscall', command: '/bin/time ./syscall 1000', iterations: 1000, status: 'ok', limitSeconds: 120,
    guest: { real: 0.5, user: 0.0, sys: 0.5, line: '0.5 real 0.0 user 0.5 sys' },
    emulator: { instructions: '1000', virtualSeconds: 0.5, machineInstructions: '2000', machineVirtualSeconds: 10 },
    paper: { elapsed: 0.28, user: 0.02, system: 0.26, scale: 0.01, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true },
    step: 'syscall', kernelSettings: {},
    ...over,
  };
}

interface RunOptions {
  experiment?: string;
  cpu?: '750' | '780';
  memoryMB?: number;
  set?: Record<string, number>;
  parameters?: Record<string, number>;
  image?: ExperimentResult['image'];
  view?: ExperimentResult['view'];
}

function run(rows: RowResult[], o: RunOptions = {}): SharedRun {
  const cpu = o.cpu ?? '750';
  const memoryMB = o.memoryMB ?? 5;
  const set = o.set ?? {};
  const parameters = o.parameters ?? { iterations: 1000 };
  const experiment = o.experiment ?? 'syscall';
  const result: ExperimentResult = {
    format: 'vaxlab-experiment-result', version: 2, experiment, title: `Table 2, ${experiment}`, group: 'g', paperRef: 'p',
    view: o.view ?? 'table2',
    machine: { cpu, nsPerInstruction: cpu === '780' ? 2000 : 3333, memoryMB, memoryNote: '', boot: 'single', direct: true, spinSeeds: 1 },
    image: o.image === undefined ? { name: '43bsd.dsk.gz', sha256: 'e0b0e58092ae6e56' } : o.image,
    parameters, kernelSettings: set, compare: 'ours = elapsed', status: rows.every((r) => r.status === 'ok') ? 'ok' : 'failed', rows,
  };
  return { experiment, config: { cpu, memoryMB, set, parameters }, result };
}

const at = (s: number): RowResult['guest'] => ({ real: s, user: 0, sys: s, line: `${s} real` });

test('rows align by step id, else by a test label that names one row on each side; the rest are listed', () => {
  const table2 = run([
    row({ step: 'syscall', test: 'syscall' }),
    row({ step: 'csw', test: 'csw' }),
    row({ step: 'fork', test: 'fork' }),
  ], { experiment: 'table2' });
  const one = run([row({ step: 'syscall', test: 'syscall' })]);
  const a = alignRows(table2.result, one.result);
  assert.deepEqual(a.rows.map((r) => r.key), ['syscall']);
  assert.deepEqual(a.onlyA, ['csw', 'fork']);
  assert.deepEqual(a.onlyB, []);

  // B's order; a step id renamed but the label the same still pairs.
  const b = run([row({ step: 'fork-x', test: 'fork' }), row({ step: 'syscall', test: 'syscall' }), row({ step: 'new', test: 'new' })]);
  const al = alignRows(table2.result, b.result);
  assert.deepEqual(al.rows.map((r) => [r.key, r.test]), [['fork', 'fork'], ['syscall', 'syscall']]);
  assert.deepEqual(al.onlyB, ['new']);
  assert.deepEqual(al.onlyA, ['csw']);

  // Two rows with one label: not paired by label.
  const dup = run([row({ step: 's1', test: 'ls -l' }), row({ step: 's2', test: 'ls -l' })]);
  const other = run([row({ step: 't1', test: 'ls -l' })]);
  assert.equal(alignRows(dup.result, other.result).rows.length, 0);
});

test('the configuration difference: machine, kernel variables with their GENERIC values, parameters, image', () => {
  assert.equal(kernelDefault('nchsize'), '154 (GENERIC)');
  assert.equal(kernelDefault('hz'), '100 (GENERIC)');
  assert.equal(kernelDefault('unpst_sendspace'), '4096 (PIPSIZ)');
  assert.equal(kernelDefault('dzlowrate'), '75 (default)');
  assert.equal(kernelDefault('nbuf'), 'computed at boot');
  assert.equal(kernelDefault('cpu'), null);

  const off = run([row()], { set: { nchsize: 0 } });
  const generic = run([row()]);
  const d = configDiff(off, generic);
  assert.deepEqual(d, [{ name: 'nchsize', kind: 'kernel', a: 'nchsize=0', b: 'nchsize=154 (GENERIC)' }]);
  assert.equal(formatConfigDiff(d), 'A: nchsize=0 · B: nchsize=154 (GENERIC)');
  assert.deepEqual(runLabels(d), { a: 'A: nchsize=0', b: 'B: nchsize=154 (GENERIC)' });

  const fast = run([row()], { cpu: '780', memoryMB: 8, set: { nbuf: 100 }, parameters: { iterations: 2000 } });
  assert.equal(
    formatConfigDiff(configDiff(generic, fast)),
    'A: cpu=750, memoryMB=5, nbuf computed at boot, iterations=1000 · B: cpu=780, memoryMB=8, nbuf=100, iterations=2000',
  );
  // nsPerInstruction follows cpu: not a difference of its own.
  assert.ok(!configDiff(generic, fast).some((x) => x.name === 'nsPerInstruction'));

  assert.equal(imageLabel({ name: '43bsd.dsk.gz' }), '4.3BSD');
  assert.equal(imageLabel({ name: '42bsd.dsk.gz' }), '4.2BSD');
  assert.equal(imageLabel(null), 'image not recorded');
  const bsd42 = run([row()], { image: { name: '42bsd.dsk.gz', sha256: 'aaaa' } });
  assert.equal(formatConfigDiff(configDiff(generic, bsd42)), 'A: 4.3BSD · B: 4.2BSD');
  const rebuilt = run([row()], { image: { name: '43bsd.dsk.gz', sha256: 'ffff0000ffff' } });
  assert.match(formatConfigDiff(configDiff(generic, rebuilt)), /^A: 4\.3BSD image e0b0e580… · B: 4\.3BSD image ffff0000…$/);

  // A machine knob added later (in the result's machine or the run's config) is compared too.
  const knob = run([row()]);
  (knob.result.machine as Record<string, unknown>).tape = 'tu78';
  const knob2 = run([row()]);
  (knob2.config as Record<string, unknown>).tape = 'te16';
  assert.equal(formatConfigDiff(configDiff(knob2, knob)), 'A: tape=te16 · B: tape=tu78');
  assert.equal(formatConfigDiff(configDiff(generic, knob)), 'A: tape not recorded · B: tape=tu78');

  // A knob with named values, recorded only when not its default (the disk's timing, when this tree has it).
  const diskToggle = TOGGLES.find((t) => t.name === 'disk') as { choices?: readonly string[]; defaultNote: string } | undefined;
  if (diskToggle?.choices && diskToggle.choices.length > 1) {
    const [first, other] = [diskToggle.choices.find((c) => diskToggle.defaultNote.startsWith(c))!, diskToggle.choices.find((c) => !diskToggle.defaultNote.startsWith(c))!];
    const odd = run([row()]);
    (odd.result.machine as Record<string, unknown>).disk = other;
    assert.equal(formatConfigDiff(configDiff(generic, odd)), `A: disk=${first} (default) · B: disk=${other}`);
  }

  // The disks' rotation, recorded only when locked.
  const locked = run([row()]);
  locked.result.machine.spin = 'locked';
  locked.config.spin = 'locked';
  assert.equal(formatConfigDiff(configDiff(locked, generic)), 'A: spin=locked · B: spin=drifting (default)');

  assert.deepEqual(configDiff(generic, run([row()])), []);
  assert.equal(formatConfigDiff([]), 'A and B have the same settings.');
  assert.deepEqual(runLabels([]), { a: 'A (same settings)', b: 'B (same settings)' });

  const t2 = run([row()], { experiment: 'table2', parameters: {} });
  assert.equal(formatConfigDiff(configDiff(t2, generic)), 'A: table2, no iterations · B: syscall, iterations=1000');

  assert.equal(configLine(fast), 'VAX-11/780, 8 MB, 4.3BSD; iterations=2000; kernel variables nbuf=100');
  assert.equal(configLine(generic), 'VAX-11/750, 5 MB, 4.3BSD; iterations=1000; kernel variables as distributed');
});

test('a comparison: A, B, B − A in s and %, the paper, each run against the paper; chart series; both in the CSV', () => {
  const a = run([row({ guest: at(0.5) })]);
  const b = run([row({ guest: at(0.3) })], { cpu: '780' });
  const c = compareRuns(a, b);
  assert.equal(c.metric, 'elapsed');
  assert.equal(c.rows.length, 1);
  assert.equal(c.rows[0]!.diff, -0.2);
  assert.equal(c.rows[0]!.percent, -40);

  // One row in common: a row per figure, A, B, B − A, the change and the paper's figure (scaled to B's count).
  const t = comparisonTable(c);
  assert.deepEqual(t.columns.map((x) => x.label), ['Figure', 'A', 'B', 'B − A', 'Change', 'Paper 4.3BSD']);
  const real = t.rows.find((r) => r.test === 'Real (s)')!.cells.map((x) => x.text);
  // The row's paper figure is already scaled to its count (the paper's 28 s for 100000, × 0.01).
  assert.deepEqual(real, ['Real (s)', '0.50', '0.30', '-0.20', '-40.0%', '0.28*']);
  assert.deepEqual(t.rows.map((r) => r.test), ['Real (s)', 'User (s)', 'Sys (s)', 'Status']);
  assert.equal(t.columns[1]!.title, 'cpu=750');
  assert.ok(t.footnote?.startsWith('*'));

  const bars = comparisonBars(c);
  assert.deepEqual(bars.series.map((s) => s.key), ['a', 'b', 'paper']);
  assert.deepEqual(bars.series.map((s) => s.label), ['A: cpu=750', 'B: cpu=780', 'the paper (4.3BSD)']);
  assert.deepEqual(bars.rows, [{ test: 'syscall', values: [0.5, 0.3, 0.28], percent: -40 }]);

  const csv = comparisonCsv(c).split('\r\n');
  assert.equal(csv.at(-1), '');
  assert.equal(csv[0], COMPARISON_CSV_COLUMNS.join(','));
  assert.equal(csv.length, 4); // header, A's row, B's row, the final newline
  const col = (line: string, name: string) => line.split(',')[COMPARISON_CSV_COLUMNS.indexOf(name as never)];
  assert.equal(col(csv[1]!, 'run'), 'A');
  assert.equal(col(csv[1]!, 'run_settings'), 'cpu=750');
  assert.equal(col(csv[1]!, 'ours_real_s'), '0.5');
  assert.equal(col(csv[1]!, 'b_minus_a_s'), '');
  assert.equal(col(csv[2]!, 'run'), 'B');
  assert.equal(col(csv[2]!, 'ours_real_s'), '0.3');
  assert.equal(col(csv[2]!, 'b_minus_a_s'), '-0.2');
  assert.equal(col(csv[2]!, 'b_minus_a_percent'), '-40');
  assert.equal(COMPARISON_CSV_COLUMNS.length, CSV_COLUMNS.length + 4);

  // The single run's chart: ours and the paper, same shape.
  assert.deepEqual(resultBars(b.result).series.map((s) => s.key), ['ours', 'paper']);
});

test('different counts, failed rows, no paper figure, name translation on system time', () => {
  const a = run([row({ guest: at(0.5), iterations: 1000 })]);
  const b = run([row({ guest: at(1.0), iterations: 2000, command: '/bin/time ./syscall 2000',
    paper: { elapsed: 0.56, user: 0.04, system: 0.52, scale: 0.02, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true } })],
  { parameters: { iterations: 2000 } });
  const t = comparisonTable(compareRuns(a, b));
  assert.deepEqual(t.rows[0]!.cells.map((x) => x.text), ['Iterations', '1,000', '2,000', '—', '—', '100,000']);
  assert.ok(t.notes.some((n) => /different counts/.test(n)));

  const failed = run([row({ status: 'failed', guest: undefined, failure: { kind: 'time limit', message: 'time limit', output: '' } })], { set: { nchsize: 0 } });
  const c = compareRuns(failed, b);
  assert.equal(c.rows[0]!.diff, null);
  const ft = comparisonTable(c);
  const status = ft.rows.at(-1)!;
  assert.equal(status.status, 'failed');
  assert.deepEqual(status.cells.slice(0, 3).map((x) => x.text), ['Status', 'time limit', 'ok']);
  assert.deepEqual(comparisonBars(c).rows[0]!.values, [null, 1.0, 0.56]);

  const nopaper = compareRuns(run([row({ paper: null })]), run([row({ paper: null, guest: at(0.4) })], { set: { hz: 60, tick: 16666 } }));
  assert.deepEqual(comparisonBars(nopaper).series.map((s) => s.key), ['a', 'b']);
  assert.ok(!comparisonTable(nopaper).columns.some((x) => x.key === 'paper'), 'no paper column without a paper figure');

  // Two rows in common: a row per row, a group of columns per figure.
  const two = (k: number) => run([row({ guest: at(0.5 * k) }), row({ test: 'csw', step: 'csw', guest: at(0.9 * k) })], { experiment: 'table2', parameters: { divisor: 100 } });
  const wide = comparisonTable(compareRuns(two(1), two(0.5)));
  assert.deepEqual(wide.rows.map((r) => r.test), ['syscall', 'csw']);
  const key = (k: string) => wide.rows[1]!.cells[wide.columns.findIndex((x) => x.key === k)]!.text;
  assert.deepEqual([key('real.a'), key('real.b'), key('real.diff'), key('real.change'), key('sys.change')], ['0.90', '0.45', '-0.45', '-50.0%', '-50.0%']);
  assert.deepEqual([...new Set(wide.columns.map((x) => x.group.trim()))].slice(0, 5), ['', 'Real (s)', 'User (s)', 'Sys (s)', 'Ctx sw']);

  const nc = (sys: number, rate: number) => row({
    test: 'ls -l (cache off)', step: 'ls.nch0', iterations: 1, guest: { real: 2, user: 0.1, sys, line: '' },
    totals: { 'namei.hitRate': rate }, paper: null,
  });
  const ncA = run([nc(1.2, 0)], { experiment: 'namecache', view: 'namecache', parameters: {}, memoryMB: 5 });
  const ncB = run([nc(1.0, 0)], { experiment: 'namecache', view: 'namecache', parameters: {}, memoryMB: 8 });
  const ncC = compareRuns(ncA, ncB);
  assert.equal(ncC.metric, 'system');
  assert.equal(ncC.rows[0]!.diff, -0.2);
  const nct = comparisonTable(ncC);
  assert.deepEqual(nct.rows.map((r) => r.test), ['Sys (s)', 'User (s)', 'Real (s)', 'Name hits (%)', 'Status']);
});

test('what can be compared, and what "Compare with…" offers', () => {
  const when = (iso: string) => iso.slice(11, 19);
  const shown = run([row({ guest: at(0.3) })], { cpu: '780' });
  const again = run([row({ guest: at(0.3) })], { cpu: '780' }); // the same settings run again: the same result
  const base = run([row({ guest: at(0.5) })]);
  const off = run([row({ guest: at(0.52) })], { set: { nchsize: 0 } });
  const paging = run([row({ step: 'seqpage-v', test: 'seqpage-v' })], { experiment: 'seqpage', view: 'paging' });

  assert.ok(sameRun(shown, again));
  assert.ok(!sameRun(shown, base));
  assert.match(compareBlocker(null, base)!, /Show a result first/);
  assert.match(compareBlocker(shown, again)!, /result shown/);
  assert.match(compareBlocker(shown, paging)!, /No rows in common/);
  assert.equal(compareBlocker(shown, base), null);

  const entry = (id: string, r: SharedRun, savedAt: string): HistoryEntry => ({ id, savedAt, run: r });
  const history = [
    entry('h1', again, '2026-01-01T10:00:03Z'), // the shown run's own entry
    entry('h2', base, '2026-01-01T10:00:02Z'), // also a run of this page
    entry('h3', off, '2026-01-01T09:00:00Z'),
    entry('h4', paging, '2026-01-01T08:00:00Z'),
  ];
  const session = [{ shared: shown, at: '2026-01-01T10:00:03Z' }, { shared: base, at: '2026-01-01T10:00:02Z' }];
  const list = compareCandidates(shown, session, history, when);
  assert.deepEqual(list.map((c) => c.key), ['session:1', 'history:h3']);
  assert.equal(list[0]!.label, 'Previous run — syscall · cpu=750 · 0.50 s');
  assert.equal(list[1]!.label, '09:00:00 — syscall · cpu=750, nchsize=0 · 0.52 s');
  assert.equal(list[1]!.ref.historyId, 'h3');

  // The comparison picked from the history is the listed run of this page.
  assert.equal(candidateFor(list, { shared: base, source: 'history', historyId: 'h2' })?.key, 'session:1');
  assert.equal(candidateFor(list, null), undefined);

  assert.equal(originText({ shared: base, source: 'history', at: '2026-01-01T10:00:02Z' }, when), 'from your history, saved 10:00:02');
  assert.equal(originText({ shared: base, source: 'session', at: '2026-01-01T10:00:02Z' }, when), 'a run of this page, finished 10:00:02');
  assert.equal(shortFigure(base.result), '0.50 s');
  assert.equal(shortFigure(run([row(), row({ step: 'x', status: 'failed', guest: undefined })]).result), '1 of 2 rows ok');
});

test('a result on its experiment\'s default kernel says why: Table 2 the paper\'s, Tables 7 and 8 the closest to the 4.2BSD column', () => {
  assert.equal(defaultKernelNote('paper-1985'), ': the paper’s kernel as the CSRG history dates it, this experiment’s default');
  assert.equal(defaultKernelNote('like-4.2'), ': this experiment’s default, the lab’s closest kernel to the paper’s 4.2BSD column');
  // like-4.2 is named as what it is, 4.3BSD without ..., never 4.2BSD nor the paper's kernel.
  const onLike42 = { kernel: { name: 'like-4.2: 4.3BSD without the name caches, string exec copying, the process lists, the clock\'s savings, the reschedule cancel at a context switch, the two-handed page clock and the 1985 paging thresholds', sha256: 'ab'.repeat(32) }, image: null };
  assert.equal(resultKernel(onLike42).name, 'like-4.2');
  assert.match(kernelLabel(onLike42), /^4\.3BSD without /);
  // An old paging result that names no kernel ran the image's /vmunix (Table 7's default until 26 November 2026).
  assert.equal(resultKernel({ kernel: undefined }).name, '/vmunix');
});

test('the kernel chooser\'s words for an experiment\'s own variant: the paper\'s kernel, the closest to the 4.2 column, none else', () => {
  assert.equal(ownKernelWords('paper-1985')?.option, 'the paper’s kernel');
  assert.match(ownKernelWords('paper-1985')!.why, /27 May 1985/);
  assert.match(ownKernelWords('paper-1985')!.why, /text cache of 9 November 1985/);
  // Table 2's default until 26 November 2026 is now a variant like the others: no words of its own.
  assert.equal(ownKernelWords('ofile-scans-1985'), undefined);
  assert.equal(ownKernelWords('like-4.2')?.option, 'the lab’s closest to the paper’s 4.2 column');
  // like-4.2 is 4.3BSD with the paper's 4.3 improvements taken back: its words never call it 4.2BSD.
  assert.match(ownKernelWords('like-4.2')!.why, /still 4\.3BSD/);
  assert.doesNotMatch(ownKernelWords('like-4.2')!.option, /4\.2BSD/);
  assert.equal(ownKernelWords('no-name-cache'), undefined);
  assert.equal(ownKernelWords('toString'), undefined);
});
