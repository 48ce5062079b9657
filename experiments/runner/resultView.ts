// A result as a table, defined once: what each view shows (Table 2's
// micro-operations, paging, name translation), ours against the paper on
// each row's main figure, the difference, why a row failed; and two results
// side by side (B against A, each against the paper).  The command line
// renders the table as text (resultText.ts), the lab page as HTML
// (web/src/lab/components/ResultTable.tsx); neither lays out a result itself.
// Numbers are written here, alike everywhere (formatSeconds).  No DOM, no
// Node APIs.

import { roundFixed } from './decimal';
import { findExperiment, stepPaper, type ExperimentView } from './experiments';
import type { ExperimentResult, RowResult, SpreadRange } from './result';

// ------------------------------------------------------------ ours against the paper

/** The figure a view compares first: elapsed time, except name translation (system time). */
export type Metric = 'elapsed' | 'system';

export function primaryMetric(result: Pick<ExperimentResult, 'view'>): Metric {
  return result.view === 'namecache' ? 'system' : 'elapsed';
}

export const METRIC_LABEL: Record<Metric, string> = { elapsed: 'elapsed time (s)', system: 'system time (s)' };

export interface Comparison {
  test: string;
  status: 'ok' | 'failed';
  iterations: number;
  metric: Metric;
  /** Ours in seconds; null when the row failed. */
  ours: number | null;
  /** The paper's, scaled to our count when it scales; null when the paper has none. */
  paper: number | null;
  /** Which column of the paper (e.g. 4.3BSD, 4.2BSD). */
  paperColumn: string | null;
  scaled: boolean;
  /** False when our count differs from the paper's and its figures do not scale (paging): no difference then. */
  comparable: boolean;
  difference: number | null;
  /** Difference in % of the paper's figure. */
  percent: number | null;
  failure: string | null;
}

const round = roundFixed;

function ours(r: RowResult, metric: Metric): number | null {
  if (r.status !== 'ok' || !r.guest) return null;
  return metric === 'system' ? r.guest.sys : r.guest.real;
}

function paperOf(r: RowResult, metric: Metric): number | null {
  const v = metric === 'system' ? r.paper?.system : r.paper?.elapsed;
  return v === undefined ? null : v;
}

export function compareRow(r: RowResult, metric: Metric): Comparison {
  const o = ours(r, metric);
  const p = paperOf(r, metric);
  const comparable = !r.paper || r.paper.scaled || r.paper.scale === 1;
  const difference = o === null || p === null || !comparable ? null : round(o - p, 3);
  return {
    test: r.test,
    status: r.status,
    iterations: r.iterations,
    metric,
    ours: o,
    paper: p,
    paperColumn: r.paper?.column ?? null,
    scaled: !!r.paper && r.paper.scaled && r.paper.scale !== 1,
    comparable,
    difference,
    percent: difference === null || !p ? null : round((100 * difference) / p, 1),
    failure: r.failure ? r.failure.message : null,
  };
}

/** Every row against the paper, on the view's main figure. */
export function compareWithPaper(result: ExperimentResult): Comparison[] {
  const metric = primaryMetric(result);
  return result.rows.map((r) => compareRow(r, metric));
}

// ------------------------------------------------------------ numbers and words

/**
 * Seconds as vaxlab writes them everywhere (the tables, the history, the
 * shared-run banner, the bar chart): 2 decimals below 10 s, 1 below 100 s,
 * none from there, so ours and the paper's are always written alike.
 */
export function secondsDigits(x: number): number {
  const a = Math.abs(x);
  return a < 9.995 ? 2 : a < 99.95 ? 1 : 0;
}

export function formatSeconds(x: number): string {
  return x.toFixed(secondsDigits(x));
}

/** A difference in seconds, signed, at the precision of the larger of the two figures. */
export function formatSecondsDiff(diff: number, scale: number): string {
  return signed(diff, secondsDigits(Math.max(Math.abs(diff), Math.abs(scale))));
}

/** x with its sign (+1.5, -0.3; a value that rounds to zero has none). */
export function signed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return x > 0 ? `+${s}` : s;
}

/** A failed row's failure as the tables say it: the runner's message ("kind: what happened") without the kind
 *  when what happened already says it ("stopped: stopped by the user" → "stopped by the user"). */
export function failureText(failure: RowResult['failure']): string {
  if (!failure) return 'failed';
  const prefix = `${failure.kind}: `;
  const rest = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : null;
  return rest !== null && rest.toLowerCase().startsWith(failure.kind.toLowerCase()) ? rest : failure.message;
}

/** How a run that did not finish ended, in words (null when every row is ok): "Stopped by the user during csw:
 *  1 of 29 rows done" (`steps`: how many rows the experiment has, when known), "2 of 5 rows failed", or, for a
 *  run kept as it went and cut short (`interrupted`), "Interrupted after 3 of 29 rows". */
/** The rows done (ok) of a result and how many it should have (`steps`, when known): what "8 of 29 rows done"
 *  counts, in the results' outcome and in the page's progress line alike. */
export function rowsDone(result: ExperimentResult, steps?: number): { done: number; total: number } {
  const rows = result.rows;
  return { done: rows.filter((r) => r.status === 'ok').length, total: Math.max(steps ?? rows.length, rows.length) };
}

export function runOutcome(result: ExperimentResult, steps?: number, interrupted = false): string | null {
  const rows = result.rows;
  const failed = rows.filter((r) => r.status !== 'ok');
  const { done, total } = rowsDone(result, steps);
  if (interrupted) {
    return `Interrupted after ${rows.length} of ${total} row${total === 1 ? '' : 's'}: the page was reloaded or closed while it ran` +
      `${failed.length ? ` (${failed.length} failed)` : ''}`;
  }
  if (failed.length === 0 && (steps === undefined || rows.length >= steps)) return null;
  const stopped = failed.find((r) => r.failure?.kind === 'stopped' && /by the user/.test(r.failure.message));
  if (stopped) return `Stopped by the user during ${stopped.test}: ${done} of ${total} rows done`;
  return `${failed.length} of ${total} row${total === 1 ? '' : 's'} failed${rows.length < total ? `, ${total - rows.length} not run` : ''}`;
}

