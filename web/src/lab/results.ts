// Pure functions over an ExperimentResult for the Results panel's exports and
// charts: CSV, the bar chart's data, a one-line summary, the counters of a
// row.  The table itself is experiments/runner/resultView.ts's, the same the
// command line prints.  No DOM.

import type { CounterSample } from '../../../experiments/runner/counters';
import { LOCKED_SPIN_WORDS, processorWords, type ExperimentResult, type RowResult } from '../../../experiments/runner/result';
import {
  compareRow, compareWithPaper, diskTransfers, FIGURES, formatSeconds, primaryMetric, signed, type Metric,
} from '../../../experiments/runner/resultView';
import type { BarData } from './charts/barChart';

// ------------------------------------------------------------ CSV

export const CSV_COLUMNS = [
  'test', 'step', 'status', 'iterations', 'ours_real_s', 'ours_user_s', 'ours_sys_s', 'paper_source', 'paper_column',
  'paper_elapsed_s', 'paper_user_s', 'paper_system_s', 'paper_scale', 'paper_scaled', 'paper_comparable', 'compared_metric',
  'difference_s', 'difference_percent', 'ours_page_faults', 'paper_page_faults', 'ours_pfst_ms', 'paper_pfst_ms',
  'nchsize', 'namei_hits', 'namei_misses', 'namei_hit_rate_percent', 'context_switches', 'all_page_faults', 'disk_transfers',
  'instructions', 'virtual_seconds', 'command', 'kernel_settings', 'failure',
] as const;

export type CsvValue = string | number | boolean | null | undefined;

/** One CSV cell, RFC 4180 quoted.  Text (it may come from someone else's
 *  permalink) that a spreadsheet would take for a formula — starting with
 *  =, +, -, @, a tab or a carriage return — gets a leading apostrophe and
 *  quotes, as OWASP advises for CSV injection; numbers stay numbers. */
export function csvCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
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
    r.paper?.elapsed, r.paper?.user, r.paper?.system, r.paper?.scale, r.paper?.scaled, r.paper ? c.comparable : null, metric,
    c.difference, c.percent,
    // PFST by the paper's rule: only over enough page-ins to mean something (FIGURES.pfst).
    r.derived?.pageFaults, r.paper?.pageFaults, FIGURES.pfst.value(r), r.derived?.paperPfstMs, r.readback?.nchsize,
    t['namei.hits'], t['namei.misses'], t['namei.hitRate'], t.cs, t.faults, diskTransfers(r),
    r.emulator?.instructions, r.emulator?.virtualSeconds,
    r.command, Object.entries(r.kernelSettings ?? {}).map(([k, v]) => `${k}=${v}`).join(' '),
    r.failure ? r.failure.message : null,
  ];
}

// ------------------------------------------------------------ counters

/** A row's counters, column-wise. */
export interface Series {
  t: number[];
  values: Record<string, number[]>;
}

/** Appends one sample to a series in place: a column for each counter, NaN where a sample lacks it (padCounters
 *  evens the columns up after the last). */
export function appendSample(out: Series, s: CounterSample): void {
  const i = out.t.length;
  out.t.push(s.t);
  for (const [k, v] of Object.entries(s.values)) {
    const col = (out.values[k] ??= []);
    while (col.length < i) col.push(Number.NaN);
    col.push(v);
  }
}

/** Every column as long as the times (NaN for samples that lacked its counter). */
export function padCounters(out: Series): void {
  for (const col of Object.values(out.values)) while (col.length < out.t.length) col.push(Number.NaN);
}

export function seriesFromSamples(samples: readonly CounterSample[], row: number): Series {
  const out: Series = { t: [], values: {} };
  for (const s of samples) if (s.row === row) appendSample(out, s);
  padCounters(out);
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
      if (s.row === row) appendSample(out, s);
    }
    this.seen = samples.length;
    padCounters(out);
    return out;
  }
}

/** The counters a finished result keeps for a row (the experiment's chart counters). */
export function seriesFromResult(result: ExperimentResult, row: number): Series | null {
  const r = result.rows[row];
  return r?.counters && Array.isArray(r.counters.t) ? r.counters : null;
}

/** A run of this page's row: the samples the worker sent as it ran, or, once it has ended without any for the row (a
 *  run spread over the pool's workers keeps none here: its workers' samples are drawn live apart, state/poolCounters.ts),
 *  the series its result holds. */
export function runRowSeries(live: Series, result: ExperimentResult | null | undefined, row: number): Series {
  if (live.t.length > 0 || !result) return live;
  return seriesFromResult(result, row) ?? live;
}

/** The machine a result ran on, in words, for the shared-run banner: every setting a run's result may carry, the drives
 *  (a second one holding /usr), their timing, their rotation and the seeds each step ran with, said when not the
 *  default. */
export function machineWords(machine: ExperimentResult['machine']): string {
  const seeds = machine.spinSeeds ?? 1;
  return [
    `${processorWords(machine)}, ${machine.memoryMB} MB, ${machine.boot}-user`,
    ...(machine.drives === 2 ? ['two drives, /usr on the second'] : []),
    ...(machine.disk ? [`${machine.disk} disk timing`] : []),
    ...(machine.spin === 'locked' ? [LOCKED_SPIN_WORDS] : []),
    ...(seeds > 1 ? [`each step run with seeds 1 to ${seeds}`] : []),
  ].join(', ');
}

/** A result in one line, for the history and the shared-run banner: "0.70 s (paper 0.46 s, +52%)", or the rows ok. */
export function resultSummary(result: ExperimentResult): string {
  const cmp = compareWithPaper(result);
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
  const rows = compareWithPaper(result).map((c) => ({
    test: c.test, values: [c.ours, c.comparable ? c.paper : null], percent: c.percent,
  }));
  return {
    series: [{ key: 'ours', label: 'ours (emulated)' }, { key: 'paper', label: paperLegend(result) }],
    rows,
    percentMeaning: 'ours against the paper, in % of the paper’s figure',
    markMissing: [0],
  };
}

/**
 * The exported charts' heading: "vaxlab: " and the experiment's title, then
 * what differs between two runs when compared (`compared`), else the
 * parameters that are not the paper's (`paperParameters`: a reduced count).
 */
export function exportTitle(result: ExperimentResult, paperParameters: Record<string, number> | undefined, compared: string | null): string {
  const changed = Object.entries(result.parameters).filter(([k, v]) => paperParameters?.[k] !== v).map(([k, v]) => `${k}=${v}`);
  const detail = compared ?? (changed.length ? changed.join(', ') : null);
  return `vaxlab: ${result.title}${detail ? ` (${detail})` : ''}`;
}

/** A file name stem for exports: vaxlab-EXPERIMENT-CPU-MEM. */
export function exportName(result: ExperimentResult): string {
  const safe = result.experiment.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return `vaxlab-${safe}-${result.machine.cpu}-${result.machine.memoryMB}MB`;
}
