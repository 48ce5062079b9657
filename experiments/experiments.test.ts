// The paper's experiments in vaxlab (experiments/).
//
// 1. The paper's tables as data (experiments/paper): every transcribed row
//    and quote is checked against the text of the paper itself,
//    ../shared/paper/mckusick-leffler-karels-1985-performance-of-berkeley-unix.txt
//    (relative to the repository).  Without that file those tests are
//    skipped, saying why; the row counts and internal cross-checks run
//    regardless.
// 2. The benchmark programs (experiments/guest): typed into 4.3BSD on the
//    emulated 780 (a scratch copy of the reference image), compiled by its
//    cc and run with reduced iteration counts.  Skipped without the image.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  ENVIRONMENT, EXEC_JOBS, KERNEL_BENCHMARK_MACHINE, KERNEL_TESTS, LS_L_600_FILES, PAGING_SETUP, PAGING_TESTS, PAPER,
  SECTION_4_1_1_NUMBERS, SECTION_4_1_1_REF, TABLE_1, TABLE_1_REF, TABLE_2, TABLE_2_REF, TABLE_3, TABLE_3_REF, TABLE_4,
  TABLE_6, TABLE_6_REF, TABLE_7, TABLE_7_REF, TABLE_8, TABLE_8_REF, TABLE_9, TABLE_10, table2, table7,
  type Cell, type PaperRef, type Quote,
} from './paper/index';
import {
  buildScript, CSH_TIME, PROGRAMS, problems, REF_IMAGE, runCommands, runInGuest, sizes, timedRuns, VAX780,
} from './guest/verify';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const PAPER_FILE = join(REPO_ROOT, PAPER.file);
const havePaper = existsSync(PAPER_FILE);
const skip = havePaper ? false : `the paper's text ${PAPER_FILE} is absent, so the transcription cannot be checked`;

const lines: string[] = havePaper ? readFileSync(PAPER_FILE, 'utf8').split('\n') : [];
/** Line n of the paper, 1-based as in the data. */
const at = (n: number): string => {
  assert.ok(n >= 1 && n <= lines.length, `line ${n} is outside the paper (${lines.length} lines)`);
  return lines[n - 1];
};
/** The cells of a table row: "|syscall   |   28.0|..." is ["syscall", "28.0", ...]. */
const cellsOf = (line: string): string[] => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

const FOOTNOTE_RULE = '_'.repeat(25);
/**
 * Lines first..last as running text: page headers dropped, footnotes dropped
 * (or kept), line-break hyphenation undone, white space collapsed — the form
 * the data's quotes are in.
 */
function prose(first: number, last: number, keepFootnotes: boolean): string {
  const kept: string[] = [];
  let inFootnote = false;
  for (let n = first; n <= last; n++) {
    const l = at(n);
    if (/^Performance\s+- \d+ -/.test(l)) continue;
    if (!keepFootnotes) {
      if (l === FOOTNOTE_RULE) { inFootnote = true; continue; }
      if (inFootnote) { if (l.trim() === '') inFootnote = false; continue; }
    }
    kept.push(l);
  }
  return kept.join('\n').replace(/-\n\s*/g, '').replace(/\s+/g, ' ').trim();
}

function assertQuote(q: Quote, what: string): void {
  const [first, last] = q.lines;
  assert.ok(first <= last, `${what}: bad line range`);
  const found = prose(first, last, false).includes(q.text) || prose(first, last, true).includes(q.text);
  assert.ok(found, `${what}: not found in lines ${first}-${last}:\n  "${q.text}"\n  text: "${prose(first, last, true)}"`);
}

/** The paper's page number above line n (the nearest "Performance - N -" header). */
function pageOf(n: number): number {
  for (let i = n; i >= 1; i--) {
    const m = /^Performance\s+- (\d+) -/.exec(at(i));
    if (m) return Number(m[1]);
  }
  throw new Error(`no page header above line ${n}`);
}

function assertRef(ref: PaperRef): void {
  const [first, last] = ref.lines;
  const name = ref.table !== undefined ? `Table ${ref.table}` : `section ${ref.section}`;
  if (ref.caption !== undefined) {
    assert.equal(at(last).trim(), ref.caption, `${name}: caption line ${last}`);
    assert.match(at(first).trim(), /^_+$/, `${name}: line ${first} is not the table's top rule`);
  } else {
    assert.ok(at(first).startsWith(`${ref.section}. ${ref.sectionTitle}`), `${name}: heading at line ${first}`);
  }
  assert.equal(pageOf(first), ref.page, `${name}: page`);
  // The section heading the table belongs to comes before it.
  const heading = lines.slice(0, first).map((l) => l.trim()).lastIndexOf(`${ref.section}. ${ref.sectionTitle}`);
  assert.ok(heading >= 0, `${name}: no heading "${ref.section}. ${ref.sectionTitle}" before line ${first}`);
}