// ------------------------------------------------------------ the figures of a row

/** A figure a row has: its times by the guest's /bin/time, and counts over the timed command. */
export interface Figure {
  key: FigureKey;
  /** The column's label without its unit: "Real", "Hit rate". */
  label: string;
  /** In a sentence: "elapsed time", "name-cache hit rate". */
  words: string;
  unit: 's' | 'ms' | '%' | null;
  /** How two values compare: times and counts in % of A, percentages in points. */
  kind: 'time' | 'count' | 'percent' | 'ms';
  title: string;
  /** The row's value; null when it failed or has no such figure. */
  value(r: RowResult): number | null;
}

export type FigureKey = 'real' | 'user' | 'sys' | 'cs' | 'faults' | 'pgin' | 'pfst' | 'disk' | 'hits' | 'misses' | 'hitRate' | 'pass2';

const okRow = (r: RowResult) => r.status === 'ok';
const total = (r: RowResult, k: string): number | null => (okRow(r) && r.totals && r.totals[k] !== undefined ? r.totals[k]! : null);

/** Disk transfers over the command: every drive's (the kernel's dk_xfer, as iostat counts them). */
export function diskTransfers(r: RowResult): number | null {
  if (!okRow(r) || !r.totals) return null;
  const keys = Object.keys(r.totals).filter((k) => /^disk\.[^.]+\.xfers$/.test(k));
  return keys.length ? keys.reduce((n, k) => n + r.totals![k]!, 0) : null;
}

/** Page-ins over the command (the paging rows' page faults: derived.pageFaults, else totals.pgin). */
function pageIns(r: RowResult): number | null {
  if (!okRow(r)) return null;
  return r.derived?.pageFaults ?? r.totals?.pgin ?? null;
}

export const FIGURES: Record<FigureKey, Figure> = {
  real: { key: 'real', label: 'Real', words: 'elapsed time', unit: 's', kind: 'time', title: 'elapsed (real) seconds by the guest’s /bin/time',
    value: (r) => (okRow(r) && r.guest ? r.guest.real : null) },
  user: { key: 'user', label: 'User', words: 'user time', unit: 's', kind: 'time', title: 'user seconds by the guest’s /bin/time',
    value: (r) => (okRow(r) && r.guest ? r.guest.user : null) },
  sys: { key: 'sys', label: 'Sys', words: 'system time', unit: 's', kind: 'time', title: 'system seconds by the guest’s /bin/time',
    value: (r) => (okRow(r) && r.guest ? r.guest.sys : null) },
  cs: { key: 'cs', label: 'Ctx sw', words: 'context switches', unit: null, kind: 'count', title: 'context switches over the command (vmstat cs, v_swtch)',
    value: (r) => total(r, 'cs') },
  faults: { key: 'faults', label: 'Faults', words: 'page faults', unit: null, kind: 'count',
    title: 'page faults over the command, reclaims and zero-fills included (v_faults)', value: (r) => total(r, 'faults') },
  pgin: { key: 'pgin', label: 'Page-ins', words: 'page-ins', unit: null, kind: 'count',
    title: 'page faults that read the disk, over the command (cnt.v_pgin; Table 7’s "page faults")', value: pageIns },
  pfst: { key: 'pfst', label: 'PFST', words: 'page fault service time', unit: 'ms', kind: 'ms',
    title: 'page fault service time: sys / page-ins (shown with at least 1,000 page-ins, the paper’s rule)',
    value: (r) => {
      const n = pageIns(r);
      return n !== null && n >= PFST_MIN_FAULTS && r.derived?.pfstMs !== undefined ? r.derived.pfstMs : null;
    } },
  disk: { key: 'disk', label: 'Disk I/O', words: 'disk transfers', unit: null, kind: 'count',
    title: 'disk transfers over the command, all drives (iostat tps × seconds; the kernel’s dk_xfer)', value: diskTransfers },
  hits: { key: 'hits', label: 'Hits', words: 'name-cache hits', unit: null, kind: 'count', title: 'name cache hits (nchstats ncs_goodhits)',
    value: (r) => total(r, 'namei.hits') },
  misses: { key: 'misses', label: 'Misses', words: 'name-cache misses', unit: null, kind: 'count',
    title: 'lookups the name cache did not answer: misses, bad and false hits, long names (as vmstat -s counts them)',
    value: (r) => total(r, 'namei.misses') },
  hitRate: { key: 'hitRate', label: 'Name hits', words: 'name-cache hit rate', unit: '%', kind: 'percent',
    title: 'name cache hits in % of the lookups (nchstats)', value: (r) => total(r, 'namei.hitRate') },
  pass2: { key: 'pass2', label: 'Offset hits', words: 'offset-cache hits', unit: null, kind: 'count',
    title: 'names found by the per-process directory offset cache (ncs_pass2)', value: (r) => total(r, 'namei.pass2') },
};

/** The figures each view shows and compares, the main one first among the times. */
export const VIEW_FIGURES: Record<ExperimentView, { times: FigureKey[]; counters: FigureKey[] }> = {
  table2: { times: ['real', 'user', 'sys'], counters: ['cs', 'faults', 'disk', 'hitRate'] },
  paging: { times: ['real', 'user', 'sys'], counters: ['pgin', 'pfst', 'disk'] },
  namecache: { times: ['sys', 'user', 'real'], counters: ['hits', 'misses', 'hitRate', 'pass2'] },
};

