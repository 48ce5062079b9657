// Two runs side by side: "toggle on vs off", "4.3 vs 4.2", "780 vs 750".
// The run shown in Results is B; the run it is compared with (picked from
// the history or from this page's earlier runs) is A.  Pure functions, no
// DOM: which runs can be compared, their rows aligned (by step id, else by
// test label), what differs in their configuration (machine, image, kernel
// variables, parameters), and the table, bar chart and CSV of the pair.
// Differences are B − A, in seconds and in % of A.

import type { ExperimentResult, RowResult } from '../../../experiments/runner/runner';
import { TOGGLES } from '../../../experiments/runner/toggles';
import type { BarData } from './charts/barChart';
import type { HistoryEntry } from './history';
import type { SharedRun } from './permalink';
import {
  compareRow, CSV_COLUMNS, csvCell, csvRowValues, failureText, formatSeconds, formatSecondsDiff, METRIC_LABEL, paperCell,
  paperLegend, primaryMetric, scaledFootnote, signed, type Cell, type Column, type Comparison, type CsvValue, type Metric,
  type ResultTable, type TableRow,
} from './results';

// ------------------------------------------------------------ runs

/** A run to compare with, and where it comes from. */
export interface RunRef {
  shared: SharedRun;
  /** A run of this page (this session), an entry of the history, a permalink. */
  source: 'session' | 'history' | 'permalink';
  /** When it finished or was saved (ISO 8601), when known. */
  at?: string;
  historyId?: string;
}

/** A run finished in this page. */
export interface SessionRun {
  shared: SharedRun;
  /** ISO 8601. */
  at: string;
}

const fingerprints = new WeakMap<SharedRun, string>();

/**
 * What makes a result this result: its settings and every row's figures.
 * Runs are deterministic (two runs with the same settings give the same
 * result, byte for byte), so equal fingerprints mean nothing to compare,
 * whether it is the same run saved twice or a run repeated.
 */
export function runFingerprint(shared: SharedRun): string {
  let f = fingerprints.get(shared);
  if (f === undefined) {
    const r = shared.result;
    f = JSON.stringify([
      shared.experiment, r.experiment, r.machine, r.image, r.parameters, r.kernelSettings,
      r.rows.map((row) => [row.step, row.test, row.status, row.iterations, row.guest?.real, row.guest?.user, row.guest?.sys,
        row.emulator?.instructions, row.failure?.message ?? null]),
    ]);
    fingerprints.set(shared, f);
  }
  return f;
}

export function sameRun(a: SharedRun, b: SharedRun): boolean {
  return a === b || runFingerprint(a) === runFingerprint(b);
}

// ------------------------------------------------------------ rows

export interface AlignedRow {
  /** The step id (or the test label when the steps' ids differ). */
  key: string;
  test: string;
  a: RowResult;
  b: RowResult;
}

export interface Alignment {
  /** In B's order. */
  rows: AlignedRow[];
  /** Test labels of the rows only one run has. */
  onlyA: string[];
  onlyB: string[];
}

/**
 * The rows of A and B that measure the same thing: the same step id (steps'
 * ids are unique within an experiment and name the same command across
 * experiments: table2's "syscall" is the syscall experiment's), else the
 * same test label when it names one row on each side.
 */
export function alignRows(a: ExperimentResult, b: ExperimentResult): Alignment {
  const usedA = new Set<number>();
  const pairs: (AlignedRow | null)[] = b.rows.map(() => null);
  const byStep = new Map<string, number>();
  a.rows.forEach((r, i) => {
    if (r.step && !byStep.has(r.step)) byStep.set(r.step, i);
  });
  b.rows.forEach((rb, j) => {
    const i = rb.step ? byStep.get(rb.step) : undefined;
    if (i !== undefined && !usedA.has(i)) {
      usedA.add(i);
      pairs[j] = { key: rb.step, test: rb.test, a: a.rows[i]!, b: rb };
    }
  });
  const count = (rows: RowResult[], test: string) => rows.filter((r) => r.test === test).length;
  b.rows.forEach((rb, j) => {
    if (pairs[j] || count(b.rows, rb.test) !== 1 || count(a.rows, rb.test) !== 1) return;
    const i = a.rows.findIndex((r) => r.test === rb.test);
    if (i < 0 || usedA.has(i)) return;
    usedA.add(i);
    pairs[j] = { key: rb.test, test: rb.test, a: a.rows[i]!, b: rb };
  });
  return {
    rows: pairs.filter((p): p is AlignedRow => p !== null),
    onlyA: a.rows.filter((_, i) => !usedA.has(i)).map((r) => r.test),
    onlyB: b.rows.filter((_, j) => !pairs[j]).map((r) => r.test),
  };
}