/** The data rows of a table in the paper: lines in its range whose first cell is a test name. */
function paperRows(ref: PaperRef): number[] {
  const rows: number[] = [];
  for (let n = ref.lines[0]; n < ref.lines[1]; n++) {
    if (!at(n).trim().startsWith('|')) continue;
    if (/^[a-z]/.test(cellsOf(at(n))[0])) rows.push(n);
  }
  return rows;
}

const raws = (...cells: Cell[]): string[] => cells.map((c) => c.raw);

test('row counts of the transcribed tables', () => {
  assert.equal(TABLE_1.length, 29);
  assert.equal(TABLE_2.length, 29);
  assert.equal(TABLE_3.length, 2);
  assert.equal(TABLE_6.length, 12);
  assert.equal(TABLE_7.length, 12);
  assert.equal(TABLE_8.length, 3);
  for (const t of [TABLE_4, TABLE_9, TABLE_10]) assert.equal(t.rows.length, 3);
  assert.deepEqual(TABLE_1.map((r) => r.test), [...KERNEL_TESTS]);
  assert.deepEqual(TABLE_2.map((r) => r.test), [...KERNEL_TESTS]);
  assert.deepEqual(TABLE_6.map((r) => r.test), [...PAGING_TESTS]);
  assert.deepEqual(TABLE_7.map((r) => r.test), [...PAGING_TESTS]);
});

test('the paper has exactly as many rows in each table as the data', { skip }, () => {
  const expected: [PaperRef, number][] = [
    [TABLE_1_REF, TABLE_1.length], [TABLE_2_REF, TABLE_2.length], [TABLE_3_REF, TABLE_3.length],
    [TABLE_6_REF, TABLE_6.length], [TABLE_7_REF, TABLE_7.length], [TABLE_8_REF, TABLE_8.length],
  ];
  for (const [ref, n] of expected) assert.equal(paperRows(ref).length, n, `Table ${ref.table}`);
  assert.equal(PAPER.fileLines, lines.at(-1) === '' ? lines.length - 1 : lines.length);
});

test('captions, line ranges and page numbers of the tables', { skip }, () => {
  for (const ref of [TABLE_1_REF, TABLE_2_REF, TABLE_3_REF, TABLE_6_REF, TABLE_7_REF, TABLE_8_REF, TABLE_4.ref,
    TABLE_9.ref, TABLE_10.ref, SECTION_4_1_1_REF]) assertRef(ref);
});

// Hand-picked cells, found in the paper by searching the table for the row
// (not through the data's line numbers): the values must appear in that line
// in this order.
test('spot checks: cells found in the paper text, in order', { skip }, () => {
  const spots: [PaperRef, string, string[]][] = [
    [TABLE_2_REF, 'syscall', raws(table2('syscall').elapsed.bsd41, table2('syscall').elapsed.bsd43,
      table2('syscall').system.bsd42)],
    [TABLE_2_REF, 'csw', raws(table2('csw').elapsed.bsd42, table2('csw').user.bsd43)],
    [TABLE_2_REF, 'pipeback512', raws(table2('pipeback512').elapsed.bsd41, table2('pipeback512').system.bsd43)],
    [TABLE_2_REF, 'forks100k', raws(table2('forks100k').elapsed.bsd41, table2('forks100k').user.bsd42)],
    [TABLE_2_REF, 'execs0null (1K env)', raws(table2('execs0null (1K env)').elapsed.bsd42,
      table2('execs0null (1K env)').system.bsd41)],
    [TABLE_2_REF, 'vexecs100kbig', raws(table2('vexecs100kbig').user.bsd43, table2('vexecs100kbig').system.bsd43)],
    [TABLE_3_REF, 'execs1knull', raws(TABLE_3[1].real.bsd41, TABLE_3[1].system.bsd42)],
    [TABLE_7_REF, 'seqpage', raws(table7('seqpage').real.bsd42, table7('seqpage').pageFaults.bsd41)],
    [TABLE_7_REF, 'gausspage.40', raws(table7('gausspage.40').real.bsd42, table7('gausspage.40').pageFaults.bsd42)],
    [TABLE_7_REF, 'gausspage.inf', raws(table7('gausspage.inf').user.bsd41, table7('gausspage.inf').system.bsd42)],
    [TABLE_8_REF, 'randpage-v', raws(TABLE_8[1].pageFaults.bsd42, TABLE_8[1].pfst.bsd41)],
  ];
  assert.deepEqual(spots[0][2], ['28.0', '23.0', '23.7']);   // the data itself, as printed
  let checked = 0;
  for (const [ref, name, values] of spots) {
    const found = lines.slice(ref.lines[0] - 1, ref.lines[1])
      .filter((l) => l.trim().startsWith('|') && cellsOf(l)[0] === name);
    assert.equal(found.length, 1, `Table ${ref.table}: one row "${name}"`);
    let from = found[0].indexOf(name) + name.length;
    for (const v of values) {
      const i = found[0].indexOf(v, from);
      assert.ok(i >= 0, `Table ${ref.table} ${name}: "${v}" not found (in order) in: ${found[0]}`);
      from = i + v.length;
      checked++;
    }
  }
  assert.ok(checked >= 20);
});

