// The one table of a result (resultView.ts) and its text rendering
// (resultText.ts): the command line prints the very columns and cells the
// lab page shows, for each view and for two results side by side.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { EXPERIMENTS, findExperiment } from './experiments';
import type { ExperimentResult, RowResult } from './result';
import { formatTable, tableText } from './resultText';
import { kernelResultName } from '../kernels/variants';
import {
  changeSentence, columnGroups, comparisonTable, figureChanges, NOT_COMPARABLE, pairResults, paperFigures, PFST_MIN_FAULTS, resultTable,
  startsGroup, type ResultTable,
} from './resultView';

function result(id: string, rows: RowResult[]): ExperimentResult {
  const spec = findExperiment(id)!;
  return {
    format: 'vaxlab-experiment-result', version: 2, experiment: id, title: spec.title,
    machine: { cpu: '750', nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: 'n', boot: 'single', direct: true },
    image: null, parameters: {}, kernelSettings: {}, compare: spec.compare, status: 'ok', rows,
    group: spec.group, paperRef: spec.paperRef, view: spec.view,
  };
}

const base = { status: 'ok' as const, limitSeconds: 120, kernelSettings: {}, command: 'x' };
const TABLE2 = result('syscall', [{
  ...base, test: 'syscall', step: 'syscall', iterations: 2000, guest: { real: 0.62, user: 0.03, sys: 0.55, line: '' },
  paper: { elapsed: 0.46, user: 0.01, system: 0.45, scale: 0.02, iterations: 100000, source: 'Table 2', column: '4.3BSD', scaled: true },
}]);
const PAGING = result('table8', [{
  ...base, test: 'randpage', step: 'randpage', iterations: 30000, guest: { real: 440.1, user: 3.5, sys: 56.5, line: '' },
  paper: { elapsed: 569, user: 7.6, system: 77.2, pageFaults: 9776, pfst: 789, scale: 1, iterations: 30000, source: 'Tables 7 and 8', column: '4.2BSD', scaled: false },
  derived: { pageFaults: 9427, pfstMs: 5.993, paperPfstMs: 7.89 },
}, {
  ...base, test: 'gausspage.inf', step: 'gausspage.inf', iterations: 30000, guest: { real: 20, user: 19, sys: 0.9, line: '' },
  paper: null, derived: { pageFaults: 8, pfstMs: 112.5 },
}]);
const NAMECACHE = result('namecache', [{
  ...base, test: 'ls -l, nchsize=0 (off)', step: 'ls.nch0', iterations: 1, readback: { nchsize: 0 },
  guest: { real: 12.1, user: 8.3, sys: 3.1, line: '' },
  paper: { system: 3.3, scale: 1, iterations: 1, source: '§4.1.1', column: 'per-process cache only', scaled: false },
  totals: { 'namei.hits': 0, 'namei.misses': 622, 'namei.hitRate': 0, 'namei.pass2': 602 },
}, {
  ...base, test: 'namework, nchsize=0 (off)', step: 'work.nch0', iterations: 200, status: 'failed', paper: null, readback: { nchsize: 0 },
  failure: { kind: 'time limit', message: 'time limit: no "\\n# " within 120 virtual seconds', output: '' },
}]);

/** The text's table lines: the header, the rule, one line per row, split into cells (after the groups' line). */
function textCells(text: string[], rows: number): string[][] {
  return [text[1]!, ...text.slice(3, 3 + rows)].map((l) => l.split(/ \|\|? /).map((c) => c.trim()));
}

function sameTable(table: ResultTable, what: string): void {
  const text = tableText(table);
  const cells = textCells(text, table.rows.length);
  assert.deepEqual(cells[0], table.columns.map((c) => c.label), `${what}: the header`);
  table.rows.forEach((r, i) => assert.deepEqual(cells[i + 1], r.cells.map((c) => c.text), `${what}: row ${i}`));
  assert.match(text[2]!, /^-+(-\|\|?-+)+$/, `${what}: the rule`);
  // The groups are named over their columns, and each starts with a double bar, in the header and each row.
  assert.deepEqual(text[0]!.split(/ *\|\| */).map((g) => g.trim()), columnGroups(table.columns).map((g) => g.label.trim()), `${what}: the groups`);
  for (const line of [text[1]!, ...text.slice(3, 3 + table.rows.length)]) {
    const bars = line.split(' | ').join(' ').split(' || ').length - 1;
    assert.equal(bars, table.columns.filter((_c, j) => startsGroup(table.columns, j)).length, `${what}: || before each group`);
  }
  for (const n of [table.footnote, ...table.notes]) if (n) assert.ok(text.includes(n), `${what}: ${n}`);
  for (const c of table.columns) if (c.title) assert.ok(text.some((l) => l.endsWith(`${c.label}: ${c.title}`)), `${what}: ${c.label}'s legend`);
}