/** A figure's value as a table writes it. */
export function formatFigure(f: Figure, v: number | null | undefined): string {
  if (v === null || v === undefined) return DASH;
  switch (f.kind) {
    case 'time': return formatSeconds(v);
    case 'ms': return v.toFixed(2);
    case 'percent': return `${v.toFixed(1)}%`;
    case 'count': return Math.round(v).toLocaleString('en-US');
  }
}

/** A figure with its unit, for sentences: "25.0 s", "98.9%", "1,234", "7.89 ms". */
function figureWords(f: Figure, v: number): string {
  const s = formatFigure(f, v);
  return f.kind === 'time' ? `${s} s` : f.kind === 'ms' ? `${s} ms` : s;
}

// ------------------------------------------------------------ the paper's columns

/** The paper's figures for a row in one of its columns (scaled to our count when they scale). */
export interface PaperFigures {
  /** "4.3BSD", "4.2BSD", "both caches" ... */
  column: string;
  /** The one ours is compared with (RowResult.paper), or another of the paper's columns. */
  main: boolean;
  real?: number;
  user?: number;
  sys?: number;
  pageFaults?: number;
  pfstMs?: number;
  scaled: boolean;
  /** False when our count differs from the paper's and its figures do not scale: not shown then. */
  comparable: boolean;
}

const scaledBy = (x: number | undefined, scale: number, scaled: boolean) =>
  (x === undefined ? undefined : round(scaled ? x * scale : x, 3));

/** A row's figures from the paper: the column it is compared with, then the paper's other columns for it
 *  (Table 2's 4.2 and 4.1BSD, Table 7's 4.1BSD; from the experiment's definition, this lab's copy of the paper). */
export function paperFigures(result: Pick<ExperimentResult, 'experiment'>, r: RowResult): PaperFigures[] {
  const p = r.paper;
  if (!p) return [];
  const comparable = p.scaled || p.scale === 1;
  const isScaled = p.scaled && p.scale !== 1;
  const main: PaperFigures = {
    column: p.column, main: true, real: p.elapsed, user: p.user, sys: p.system, pageFaults: p.pageFaults,
    pfstMs: p.pfst === undefined ? undefined : round(p.pfst / 100, 3), scaled: isScaled, comparable,
  };
  const step = findExperiment(result.experiment)?.steps.find((s) => s.id === r.step);
  const ref = step ? stepPaper(step, r.kernelSettings ?? {}) : null;
  const others = (ref && ref.column === p.column ? ref.others ?? [] : []).map((o): PaperFigures => ({
    column: o.column, main: false,
    real: scaledBy(o.elapsed, p.scale, p.scaled), user: scaledBy(o.user, p.scale, p.scaled), sys: scaledBy(o.system, p.scale, p.scaled),
    pageFaults: o.pageFaults === undefined ? undefined : p.scaled ? Math.round(o.pageFaults * p.scale) : o.pageFaults,
    pfstMs: o.pfst === undefined ? undefined : round(o.pfst / 100, 3), scaled: isScaled, comparable,
  }));
  return [main, ...others];
}

/** The paper's other columns the rows of a result have, in the paper's order. */
function otherColumns(result: ExperimentResult): string[] {
  const out: string[] = [];
  for (const r of result.rows) for (const p of paperFigures(result, r)) if (!p.main && !out.includes(p.column)) out.push(p.column);
  return out;
}

// ------------------------------------------------------------ the table

export interface Column {
  /** Names the column for scripts and tests (data-col on the page): "ours.real", "paper.4.2BSD.sys". */
  key: string;
  /** The header, with its unit in parentheses when it has one: "Real (s)". */
  label: string;
  /** The unit of the column's figures: seconds, milliseconds, percent; null for counts, names and words. */
  unit: 's' | 'ms' | '%' | null;
  numeric: boolean;
  /** What the column is, in a sentence (a tooltip on the page, a legend under the text table). */
  title?: string;
  /** The group it belongs to, named over its columns ("Ours", "Paper 4.3BSD", "Counters"; '' unnamed).
   *  A group starts with a rule. */
  group: string;
}

export interface Cell {
  text: string;
  /** How the figure compares: 'close' (within 10% of the other), 'far', 'delta' (B − A), 'failure', 'nc' (not comparable). */
  className?: string;
  title?: string;
}

export interface TableRow {
  test: string;
  status: 'ok' | 'failed';
  failure: string | null;
  cells: Cell[];
}

export interface ResultTable {
  columns: Column[];
  rows: TableRow[];
  /** What the * on the paper's figures means (shown next to the table), or null. */
  footnote: string | null;
  notes: string[];
}

/** Whether column j starts a group (a rule before it). */
export function startsGroup(columns: readonly Column[], j: number): boolean {
  return j > 0 && columns[j]!.group !== columns[j - 1]!.group;
}

/** The groups of columns in order, with how many columns each spans (for a header row over the labels). */
export function columnGroups(columns: readonly Column[]): { label: string; span: number }[] {
  const out: { label: string; span: number }[] = [];
  columns.forEach((c, j) => {
    if (j === 0 || startsGroup(columns, j)) out.push({ label: c.group, span: 1 });
    else out[out.length - 1]!.span++;
  });
  return out;
}

/** PFST is shown for rows with at least this many page faults (the paper:
 *  "test runs that had a statistically significant number of random page faults"). */
export const PFST_MIN_FAULTS = 1000;

const DASH = '—';
/** What a paper figure shows when ours cannot be compared with it (a reduced paging run). */
export const NOT_COMPARABLE = 'n/c';
const NC_TITLE = 'not comparable: our count differs from the paper’s, and these figures do not scale with it';
const int = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? DASH : Math.round(x).toLocaleString('en-US') });