test('Table 1 and Table 6: every row as printed, with the run script\'s command', { skip }, () => {
  for (const r of [...TABLE_1, ...TABLE_6]) {
    assert.deepEqual(cellsOf(at(r.line)), [r.test, r.description], `line ${r.line}`);
    assert.equal(at(r.run.line), `time ${r.run.command}`, `${r.test}: run script line ${r.run.line}`);
  }
  const setenv = lines.findIndex((l) => l.startsWith('setenv a ')) + 1;
  for (const r of TABLE_1) assert.equal(r.run.largeEnvironment, r.run.line > setenv, r.test);
  for (const r of TABLE_6) assert.equal(r.standardDeviation !== undefined, r.test.startsWith('gausspage'), r.test);
});

test('Table 2: every cell as printed', { skip }, () => {
  for (const r of TABLE_2) {
    const { elapsed: e, user: u, system: s } = r;
    assert.deepEqual(cellsOf(at(r.line)), [r.test, ...raws(e.bsd41, e.bsd42, e.bsd43, u.bsd41, u.bsd42, u.bsd43,
      s.bsd41, s.bsd42, s.bsd43)], `line ${r.line}`);
  }
});

test('Tables 3, 7 and 8: every cell as printed', { skip }, () => {
  for (const r of TABLE_3) {
    assert.deepEqual(cellsOf(at(r.line)), [r.test, ...raws(r.real.bsd41, r.real.bsd42, r.user.bsd41, r.user.bsd42,
      r.system.bsd41, r.system.bsd42)], `line ${r.line}`);
  }
  for (const r of TABLE_7) {
    assert.deepEqual(cellsOf(at(r.line)), [r.test, ...raws(r.real.bsd41, r.real.bsd42, r.user.bsd41, r.user.bsd42,
      r.system.bsd41, r.system.bsd42, r.pageFaults.bsd41, r.pageFaults.bsd42)], `line ${r.line}`);
  }
  for (const r of TABLE_8) {
    assert.deepEqual(cellsOf(at(r.line)), [r.test, ...raws(r.pageFaults.bsd41, r.pageFaults.bsd42, r.pfst.bsd41,
      r.pfst.bsd42)], `line ${r.line}`);
  }
});

test('Tables 4, 9 and 10 (namei call times): every cell as printed', { skip }, () => {
  for (const t of [TABLE_4, TABLE_9, TABLE_10]) {
    for (const r of t.rows) {
      const m = /^\|\s*(self|child|total)\s+(\S+) ms\/call\s+(\S+)\|$/.exec(at(r.line).trim());
      assert.ok(m, `Table ${t.ref.table} line ${r.line}: ${at(r.line)}`);
      assert.deepEqual([m[1], m[2], m[3]], [r.part, r.time.raw, r.percentOfKernel.raw]);
    }
  }
});

