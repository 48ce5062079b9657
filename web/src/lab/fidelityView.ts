// "How close are we?": what `npx vaxlab fidelity` prints, in the page, from
// runs the page already has (this page's, a link's, the history's): per
// table (2, 7, 8, the name cache) ours against the paper, the median and the
// largest |error| over the held-out rows, the calibration rows (the ones the
// timing model was fitted on) marked and set apart.  The comparisons are the
// runner's (experiments/runner/fidelity.ts, the CLI's own functions); here
// only which run each table reads, and the tables as the page's view model.
// No emulation, no DOM.

import { PAPER_KERNEL_VARIANT, findExperiment } from '../../../experiments/runner/experiments';
import { DISTRIBUTED_KERNEL_NAME } from '../../../experiments/kernels/variants';
import { DEFAULT_DISK_TIMING, DEFAULT_SPIN } from '../../../experiments/runner/toggles';
import {
  FREE_MEMORY_PROBE_KB, freeMemoryProbeBufpages, nameCacheFidelity, table2Fidelity, table7Fidelity, table8Fidelity, type FidelityRow,
  type FidelityTable, type Table7Probes,
} from '../../../experiments/runner/fidelity';
import type { ExperimentResult } from '../../../experiments/runner/result';
import type { SweepResult } from '../../../experiments/runner/sweep';
import { signed, type Cell, type Column, type ResultTable, type TableRow } from '../../../experiments/runner/resultView';
import { resultKernel, runFingerprint } from './compare';
import { MAX_PAGE_SEEDS } from './config';
import type { SharedRun } from './permalink';

/** The tables, the experiment each is read from (Table 8 from Table 7's rows, as the CLI does). */
export const FIDELITY_PARTS = [
  { key: 'table2', experiment: 'table2', make: table2Fidelity },
  { key: 'table7', experiment: 'table7', make: table7Fidelity },
  { key: 'table8', experiment: 'table7', make: table8Fidelity },
  { key: 'namecache', experiment: 'namecache-ls', make: nameCacheFidelity },
] as const;

/** The experiments the view needs runs of (the CLI's FIDELITY_EXPERIMENTS). */
export const FIDELITY_EXPERIMENTS = [...new Set(FIDELITY_PARTS.map((p) => p.experiment))];

/** A kept sweep the view may read Table 7's free-memory probes from, and where it is from ("your sweeps, saved …"). */
export interface ProbeSweepCandidate {
  result: SweepResult;
  origin: string;
}

/** A run the view may read, and where it is from ("this page's run of …", "your history, saved …"). */
export interface FidelityCandidate {
  shared: SharedRun;
  origin: string;
  /** ISO 8601: the newest is taken. */
  at: string;
}

/**
 * Why a run is not one the paper's figures can be set against, or null:
 * the view reads runs made as the paper ran them — the experiment's own
 * machine, its own kernel (Table 2's: the paper's; Tables 7 and 8's:
 * like-4.2; the name cache's: the distributed /vmunix) with its own variables, the rp06, the
 * experiment's parameters (Table 2's divisor aside: its rows are scaled to
 * the paper's counts, as the CLI's are) — and finished.
 */
export function notAsThePaperRan(shared: SharedRun): string | null {
  const r = shared.result;
  const spec = findExperiment(r.experiment);
  if (!spec) return `no experiment ${r.experiment} here`;
  const why: string[] = [];
  if (r.machine.cpu !== spec.machine.cpu) why.push(`cpu=${r.machine.cpu} (the paper's: ${spec.machine.cpu})`);
  if (r.machine.memoryMB !== spec.machine.memoryMB) why.push(`memoryMB=${r.machine.memoryMB} (the paper's: ${spec.machine.memoryMB})`);
  if (r.machine.disk !== undefined && r.machine.disk !== DEFAULT_DISK_TIMING) why.push(`disk=${r.machine.disk}`);
  // Locked disks make the exec rows whole turns, as the paper's were, but the lab's figures are the drifting ones.
  if (r.machine.spin !== undefined && r.machine.spin !== DEFAULT_SPIN) why.push(`spin=${r.machine.spin}`);
  // The experiment's own kernel (Table 2: the paper's, paper-1985; Tables 7 and 8: like-4.2, the lab's
  // closest to the paper's 4.2BSD column, never called the paper's; the name cache: the image's /vmunix).
  const ran = resultKernel(r);
  const own = spec.kernel ?? '/vmunix';
  const whose = spec.kernel === PAPER_KERNEL_VARIANT ? 'the paper\'s' : 'the experiment\'s';
  if (ran.name !== own) why.push(`kernel ${ran.name === '/vmunix' ? DISTRIBUTED_KERNEL_NAME : ran.name}${spec.kernel ? ` (${whose}: ${spec.kernel})` : ''}`);
  for (const [k, v] of Object.entries(r.kernelSettings)) why.push(`${k}=${v}`);
  for (const [k, v] of Object.entries(r.parameters)) {
    if (k === 'divisor' && r.experiment === 'table2') continue;
    if (spec.parameters[k] !== v) why.push(`${k}=${v} (the paper's: ${spec.parameters[k] ?? 'none'})`);
  }
  if (r.rows.length < spec.steps.length) why.push(`${r.rows.length} of ${spec.steps.length} rows`);
  return why.length ? why.join(', ') : null;
}