test('the command line prints the table the page shows: each view, and two results side by side', () => {
  for (const [what, r] of [['table2', TABLE2], ['paging', PAGING], ['namecache', NAMECACHE]] as const) {
    const table = resultTable(r);
    assert.ok(table.rows.every((row) => row.cells.length === table.columns.length), what);
    sameTable(table, what);
    // formatTable is that table under the result's description, with host seconds at the right when given.
    const text = formatTable(r, r.rows.map(() => 1.25)).split('\n');
    assert.equal(text[0], `${r.experiment}: ${r.title}`);
    const head = text.find((l) => l.startsWith(table.columns[0]!.label))!;
    assert.match(head, /\| Host \(s\)$/);
    assert.equal(text.filter((l) => / 1\.25$/.test(l)).length, r.rows.length);
  }
  // The header says which kernel ran, in words: Table 2's default, the paper's kernel as the CSRG history dates it.
  const onPaperKernel = formatTable({ ...TABLE2, kernel: { name: kernelResultName('paper-1985'), sha256: 'ab'.repeat(32) } }).split('\n');
  assert.equal(onPaperKernel[3], 'kernel: paper-1985: 4.3BSD with the open-file scans and without the text cache, as of spring 1985');
  assert.ok(formatTable({ ...TABLE2, kernel: { name: kernelResultName(null) } }).split('\n')
    .includes('kernel: vmunix: 4.3BSD as distributed (the image\'s /vmunix, GENERIC of June 1986)'));
  assert.ok(!formatTable(PAGING).split('\n').some((l) => l.startsWith('kernel: ')), 'no kernel line for /vmunix where it is the default');
  const faster = { result: { ...TABLE2, rows: [{ ...TABLE2.rows[0]!, guest: { real: 0.4, user: 0.02, sys: 0.35, line: '' } }] } };
  sameTable(comparisonTable(pairResults({ result: TABLE2 }, faster, { a: 'A: cpu=750', b: 'B: cpu=780' })), 'a comparison of one row');
  const two = (r: ExperimentResult, k: number) => ({ result: { ...r, rows: r.rows.map((row) => ({ ...row, guest: row.guest && { ...row.guest, real: row.guest.real * k } })) } });
  sameTable(comparisonTable(pairResults(two(PAGING, 1), two(PAGING, 0.5), { a: 'A', b: 'B' })), 'a comparison of two rows');
});

test('the command line\'s machine line names a disk timing other than the default by its words (toggles.ts, DISK_TIMING_NAMES)', () => {
  const machineLine = (disk: 'eagle' | 'ideal' | 'rm05') => formatTable({ ...TABLE2, machine: { ...TABLE2.machine, disk } }).split('\n')[1];
  const line = (words: string, id: string) =>
    `machine: VAX-11/750 model (its costs scaled by 3333/2000), 4.5 MB (n), single-user; disk timing ${id} (${words}; the pack stays an RP06's)`;
  assert.equal(machineLine('eagle'), line('Fujitsu Eagle', 'eagle'));
  assert.equal(machineLine('ideal'), line('no seek or rotational latency, not a real drive', 'ideal'));
  assert.equal(machineLine('rm05'), line('DEC RM05', 'rm05'));
  assert.equal(formatTable(TABLE2).split('\n')[1], 'machine: VAX-11/750 model (its costs scaled by 3333/2000), 4.5 MB (n), single-user');
  // Today's results, on either model, have the model's own scale: no "2000 ns/instruction", which read as a flat
  // speed the same for the 750 and the 780.
  for (const cpu of ['750', '780']) {
    assert.equal(formatTable({ ...TABLE2, machine: { ...TABLE2.machine, cpu, nsPerInstruction: 2000 } }).split('\n')[1],
      `machine: VAX-11/${cpu} model, 4.5 MB (n), single-user`);
  }
});

