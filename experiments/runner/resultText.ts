// A result as text for the command line: a few lines on what ran, then the
// table of resultView.ts, the same columns and figures the lab page shows,
// aligned in columns, with what its columns mean underneath.

import { processorWords, type ExperimentResult } from './result';
import { columnGroups, formatSeconds, resultTable, startsGroup, type ResultTable } from './resultView';
import type { SweepResult } from './sweep';
import { DISK_TIMING_NAMES } from './toggles';
import { defaultMeasure, sweepFixedSettings, sweepOutcome, sweepTable, type Measure } from './sweepView';

/** The longest a cell gets in text (a failure's message can be long; the CLI prints it whole below). */
const MAX_CELL = 60;

function machineLine(result: ExperimentResult): string {
  return `machine: ${processorWords(result.machine)}, ` +
    `${result.machine.memoryMB} MB (${result.machine.memoryNote}), single-user` +
    (result.machine.disk ? `; disk timing ${result.machine.disk} (${DISK_TIMING_NAMES[result.machine.disk].words}; the pack stays an RP06's)` : '') +
    (result.machine.spin === 'locked' ? '; the disks turn in step with virtual time (--spin locked: a loop that waits for one lasts whole turns)' : '');
}

/** A column the caller adds at the right (the CLI's host seconds), with a value per row. */
export interface ExtraColumn {
  label: string;
  values: (string | undefined)[];
}

/**
 * A table as aligned text: names left, figures right, ' | ' between
 * columns and ' || ' where a group of columns starts (the paper's, the
 * counters), the groups named on a line over the header, a rule under the
 * header; then the footnote, the notes, and a legend of the columns that
 * have a description.
 */
export function tableText(table: ResultTable, extra: ExtraColumn[] = []): string[] {
  const clip = (s: string) => (s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s);
  const head = [...table.columns.map((c) => c.label), ...extra.map((x) => x.label)];
  const numeric = [...table.columns.map((c) => c.numeric), ...extra.map(() => true)];
  const groupStart = [...table.columns.map((_c, j) => startsGroup(table.columns, j)), ...extra.map(() => false)];
  const body = table.rows.map((r, i) => [...r.cells.map((c) => clip(c.text)), ...extra.map((x) => x.values[i] ?? '')]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => (b[c] ?? '').length)));
  // A group's name over its columns: the columns widen when the name is longer than they are.
  const groups = columnGroups(table.columns);
  let first = 0;
  for (const g of groups) {
    const span = widths.slice(first, first + g.span).reduce((n, w) => n + w, 0) + 3 * (g.span - 1);
    if (g.label.trim().length > span) widths[first + g.span - 1]! += g.label.trim().length - span;
    first += g.span;
  }
  const sep = (c: number, bar: string) => (c === 0 ? '' : groupStart[c] ? ` ${bar}${bar} ` : ` ${bar} `);
  const line = (cells: string[]) =>
    cells.map((s, c) => sep(c, '|') + (numeric[c] ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join('').trimEnd();
  const rule = widths.map((w, c) => (c === 0 ? '' : groupStart[c] ? '-||-' : '-|-') + '-'.repeat(w)).join('');
  const out = [line(head), rule, ...body.map(line)];
  if (groups.some((g) => g.label.trim())) {
    let at = 0;
    const parts = groups.map((g) => {
      const w = widths.slice(at, at + g.span).reduce((n, x) => n + x, 0) + 3 * (g.span - 1);
      const text = (at === 0 ? '' : ' || ') + g.label.trim().padEnd(w);
      at += g.span;
      return text;
    });
    out.unshift(parts.join('').trimEnd());
  }
  const after = [
    ...(table.footnote ? [table.footnote] : []),
    ...table.notes,
    ...table.columns.filter((c) => c.title).map((c) => `${c.group.trim() ? `${c.group.trim()}: ` : ''}${c.label}: ${c.title}`),
  ];
  return after.length > 0 ? [...out, '', ...after] : out;
}

/** The result as text: the experiment, the machine, what ours is compared with, the settings, then its table;
 *  hostSeconds adds a column of host seconds per row. */
export function formatTable(result: ExperimentResult, hostSeconds?: number[]): string {
  const lines = [`${result.experiment}: ${result.title}`, machineLine(result), result.compare];
  if (result.kernel) lines.push(`kernel: ${result.kernel.name}`);
  if (Object.keys(result.parameters).length > 0) {
    lines.push(`parameters: ${Object.entries(result.parameters).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
  if (Object.keys(result.kernelSettings).length > 0) {
    lines.push(`kernel settings (every step): ${Object.entries(result.kernelSettings).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
  const extra = hostSeconds ? [{ label: 'Host (s)', values: hostSeconds.map((s) => formatSeconds(s)) }] : [];
  return [...lines, '', ...tableText(resultTable(result), extra)].join('\n');
}

/** A sweep as text: what was swept, the machine, its table for one measure, how it went. */
export function formatSweep(result: SweepResult, measure: Measure = defaultMeasure(result)): string {
  const lines = [`${result.experiment}: ${result.title}`];
  lines.push(`sweep: ${result.axes.map((a) => `${a.setting}=${a.labels.join(',')}`).join(' × ')} ` +
    `(${result.points.length} point${result.points.length === 1 ? '' : 's'})`);
  const first = result.points.find((p) => p.result)?.result;
  if (first) lines.push(machineLine(first));
  const fixed = sweepFixedSettings(result);
  if (fixed.length > 0) lines.push(`every point: ${fixed.join(' ')}`);
  return [...lines, '', ...tableText(sweepTable(result, measure)), '', `${result.experiment}: ${sweepOutcome(result)}`].join('\n');
}