export interface FidelityPart {
  key: (typeof FIDELITY_PARTS)[number]['key'];
  experiment: string;
  /** The run read, and where it is from; null: none yet. */
  source: FidelityCandidate | null;
  /** Runs of the experiment passed over, each with why (not as the paper ran it). */
  passedOver: string[];
  table: FidelityTable | null;
  view: ResultTable | null;
  /** Per figure: "elapsed: 26 held-out rows, median |error| 21.0%, max 66.0% (execs0big)". */
  summary: string[];
  /** The table's divisor, when its counts were reduced. */
  divisor: number | null;
  /** Table 7: the sweep that shows its worst counted row against free memory (freeMemorySweep); null elsewhere. */
  freeMemorySweep: FreeMemorySweep | null;
  /** Table 7: the kept sweep its free-memory probes were read from (freeMemoryProbes), or null. */
  probesFrom: string | null;
  /** Table 7 without probes: the sweep of the whole table that would give them (probeSweep), or null. */
  probeSweep: ProbeSweep | null;
}

/** Table 7 run twice more, with the buffer cache FREE_MEMORY_PROBE_KB larger and smaller than the kernel's own:
 *  `npx vaxlab fidelity`'s free-memory probes, as a sweep of the page, on the source run's own settings.  The
 *  experiment is the table; `values` the probes' two buffer caches only, more free memory first. */
export interface ProbeSweep extends FreeMemorySweep {
  /** How many steps in all (the table's steps at each value). */
  steps: number;
  /** The source's seeds, which the sweep's must be (each step run with seeds 1..seeds, the row the median). */
  seeds: number;
  /** When the page cannot run it as the source ran (the source ran with more seeds than the page's form takes,
   *  MAX_PAGE_SEEDS): the command that makes the sweep in Node, to open as a file; else null. */
  notHere: { command: string } | null;
}

/** A sweep of one paging row over the buffer cache's size: the CLI's free-memory probes, in the page. */
export interface FreeMemorySweep {
  /** The row, an experiment of its own (e.g. gausspage.40). */
  experiment: string;
  setting: 'bufpages';
  /** The kernel's own buffer cache and the free-memory probes' either side of it (freeMemoryProbeBufpages), in KB,
   *  ascending. */
  values: number[];
  /** What the sweep's chart and table show: the row's page-ins (a MEASURES id). */
  measure: 'faults';
}

/**
 * Table 7's row with the largest |error| in page faults, swept over the free-memory probes' buffer caches on the
 * run's memory: how far free memory alone moves it (a row where the walk just stops fitting moves by tens of per
 * cent; emu/docs/timing.md, "gausspage.40: a knife edge of free memory").  null when the table has no counted row
 * (the summary's worst is one: fidelity.ts counts no other), or the row is not an experiment of its own.
 */
export function freeMemorySweep(table: FidelityTable, memoryMB: number): FreeMemorySweep | null {
  const worst = table.summary.faults?.worst;
  if (!worst || !findExperiment(worst)) return null;
  const b = freeMemoryProbeBufpages(memoryMB);
  return { experiment: worst, setting: 'bufpages', values: [b.moreFree, b.own, b.lessFree], measure: 'faults' };
}

/** Why a probe point's result is not the source run with only the buffer cache changed to `bufpages`, or null. */
function notAProbeOf(source: ExperimentResult, probe: ExperimentResult, bufpages: number): string | null {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (probe.experiment !== source.experiment) return 'another experiment';
  if (!same(probe.machine, source.machine)) return 'another machine or seeds';
  if ((probe.image?.sha256 ?? null) !== (source.image?.sha256 ?? null)) return 'another image';
  if (!same(probe.kernel ?? null, source.kernel ?? null)) return 'another kernel';
  if (!same(probe.parameters, source.parameters)) return 'other parameters';
  const expected = { ...source.kernelSettings, bufpages };
  const keys = (o: Record<string, number>) => Object.keys(o).sort();
  if (!same(keys(probe.kernelSettings), keys(expected)) || Object.entries(expected).some(([k, v]) => probe.kernelSettings[k] !== v)) {
    return 'other kernel settings';
  }
  return null;
}