test('units: a column labelled in seconds, ms or % says so; a failed row shows dashes and why', () => {
  for (const r of [TABLE2, PAGING, NAMECACHE]) {
    for (const c of resultTable(r).columns) {
      const unit = /\((s|ms|%)\)$/.exec(c.label)?.[1] ?? null;
      if (unit !== null) assert.equal(c.unit, unit, c.label);
      if (!c.numeric) assert.equal(c.unit, null, c.label);
    }
  }
  const nc = resultTable(NAMECACHE);
  const failed = nc.rows[1]!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.cells.at(-1)!.text, 'time limit: no "\\n# " within 120 virtual seconds');
  const ours = nc.columns.map((c, j) => (c.key.startsWith('ours.') ? j : -1)).filter((j) => j >= 0);
  assert.equal(ours.length, 7);
  assert.ok(ours.every((j) => failed.cells[j]!.text === '—'));
});

test('paging: PFST is shown only with enough faults to mean something (the paper\'s rule)', () => {
  const t = resultTable(PAGING);
  const pfst = t.columns.findIndex((c) => c.label === 'PFST (ms)');
  assert.equal(t.rows[0]!.cells[pfst]!.text, '5.99'); // 9427 faults
  assert.ok(8 < PFST_MIN_FAULTS);
  assert.equal(t.rows[1]!.cells[pfst]!.text, '—'); // 8 faults: 112 ms would say nothing
  // The paper's row figures and difference: 440 s against 569 s.
  const at = (key: string) => t.columns.findIndex((c) => c.key === key);
  assert.deepEqual([at('diff.s'), at('diff.percent'), at('status')].map((j) => t.rows[0]!.cells[j]!.text), ['-129', '-23%', 'ok']);
  // Table 7's 4.1BSD column beside its 4.2BSD one (from this lab's copy of the paper).
  assert.equal(t.rows[0]!.cells[t.columns.findIndex((c) => c.key === 'paper.4.1BSD.real')]!.text, '571');
  assert.equal(t.rows[0]!.cells[t.columns.findIndex((c) => c.key === 'paper.4.1BSD.pfstMs')]!.text, '7.91');
});

test('a reduced paging run says n/c for the paper\'s figures instead of setting them beside ours', () => {
  const reduced: ExperimentResult = {
    ...PAGING, parameters: { divisor: 10 },
    rows: [{ ...PAGING.rows[0]!, iterations: 3000, guest: { real: 6, user: 0.2, sys: 5.5, line: '' },
      paper: { ...PAGING.rows[0]!.paper!, scale: 0.1 }, derived: { pageFaults: 9, pfstMs: 611, paperPfstMs: 7.89 } }],
  };
  const t = resultTable(reduced);
  const cells = Object.fromEntries(t.columns.map((c, j) => [c.key, t.rows[0]!.cells[j]!.text]));
  for (const k of ['paper.main.real', 'paper.main.sys', 'paper.main.pfstMs', 'diff.s', 'diff.percent', 'paper.4.1BSD.real']) {
    assert.equal(cells[k], NOT_COMPARABLE, k);
  }
  // 9 page-ins: our PFST (611 ms) means nothing either.
  assert.equal(cells['ours.pfst'], '—');
  assert.ok(t.notes.some((n) => /^n\/c: not comparable .*divisor 10/.test(n)));
  assert.ok(!tableText(t).join('\n').includes('569'), 'no paper figure in the text');
});

