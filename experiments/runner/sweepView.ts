// A sweep's result as a table and as the lines of a chart, defined once: the
// command line prints the table as text (resultText.ts tableText), the page
// renders it as HTML and draws the lines (web/src/lab/charts/sweepChart.ts).
// A measure is one figure of a row (elapsed, user or system time, the name
// cache's hit rate, page faults, disk transfers...); a line is one row of the
// experiment (and one value of the second setting) across the first
// setting's values, with the paper's figure where the paper's machine and
// kernel are among the points.  No DOM, no Node APIs.

import type { RowResult } from './result';
import { formatSeconds, failureText, type Cell, type Column, type ResultTable, type TableRow } from './resultView';
import type { SweepAxisResult, SweepPointResult, SweepResult } from './sweep';
import { findToggle } from './toggles';

export interface Measure {
  id: string;
  /** As an axis says it, with its unit: "elapsed time (s)". */
  label: string;
  unit: 's' | 'ms' | '%' | null;
  /** The row's figure (ok rows only), or null. */
  of(row: RowResult): number | null;
  /** The paper's figure for the row, when the paper has this one. */
  paper?(row: RowResult): number | undefined;
}

const ok = (r: RowResult) => r.status === 'ok';
const total = (r: RowResult, key: string): number | null => (ok(r) ? (r.totals?.[key] ?? null) : null);

export const MEASURES: Measure[] = [
  { id: 'elapsed', label: 'elapsed time (s)', unit: 's', of: (r) => (ok(r) ? (r.guest?.real ?? null) : null), paper: (r) => r.paper?.elapsed },
  { id: 'user', label: 'user time (s)', unit: 's', of: (r) => (ok(r) ? (r.guest?.user ?? null) : null), paper: (r) => r.paper?.user },
  { id: 'system', label: 'system time (s)', unit: 's', of: (r) => (ok(r) ? (r.guest?.sys ?? null) : null), paper: (r) => r.paper?.system },
  { id: 'hitRate', label: 'name cache hit rate (%)', unit: '%', of: (r) => total(r, 'namei.hitRate') },
  { id: 'faults', label: 'page faults (page-ins)', unit: null, of: (r) => total(r, 'pgin'), paper: (r) => r.paper?.pageFaults },
  {
    id: 'pfst', label: 'page fault service time (ms)', unit: 'ms', of: (r) => (ok(r) ? (r.derived?.pfstMs ?? null) : null),
    paper: (r) => r.derived?.paperPfstMs,
  },
  {
    id: 'diskTransfers', label: 'disk transfers', unit: null,
    of: (r) => {
      if (!ok(r) || !r.totals) return null;
      const xfers = Object.entries(r.totals).filter(([k]) => /^disk\.[^.]+\.xfers$/.test(k));
      return xfers.length ? xfers.reduce((a, [, v]) => a + v, 0) : null;
    },
  },
  { id: 'syscalls', label: 'system calls', unit: null, of: (r) => total(r, 'syscalls') },
  { id: 'contextSwitches', label: 'context switches', unit: null, of: (r) => total(r, 'cs') },
  { id: 'instructions', label: 'VAX instructions', unit: null, of: (r) => total(r, 'instructions') },
];

export function findMeasure(id: string): Measure | undefined {
  return MEASURES.find((m) => m.id === id);
}

/** The measure a sweep shows first: what its experiment compares (system time for name translation). */
export function defaultMeasure(result: Pick<SweepResult, 'view'>): Measure {
  return findMeasure(result.view === 'namecache' ? 'system' : 'elapsed')!;
}

/** The measures some row of the sweep has. */
export function availableMeasures(result: SweepResult): Measure[] {
  const rows = result.points.flatMap((p) => p.result?.rows ?? []);
  return MEASURES.filter((m) => rows.some((r) => m.of(r) !== null));
}

/** A figure of a measure as the tables write it. */
export function formatMeasure(m: Measure, v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (m.unit === 's') return formatSeconds(v);
  if (m.unit === '%') return `${v.toFixed(1)}%`;
  if (m.unit === 'ms') return v.toFixed(2);
  return Math.round(v).toLocaleString('en-US');
}