/**
 * Table 7's free-memory probes for a source run, from the first kept sweep that has them: a sweep of the same
 * experiment over bufpages alone whose points at the probes' two buffer caches (freeMemoryProbeBufpages) are the
 * source run with only the buffer cache changed — same machine and seeds, image, kernel and parameters.  What
 * `npx vaxlab fidelity` runs as its probes, here from a sweep of the page or a file (`vaxlab sweep table7 --set
 * bufpages=…`).  null when no sweep has them.
 */
export function freeMemoryProbes(source: ExperimentResult, sweeps: readonly ProbeSweepCandidate[]): { probes: Table7Probes; origin: string } | null {
  const b = freeMemoryProbeBufpages(source.machine.memoryMB);
  for (const s of sweeps) {
    const r = s.result;
    if (r.experiment !== source.experiment || r.axes.length !== 1 || r.axes[0]!.setting !== 'bufpages') continue;
    const at = (v: number) => {
      const p = r.points.find((x) => x.values.bufpages === v)?.result;
      return p && notAProbeOf(source, p, v) === null ? p : null;
    };
    const lessFree = at(b.lessFree);
    const moreFree = at(b.moreFree);
    if (lessFree && moreFree) return { probes: { lessFree, moreFree }, origin: s.origin };
  }
  return null;
}

/** The sweep of the whole of Table 7 that gives a source run its free-memory probes: with the source's seeds, in
 *  the page up to MAX_PAGE_SEEDS of them, else in Node (notHere). */
export function probeSweep(source: ExperimentResult): ProbeSweep | null {
  const spec = findExperiment(source.experiment);
  if (!spec) return null;
  const b = freeMemoryProbeBufpages(source.machine.memoryMB);
  const seeds = source.machine.spinSeeds ?? 1;
  return {
    experiment: source.experiment, setting: 'bufpages', values: [b.moreFree, b.lessFree], measure: 'faults',
    steps: 2 * spec.steps.length, seeds,
    notHere: seeds > MAX_PAGE_SEEDS
      ? { command: `npx vaxlab sweep ${source.experiment} --set bufpages=${b.moreFree},${b.lessFree} --seeds ${seeds} --json FILE` }
      : null,
  };
}

/** Every table, each from the newest run made as the paper ran it; Table 7 with its free-memory probes when a kept
 *  sweep has them (freeMemoryProbes).  A run listed twice (this page's run is also in the history) is taken where it
 *  is listed first. */
export function fidelityReport(candidates: readonly FidelityCandidate[], sweeps: readonly ProbeSweepCandidate[] = []): FidelityPart[] {
  const seen = new Set<string>();
  const unique = candidates.filter((c) => {
    const f = runFingerprint(c.shared);
    if (seen.has(f)) return false;
    seen.add(f);
    return true;
  });
  const newestFirst = unique.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return FIDELITY_PARTS.map((part) => {
    const runs = newestFirst.filter((c) => c.shared.result.experiment === part.experiment);
    const passedOver: string[] = [];
    let source: FidelityCandidate | null = null;
    for (const c of runs) {
      const why = notAsThePaperRan(c.shared);
      if (why === null) {
        source = c;
        break;
      }
      passedOver.push(`${c.origin}: ${why}`);
    }
    const probed = source && part.key === 'table7' ? freeMemoryProbes(source.shared.result, sweeps) : null;
    const table = source ? (probed ? table7Fidelity(source.shared.result, probed.probes) : part.make(source.shared.result)) : null;
    const divisor = source?.shared.result.parameters.divisor ?? null;
    return {
      key: part.key, experiment: part.experiment, source, passedOver: [...new Set(passedOver)], table,
      view: table ? fidelityTableView(table) : null, summary: table ? summaryLines(table) : [], divisor: divisor && divisor > 1 ? divisor : null,
      freeMemorySweep: table && source && part.key === 'table7' ? freeMemorySweep(table, source.shared.result.machine.memoryMB) : null,
      probesFrom: probed?.origin ?? null,
      probeSweep: source && part.key === 'table7' && !probed ? probeSweep(source.shared.result) : null,
    };
  });
}

const FIGURE_WORDS: Record<string, string> = {
  elapsed: 'Elapsed (s)', system: 'System (s)', faults: 'Page faults', pfst: 'PFST (ms)',
};

function figureNumber(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(1) : x.toFixed(2);
}

