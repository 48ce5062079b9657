// "How close are we?": the paper's figures against ours, table by table,
// with the rows the timing model was fitted on (calibration) kept apart
// from the rows it was not (held out), which alone are summed up.  Pure
// functions of experiment results (runner.ts), so the CLI (`npx vaxlab
// fidelity`) and the page can share them.

import { GENERIC_NCHSIZE } from './experiments';
import { LOCKED_SPIN_WORDS, type ExperimentResult, type RowResult, type SpreadRange } from './result';
import { bootBufpages } from './toggles';

/** One figure of one row: ours against the paper's. */
export interface FidelityCell {
  ours: number;
  paper: number;
  /** (ours - paper) / paper, in per cent. */
  errorPercent: number;
  /** Over the seeds (disk phase, clock phase and page placement), when the step ran with several (RowResult.spread). */
  range?: SpreadRange;
  /** The same figure with less and with more free memory (Table 7's page faults: the free-memory probes). */
  freeMemory?: FreeMemoryProbe;
}

/** A row's figure with `kb` KB less free memory and with `kb` KB more: the kernel's buffer cache made that much
 *  larger and smaller than startup()'s own (bootBufpages), nothing else changed.  A paging row near the point
 *  where the walk stops fitting in memory moves by more with this than with its seeds: the probe tells such a
 *  knife edge from a model error, as the seeds do for the disks' phase. */
export interface FreeMemoryProbe {
  kb: number;
  lessFree: number;
  moreFree: number;
}

/** How far the free-memory probes move the buffer cache, in KB (1 KB clusters): 1.4% of the paper's 4.5 MB.
 *  The paper gives its 4.2BSD system's memory only as "nearly 1 megabyte" (section 3.2.8), which our like-4.2
 *  kernel matches within about this much (953,344 bytes with its 332 KB of buffers). */
export const FREE_MEMORY_PROBE_KB = 64;

/** The buffer cache of each free-memory probe, in KB, on a machine of memoryMB: the kernel's own (bootBufpages),
 *  FREE_MEMORY_PROBE_KB more (less free memory) and FREE_MEMORY_PROBE_KB less.  The CLI's probes and the page's
 *  sweep both take them from here. */
export function freeMemoryProbeBufpages(memoryMB: number): { lessFree: number; own: number; moreFree: number } {
  const own = bootBufpages(memoryMB);
  return { lessFree: own + FREE_MEMORY_PROBE_KB, own, moreFree: own - FREE_MEMORY_PROBE_KB };
}

/** The runs of Table 7 with the buffer cache FREE_MEMORY_PROBE_KB larger (less free memory) and smaller. */
export interface Table7Probes {
  lessFree: ExperimentResult;
  moreFree: ExperimentResult;
}

export interface FidelityRow {
  label: string;
  /** A row the model was fitted on: shown, not counted. */
  calibration: boolean;
  /** Figures shown but not counted in the summary, and why (e.g. a count too small for a per-cent error). */
  uncounted?: Record<string, string>;
  cells: Record<string, FidelityCell | undefined>;
}

/** A table's comparison: its rows, and per figure the median and largest
 *  |error| over the held-out rows. */
export interface FidelityTable {
  /** What the table compares and on what machine, with the kernel it ran on (the CLI prints it). */
  title: string;
  /** The title without the kernel, for a view that names the kernel apart (the page's). */
  heading: string;
  /** The figures compared, in order (e.g. elapsed, system). */
  figures: string[];
  rows: FidelityRow[];
  summary: Record<string, { heldOut: number; medianAbsPercent: number; maxAbsPercent: number; worst: string } | undefined>;
  note: string;
}

function cell(ours: number | undefined, paper: number | undefined, range?: SpreadRange): FidelityCell | undefined {
  if (ours === undefined || paper === undefined || paper === 0) return undefined;
  return { ours, paper, errorPercent: ((ours - paper) / paper) * 100, ...(range ? { range } : {}) };
}

/** A table's title and heading: what it compares, then what it ran on — the disks when locked, and (in the title
 *  only) the kernel, since the tables of one comparison boot different kernels (Table 2 the paper's, Tables 7 and 8
 *  like-4.2, the name cache the image's /vmunix); nothing for a result that names no kernel (/vmunix). */