/** Whether the paper's figures belong at this point: every axis at the paper's value (or leaving it to the rows). */
export function paperApplies(axes: SweepAxisResult[], point: SweepPointResult): boolean {
  return axes.every((a) => a.paperFromRows || (a.paperAt !== undefined && point.values[a.setting] === a.paperAt));
}

/** The rows of the sweep's experiment, by step id, in order (as the points that ran have them). */
export function sweepRows(result: SweepResult): { step: string; label: string }[] {
  const out = new Map<string, string>();
  for (const p of result.points) for (const r of p.result?.rows ?? []) if (!out.has(r.step)) out.set(r.step, r.test);
  return [...out].map(([step, label]) => ({ step, label }));
}

export interface SweepLinePoint {
  x: number;
  /** The measure there, null when the step failed or did not run. */
  y: number | null;
  /** The point's failure in words, when it failed. */
  failure: string | null;
}

export interface SweepLine {
  /** Unique: the step and the second setting's value. */
  key: string;
  label: string;
  points: SweepLinePoint[];
  /** The paper's figures on this line (at the paper's machine and kernel, or at the steps' own values). */
  paper: { x: number; y: number }[];
}

export interface SweepChart {
  /** The first setting: the x axis. */
  x: SweepAxisResult;
  /** Named values (disk) or a few values: drawn evenly spaced, not on a numeric scale. */
  categorical: boolean;
  measure: Measure;
  lines: SweepLine[];
}

/** The chart of a measure: one line per row (and per value of the second setting), steps chosen by id (all by default). */
export function sweepChart(result: SweepResult, measure: Measure, steps?: string[]): SweepChart {
  const x = result.axes[0];
  if (!x) throw new RangeError('a sweep without a setting has no chart');
  const second = result.axes[1];
  const rows = sweepRows(result).filter((r) => !steps || steps.includes(r.step));
  const lines: SweepLine[] = [];
  for (const row of rows) {
    for (const [i2, v2] of (second ? second.values : [null]).entries()) {
      const label = [rows.length > 1 || !second ? row.label : null, second ? `${second.setting}=${second.labels[i2]}` : null]
        .filter(Boolean).join(', ');
      const line: SweepLine = { key: `${row.step}${second ? `@${v2}` : ''}`, label, points: [], paper: [] };
      for (const p of result.points) {
        if (second && p.values[second.setting] !== v2) continue;
        const xv = p.values[x.setting]!;
        const r = p.result?.rows.find((rr) => rr.step === row.step);
        const err = p.errors?.find((e) => e.step === row.step);
        line.points.push({
          x: xv,
          y: r ? measure.of(r) : null,
          failure: r && r.status !== 'ok' ? failureText(r.failure) : err ? err.message : r ? null : 'not run',
        });
        const py = r && measure.paper && paperApplies(result.axes, p) ? measure.paper(r) : undefined;
        if (py !== undefined) line.paper.push({ x: xv, y: py });
      }
      lines.push(line);
    }
  }
  const categorical = x.labels.some((l, i) => l !== String(x.values[i]));
  return { x, categorical, measure, lines };
}

/**
 * The sweep as a table: a line per point and row — the settings, the row,
 * its times, the chosen measure (when it is not a time), the paper's figure
 * for the measure where it applies, the status.
 */
