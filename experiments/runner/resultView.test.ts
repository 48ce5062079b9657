// The one table of a result (resultView.ts) and its text rendering
// (resultText.ts): the command line prints the very columns and cells the
// lab page shows, for each view and for two results side by side.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { findExperiment } from './experiments';
import type { ExperimentResult, RowResult } from './result';
import { formatTable, tableText } from './resultText';
import { comparisonTable, pairResults, PFST_MIN_FAULTS, resultTable, type ResultTable } from './resultView';

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

/** The text's table lines: the header, the rule, one line per row, split into cells. */
function textCells(text: string[], rows: number): string[][] {
  return [text[0]!, ...text.slice(2, 2 + rows)].map((l) => l.split(/ \|\|? /).map((c) => c.trim()));
}

function sameTable(table: ResultTable, what: string): void {
  const text = tableText(table);
  const cells = textCells(text, table.rows.length);
  assert.deepEqual(cells[0], table.columns.map((c) => c.label), `${what}: the header`);
  table.rows.forEach((r, i) => assert.deepEqual(cells[i + 1], r.cells.map((c) => c.text), `${what}: row ${i}`));
  assert.match(text[1]!, /^-+(-\|\|?-+)+$/, `${what}: the rule`);
  // The paper's group starts with a double bar, in the header and each row.
  const paper = table.columns.findIndex((c) => c.paper);
  if (paper > 0) {
    for (const line of [text[0]!, ...text.slice(2, 2 + table.rows.length)]) {
      assert.equal(line.split(' || ')[0]!.split(' | ').length, paper, `${what}: || before column ${paper}`);
    }
  }
  for (const n of [table.footnote, ...table.notes]) if (n) assert.ok(text.includes(n), `${what}: ${n}`);
  for (const c of table.columns) if (c.title) assert.ok(text.includes(`${c.label}: ${c.title}`), `${what}: ${c.label}'s legend`);
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
  const faster = { result: { ...TABLE2, rows: [{ ...TABLE2.rows[0]!, guest: { real: 0.4, user: 0.02, sys: 0.35, line: '' } }] } };
  sameTable(comparisonTable(pairResults({ result: TABLE2 }, faster, { a: 'A: cpu=750', b: 'B: cpu=780' })), 'a comparison');
});

test('units: a column labelled in seconds, ms or % says so; a failed row shows dashes and why', () => {
  for (const r of [TABLE2, PAGING, NAMECACHE]) {
    for (const c of resultTable(r).columns) {
      const unit = /\((s|ms|%)\)$/.exec(c.label)?.[1] ?? null;
      if (unit !== null) assert.equal(c.unit, unit, c.label);
      if (!c.numeric) assert.equal(c.unit, null, c.label);
    }
  }
  const failed = resultTable(NAMECACHE).rows[1]!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.cells.at(-1)!.text, 'time limit: no "\\n# " within 120 virtual seconds');
  assert.ok(failed.cells.slice(2, 9).every((c) => c.text === '—'));
});

test('paging: PFST is shown only with enough faults to mean something (the paper\'s rule)', () => {
  const t = resultTable(PAGING);
  const pfst = t.columns.findIndex((c) => c.label === 'PFST (ms)');
  assert.equal(t.rows[0]!.cells[pfst]!.text, '5.99'); // 9427 faults
  assert.ok(8 < PFST_MIN_FAULTS);
  assert.equal(t.rows[1]!.cells[pfst]!.text, '—'); // 8 faults: 112 ms would say nothing
  // The paper's row figures and difference: 440 s against 569 s.
  assert.deepEqual(t.rows[0]!.cells.slice(-3).map((c) => c.text), ['-129', '-23%', 'ok']);
});