function diffCells(c: Comparison): Cell[] {
  if (!c.comparable) return [{ text: NOT_COMPARABLE, className: 'nc', title: NC_TITLE }, { text: NOT_COMPARABLE, className: 'nc', title: NC_TITLE }];
  return [
    { text: c.difference === null ? DASH : formatSecondsDiff(c.difference, Math.max(c.ours ?? 0, c.paper ?? 0)) },
    {
      text: c.percent === null ? DASH : `${signed(c.percent, 0)}%`,
      className: c.percent === null ? undefined : Math.abs(c.percent) <= 10 ? 'close' : 'far',
    },
  ];
}

function statusCell(r: RowResult): Cell {
  if (r.status === 'ok') return { text: 'ok' };
  const text = failureText(r.failure);
  return { text, className: 'failure', title: r.failure && r.failure.message !== text ? r.failure.message : undefined };
}

/** The paper's figure for a row (scaled ones starred, with the paper's own figure in the tooltip). */
export function paperCell(c: Comparison, r: RowResult): Cell {
  if (!c.comparable) return { text: NOT_COMPARABLE, className: 'nc', title: NC_TITLE };
  if (c.paper === null) return { text: DASH, title: 'the paper has no figure for this row' };
  const p = r.paper;
  const title = c.scaled && p
    ? `the paper’s ${formatSeconds(c.paper / p.scale)} s for ${p.iterations.toLocaleString('en-US')} iterations, scaled to our ${r.iterations.toLocaleString('en-US')}`
    : undefined;
  return { text: `${formatSeconds(c.paper)}${c.scaled ? '*' : ''}`, title };
}

/** One of the paper's figures in a cell: starred when scaled, n/c when not comparable, — when the paper has none. */
function paperFigureCell(p: PaperFigures | undefined, key: 'real' | 'user' | 'sys' | 'pageFaults' | 'pfstMs'): Cell {
  if (!p) return { text: DASH, title: 'the paper has no figure for this row' };
  const v = p[key];
  if (v === undefined) return { text: DASH };
  if (!p.comparable) return { text: NOT_COMPARABLE, className: 'nc', title: NC_TITLE };
  const text = key === 'pageFaults' ? Math.round(v).toLocaleString('en-US') : key === 'pfstMs' ? v.toFixed(2) : formatSeconds(v);
  return { text: `${text}${p.scaled && key !== 'pfstMs' ? '*' : ''}`, title: `the paper, ${p.column}` };
}

/** The footnote for the * of scaled figures: with the paper's own figure when there is one row. */
export function scaledFootnote(result: ExperimentResult): string | null {
  const metric = primaryMetric(result);
  const scaled = result.rows.filter((r) => r.paper && r.paper.scaled && r.paper.scale !== 1);
  if (scaled.length === 0) return null;
  const what = metric === 'system' ? 'system time' : 'time';
  if (scaled.length === 1 && result.rows.length === 1) {
    const r = scaled[0]!;
    const p = r.paper!;
    const v = metric === 'system' ? p.system : p.elapsed;
    if (v !== undefined) {
      return `* The paper’s ${what} for its ${p.iterations.toLocaleString('en-US')} iterations, ${formatSeconds(v / p.scale)} s, ` +
        `scaled to our ${r.iterations.toLocaleString('en-US')} (× ${Number(p.scale.toPrecision(3))}).`;
    }
  }
  return `* The paper’s ${what} for its own iteration count, scaled to ours (it timed larger counts).`;
}

/** The note for n/c cells: why a reduced run's figures are not set beside the paper's. */
function notComparableNote(result: ExperimentResult): string | null {
  if (!result.rows.some((r) => r.paper && !r.paper.scaled && r.paper.scale !== 1)) return null;
  const d = result.parameters.divisor;
  return `n/c: not comparable — our counts are reduced${d !== undefined && d !== 1 ? ` (divisor ${d})` : ''} and the ` +
    'paper’s figures here do not scale with the count (the first pass fills memory); run with the paper’s counts to compare.';
}

/** What a row is when each step ran with several seeds (ExperimentResult.machine.spinSeeds), or null. */
export function seedsNote(result: ExperimentResult): string | null {
  const n = result.machine.spinSeeds ?? 1;
  if (n <= 1) return null;
  return `Each row is the median of ${n} runs, seeds 1..${n} (the disks' phase, the clock's and the page placement); ` +
    '[min–max]: the range over them, where it is more than one value.';
}

/** A column and how each row fills it. */
interface ColumnSpec {
  column: Column;
  cell(r: RowResult, c: Comparison, papers: PaperFigures[]): Cell;
}

const col = (key: string, label: string, group: string, unit: Column['unit'], numeric: boolean, title?: string): Column =>
  ({ key, label, unit, numeric, group, ...(title ? { title } : {}) });
const withUnit = (f: Figure) => (f.unit ? `${f.label} (${f.unit})` : f.label);

/** A figure's range over the seeds, when the row ran with several (RowResult.spread): the times, and the page-ins
 *  where the row's are its derived page faults (the count the spread is of). */
export function figureSpread(key: FigureKey, r: RowResult): SpreadRange | null {
  const s = r.spread;
  if (!s || !okRow(r)) return null;
  if (key === 'real' || key === 'user' || key === 'sys') return s[key];
  if (key === 'pgin' && r.derived?.pageFaults !== undefined) return s.pageFaults ?? null;
  return null;
}

/** A figure of a row as a cell: with its range over the seeds after it ("25.0 [24.1–26.3]") when the row ran with
 *  several and the range shows as more than one value, as "How close are we?" and `vaxlab fidelity` write it. */