export function sweepTable(result: SweepResult, measure: Measure): ResultTable {
  const rows = sweepRows(result);
  const many = rows.length > 1;
  const times = ['elapsed', 'user', 'system'];
  const columns: Column[] = [
    ...result.axes.map((a): Column => ({
      key: `setting.${a.setting}`, label: a.setting, unit: null, group: 'Setting',
      numeric: !a.labels.some((l, i) => l !== String(a.values[i])),
    })),
    ...(many ? [{ key: 'test', label: 'Test', unit: null, numeric: false, group: '' } satisfies Column] : []),
    { key: 'ours.real', label: 'Real (s)', unit: 's', numeric: true, group: 'Ours' },
    { key: 'ours.user', label: 'User (s)', unit: 's', numeric: true, group: 'Ours' },
    { key: 'ours.sys', label: 'Sys (s)', unit: 's', numeric: true, group: 'Ours' },
    ...(times.includes(measure.id) ? [] : [{
      key: `ours.${measure.id}`, label: capital(measure.label), unit: measure.unit, numeric: true, group: 'Ours',
    } satisfies Column]),
    {
      key: `paper.${measure.id}`,
      label: `Paper ${measure.label.replace(/ \(.*\)$/, '')}${measure.unit ? ` (${measure.unit})` : ''}`, unit: measure.unit, numeric: true,
      group: 'Paper',
      title: 'the paper’s figure, where the point is the paper’s machine and kernel (or the experiment’s own setting)',
    },
    { key: 'status', label: 'Status', unit: null, numeric: false, group: '' },
  ];
  const dash: Cell = { text: '—' };
  const body: TableRow[] = [];
  let scaled = false;
  for (const p of result.points) {
    const settings = result.axes.map((a): Cell => ({ text: a.labels[a.values.indexOf(p.values[a.setting]!)] ?? String(p.values[a.setting]) }));
    for (const row of rows) {
      const r = p.result?.rows.find((rr) => rr.step === row.step);
      const err = p.errors?.find((e) => e.step === row.step);
      const g = r && r.status === 'ok' ? r.guest : undefined;
      const paper = r && measure.paper && paperApplies(result.axes, p) ? measure.paper(r) : undefined;
      // Table 2's figures are scaled to our count (starred, as the run's table does).
      const star = paper !== undefined && measure.unit === 's' && !!r?.paper?.scaled && r.paper.scale !== 1;
      scaled ||= star;
      const status: Cell = r
        ? r.status === 'ok' ? { text: 'ok' } : { text: failureText(r.failure), className: 'failure', title: r.failure?.message }
        : { text: err ? `could not run: ${err.message}` : 'not run', className: 'failure' };
      body.push({
        test: many ? `${row.label} at ${settings.map((c) => c.text).join(', ')}` : settings.map((c) => c.text).join(', '),
        status: r?.status ?? 'failed',
        failure: r?.failure?.message ?? err?.message ?? (r ? null : 'not run'),
        cells: [
          ...settings,
          ...(many ? [{ text: row.label }] : []),
          g ? { text: formatSeconds(g.real) } : dash, g ? { text: formatSeconds(g.user) } : dash, g ? { text: formatSeconds(g.sys) } : dash,
          ...(times.includes(measure.id) ? [] : [{ text: formatMeasure(measure, r ? measure.of(r) : null) }]),
          { text: `${formatMeasure(measure, paper)}${star ? '*' : ''}` },
          status,
        ],
      });
    }
  }
  const notes: string[] = [];
  const valueAt = (a: SweepAxisResult): string => `${a.setting}=${a.labels[a.values.indexOf(a.paperAt!)] ?? a.paperAt}`;
  // A machine setting whose value the paper does not give (disk, spin): its figures stand at the lab's default.
  const unknown = (a: SweepAxisResult): string | undefined => findToggle(a.setting)?.paperUnknown;
  const at = result.axes.filter((a) => a.paperAt !== undefined && !unknown(a)).map(valueAt);
  const beside = result.axes.filter((a) => a.paperAt !== undefined && unknown(a));
  if (result.axes.some((a) => a.paperAt === undefined && !a.paperFromRows)) {
    notes.push(`The paper’s figures: none — its value of ${result.axes.filter((a) => a.paperAt === undefined && !a.paperFromRows).map((a) => a.setting).join(', ')} is not known.`);
  } else if (at.length > 0 || beside.length > 0) {
    if (at.length > 0) {
      notes.push(`The paper’s figures are for its machine and kernel: ${at.join(', ')}${result.axes.some((a) => a.paperFromRows) ? ' (and the experiment’s own steps)' : ''}.`);
    }
    for (const a of beside) notes.push(`The paper’s figures are set beside ${valueAt(a)}, the lab’s default: ${unknown(a)}.`);
  } else if (result.axes.length > 0) {
    notes.push(`The paper’s figures are where the experiment’s own steps ran (${result.experiment} without a sweep).`);
  }
  if (result.status === 'stopped') notes.push('Stopped: the points not run are marked.');
  return { columns, rows: body, footnote: scaled ? '* The paper’s figure for its own iteration count, scaled to ours.' : null, notes };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * What every point of a sweep shares beyond the experiment's own settings, as "name=value"s (the sweep's base: the
 * page's sweeps keep only what differs from the experiment's, the command line's the --param and --set it was
 * given).  Shown with the sweep, since its heading is the experiment's title ("perform 100,000 getpid system
 * calls") and nothing else says that every point ran 20,000, or on another kernel; the command line's "every
 * point:" line is the same list.
 */