test('values: numbers parse as printed; tables agree with each other and with the text', () => {
  const all: Cell[] = [
    ...TABLE_2.flatMap((r) => [r.elapsed, r.user, r.system].flatMap((t) => [t.bsd41, t.bsd42, t.bsd43])),
    ...TABLE_7.flatMap((r) => [r.real, r.user, r.system, r.pageFaults].flatMap((t) => [t.bsd41, t.bsd42])),
  ];
  for (const c of all) assert.equal(c.value, Number(c.raw.replace(/,/g, '')), c.raw);
  // Table 2's times keep one decimal, as printed.
  for (const r of TABLE_2) for (const t of [r.elapsed, r.user, r.system]) {
    for (const c of [t.bsd41, t.bsd42, t.bsd43]) assert.match(c.raw, /^\d+\.\d$/, `${r.test}: ${c.raw}`);
  }
  // Table 3 repeats Table 2's (1K env) rows for 4.1 and 4.2.
  for (const r of TABLE_3) {
    const t2 = table2(r.table2Test);
    assert.deepEqual([r.real, r.user, r.system].map((x) => [x.bsd41.raw, x.bsd42.raw]),
      [t2.elapsed, t2.user, t2.system].map((x) => [x.bsd41.raw, x.bsd42.raw]), r.test);
  }
  // Table 8 repeats Table 7's page faults; its PFST is Table 7's system time per fault in 10-microsecond units.
  for (const r of TABLE_8) {
    const t7 = table7(r.test);
    assert.deepEqual(r.pageFaults, t7.pageFaults, r.test);
    for (const v of ['bsd41', 'bsd42'] as const) {
      const per10us = (t7.system[v].value * 1e5) / t7.pageFaults[v].value;
      assert.ok(Math.abs(per10us - r.pfst[v].value) <= 1.5, `${r.test} ${v}: ${per10us} vs ${r.pfst[v].raw}`);
    }
  }
  // "121 ms/byte versus 93 ms/byte": the system time 1065 bytes of environment add to 1,000 execs,
  // averaged over execs0null and execs1knull.
  const added = (v: 'bsd41' | 'bsd42', test: 'execs0null' | 'execs1knull') =>
    ((table2(`${test} (1K env)`).system[v].value - table2(test).system[v].value) * 1000) / ENVIRONMENT.additionalBytes;
  const perByte = (v: 'bsd41' | 'bsd42') => (added(v, 'execs0null') + added(v, 'execs1knull')) / 2;
  assert.equal(Math.round(perByte('bsd41')), ENVIRONMENT.costPerByte.bsd41.value);
  assert.equal(Math.round(perByte('bsd42')), ENVIRONMENT.costPerByte.bsd42.value);
  assert.equal(ENVIRONMENT.runScriptSetenvs * (2 + ENVIRONMENT.runScriptValue.length), ENVIRONMENT.additionalBytes);
  // The namei profiles: self + child = total, and the decreases quoted in section 4.1.1.
  for (const t of [TABLE_4, TABLE_9, TABLE_10]) {
    const [self, child, total] = t.rows;
    assert.ok(Math.abs(self.time.value + child.time.value - total.time.value) < 0.05, `Table ${t.ref.table}`);
  }
  const num = (id: string) => {
    const n = SECTION_4_1_1_NUMBERS.find((x) => x.id === id);
    assert.ok(n, id);
    return n.value;
  };
  assert.equal(Math.round((TABLE_4.rows[2].time.value - TABLE_9.rows[2].time.value) * 10) / 10,
    num('offsetNameiDecrease'));
  assert.equal(Math.round(TABLE_9.rows[2].time.value - TABLE_10.rows[2].time.value), num('bothNameiDecrease'));
  assert.deepEqual([LS_L_600_FILES.systemSeconds.noCache.value, LS_L_600_FILES.systemSeconds.perProcessCache.value,
    LS_L_600_FILES.systemSeconds.bothCaches.value],
  [num('lsSystemNoCache'), num('lsSystemOffsetCache'), num('lsSystemBothCaches')]);
  assert.equal(EXEC_JOBS.bigJobDataBytes, 256 * 1024);
});

test('the machine and the other quoted sentences', { skip }, () => {
  const m = KERNEL_BENCHMARK_MACHINE;
  assert.match(m.quote.text, /run on a VAX-11\/750 with 4\.5 megabytes of physical memory/);
  const quotes: [string, Quote][] = [
    ['machine', m.quote], ['single user', m.singleUser], ['paging', m.paging], ['averaging', m.averaging],
    ['750 speed footnote', m.speedFootnote],
    ['null/big job', EXEC_JOBS.quote], ['text segment', EXEC_JOBS.textQuote], ['load format', EXEC_JOBS.loadFormat],
    ['default environment', ENVIRONMENT.defaultQuote], ['1065 bytes', ENVIRONMENT.additionalQuote],
    ['ms/byte', ENVIRONMENT.costQuote],
    ['7.3 MB array', PAGING_SETUP.array], ['standard deviations', PAGING_SETUP.standardDeviations],
    ['paging machine', PAGING_SETUP.machine], ['4.1a footnote', PAGING_SETUP.systemsFootnote],
    ['PFST', PAGING_SETUP.pageFaultServiceQuote], ['ls -l', LS_L_600_FILES.why],
  ];
  for (const [what, q] of quotes) assertQuote(q, what);
  for (let n = 2897; n < 2897 + ENVIRONMENT.runScriptSetenvs; n++)
    assert.match(at(n), new RegExp(`^setenv [a-o] ${ENVIRONMENT.runScriptValue}$`), `line ${n}`);
});