/** Why `other` cannot be compared with the run shown, or null when it can. */
export function compareBlocker(shown: SharedRun | null, other: SharedRun): string | null {
  if (!shown) return 'Show a result first (run an experiment or open one), then compare it with this run.';
  if (sameRun(shown, other)) return 'This is the result shown (or the same settings run again: the same result).';
  if (alignRows(other.result, shown.result).rows.length === 0) {
    return `No rows in common with the result shown (${shown.experiment}): compare runs of the same experiment, or of experiments that share rows.`;
  }
  return null;
}

// ------------------------------------------------------------ configuration

export type SettingKind = 'experiment' | 'image' | 'machine' | 'kernel' | 'parameter';

/** One setting that differs: how each run had it, as words ("cpu=750", "nchsize=154 (GENERIC)"). */
export interface SettingDiff {
  name: string;
  kind: SettingKind;
  a: string;
  b: string;
}

/** The kernel's own value of a variable nobody set, from toggles.ts: "154 (GENERIC)", "computed at boot". */
export function kernelDefault(name: string): string | null {
  const t = TOGGLES.find((x) => x.name === name && x.kind === 'kernel');
  if (!t) return null;
  const named = /^([A-Z][A-Za-z_]*): (\d+)\b/.exec(t.defaultNote);
  if (named) return `${named[2]} (${named[1]})`;
  const plain = /^(\d+)\b/.exec(t.defaultNote);
  if (plain) return `${plain[1]} (default)`;
  if (/^computed at boot/.test(t.defaultNote)) return 'computed at boot';
  return null;
}

/** The system on a disk image, from its name (43bsd.dsk.gz: 4.3BSD). */
export function imageLabel(image: ExperimentResult['image']): string {
  if (!image) return 'image not recorded';
  const m = /^4(\d)bsd/i.exec(image.name);
  return m ? `4.${m[1]}BSD` : `image ${image.name}`;
}

/** Machine fields that follow from others or only describe them. */
const DERIVED_MACHINE = new Set(['nsPerInstruction', 'memoryNote', 'direct']);
const CONFIG_KNOWN = new Set(['cpu', 'memoryMB', 'set', 'parameters']);
const KERNEL_ORDER = TOGGLES.filter((t) => t.kind === 'kernel').map((t) => t.name);

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A machine knob with named values (disk: rp06, eagle, ideal): its names, value i being names[i]. */
function choicesOf(name: string): readonly string[] | null {
  const t = TOGGLES.find((x) => x.name === name) as { choices?: readonly string[] } | undefined;
  return Array.isArray(t?.choices) ? t.choices : null;
}

/** A knob's value as its name when it has named values (disk 1: eagle). */
function knobValue(name: string, v: Scalar): Scalar {
  const choices = choicesOf(name);
  return choices && typeof v === 'number' && choices[v] !== undefined ? choices[v] : v;
}

/**
 * What a machine knob a result leaves out was: a knob with named values is
 * recorded only when it is not its default (disk: rp06), the one its
 * toggle's default note starts with.
 */
function machineDefault(name: string): string | null {
  const t = TOGGLES.find((x) => x.name === name && x.kind === 'machine');
  const choices = choicesOf(name);
  const named = t && choices ? choices.find((c) => t.defaultNote.startsWith(c)) : undefined;
  return named ?? null;
}

/** A run's machine settings: the result's machine (cpu, memoryMB, boot, and any knob added later), then the config's other scalars. */
function machineSettings(shared: SharedRun): Map<string, Scalar> {
  const out = new Map<string, Scalar>();
  for (const [k, v] of Object.entries(shared.result.machine)) {
    if (!DERIVED_MACHINE.has(k) && isScalar(v)) out.set(k, knobValue(k, v));
  }
  for (const [k, v] of Object.entries(shared.config as unknown as Record<string, unknown>)) {
    if (!CONFIG_KNOWN.has(k) && !out.has(k) && isScalar(v)) out.set(k, knobValue(k, v));
  }
  return out;
}