export function figureCell(f: Figure, r: RowResult): Cell {
  const text = formatFigure(f, f.value(r));
  const range = figureSpread(f.key, r);
  if (!range || r.spread === undefined) return { text };
  const [min, max] = [formatFigure(f, range.min), formatFigure(f, range.max)];
  return {
    text: min === max ? text : `${text} [${min}–${max}]`,
    title: `the median of ${r.spread.seeds} runs, seeds 1..${r.spread.seeds}; over them ${min}–${max}`,
  };
}

/** Ours: a figure of the row. */
function oursColumn(key: FigureKey, group: string, label?: string): ColumnSpec {
  const f = FIGURES[key];
  return {
    column: col(`ours.${key}`, label ?? withUnit(f), group, f.unit, true, f.title),
    cell: (r) => figureCell(f, r),
  };
}

/** The paper's figure in one of its columns. */
function paperColumn(column: string, main: boolean, key: 'real' | 'user' | 'sys' | 'pageFaults' | 'pfstMs', group: string): ColumnSpec {
  const label = { real: 'Real (s)', user: 'User (s)', sys: 'Sys (s)', pageFaults: 'Faults', pfstMs: 'PFST (ms)' }[key];
  const unit = { real: 's', user: 's', sys: 's', pageFaults: null, pfstMs: 'ms' }[key] as Column['unit'];
  const title = key === 'pfstMs' ? 'Table 8’s page fault service time (its figure / 100, in ms)' : key === 'pageFaults' ? 'Table 7’s page faults' : undefined;
  return {
    column: col(`paper.${main ? 'main' : column}.${key}`, label, group, unit, true, title),
    cell: (_r, _c, papers) => paperFigureCell(papers.find((p) => (main ? p.main : p.column === column)), key),
  };
}

function build(result: ExperimentResult, specs: ColumnSpec[], notes: string[]): ResultTable {
  const metric = primaryMetric(result);
  const rows = result.rows.map((r): TableRow => {
    const c = compareRow(r, metric);
    const papers = paperFigures(result, r);
    return { test: r.test, status: r.status, failure: c.failure, cells: specs.map((s) => s.cell(r, c, papers)) };
  });
  const nc = notComparableNote(result);
  const seeds = seedsNote(result);
  return {
    columns: specs.map((s) => s.column), rows, footnote: scaledFootnote(result),
    notes: [...notes, ...(nc ? [nc] : []), ...(seeds ? [seeds] : [])],
  };
}

const testColumn = (label = 'Test'): ColumnSpec => ({ column: col('test', label, '', null, false), cell: (r) => ({ text: r.test }) });
const iterationsColumn: ColumnSpec = { column: col('iterations', 'Iterations', '', null, true), cell: (r) => int(r.iterations) };
const statusColumn: ColumnSpec = { column: col('status', 'Status', ' ', null, false), cell: (r) => statusCell(r) };
const diffColumns = (what: string, group: string): ColumnSpec[] => [
  { column: col('diff.s', `${what} diff (s)`, group, 's', true, 'ours minus the paper’s'), cell: (_r, c) => diffCells(c)[0]! },
  { column: col('diff.percent', `${what} diff (%)`, group, '%', true, 'ours minus the paper’s, in % of the paper’s'), cell: (_r, c) => diffCells(c)[1]! },
];

/** The paper's other columns (4.2 and 4.1BSD beside Table 2's 4.3; 4.1BSD beside Table 7's 4.2). */
function otherPaperColumns(result: ExperimentResult, keys: ('real' | 'user' | 'sys' | 'pageFaults' | 'pfstMs')[]): ColumnSpec[] {
  return otherColumns(result).flatMap((column) => {
    const present = keys.filter((k) => result.rows.some((r) => paperFigures(result, r).find((p) => p.column === column)?.[k] !== undefined));
    return present.map((k) => paperColumn(column, false, k, `Paper ${column}`));
  });
}

/** A result's table, laid out by its view: ours (times, then the view's counters) beside the paper's columns. */
export function resultTable(result: ExperimentResult): ResultTable {
  const counters = VIEW_FIGURES[result.view].counters;
  if (result.view === 'paging') {
    const column = result.rows.find((r) => r.paper)?.paper?.column ?? '4.2BSD';
    const source = result.rows.find((r) => r.paper)?.paper?.source ?? 'Table 7';
    const group = `Paper ${column} (${source})`;
    const specs: ColumnSpec[] = [
      testColumn(), iterationsColumn,
      ...(['real', 'user', 'sys', 'pgin', 'pfst'] as const).map((k) => oursColumn(k, 'Ours')),
      ...(['real', 'user', 'sys', 'pageFaults', 'pfstMs'] as const).map((k) => paperColumn(column, true, k, group)),
      ...diffColumns('Real', group),
      statusColumn,
      ...counters.filter((k) => k !== 'pgin' && k !== 'pfst').map((k) => oursColumn(k, 'Counters')),
      ...otherPaperColumns(result, ['real', 'user', 'sys', 'pageFaults', 'pfstMs']),
    ];
    return build(result, specs, [`The paper's columns: ${source}, ${column}${otherColumns(result).length ? ` (and ${otherColumns(result).join(', ')})` : ''}.`]);
  }
  if (result.view === 'namecache') {
    const specs: ColumnSpec[] = [
      testColumn('Step'),
      { column: col('nchsize', 'nchsize', '', null, true, 'read back from the running kernel'),
        cell: (r) => ({ text: r.readback?.nchsize === undefined || r.readback.nchsize === null ? DASH : String(r.readback.nchsize) }) },
      ...(['sys', 'user', 'real'] as const).map((k) => oursColumn(k, 'Ours')),
      ...counters.map((k) => oursColumn(k, 'Name cache (nchstats)', k === 'hitRate' ? 'Hit rate (%)' : undefined)),
      { column: col('paper.main.sys', 'Sys (s)', 'Paper §4.1.1', 's', true),
        cell: (r, c) => ({ ...paperCell(c, r), title: r.paper ? `${r.paper.source}: ${r.paper.column}` : 'the paper has no figure for this step' }) },
      { column: col('paper.case', 'Paper’s case', 'Paper §4.1.1', null, false, 'which of §4.1.1’s figures: which caches the paper’s kernel had'),
        cell: (r) => ({ text: r.paper?.system !== undefined ? r.paper.column : DASH }) },
      ...diffColumns('Sys', 'Paper §4.1.1'),
      statusColumn,
    ];
    return build(result, specs, ['Hits and misses: the kernel’s nchstats over the command. The paper gives only ls -l’s system time.']);
  }
  const column = result.rows.find((r) => r.paper)?.paper?.column ?? '4.3BSD';
  const group = `Paper ${column}`;
  const specs: ColumnSpec[] = [
    testColumn(), iterationsColumn,
    ...(['real', 'user', 'sys'] as const).map((k) => oursColumn(k, 'Ours')),
    ...(['real', 'user', 'sys'] as const).map((k) => paperColumn(column, true, k, group)),
    ...diffColumns('Real', group),
    statusColumn,
    ...counters.map((k) => oursColumn(k, 'Counters')),
    ...otherPaperColumns(result, ['real', 'user', 'sys']),
  ];
  return build(result, specs, []);
}