function errorCell(row: FidelityRow, figure: string): Cell {
  const c = row.cells[figure];
  if (!c) return { text: '—' };
  const uncounted = row.uncounted?.[figure];
  return {
    text: `${signed(c.errorPercent, 0)}%${uncounted ? ' *' : ''}`,
    className: Math.abs(c.errorPercent) <= 10 ? 'close' : 'far',
    ...(uncounted ? { title: `not counted: ${uncounted}` } : {}),
  };
}

/**
 * A fidelity table as the page's table: held-out rows first, then the
 * calibration rows under a row that says what they are (not counted); per
 * figure ours (with its range over the disk spin seeds), the paper's and the error.
 */
export function fidelityTableView(t: FidelityTable): ResultTable {
  const columns: Column[] = [{ key: 'test', label: 'Test', group: '', unit: null, numeric: false }];
  // A figure with free-memory probes on any row gets a column for them after its error, as the CLI prints it.
  const probed = (f: string) => t.rows.some((r) => r.cells[f]?.freeMemory);
  for (const f of t.figures) {
    const group = FIGURE_WORDS[f] ?? f;
    columns.push(
      { key: `${f}.ours`, label: 'Ours', group, unit: null, numeric: true, title: 'this lab’s figure (the range over disk spin seeds, when run with several)' },
      { key: `${f}.paper`, label: 'Paper', group, unit: null, numeric: true, title: 'the paper’s figure' },
      { key: `${f}.error`, label: 'Error', group, unit: '%', numeric: true, title: '(ours − paper) / paper, in %' },
    );
    if (probed(f)) {
      columns.push({
        key: `${f}.freeMemory`, label: `${FREE_MEMORY_PROBE_KB} KB less / more free`, group, unit: null, numeric: true,
        title: `the same with the buffer cache ${FREE_MEMORY_PROBE_KB} KB larger (less free memory) and smaller than the kernel’s own`,
      });
    }
  }
  const line = (r: FidelityRow): TableRow => ({
    test: r.label,
    status: 'ok',
    failure: null,
    cells: [
      { text: r.calibration ? `${r.label} (calibration)` : r.label, ...(r.calibration ? { className: 'calibration', title: 'the timing model was fitted on this row: shown, not counted' } : {}) },
      ...t.figures.flatMap((f): Cell[] => {
        const c = r.cells[f];
        const probe: Cell[] = probed(f)
          ? [{ text: c?.freeMemory ? `${figureNumber(c.freeMemory.lessFree)} / ${figureNumber(c.freeMemory.moreFree)}` : '—' }] : [];
        if (!c) return [{ text: '—' }, { text: '—' }, { text: '—' }, ...probe];
        const range = c.range && figureNumber(c.range.min) !== figureNumber(c.range.max)
          ? ` [${figureNumber(c.range.min)}–${figureNumber(c.range.max)}]` : '';
        return [{ text: `${figureNumber(c.ours)}${range}` }, { text: figureNumber(c.paper) }, errorCell(r, f), ...probe];
      }),
    ],
  });
  const held = t.rows.filter((r) => !r.calibration);
  const calibration = t.rows.filter((r) => r.calibration);
  const rows = [...held.map(line)];
  if (calibration.length) {
    rows.push({
      test: 'Calibration rows', status: 'ok', failure: null,
      cells: [{ text: 'Calibration (not counted)', className: 'calibration-head', title: 'the rows the timing model was fitted on: shown, not counted in the summary' }, ...columns.slice(1).map(() => ({ text: '' }))],
    });
    rows.push(...calibration.map(line));
  }
  const notes = [`(${t.note})`];
  if (t.rows.some((r) => r.uncounted)) notes.unshift('* shown, not counted in the summary.');
  return { columns, rows, footnote: null, notes };
}

/** Per figure, the held-out rows' median and largest |error|, as the CLI says it. */
export function summaryLines(t: FidelityTable): string[] {
  return t.figures.flatMap((f) => {
    const s = t.summary[f];
    if (!s) return [];
    return [`${FIGURE_WORDS[f]?.replace(/ \(.*\)$/, '') ?? f}: ${s.heldOut} held-out row${s.heldOut === 1 ? '' : 's'}, ` +
      `median |error| ${s.medianAbsPercent.toFixed(1)}%, max ${s.maxAbsPercent.toFixed(1)}% (${s.worst})`];
  });
}

/** How long a run of the experiment at the paper's settings is (its steps' paper times), for the offer to run it. */
export function paperRunWords(experiment: string): string {
  const spec = findExperiment(experiment);
  return spec ? `${spec.steps.length} step${spec.steps.length === 1 ? '' : 's'}` : '';
}