function machineWords(name: string, v: Scalar | undefined): string {
  if (v !== undefined) return `${name}=${String(v)}`;
  const d = machineDefault(name);
  return d ? `${name}=${d} (default)` : `${name} not recorded`;
}

function kernelWords(name: string, value: number | undefined): string {
  if (value !== undefined) return `${name}=${value}`;
  const d = kernelDefault(name);
  if (d === null) return `${name} as distributed`;
  return /^\d/.test(d) ? `${name}=${d}` : `${name} ${d}`;
}

function machineOrder(name: string): number {
  return name === 'cpu' ? 0 : name === 'memoryMB' ? 1 : 2;
}

/** What differs between A and B, in the order experiment, image, machine, kernel variables, parameters. */
export function configDiff(a: SharedRun, b: SharedRun): SettingDiff[] {
  const ra = a.result;
  const rb = b.result;
  const out: SettingDiff[] = [];
  if (ra.experiment !== rb.experiment) out.push({ name: 'experiment', kind: 'experiment', a: ra.experiment, b: rb.experiment });

  const ia = imageLabel(ra.image);
  const ib = imageLabel(rb.image);
  if (ia !== ib) out.push({ name: 'image', kind: 'image', a: ia, b: ib });
  else if (ra.image && rb.image && ra.image.sha256 && rb.image.sha256 && ra.image.sha256 !== rb.image.sha256) {
    out.push({ name: 'image', kind: 'image', a: `${ia} image ${ra.image.sha256.slice(0, 8)}…`, b: `${ib} image ${rb.image.sha256.slice(0, 8)}…` });
  }

  const ma = machineSettings(a);
  const mb = machineSettings(b);
  const machineNames = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => machineOrder(x) - machineOrder(y) || x.localeCompare(y));
  for (const name of machineNames) {
    const va = ma.get(name) ?? machineDefault(name) ?? undefined;
    const vb = mb.get(name) ?? machineDefault(name) ?? undefined;
    if (va === vb) continue;
    out.push({ name, kind: 'machine', a: machineWords(name, ma.get(name)), b: machineWords(name, mb.get(name)) });
  }

  const ka = ra.kernelSettings ?? {};
  const kb = rb.kernelSettings ?? {};
  const kernelNames = [...new Set([...Object.keys(ka), ...Object.keys(kb)])].sort((x, y) => {
    const ix = KERNEL_ORDER.indexOf(x);
    const iy = KERNEL_ORDER.indexOf(y);
    return (ix < 0 ? 999 : ix) - (iy < 0 ? 999 : iy) || x.localeCompare(y);
  });
  for (const name of kernelNames) {
    if (ka[name] === kb[name]) continue;
    out.push({ name, kind: 'kernel', a: kernelWords(name, ka[name]), b: kernelWords(name, kb[name]) });
  }

  const pa = ra.parameters ?? {};
  const pb = rb.parameters ?? {};
  for (const name of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort()) {
    if (pa[name] === pb[name]) continue;
    out.push({
      name, kind: 'parameter',
      a: pa[name] === undefined ? `no ${name}` : `${name}=${pa[name]}`,
      b: pb[name] === undefined ? `no ${name}` : `${name}=${pb[name]}`,
    });
  }
  return out;
}

/** Each run's side of the difference, as a line: { a: 'cpu=750, nchsize=0', b: 'cpu=780, nchsize=154 (GENERIC)' }. */
export function diffSides(diff: SettingDiff[]): { a: string; b: string } | null {
  if (diff.length === 0) return null;
  return { a: diff.map((d) => d.a).join(', '), b: diff.map((d) => d.b).join(', ') };
}

/** The difference spelled out: "A: nchsize=0 · B: nchsize=154 (GENERIC)", or that there is none. */
export function formatConfigDiff(diff: SettingDiff[]): string {
  const sides = diffSides(diff);
  return sides ? `A: ${sides.a} · B: ${sides.b}` : 'A and B have the same settings.';
}

/** Names for the legend and the columns: each run by what distinguishes it ("A: cpu=750"). */
export function runLabels(diff: SettingDiff[]): { a: string; b: string } {
  const sides = diffSides(diff);
  return sides ? { a: `A: ${sides.a}`, b: `B: ${sides.b}` } : { a: 'A (same settings)', b: 'B (same settings)' };
}