// ------------------------------------------------------------ two results

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

export interface PairRow extends AlignedRow {
  /** Each run against the paper (scaled to its own count), on the comparison's metric. */
  ca: Comparison;
  cb: Comparison;
  /** B − A in seconds, and in % of A; null when either failed. */
  diff: number | null;
  percent: number | null;
}

/** Two results side by side: B (the one shown) against A.  R carries each result with whatever its caller keeps with it. */
export interface ResultPair<R extends { result: ExperimentResult } = { result: ExperimentResult }> {
  a: R;
  b: R;
  /** B's: elapsed time, or system time for name translation. */
  metric: Metric;
  alignment: Alignment;
  rows: PairRow[];
  /** Each run by what distinguishes it ("A: cpu=750"), for the columns and legends. */
  labels: { a: string; b: string };
}

export function pairResults<R extends { result: ExperimentResult }>(a: R, b: R, labels: { a: string; b: string }): ResultPair<R> {
  const metric = primaryMetric(b.result);
  const alignment = alignRows(a.result, b.result);
  const rows = alignment.rows.map((p): PairRow => {
    const ca = compareRow(p.a, metric);
    const cb = compareRow(p.b, metric);
    const diff = ca.ours === null || cb.ours === null ? null : round(cb.ours - ca.ours, 3);
    return { ...p, ca, cb, diff, percent: diff === null || !ca.ours ? null : round((100 * diff) / ca.ours, 1) };
  });
  return { a, b, metric, alignment, rows, labels };
}

function vsPaper(c: Comparison): Cell {
  if (!c.comparable) return { text: NOT_COMPARABLE, className: 'nc', title: NC_TITLE };
  if (c.percent === null) return { text: DASH };
  return { text: `${signed(c.percent, 0)}%`, className: Math.abs(c.percent) <= 10 ? 'close' : 'far' };
}

function pairStatus(p: PairRow): Cell {
  if (p.a.status === 'ok' && p.b.status === 'ok') return { text: 'ok' };
  // Only the run(s) that failed: "B: time limit".
  const said = ([['A', p.a], ['B', p.b]] as const).filter(([, r]) => r.status !== 'ok')
    .map(([which, r]) => `${which}: ${failureText(r.failure)}`);
  return { text: said.join('; '), className: 'failure' };
}

/** The figures two results are compared on: the times (B's main one first), then B's view's counters. */
export function pairFigures(c: ResultPair): Figure[] {
  const view = VIEW_FIGURES[c.b.result.view];
  return [...view.times, ...view.counters].map((k) => FIGURES[k]);
}

/** B − A of a figure: in % of A for times and counts, in points for percentages; null when either is missing. */
export function figureChange(f: Figure, a: number | null, b: number | null): { diff: number; relative: number } | null {
  if (a === null || b === null) return null;
  const diff = b - a;
  if (f.kind === 'percent') return { diff, relative: diff / 100 };
  if (a === 0) return { diff, relative: b === 0 ? 0 : Math.sign(b) * Infinity };
  return { diff, relative: diff / Math.abs(a) };
}

/** A whole number with its sign and thousands separated: +5,396. */
function signedCount(x: number): string {
  const n = Math.round(x);
  return n === 0 ? '0' : `${n > 0 ? '+' : '-'}${Math.abs(n).toLocaleString('en-US')}`;
}

/** A change as a table or a sentence writes it: "+1.8%", "−98.9 points", "0.0%". */
export function formatChange(f: Figure, change: { diff: number; relative: number } | null): string {
  if (!change) return DASH;
  if (f.kind === 'percent') return `${signed(change.diff, 1)} points`;
  if (!Number.isFinite(change.relative)) return change.diff > 0 ? 'new' : DASH;
  return `${signed(100 * change.relative, 1)}%`;
}

const changeClass = (change: { relative: number } | null) => (change && change.relative !== 0 ? 'delta' : undefined);

/** The paper's figure for a figure of B's row, as the comparison shows it (scaled to B's count; n/c, —). */
function pairPaperCell(f: Figure, papers: PaperFigures[]): Cell {
  const main = papers.find((x) => x.main);
  const key = f.key === 'real' ? 'real' : f.key === 'user' ? 'user' : f.key === 'sys' ? 'sys' : f.key === 'pgin' ? 'pageFaults' : f.key === 'pfst' ? 'pfstMs' : null;
  if (key === null || !main || main[key] === undefined) return { text: DASH };
  return paperFigureCell(main, key);
}