function titled(heading: string, result: Pick<ExperimentResult, 'kernel' | 'machine'>): { title: string; heading: string } {
  const on = heading + (result.machine.spin === 'locked' ? `, ${LOCKED_SPIN_WORDS}` : '');
  return { heading: on, title: on + (result.kernel ? `, kernel ${result.kernel.name}` : '') };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

function summarise(rows: FidelityRow[], figures: string[]): FidelityTable['summary'] {
  const out: FidelityTable['summary'] = {};
  for (const f of figures) {
    const held = rows.filter((r) => !r.calibration && r.cells[f] !== undefined && r.uncounted?.[f] === undefined);
    if (held.length === 0) continue;
    const abs = held.map((r) => Math.abs(r.cells[f]!.errorPercent));
    const worstRow = held[abs.indexOf(Math.max(...abs))]!;
    out[f] = { heldOut: held.length, medianAbsPercent: median(abs), maxAbsPercent: Math.max(...abs), worst: worstRow.label };
  }
  return out;
}

/** Table 2: elapsed and system time, each row scaled to the paper's count as the runner does. */
export function table2Fidelity(result: ExperimentResult): FidelityTable {
  const figures = ['elapsed', 'system'];
  const rows: FidelityRow[] = result.rows.filter((r) => r.status === 'ok' && r.guest && r.paper).map((r: RowResult) => ({
    label: r.test,
    calibration: r.calibration === true,
    cells: {
      elapsed: cell(r.guest!.real, r.paper!.elapsed, r.spread?.real),
      system: cell(r.guest!.sys, r.paper!.system, r.spread?.sys),
    },
  }));
  return {
    ...titled(`Table 2 (4.3BSD column), VAX-11/${result.machine.cpu}${result.machine.drives === 2 ? ', two drives' : ''}`, result),
    figures, rows, summary: summarise(rows, figures),
    note: 'elapsed and system seconds of the guest\'s /bin/time; calibration rows (fitted on) are marked and not counted; ' +
      (result.machine.spin === 'locked'
        ? `${LOCKED_SPIN_WORDS}, so each exec row lasts whole turns of the disk (16.7 ms), as the paper's did`
        : 'the paper\'s exec rows are whole turns of its disks (66.0 s: 3.96 turns an exec), where ours wait half a turn ' +
          'on average (locked, with --spin locked or the lab\'s Disk rotation, they last whole turns too; emu/docs/timing.md, ' +
          '"Whole turns")'),
  };
}

/** Table 7 rows whose paper fault count is below this are shown, not counted:
 *  a per-cent error of a handful of faults says nothing about the walk. */
export const TABLE7_MIN_FAULTS = 100;

/** The steps of Table 7 whose fault counts are compared (the paper's count at least TABLE7_MIN_FAULTS): the ones
 *  the free-memory probes run. */
export function table7CountedSteps(result: ExperimentResult): string[] {
  return result.rows.filter((r) => r.status === 'ok' && (r.paper?.pageFaults ?? 0) >= TABLE7_MIN_FAULTS).map((r) => r.step);
}

/** A step's page faults in a probe run, if it ran and finished. */
function probeFaults(probe: ExperimentResult, step: string): number | undefined {
  const row = probe.rows.find((r) => r.step === step && r.status === 'ok');
  return row?.derived?.pageFaults;
}

/** Table 7: page faults (page-ins), against the paper's 4.2BSD column (it has no 4.3 column); with the free-memory
 *  probes when there are runs of them (the CLI's fidelity makes them; the page reads them from a sweep of the table
 *  over bufpages, web/src/lab/fidelityView.ts). */
export function table7Fidelity(result: ExperimentResult, probes?: Table7Probes): FidelityTable {
  const figures = ['faults', 'elapsed'];
  const rows: FidelityRow[] = result.rows.filter((r) => r.status === 'ok' && r.paper).map((r) => {
    const few = (r.paper!.pageFaults ?? 0) < TABLE7_MIN_FAULTS;
    const faults = cell(r.derived?.pageFaults, r.paper!.pageFaults, r.spread?.pageFaults);
    const lessFree = probes ? probeFaults(probes.lessFree, r.step) : undefined;
    const moreFree = probes ? probeFaults(probes.moreFree, r.step) : undefined;
    if (faults && lessFree !== undefined && moreFree !== undefined) {
      faults.freeMemory = { kb: FREE_MEMORY_PROBE_KB, lessFree, moreFree };
    }
    return {
      label: r.test,
      calibration: r.calibration === true,
      ...(few ? { uncounted: { faults: `fewer than ${TABLE7_MIN_FAULTS} faults in the paper` } } : {}),
      cells: { faults, elapsed: cell(r.guest?.real, r.paper!.elapsed, r.spread?.real) },
    };
  });
  const probed = rows.some((r) => r.cells.faults?.freeMemory);
  return {
    ...titled('Table 7 (paging), against its 4.2BSD column', result),
    figures, rows, summary: summarise(rows, figures),
    note: `page faults are the kernel's page-ins over the command; rows with fewer than ${TABLE7_MIN_FAULTS} faults in ` +
      'the paper (gausspage.1-.30: 8, 2, 2) are shown, not counted; the paper ran 4.1 and 4.2BSD here, we run 4.3BSD' +
      (probed
        ? `; "${FREE_MEMORY_PROBE_KB} KB less / more free": the faults with the buffer cache ${FREE_MEMORY_PROBE_KB} KB ` +
          'larger and smaller than the kernel\'s own, the median of as many seeds (the paper gives its 4.2BSD system\'s ' +
          'memory only as "nearly 1 megabyte"; emu/docs/timing.md, "gausspage.40: a knife edge of free memory")'
        : ''),
  };
}

/** Table 8: page fault service time (system time / page faults), in ms, for its three rows. */
export function table8Fidelity(result: ExperimentResult): FidelityTable {
  const figures = ['pfst'];
  const rows: FidelityRow[] = result.rows
    .filter((r) => r.status === 'ok' && r.derived?.paperPfstMs !== undefined)
    .map((r) => ({
      label: r.test,
      calibration: r.calibration === true,
      cells: { pfst: cell(r.derived?.pfstMs, r.derived?.paperPfstMs) },
    }));
  return {
    ...titled('Table 8 (page fault service time, ms), against its 4.2BSD column', result),
    figures, rows, summary: summarise(rows, figures),
    note: 'system time / page faults, as the paper computes it',
  };
}

/** Section 4.1.1: ls -l's system time with the per-process cache alone (nchsize 0) and with both caches. */
export function nameCacheFidelity(result: ExperimentResult): FidelityTable {
  const figures = ['system'];
  const paperBySize: Record<string, number> = { 'ls.nch0': 3.3, [`ls.nch${GENERIC_NCHSIZE}`]: 3.7, 'ls.nch1000': 3.7 };
  const rows: FidelityRow[] = result.rows
    .filter((r) => r.status === 'ok' && r.guest && paperBySize[r.step] !== undefined)
    .map((r) => ({ label: r.test, calibration: false, cells: { system: cell(r.guest!.sys, paperBySize[r.step]) } }));
  return {
    ...titled('Name cache (section 4.1.1): ls -l system time', result),
    figures, rows, summary: summarise(rows, figures),
    note: 'the paper: 3.3 s with the per-process cache alone, 3.7 s with both caches (its machine for this is not named)',
  };
}

const pct = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(0)}%`;

/** The table as text: a row per test, then the held-out summary. */
export function formatFidelity(t: FidelityTable): string {
  // A figure with free-memory probes on any row gets a column for them after its error.
  const probeKb = new Map(t.figures.map((f) => [f, t.rows.map((r) => r.cells[f]?.freeMemory?.kb).find((kb) => kb !== undefined)]));
  const head = ['test', ...t.figures.flatMap((f) => {
    const kb = probeKb.get(f);
    return [`ours ${f}`, 'paper', 'error', ...(kb !== undefined ? [`${kb} KB less / more free`] : [])];
  })];
  const body = t.rows.map((r) => [
    `${r.label}${r.calibration ? ' (calibration)' : ''}`,
    ...t.figures.flatMap((f) => {
      const c = r.cells[f];
      const probeColumn = probeKb.get(f) !== undefined;
      if (!c) return probeColumn ? ['', '', '', ''] : ['', '', ''];
      const ours = c.range && fmt(c.range.max) !== fmt(c.range.min)
        ? `${fmt(c.ours)} [${fmt(c.range.min)}-${fmt(c.range.max)}]` : fmt(c.ours);
      const cells = [ours, fmt(c.paper), `${pct(c.errorPercent)}${r.uncounted?.[f] !== undefined ? ' *' : ''}`];
      if (probeColumn) cells.push(c.freeMemory ? `${fmt(c.freeMemory.lessFree)} / ${fmt(c.freeMemory.moreFree)}` : '');
      return cells;
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((s, i) => (i === 0 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join(' | ');
  const out = [t.title, line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)];
  for (const f of t.figures) {
    const s = t.summary[f];
    if (s) {
      out.push(`${f}: ${s.heldOut} held-out rows, median |error| ${s.medianAbsPercent.toFixed(1)}%, ` +
        `max ${s.maxAbsPercent.toFixed(1)}% (${s.worst})`);
    }
  }
  if (t.rows.some((r) => r.uncounted)) out.push('* not counted in the summary');
  out.push(`(${t.note})`);
  return out.join('\n');
}

function fmt(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(1) : x.toFixed(2);
}