export function sweepFixedSettings(result: Pick<SweepResult, 'base'>): string[] {
  const b = result.base;
  return [
    ...Object.entries(b.parameters).map(([k, v]) => `${k}=${v}`),
    ...Object.entries(b.set).map(([k, v]) => `${k}=${v}`),
    ...(b.cpu !== undefined ? [`cpu=${b.cpu}`] : []),
    ...(b.memoryMB !== undefined ? [`memoryMB=${b.memoryMB}`] : []),
    ...(b.disk !== undefined ? [`disk=${b.disk}`] : []),
    ...(b.spin !== undefined && b.spin !== 'drifting' ? [`spin=${b.spin}`] : []),
    ...(b.kernel !== undefined ? [`kernel=${b.kernel}`] : []),
    ...((b.spinSeeds ?? 1) > 1 ? [`seeds=${b.spinSeeds}`] : []),
    ...(b.limitSeconds !== undefined ? [`limit=${b.limitSeconds} s`] : []),
    ...(b.profile ? ['profiled'] : []),
  ];
}

/** How the sweep went, in words: "12 of 12 points ok", "stopped: 5 of 12 points ran", "2 of 12 points failed". */
export function sweepOutcome(result: SweepResult): string {
  const n = result.points.length;
  const ran = result.points.filter((p) => p.result).length;
  const good = result.points.filter((p) => p.result?.status === 'ok' && !p.errors).length;
  if (result.status === 'ok') return `${n} of ${n} point${n === 1 ? '' : 's'} ok`;
  if (result.status === 'stopped') return `stopped: ${ran} of ${n} points ran${good < ran ? `, ${ran - good} with a failure` : ''}`;
  return `${n - good} of ${n} point${n === 1 ? '' : 's'} failed`;
}

/** CSV of a sweep: one line per point and row, the settings first, then the times, the chosen measure and the paper's, RFC 4180 quoting, CRLF. */
export function sweepCsv(result: SweepResult, measure: Measure): string {
  const cell = (v: string | number | null | undefined) => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const head = [...result.axes.map((a) => a.setting), 'step', 'test', 'status', 'real_s', 'user_s', 'sys_s',
    measure.id, `paper_${measure.id}`, 'failure'];
  const lines = [head.join(',')];
  for (const p of result.points) {
    const settings = result.axes.map((a) => a.labels[a.values.indexOf(p.values[a.setting]!)] ?? p.values[a.setting]);
    for (const row of sweepRows(result)) {
      const r = p.result?.rows.find((x) => x.step === row.step);
      const err = p.errors?.find((e) => e.step === row.step);
      const paper = r && measure.paper && paperApplies(result.axes, p) ? measure.paper(r) : undefined;
      lines.push([
        ...settings, row.step, row.label, r ? r.status : 'not run', r?.guest?.real, r?.guest?.user, r?.guest?.sys,
        r ? measure.of(r) : null, paper, r?.failure?.message ?? err?.message ?? null,
      ].map(cell).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