/** A run's label without its letter ("A: cpu=750" → "cpu=750"), for a column A or B. */
const runWords = (label: string) => label.replace(/^[AB]:\s*/, '').replace(/^[AB] \((.*)\)$/, '$1');

/**
 * The table of two results.  With one row in common: a row per figure (times, then the view's counters),
 * A, B, B − A, B − A in % (in points for a percentage) and the paper's; with more, a row per row of the
 * results and a group of columns per figure (A, B, B − A), then the paper's main figure and each run
 * against it.
 */
export function comparisonTable(c: ResultPair): ResultTable {
  const { a, b } = { a: c.a.result, b: c.b.result };
  const figures = pairFigures(c);
  const counts = c.rows.some((p) => p.a.iterations !== p.b.iterations);
  const notes: string[] = [];
  if (c.alignment.onlyB.length) notes.push(`Only in B, not compared: ${c.alignment.onlyB.join(', ')}.`);
  if (c.alignment.onlyA.length) notes.push(`Only in A, not compared: ${c.alignment.onlyA.join(', ')}.`);
  if (counts) {
    notes.push('A and B ran different counts: B − A compares them as measured; the paper’s figures are scaled to B’s count, and each run is against the paper at its own count.');
  }
  if (a.view !== b.view) notes.push(`A is a ${a.view} result and B a ${b.view} one: both are compared on B’s figures.`);
  const nc = notComparableNote(b);
  if (nc) notes.push(nc);
  const column = c.rows.find((p) => p.b.paper)?.b.paper?.column ?? (b.view === 'paging' ? '4.2BSD' : '4.3BSD');

  if (c.rows.length === 1) {
    const p = c.rows[0]!;
    const papers = paperFigures(b, p.b);
    const withPaper = papers.length > 0;
    const columns: Column[] = [
      col('figure', 'Figure', '', null, false),
      col('a', 'A', 'Runs', null, true, runWords(c.labels.a)),
      col('b', 'B', 'Runs', null, true, runWords(c.labels.b)),
      col('diff', 'B − A', 'Runs', null, true, 'B’s figure minus A’s'),
      col('change', 'Change', 'Runs', null, true, 'B − A in % of A (in points for a percentage)'),
      ...(withPaper ? [col('paper', `Paper ${column}`, 'Paper', null, true, 'the paper’s figure, scaled to B’s count when it scales')] : []),
    ];
    const paperCells = (cell: Cell): Cell[] => (withPaper ? [cell] : []);
    const rows: TableRow[] = [];
    if (counts) {
      rows.push({ test: 'Iterations', status: 'ok', failure: null,
        cells: [{ text: 'Iterations' }, int(p.a.iterations), int(p.b.iterations), { text: DASH }, { text: DASH }, ...paperCells(int(p.b.paper?.iterations))] });
    }
    for (const f of figures) {
      const va = f.value(p.a);
      const vb = f.value(p.b);
      if (va === null && vb === null && f.key !== 'real' && f.key !== 'sys') continue;
      const change = figureChange(f, va, vb);
      const diffText = change === null ? DASH : f.kind === 'time' ? formatSecondsDiff(change.diff, Math.max(va ?? 0, vb ?? 0))
        : f.kind === 'percent' ? signed(change.diff, 1) : f.kind === 'ms' ? signed(change.diff, 2) : signedCount(change.diff);
      rows.push({
        test: withUnit(f), status: 'ok', failure: null,
        cells: [
          { text: withUnit(f), title: f.title },
          { text: formatFigure(f, va) }, { text: formatFigure(f, vb) },
          { text: diffText, className: changeClass(change) },
          { text: formatChange(f, change), className: changeClass(change) },
          ...paperCells(pairPaperCell(f, papers)),
        ],
      });
    }
    rows.push({
      test: 'Status', status: p.a.status === 'ok' && p.b.status === 'ok' ? 'ok' : 'failed',
      failure: [p.a.failure?.message, p.b.failure?.message].filter(Boolean).join('; ') || null,
      cells: [{ text: 'Status' }, statusCell(p.a), statusCell(p.b), { text: DASH }, { text: DASH }, ...paperCells({ text: DASH })],
    });
    return { columns, rows, footnote: scaledFootnote(b), notes };
  }

  const showCounts = counts || b.view === 'table2';
  const specs: { column: Column; cell: (p: PairRow) => Cell }[] = [
    { column: col('test', 'Test', '', null, false), cell: (p) => ({ text: p.test }) },
    ...(showCounts
      ? counts
        ? [{ column: col('iterations.a', 'Iterations A', '', null, true), cell: (p: PairRow) => int(p.a.iterations) },
          { column: col('iterations.b', 'Iterations B', '', null, true), cell: (p: PairRow) => int(p.b.iterations) }]
        : [{ column: col('iterations', 'Iterations', '', null, true), cell: (p: PairRow) => int(p.b.iterations) }]
      : []),
  ];
  figures.forEach((f, i) => {
    const group = withUnit(f);
    specs.push(
      { column: col(`${f.key}.a`, 'A', group, f.unit, true, `${runWords(c.labels.a)}: ${f.title}`), cell: (p) => ({ text: formatFigure(f, f.value(p.a)) }) },
      { column: col(`${f.key}.b`, 'B', group, f.unit, true, `${runWords(c.labels.b)}: ${f.title}`), cell: (p) => ({ text: formatFigure(f, f.value(p.b)) }) },
    );
    if (i === 0) {
      specs.push({
        column: col(`${f.key}.diff`, 'B − A (s)', group, 's', true, 'B’s time minus A’s'),
        cell: (p) => ({ text: p.diff === null ? DASH : formatSecondsDiff(p.diff, Math.max(p.ca.ours ?? 0, p.cb.ours ?? 0)), className: 'delta' }),
      });
    }
    specs.push({
      column: col(`${f.key}.change`, f.kind === 'percent' ? 'B − A' : 'B − A (%)', group, f.kind === 'percent' ? null : '%', true,
        f.kind === 'percent' ? 'B − A in percentage points' : 'B − A in % of A'),
      cell: (p) => {
        const change = figureChange(f, f.value(p.a), f.value(p.b));
        const text = change === null ? DASH : f.kind === 'percent' ? signed(change.diff, 1) : Number.isFinite(change.relative) ? `${signed(100 * change.relative, 1)}%` : formatChange(f, change);
        return { text, className: changeClass(change) };
      },
    });
  });
  const metricWords = c.metric === 'system' ? 'Sys (s)' : 'Real (s)';
  specs.push(
    { column: col('paper', metricWords, `Paper ${column}`, 's', true, counts ? 'the paper’s figure, scaled to B’s count when it scales' : 'the paper’s figure'),
      cell: (p) => paperCell(p.cb, p.b) },
    { column: col('paper.a', 'A vs paper', `Paper ${column}`, '%', true, 'A against the paper’s figure scaled to A’s count, in %'), cell: (p) => vsPaper(p.ca) },
    { column: col('paper.b', 'B vs paper', `Paper ${column}`, '%', true, 'B against the paper’s figure scaled to B’s count, in %'), cell: (p) => vsPaper(p.cb) },
    { column: col('status', 'Status', ' ', null, false), cell: (p) => pairStatus(p) },
  );
  const rows = c.rows.map((p): TableRow => ({
    test: p.test,
    status: p.a.status === 'ok' && p.b.status === 'ok' ? 'ok' : 'failed',
    failure: [p.a.failure?.message, p.b.failure?.message].filter(Boolean).join('; ') || null,
    cells: specs.map((s) => s.cell(p)),
  }));
  return { columns: specs.map((s) => s.column), rows, footnote: scaledFootnote(b), notes };
}