/** A run's whole configuration in one line: "VAX-11/780, 5 MB, 4.3BSD; iterations=1000; kernel as distributed". */
export function configLine(shared: SharedRun): string {
  const r = shared.result;
  const extra = [...machineSettings(shared)].filter(([k]) => k !== 'cpu' && k !== 'memoryMB' && k !== 'boot').map(([k, v]) => `${k}=${String(v)}`);
  const machine = [`VAX-11/${r.machine.cpu}`, `${r.machine.memoryMB} MB`, ...extra, imageLabel(r.image)].join(', ');
  const params = Object.entries(r.parameters).map(([k, v]) => `${k}=${v}`).join(', ');
  const kernel = Object.entries(r.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ');
  return `${machine}; ${params || 'no parameters'}; kernel ${kernel || 'as distributed'}`;
}

// ------------------------------------------------------------ the pair

export interface PairRow extends AlignedRow {
  /** Each run against the paper (scaled to its own count), on the comparison's metric. */
  ca: Comparison;
  cb: Comparison;
  /** B − A in seconds, and in % of A; null when either failed. */
  diff: number | null;
  percent: number | null;
}

export interface RunComparison {
  a: SharedRun;
  b: SharedRun;
  /** B's: elapsed time, or system time for name translation. */
  metric: Metric;
  alignment: Alignment;
  rows: PairRow[];
  diff: SettingDiff[];
  labels: { a: string; b: string };
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

export function compareRuns(a: SharedRun, b: SharedRun): RunComparison {
  const metric = primaryMetric(b.result);
  const alignment = alignRows(a.result, b.result);
  const rows = alignment.rows.map((p): PairRow => {
    const ca = compareRow(p.a, metric);
    const cb = compareRow(p.b, metric);
    const diff = ca.ours === null || cb.ours === null ? null : round(cb.ours - ca.ours, 3);
    return { ...p, ca, cb, diff, percent: diff === null || !ca.ours ? null : round((100 * diff) / ca.ours, 1) };
  });
  const diff = configDiff(a, b);
  return { a, b, metric, alignment, rows, diff, labels: runLabels(diff) };
}

// ------------------------------------------------------------ table, chart, CSV

const dash = '—';
const secs = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? dash : formatSeconds(x) });
const int = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? dash : Math.round(x).toLocaleString('en-US') });
const pct = (x: number | null | undefined, digits = 1): Cell => ({ text: x === null || x === undefined ? dash : `${x.toFixed(digits)}%` });

function vsPaper(c: Comparison): Cell {
  if (c.percent === null) return { text: dash };
  return { text: `${signed(c.percent, 0)}%`, className: Math.abs(c.percent) <= 10 ? 'close' : 'far' };
}

function pairStatus(p: PairRow): Cell {
  if (p.a.status === 'ok' && p.b.status === 'ok') return { text: 'ok' };
  // Only the run(s) that failed: "B: time limit".
  const said = ([['A', p.a], ['B', p.b]] as const).filter(([, r]) => r.status !== 'ok')
    .map(([which, r]) => `${which}: ${failureText(r.failure)}`);
  return { text: said.join('; '), className: 'failure' };
}

