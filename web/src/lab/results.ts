// Pure functions over an ExperimentResult for the Results panel and its
// exports: the table laid out by the result's view (as the CLI's
// formatTable), ours against the paper on each row's main figure, CSV, the
// counters of a row.  No DOM.

import type { CounterSample } from '../../../experiments/runner/counters';
import type { ExperimentResult, RowResult } from '../../../experiments/runner/runner';
import type { BarData } from './charts/barChart';

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

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

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

export function compare(result: ExperimentResult): Comparison[] {
  const metric = primaryMetric(result);
  return result.rows.map((r) => compareRow(r, metric));
}

/**
 * Seconds as the page writes them everywhere (the table, the history, the
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

// ------------------------------------------------------------ the table

export interface Column {
  label: string;
  numeric: boolean;
  title?: string;
  /** Starts the paper's group of columns (drawn with a rule). */
  paper?: boolean;
}

export interface Cell {
  text: string;
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

const fx = (x: number | null | undefined, d = 1): Cell => ({ text: x === null || x === undefined ? '—' : x.toFixed(d) });
/** Seconds, by formatSeconds. */
const secs = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? '—' : formatSeconds(x) });
const int = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? '—' : Math.round(x).toLocaleString('en-US') });

function diffCells(c: Comparison): Cell[] {
  return [
    { text: c.difference === null ? '—' : formatSecondsDiff(c.difference, Math.max(c.ours ?? 0, c.paper ?? 0)) },
    {
      text: c.percent === null ? '—' : `${signed(c.percent, 0)}%`,
      className: c.percent === null ? undefined : Math.abs(c.percent) <= 10 ? 'close' : 'far',
    },
  ];
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
 *  1 of 29 rows done" (`steps`: how many rows the experiment has, when known), or "2 of 5 rows failed". */
export function runOutcome(result: ExperimentResult, steps?: number): string | null {
  const rows = result.rows;
  const failed = rows.filter((r) => r.status !== 'ok');
  if (failed.length === 0 && (steps === undefined || rows.length >= steps)) return null;
  const stopped = failed.find((r) => r.failure?.kind === 'stopped' && /by the user/.test(r.failure.message));
  const total = Math.max(steps ?? rows.length, rows.length);
  if (stopped) return `Stopped by the user during ${stopped.test}: ${rows.length - failed.length} of ${total} rows done`;
  return `${failed.length} of ${total} row${total === 1 ? '' : 's'} failed${rows.length < total ? `, ${total - rows.length} not run` : ''}`;
}

function statusCell(r: RowResult): Cell {
  if (r.status === 'ok') return { text: 'ok' };
  const text = failureText(r.failure);
  return { text, className: 'failure', title: r.failure && r.failure.message !== text ? r.failure.message : undefined };
}

/** The paper's figure for a row (scaled ones starred, with the paper's own figure in the tooltip). */
export function paperCell(c: Comparison, r: RowResult): Cell {
  if (c.paper === null) return { text: '—', title: 'the paper has no figure for this row' };
  const p = r.paper;
  const title = c.scaled && p
    ? `the paper’s ${formatSeconds(c.paper / p.scale)} s for ${p.iterations.toLocaleString('en-US')} iterations, scaled to our ${r.iterations.toLocaleString('en-US')}`
    : undefined;
  return { text: `${formatSeconds(c.paper)}${c.scaled ? '*' : ''}`, title };
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

/** The Results table, laid out as the CLI lays out the result's view. */
export function resultTable(result: ExperimentResult): ResultTable {
  const metric = primaryMetric(result);
  const notes: string[] = [];
  if (result.view === 'paging') {
    const columns: Column[] = [
      { label: 'Test', numeric: false },
      { label: 'Real (s)', numeric: true }, { label: 'User (s)', numeric: true }, { label: 'Sys (s)', numeric: true },
      { label: 'Faults', numeric: true, title: 'page-ins over the command (cnt.v_pgin)' },
      { label: 'PFST (ms)', numeric: true, title: 'page fault service time: sys / faults' },
      { label: 'Paper real (s)', numeric: true, paper: true }, { label: 'User (s)', numeric: true }, { label: 'Sys (s)', numeric: true },
      { label: 'Faults', numeric: true }, { label: 'PFST (ms)', numeric: true },
      { label: 'Real diff (s)', numeric: true }, { label: 'Real diff (%)', numeric: true },
      { label: 'Status', numeric: false },
    ];
    const rows = result.rows.map((r): TableRow => {
      const c = compareRow(r, metric);
      const ok = r.status === 'ok' && r.guest;
      return {
        test: r.test, status: r.status, failure: c.failure,
        cells: [
          { text: r.test },
          secs(ok ? r.guest!.real : null), secs(ok ? r.guest!.user : null), secs(ok ? r.guest!.sys : null),
          int(ok ? r.derived?.pageFaults : null), fx(ok ? r.derived?.pfstMs : null, 2),
          secs(r.paper?.elapsed), secs(r.paper?.user), secs(r.paper?.system), int(r.paper?.pageFaults), fx(r.derived?.paperPfstMs, 2),
          ...diffCells(c), statusCell(r),
        ],
      };
    });
    notes.push(`The paper's columns: ${result.rows.find((r) => r.paper)?.paper?.source ?? 'Table 7'}, ${result.rows.find((r) => r.paper)?.paper?.column ?? '4.2BSD'}.`);
    if (result.rows.some((r) => r.paper && r.paper.scale !== 1)) {
      notes.push('Our counts are reduced: the paper’s figures are for its own counts and are not comparable.');
    }
    return { columns, rows, footnote: null, notes };
  }
  if (result.view === 'namecache') {
    const columns: Column[] = [
      { label: 'Step', numeric: false },
      { label: 'nchsize', numeric: true, title: 'read back from the running kernel' },
      { label: 'Sys (s)', numeric: true }, { label: 'User (s)', numeric: true }, { label: 'Real (s)', numeric: true },
      { label: 'Hits', numeric: true }, { label: 'Misses', numeric: true }, { label: 'Hit rate', numeric: true },
      { label: 'Offset hits', numeric: true, title: 'found by the per-process directory offset cache (ncs_pass2)' },
      { label: 'Paper sys (s)', numeric: true, paper: true },
      { label: 'Sys diff (s)', numeric: true }, { label: 'Sys diff (%)', numeric: true },
      { label: 'Status', numeric: false },
    ];
    const rows = result.rows.map((r): TableRow => {
      const c = compareRow(r, metric);
      const ok = r.status === 'ok' && r.guest;
      const t = r.totals ?? {};
      const nch = r.readback?.nchsize;
      const rate = t['namei.hitRate'];
      return {
        test: r.test, status: r.status, failure: c.failure,
        cells: [
          { text: r.test },
          { text: nch === undefined || nch === null ? '—' : String(nch) },
          secs(ok ? r.guest!.sys : null), secs(ok ? r.guest!.user : null), secs(ok ? r.guest!.real : null),
          int(ok ? t['namei.hits'] : null), int(ok ? t['namei.misses'] : null),
          { text: ok && rate !== undefined ? `${rate.toFixed(1)}%` : '—' },
          int(ok ? t['namei.pass2'] : null),
          { ...paperCell(c, r), title: r.paper ? `${r.paper.source}: ${r.paper.column}` : 'the paper has no figure for this step' },
          ...diffCells(c), statusCell(r),
        ],
      };
    });
    notes.push('Hits and misses: the kernel’s nchstats over the command. The paper gives only ls -l’s system time.');
    return { columns, rows, footnote: scaledFootnote(result), notes };
  }
  const column = result.rows.find((r) => r.paper)?.paper?.column ?? '4.3BSD';
  const columns: Column[] = [
    { label: 'Test', numeric: false },
    { label: 'Iterations', numeric: true },
    { label: 'Ours (s)', numeric: true, title: 'elapsed (real) seconds by the guest’s /bin/time' },
    { label: `Paper ${column} (s)`, numeric: true, paper: true },
    { label: 'Difference (s)', numeric: true },
    { label: 'Difference (%)', numeric: true },
    { label: 'Status', numeric: false },
  ];
  const rows = result.rows.map((r): TableRow => {
    const c = compareRow(r, metric);
    return {
      test: r.test, status: r.status, failure: c.failure,
      cells: [{ text: r.test }, int(r.iterations), secs(c.ours), paperCell(c, r), ...diffCells(c), statusCell(r)],
    };
  });
  return { columns, rows, footnote: scaledFootnote(result), notes };
}

// ------------------------------------------------------------ CSV and JSON

export const CSV_COLUMNS = [
  'test', 'step', 'status', 'iterations', 'ours_real_s', 'ours_user_s', 'ours_sys_s', 'paper_source', 'paper_column',
  'paper_elapsed_s', 'paper_user_s', 'paper_system_s', 'paper_scale', 'paper_scaled', 'compared_metric',
  'difference_s', 'difference_percent', 'ours_page_faults', 'paper_page_faults', 'ours_pfst_ms', 'paper_pfst_ms',
  'nchsize', 'namei_hits', 'namei_misses', 'namei_hit_rate_percent', 'instructions', 'virtual_seconds', 'command',
  'kernel_settings', 'failure',
] as const;

export type CsvValue = string | number | boolean | null | undefined;

export function csvCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One line per row, RFC 4180 quoting, CRLF line ends. */
export function resultCsv(result: ExperimentResult): string {
  const metric = primaryMetric(result);
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of result.rows) lines.push(csvRowValues(r, metric).map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A row's values in the order of CSV_COLUMNS, compared with the paper on `metric`. */
export function csvRowValues(r: RowResult, metric: Metric): CsvValue[] {
  const c = compareRow(r, metric);
  const t = r.totals ?? {};
  return [
    r.test, r.step, r.status, r.iterations, r.guest?.real, r.guest?.user, r.guest?.sys, r.paper?.source, r.paper?.column,
    r.paper?.elapsed, r.paper?.user, r.paper?.system, r.paper?.scale, r.paper?.scaled, metric, c.difference, c.percent,
    r.derived?.pageFaults, r.paper?.pageFaults, r.derived?.pfstMs, r.derived?.paperPfstMs, r.readback?.nchsize,
    t['namei.hits'], t['namei.misses'], t['namei.hitRate'], r.emulator?.instructions, r.emulator?.virtualSeconds,
    r.command, Object.entries(r.kernelSettings ?? {}).map(([k, v]) => `${k}=${v}`).join(' '),
    r.failure ? r.failure.message : null,
  ];
}

/** The result JSON, as the CLI writes it (2-space indent, final newline). */
export function resultJsonText(result: ExperimentResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

// ------------------------------------------------------------ counters

/** A row's counters, column-wise. */
export interface Series {
  t: number[];
  values: Record<string, number[]>;
}

export function seriesFromSamples(samples: readonly CounterSample[], row: number): Series {
  const out: Series = { t: [], values: {} };
  for (const s of samples) {
    if (s.row !== row) continue;
    const i = out.t.length;
    out.t.push(s.t);
    for (const [k, v] of Object.entries(s.values)) {
      const col = (out.values[k] ??= []);
      while (col.length < i) col.push(Number.NaN);
      col.push(v);
    }
  }
  for (const col of Object.values(out.values)) while (col.length < out.t.length) col.push(Number.NaN);
  return out;
}

/**
 * seriesFromSamples, incrementally, for a live run: each call appends only
 * the samples added since the last one (a run's sample array only grows).
 * Another array or row starts over.  The series is updated in place.
 */
export class SeriesBuilder {
  private samples: readonly CounterSample[] | null = null;
  private row = -1;
  private seen = 0;
  private series: Series = { t: [], values: {} };

  get(samples: readonly CounterSample[], row: number): Series {
    if (samples !== this.samples || row !== this.row || samples.length < this.seen) {
      this.samples = samples;
      this.row = row;
      this.seen = 0;
      this.series = { t: [], values: {} };
    }
    const out = this.series;
    for (let k = this.seen; k < samples.length; k++) {
      const s = samples[k]!;
      if (s.row !== row) continue;
      const i = out.t.length;
      out.t.push(s.t);
      for (const [name, v] of Object.entries(s.values)) {
        const col = (out.values[name] ??= []);
        while (col.length < i) col.push(Number.NaN);
        col.push(v);
      }
    }
    this.seen = samples.length;
    for (const col of Object.values(out.values)) while (col.length < out.t.length) col.push(Number.NaN);
    return out;
  }
}

/** The counters a finished result keeps for a row (the experiment's chart counters). */
export function seriesFromResult(result: ExperimentResult, row: number): Series | null {
  const r = result.rows[row];
  return r?.counters && Array.isArray(r.counters.t) ? r.counters : null;
}

/** A result in one line, for the history and the shared-run banner: "0.70 s (paper 0.46 s, +52%)", or the rows ok. */
export function resultSummary(result: ExperimentResult): string {
  const cmp = compare(result);
  const ok = cmp.filter((c) => c.ours !== null);
  const one = cmp.length === 1 ? ok[0] : undefined;
  if (!one) return `${ok.length} of ${cmp.length} rows ok`;
  const paper = one.paper !== null && one.comparable
    ? ` (paper ${formatSeconds(one.paper)} s${one.percent !== null ? `, ${signed(one.percent, 0)}%` : ''})`
    : '';
  return `${formatSeconds(one.ours!)} s${paper}`;
}

/** The bar chart's legend for the paper's bars: its column when all rows share one. */
export function paperLegend(result: ExperimentResult): string {
  const columns = [...new Set(result.rows.map((r) => r.paper?.column).filter((c): c is string => !!c))];
  return columns.length === 1 ? `the paper (${columns[0]})` : 'the paper';
}

/** The bar chart of one result: ours and the paper's per row, ours against the paper in % above each pair. */
export function resultBars(result: ExperimentResult): BarData {
  const rows = compare(result).map((c) => ({
    test: c.test, values: [c.ours, c.comparable ? c.paper : null], percent: c.percent,
  }));
  return {
    series: [{ key: 'ours', label: 'ours (emulated)' }, { key: 'paper', label: paperLegend(result) }],
    rows,
    percentMeaning: 'ours against the paper, in % of the paper’s figure',
    markMissing: [0],
  };
}

/** A file name stem for exports: vaxlab-EXPERIMENT-CPU-MEM. */
export function exportName(result: ExperimentResult): string {
  const safe = result.experiment.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return `vaxlab-${safe}-${result.machine.cpu}-${result.machine.memoryMB}MB`;
}