/** One figure's change over the rows both runs have (summed; percentages averaged). */
export interface FigureChange {
  figure: Figure;
  a: number;
  b: number;
  change: { diff: number; relative: number };
  /** How many rows it is over. */
  rows: number;
  /** How much the change means (see significance): the sentence names the largest. */
  significance: number;
}

/** Every figure's change from A to B over the rows both ran, the largest (relative, or in points) first. */
export function figureChanges(c: ResultPair): FigureChange[] {
  const out: FigureChange[] = [];
  let elapsedA = 0;
  for (const p of c.rows) elapsedA += FIGURES.real.value(p.a) ?? 0;
  for (const f of pairFigures(c)) {
    let a = 0;
    let b = 0;
    let n = 0;
    for (const p of c.rows) {
      const va = f.value(p.a);
      const vb = f.value(p.b);
      if (va === null || vb === null) continue;
      a += va;
      b += vb;
      n++;
    }
    if (n === 0) continue;
    if (f.kind === 'percent' || f.kind === 'ms') {
      a /= n;
      b /= n;
    }
    const change = figureChange(f, a, b);
    // Rounded, so that equal changes tie (and keep the figures' order: elapsed time first) whatever the float noise.
    if (change) out.push({ figure: f, a, b, change, rows: n, significance: roundFixed(significance(f, a, change.diff, elapsedA), 6) });
  }
  return out.sort((x, y) => y.significance - x.significance);
}

/**
 * How much a change means, to say which changed most: a percentage by its points (/ 100); a time by how much of
 * A's elapsed time it moved (0.2 → 0.6 s of user time in a 34 s run is not a change that matters, 0.3 → 0.2 s
 * of elapsed time is a third); a count against the larger of A's and 100.  The name cache's hits and misses are
 * not ranked: their hit rate says it.
 */
function significance(f: Figure, a: number, diff: number, elapsedA: number): number {
  const d = Math.abs(diff);
  switch (f.kind) {
    case 'percent': return d / 100;
    case 'time': return d / Math.max(elapsedA, 0.1);
    case 'ms': return d / Math.max(Math.abs(a), 0.1);
    case 'count': return f.key === 'hits' || f.key === 'misses' ? 0 : d / Math.max(Math.abs(a), 100);
  }
}

/**
 * What changed most from A to B, in one sentence: the figure that moved most (relative to A, or in points
 * for a percentage), then the times it did not name.  "What changed most: the name-cache hit rate, 98.9% in
 * A and 0.0% in B (−98.9 points); system time 11.0 s → 11.2 s (+1.8%), elapsed time 25.0 s → 25.0 s (0.0%)."
 */
export function changeSentence(c: ResultPair): string {
  const changes = figureChanges(c);
  if (changes.length === 0) return 'A and B have no figure in common to compare.';
  const top = changes[0]!;
  const over = top.rows > 1 ? ` (over the ${top.rows} rows both ran${top.figure.kind === 'percent' || top.figure.kind === 'ms' ? ', averaged' : ', summed'})` : '';
  if (top.significance === 0) return `A and B measured the same${over}: no figure changed.`;
  const arrow = (x: FigureChange) => `${figureWords(x.figure, x.a)} → ${figureWords(x.figure, x.b)} (${formatChange(x.figure, x.change)})`;
  const head = `What changed most${over}: the ${top.figure.words}, ${figureWords(top.figure, top.a)} in A and ` +
    `${figureWords(top.figure, top.b)} in B (${formatChange(top.figure, top.change)})`;
  const primary: FigureKey[] = c.metric === 'system' ? ['sys', 'real'] : ['real', 'sys'];
  const rest = primary.filter((k) => k !== top.figure.key).map((k) => changes.find((x) => x.figure.key === k))
    .filter((x): x is FigureChange => !!x).map((x) => `${x.figure.words} ${arrow(x)}`);
  return `${head}${rest.length ? `; ${rest.join(', ')}` : ''}.`;
}