/** The Results table of a comparison: A, B, B − A, the paper, each run against the paper. */
export function comparisonTable(c: RunComparison): ResultTable {
  const { a, b } = { a: c.a.result, b: c.b.result };
  const short = c.metric === 'system' ? ' sys' : '';
  const counts = c.rows.some((p) => p.a.iterations !== p.b.iterations);
  const showCounts = counts || b.view === 'table2';
  const column = c.rows.find((p) => p.b.paper)?.b.paper?.column ?? '4.3BSD';
  const extra: { label: string; title: string; cell: (r: RowResult) => Cell }[] =
    b.view === 'paging'
      ? [{ label: 'Faults', title: 'page-ins over the command (cnt.v_pgin)', cell: (r) => int(r.status === 'ok' ? r.derived?.pageFaults : null) }]
      : b.view === 'namecache'
        ? [{ label: 'Hit rate', title: 'name cache hits in % of lookups (nchstats)', cell: (r) => pct(r.status === 'ok' ? r.totals?.['namei.hitRate'] : null) }]
        : [];
  const columns: Column[] = [
    { label: 'Test', numeric: false },
    ...(showCounts
      ? counts
        ? [{ label: 'Iterations A', numeric: true }, { label: 'Iterations B', numeric: true }]
        : [{ label: 'Iterations', numeric: true }]
      : []),
    { label: `A${short} (s)`, numeric: true, title: `${c.labels.a}: ${METRIC_LABEL[c.metric]}` },
    { label: `B${short} (s)`, numeric: true, title: `${c.labels.b}: ${METRIC_LABEL[c.metric]}` },
    { label: 'B − A (s)', numeric: true, title: 'B’s time minus A’s' },
    { label: 'B − A (%)', numeric: true, title: 'B’s time minus A’s, in % of A’s' },
    ...extra.flatMap((x) => [
      { label: `${x.label} A`, numeric: true, title: x.title, paper: false },
      { label: `${x.label} B`, numeric: true, title: x.title },
    ]),
    { label: `Paper ${column} (s)`, numeric: true, paper: true, title: counts ? 'the paper’s figure, scaled to B’s count when it scales' : undefined },
    { label: 'A vs paper', numeric: true, title: 'A against the paper’s figure scaled to A’s count, in %' },
    { label: 'B vs paper', numeric: true, title: 'B against the paper’s figure scaled to B’s count, in %' },
    { label: 'Status', numeric: false },
  ];
  const rows = c.rows.map((p): TableRow => {
    const paper = p.cb.comparable ? paperCell(p.cb, p.b) : { text: dash, title: 'our count differs from the paper’s and its figures do not scale' };
    const failure = [p.a.failure?.message, p.b.failure?.message].filter(Boolean).join('; ') || null;
    return {
      test: p.test,
      status: p.a.status === 'ok' && p.b.status === 'ok' ? 'ok' : 'failed',
      failure,
      cells: [
        { text: p.test },
        ...(showCounts ? (counts ? [int(p.a.iterations), int(p.b.iterations)] : [int(p.b.iterations)]) : []),
        secs(p.ca.ours), secs(p.cb.ours),
        { text: p.diff === null ? dash : formatSecondsDiff(p.diff, Math.max(p.ca.ours ?? 0, p.cb.ours ?? 0)), className: 'delta' },
        { text: p.percent === null ? dash : `${signed(p.percent, 1)}%`, className: 'delta' },
        ...extra.flatMap((x) => [x.cell(p.a), x.cell(p.b)]),
        paper, vsPaper(p.ca), vsPaper(p.cb), pairStatus(p),
      ],
    };
  });
  const notes: string[] = [];
  if (c.alignment.onlyB.length) notes.push(`Only in B, not compared: ${c.alignment.onlyB.join(', ')}.`);
  if (c.alignment.onlyA.length) notes.push(`Only in A, not compared: ${c.alignment.onlyA.join(', ')}.`);
  if (counts) {
    notes.push('A and B ran different counts: B − A compares their times as measured; the paper’s column is scaled to B’s count, and each run is against the paper at its own count.');
  }
  if (a.view !== b.view) notes.push(`A is a ${a.view} result and B a ${b.view} one: both are compared on B’s ${METRIC_LABEL[c.metric]}.`);
  return { columns, rows, footnote: scaledFootnote(b), notes };
}

/** The grouped bar chart of a comparison: A, B and the paper per row, B against A in % above each group. */
export function comparisonBars(c: RunComparison): BarData {
  const paper = c.rows.map((p) => (p.cb.comparable ? p.cb.paper : null));
  const withPaper = paper.some((v) => v !== null);
  return {
    series: [
      { key: 'a', label: c.labels.a },
      { key: 'b', label: c.labels.b },
      ...(withPaper ? [{ key: 'paper', label: paperLegend(c.b.result) }] : []),
    ],
    rows: c.rows.map((p, i) => ({
      test: p.test,
      values: [p.ca.ours, p.cb.ours, ...(withPaper ? [paper[i]!] : [])],
      percent: p.percent,
    })),
    percentMeaning: 'B against A: B’s time minus A’s, in % of A’s',
    markMissing: [0, 1],
    percentLegend: '% above each group: B vs A',
  };
}

export const COMPARISON_CSV_COLUMNS = ['run', 'run_settings', ...CSV_COLUMNS, 'b_minus_a_s', 'b_minus_a_percent'] as const;