test('Table 2: ours and the paper\'s real, user and system time, the paper\'s 4.2 and 4.1 columns (scaled), and the counters', () => {
  const row = { ...TABLE2.rows[0]!, totals: { cs: 12, faults: 21, 'disk.hp0.xfers': 18, 'disk.hp1.xfers': 2, 'namei.hitRate': 40 } };
  const t = resultTable({ ...TABLE2, rows: [row] });
  const cells = Object.fromEntries(t.columns.map((c, j) => [c.key, t.rows[0]!.cells[j]!.text]));
  assert.deepEqual([cells['ours.real'], cells['ours.user'], cells['ours.sys']], ['0.62', '0.03', '0.55']);
  assert.deepEqual([cells['paper.main.real'], cells['paper.main.user'], cells['paper.main.sys']], ['0.46*', '0.01*', '0.45*']);
  // Table 2's syscall row: 4.2BSD 29.0, 5.3, 23.7 and 4.1BSD 28.0, 4.5, 23.9 s for 100,000; scaled to 2,000.
  assert.deepEqual([cells['paper.4.2BSD.real'], cells['paper.4.2BSD.user'], cells['paper.4.2BSD.sys']], ['0.58*', '0.11*', '0.47*']);
  assert.deepEqual([cells['paper.4.1BSD.real'], cells['paper.4.1BSD.sys']], ['0.56*', '0.48*']);
  assert.deepEqual([cells['ours.cs'], cells['ours.faults'], cells['ours.disk'], cells['ours.hitRate']], ['12', '21', '20', '40.0%']);
  assert.deepEqual(columnGroups(t.columns).map((g) => g.label.trim()), ['', 'Ours', 'Paper 4.3BSD', '', 'Counters', 'Paper 4.2BSD', 'Paper 4.1BSD']);
  assert.deepEqual(paperFigures(TABLE2, TABLE2.rows[0]!).map((p) => p.column), ['4.3BSD', '4.2BSD', '4.1BSD']);
});

test('two runs: a row per figure when they share one row; what changed most, in a sentence', () => {
  const run = (nch: number, hits: number, misses: number, sys: number, real: number): { result: ExperimentResult } => ({
    result: { ...NAMECACHE, rows: [{ ...NAMECACHE.rows[0]!, test: 'namework', step: 'namework', readback: { nchsize: nch }, paper: null,
      guest: { real, user: 0.2, sys, line: '' },
      totals: { 'namei.hits': hits, 'namei.misses': misses, 'namei.hitRate': (100 * hits) / (hits + misses), 'namei.pass2': 0 } }] },
  });
  const pair = pairResults(run(154, 5396, 620, 13.0, 34.1), run(0, 0, 6016, 19.9, 40.7), { a: 'A: nchsize=154 (GENERIC)', b: 'B: nchsize=0' });
  const t = comparisonTable(pair);
  assert.deepEqual(t.columns.map((c) => c.label), ['Figure', 'A', 'B', 'B − A', 'Change'], 'no paper column: the paper has no figure');
  const byFigure = Object.fromEntries(t.rows.map((r) => [r.test, r.cells.map((c) => c.text)]));
  assert.deepEqual(byFigure['Sys (s)'], ['Sys (s)', '13.0', '19.9', '+6.9', '+53.1%']);
  assert.deepEqual(byFigure['Name hits (%)'], ['Name hits (%)', '89.7%', '0.0%', '-89.7', '-89.7 points']);
  assert.deepEqual(byFigure['Misses'], ['Misses', '620', '6,016', '+5,396', '+870.3%']);
  assert.equal(figureChanges(pair)[0]!.figure.key, 'hitRate');
  assert.equal(changeSentence(pair),
    'What changed most: the name-cache hit rate, 89.7% in A and 0.0% in B (-89.7 points); system time 13.0 s → 19.9 s (+53.1%), ' +
    'elapsed time 34.1 s → 40.7 s (+19.4%).');
  // A short run on a faster processor: the times moved by a third of the run, the context switches by a few.
  const short = (real: number, sys: number, cs: number) => ({
    result: { ...TABLE2, rows: [{ ...TABLE2.rows[0]!, guest: { real, user: 0.1, sys, line: '' }, totals: { cs, faults: 21, 'disk.hp0.xfers': 18 } }] },
  });
  assert.equal(changeSentence(pairResults(short(0.3, 0.2, 33), short(0.2, 0.1, 28), { a: 'A', b: 'B' })),
    'What changed most: the elapsed time, 0.30 s in A and 0.20 s in B (-33.3%); system time 0.20 s → 0.10 s (-50.0%).');
  // The same settings: nothing changed.
  const same = pairResults(run(154, 5396, 620, 13.0, 34.1), run(154, 5396, 620, 13.0, 34.1), { a: 'A', b: 'B' });
  assert.equal(changeSentence(same), 'A and B measured the same: no figure changed.');
});

test('titles print the paper\'s troff quotes as quotation marks (the paper data keep them as printed)', () => {
  assert.equal(findExperiment('execs0null')!.title, 'Table 2, execs0null: fork-exec \u201cnull job\u201d-exit-wait 1,000 times');
  for (const e of EXPERIMENTS) assert.doesNotMatch(e.title, /``|''/, e.id);
});