test('section 4.1.1: every number, in its sentence and on its line', { skip }, () => {
  for (const n of SECTION_4_1_1_NUMBERS) {
    assertQuote(n.sentence, n.id);
    assert.ok(n.sentence.text.includes(n.raw), `${n.id}: "${n.raw}" not in its sentence`);
    assert.ok(n.line >= n.sentence.lines[0] && n.line <= n.sentence.lines[1], `${n.id}: line outside its sentence`);
    assert.ok(at(n.line).includes(n.raw.split(' ')[0]), `${n.id}: "${n.raw}" does not start on line ${n.line}`);
    assert.ok(prose(n.line, n.line + 1, true).includes(n.raw), `${n.id}: "${n.raw}" not on lines ${n.line}-${n.line + 1}`);
  }
  assert.deepEqual(SECTION_4_1_1_NUMBERS.map((n) => n.line), SECTION_4_1_1_NUMBERS.map((n) => n.line).sort((a, b) => a - b),
    'in the order of the text');
  // Completeness: every figure in the section's text (outside Tables 9 and 10) is in the data.
  const [first, last] = SECTION_4_1_1_REF.lines;
  const parts = [prose(first, TABLE_9.ref.lines[0] - 1, false), prose(TABLE_9.ref.lines[1] + 1,
    TABLE_10.ref.lines[0] - 1, false), prose(TABLE_10.ref.lines[1] + 1, last, false)];
  const text = parts.join(' ')
    .replace(/^4\.1\.1\. /, '')                    // the heading
    .replace(/\[\d+\]/g, '')                       // footnote references
    .replace(/inodes1|unique2/g, '')               // footnote marks set as digits
    .replace(/Table (9|10)\b/g, '');               // references to the tables
  const inText = (text.match(/\d+(?:[.,]\d+)*/g) ?? []).sort();
  const inData = SECTION_4_1_1_NUMBERS.flatMap((n) => n.raw.match(/\d+(?:[.,]\d+)*/g) ?? []).sort();
  assert.deepEqual(inData, inText);
  // The figures given in words.
  for (const w of ['one quarter', 'twelve']) assert.ok(SECTION_4_1_1_NUMBERS.some((n) => n.raw.includes(w)), w);
});

const guestSkip = existsSync(REF_IMAGE) && existsSync(VAX780) ? false
  : `needs ${VAX780} and the reference image ${REF_IMAGE} (make -C emu native images)`;

test('the benchmark programs compile with 4.3BSD\'s cc and run to completion (reduced counts)', { skip: guestSkip }, () => {
  const work = mkdtempSync(join(tmpdir(), 'vaxlab-experiments-'));
  try {
    const r = runInGuest(buildScript(false), work, 10 * 60_000);
    assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.transcript.slice(-3000)}`);
    assert.deepEqual(problems(r.transcript), []);
    // Every run timed by csh, in order, each printing nothing but its time.
    const runs = timedRuns(r.transcript);
    assert.deepEqual(runs.map((t) => t.command).slice(0, runCommands(false).length), runCommands(false));
    for (const t of runs) assert.match(t.time, CSH_TIME, t.command);
    // The exec tests' jobs: data segments of 1 and 256 kilobytes, text smaller than the parent's.
    const size = sizes(r.transcript);
    for (const p of PROGRAMS) assert.ok(size.has(p), `no size for ${p}`);
    assert.equal(size.get('nulljob')?.data, 1024);
    // The appendix's big job: its 250 KB array and the library's data (under a kilobyte, as the null job's),
    // to the next kilobyte; section 3.2.1's prose rounds that to 256 KB.
    const bigData = size.get('bigjob')?.data ?? 0;
    assert.ok(bigData > EXEC_JOBS.appendixArrayKilobytes * 1024 && bigData <= (EXEC_JOBS.appendixArrayKilobytes + 1) * 1024,
      `bigjob data ${bigData}`);
    for (const job of ['nulljob', 'bigjob']) {
      for (const parent of ['execs', 'vexecs']) assert.ok(size.get(parent)!.text > size.get(job)!.text, `${parent} vs ${job}`);
    }
    // The environment: 40 bytes as booted, the same 40 bytes as the paper's 4.2BSD, plus the run script's 1065.
    const env = [...r.transcript.matchAll(/^(\d+) strings, (\d+) bytes, (\d+) with NULs$/gm)].map((m) => Number(m[2]));
    assert.deepEqual(env, [40, 40 + 1065]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