/**
 * Both runs in one CSV: every row of A, then every row of B, each with the
 * columns of a single result's CSV after `run` (A or B) and `run_settings`
 * (what distinguishes it); B's rows that have a row of A to compare with
 * also carry B − A.  RFC 4180 quoting, CRLF line ends.
 */
export function comparisonCsv(c: RunComparison): string {
  const lines = [COMPARISON_CSV_COLUMNS.join(',')];
  const settings = diffSides(c.diff);
  const byB = new Map(c.rows.map((p) => [p.b, p]));
  const emit = (which: 'A' | 'B', result: ExperimentResult, label: string) => {
    for (const r of result.rows) {
      const p = which === 'B' ? byB.get(r) : undefined;
      const cells: CsvValue[] = [which, label, ...csvRowValues(r, c.metric), p?.diff, p?.percent];
      lines.push(cells.map(csvCell).join(','));
    }
  };
  emit('A', c.a.result, settings ? settings.a : 'same settings');
  emit('B', c.b.result, settings ? settings.b : 'same settings');
  return `${lines.join('\r\n')}\r\n`;
}

// ------------------------------------------------------------ what to compare with

export interface CompareCandidate {
  /** Unique among the candidates: session:N or history:ID. */
  key: string;
  ref: RunRef;
  group: 'session' | 'history';
  label: string;
}

/** A result's main figure, short: "0.35 s", or "3 of 3 rows ok". */
export function shortFigure(result: ExperimentResult): string {
  const metric = primaryMetric(result);
  const ok = result.rows.map((r) => compareRow(r, metric)).filter((c) => c.ours !== null);
  if (result.rows.length === 1) return ok[0] ? `${formatSeconds(ok[0].ours!)} s` : 'failed';
  return `${ok.length} of ${result.rows.length} rows ok`;
}

/**
 * The runs the shown one can be compared with: this page's runs (newest
 * first; the newest is "the previous run"), then the history's, leaving out
 * the shown result itself, results already listed (a run of this page is
 * also in the history) and results with no row in common.  Each is
 * described by how it differs from the shown run.
 */
export function compareCandidates(
  shown: SharedRun,
  session: readonly SessionRun[],
  history: readonly HistoryEntry[],
  when: (iso: string) => string,
): CompareCandidate[] {
  const out: CompareCandidate[] = [];
  const seen = new Set<string>([runFingerprint(shown)]);
  const describe = (run: SharedRun) => {
    const sides = diffSides(configDiff(run, shown));
    const differs = sides ? sides.a : 'same settings';
    return `${run.experiment} · ${differs} · ${shortFigure(run.result)}`;
  };
  session.forEach((s, i) => {
    const f = runFingerprint(s.shared);
    if (seen.has(f) || compareBlocker(shown, s.shared) !== null) return;
    seen.add(f);
    const first = !out.some((c) => c.group === 'session');
    out.push({
      key: `session:${i}`, group: 'session', ref: { shared: s.shared, source: 'session', at: s.at },
      label: `${first ? 'Previous run' : `Run of ${when(s.at)}`} — ${describe(s.shared)}`,
    });
  });
  for (const h of history) {
    const f = runFingerprint(h.run);
    if (seen.has(f) || compareBlocker(shown, h.run) !== null) continue;
    seen.add(f);
    out.push({
      key: `history:${h.id}`, group: 'history', ref: { shared: h.run, source: 'history', at: h.savedAt, historyId: h.id },
      label: `${when(h.savedAt)} — ${describe(h.run)}`,
    });
  }
  return out;
}

/** The candidate that is `ref` (the same result), if listed. */
export function candidateFor(candidates: readonly CompareCandidate[], ref: RunRef | null): CompareCandidate | undefined {
  if (!ref) return undefined;
  return candidates.find((c) => sameRun(c.ref.shared, ref.shared));
}

/** Where a run of the comparison comes from, in words. */
export function originText(ref: RunRef, when: (iso: string) => string): string {
  const at = ref.at ? when(ref.at) : null;
  switch (ref.source) {
    case 'session': return at ? `a run of this page, finished ${at}` : 'a run of this page';
    case 'history': return at ? `from your history, saved ${at}` : 'from your history';
    case 'permalink': return 'a shared run (from its link)';
  }
}
