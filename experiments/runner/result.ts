// The result of an experiment: its types, as the runner makes it and the
// JSON file holds it, and beside them its schema, which checks a result that
// comes from outside (a permalink, the browser's history) field by field.
// The schema is checked against the types at compile time
// (ResultSchemaChecks): when ExperimentResult or RowResult changes, `tsc`
// fails here until the schema says the same (and RESULT_VERSION changes when
// old results no longer read).

import { CPU_NS_PER_INSTRUCTION, DISK_TIMINGS, SPINS, type DiskTiming, type Spin } from '../../emu/js/constants';
import { SUMMARY_FORMAT, SUMMARY_VERSION, type ProfileSummary } from '../profile/summaryFormat';
import type { CounterSeries, CounterTotals } from './counters';
import type { ExperimentView } from './experiments';
import {
  arr, at, check, int, members, nul, num, obj, oneOf, rec, SchemaError, str, type EnumS, type Expect, type Infer, type IntS,
  type Paths, type Same,
} from './schema';
import type { FailureKind } from './session';
import { TOGGLES } from './toggles';

export const RESULT_FORMAT = 'vaxlab-experiment-result';
/** 2: rows are steps (step id, kernel settings, read-back values, counter
 *  totals), `paper` may be null and its figures are optional; version 1
 *  results (Table 2 only) are version 2 results without the additions. */
export const RESULT_VERSION = 2;

/** The paper's figures for a row (StepReference, scaled when it scales). */
export interface RowPaper {
  elapsed?: number;
  user?: number;
  system?: number;
  /** Our count / the paper's: the figures above are multiplied by it when `scaled`. */
  scale: number;
  /** The paper's count. */
  iterations: number;
  pageFaults?: number;
  /** Table 8's PFST as printed (units of 10 µs, see experiments/paper/paging.ts). */
  pfst?: number;
  source: string;
  column: string;
  scaled: boolean;
}

/** Figures computed from the others (paging rows). */
export interface RowDerived {
  /** Page-ins over the command (totals.pgin): the faults that read the disk. */
  pageFaults?: number;
  /** guest sys / pageFaults, in ms (Table 8's PFST). */
  pfstMs?: number;
  /** The paper's PFST in ms: its printed figure / 100 (see experiments/paper/paging.ts). */
  paperPfstMs?: number;
}

export interface RowResult {
  /** The step's label (the paper's test name for Tables 2 and 7). */
  test: string;
  /** What was typed after the set-up, with /bin/time. */
  command: string;
  /** The count the command ran with (1 for a command without one). */
  iterations: number;
  status: 'ok' | 'failed';
  failure?: { kind: FailureKind; message: string; output: string };
  /** What /bin/time printed, seconds of guest time. */
  guest?: { real: number; user: number; sys: number; line: string };
  /** The emulator's view: the timed command (typing it to the prompt after it), and the whole step's machine. */
  emulator?: { instructions: string; virtualSeconds: number; machineInstructions: string; machineVirtualSeconds: number };
  limitSeconds: number;
  /** Counters over the timed command, one sample per virtual second (the experiment's chart counters). */
  counters?: CounterSeries;
  /** The paper's figures, or null when it has none for this step. */
  paper: RowPaper | null;
  /** The step's id within the experiment. */
  step: string;
  /** The kernel variables this step's kernel was patched with. */
  kernelSettings: Record<string, number>;
  /** Kernel variables read back after boot (step.readback), null when the kernel lacks one. */
  readback?: Record<string, number | null>;
  /** Cumulative counts over the timed command (CounterSampler.totals()). */
  totals?: CounterTotals;
  derived?: RowDerived;
  /** This row was used to fit the timing model (emu/docs/timing.md): not a check of it. */
  calibration?: true;
  /** With spinSeeds N > 1: the step ran N times, seeds 1..N (disk spin seed and placement line); the row
   *  is the median run (by elapsed time), these are the ranges over all N (pageFaults: derived.pageFaults,
   *  on the paging rows). */
  spread?: { seeds: number; real: SpreadRange; user: SpreadRange; sys: SpreadRange; pageFaults?: SpreadRange };
  /** The timed command's profile (RunOptions.profile; experiments/profile/summary.ts):
   *  the top functions and the calling contexts that took a share of it. */
  profile?: ProfileSummary;
}

/** The least and the greatest of a figure over a step's runs. */
export interface SpreadRange {
  min: number;
  max: number;
}

/** The processor in words, for the command line's machine line and the page's alike: "VAX-11/750 model", and only an
 *  old result's other scale said ("(its costs scaled by 3333/2000)").  nsPerInstruction is the cost model's scale,
 *  not a time per instruction: both models say 2000, and the 750's instructions take longer than the 780's
 *  (emu/docs/timing.md), so "(2000 ns/instruction)" read as a flat speed, the same for both. */
export function processorWords(machine: Pick<ExperimentResult['machine'], 'cpu' | 'nsPerInstruction'>): string {
  const ns = machine.nsPerInstruction;
  // The model's own scale, its costs unscaled (a result's cpu is a string: one from another lab may name another).
  const own = (CPU_NS_PER_INSTRUCTION as Record<string, number>)[machine.cpu] ?? CPU_NS_PER_INSTRUCTION['780'];
  return `VAX-11/${machine.cpu} model${ns === own ? '' : ` (its costs scaled by ${ns}/${own})`}`;
}

/** How the CLI's tables and the page say that a run's disks were locked. */
export const LOCKED_SPIN_WORDS = 'the disks locked to virtual time';

export interface ExperimentResult {
  format: typeof RESULT_FORMAT;
  version: typeof RESULT_VERSION;
  experiment: string;
  title: string;
  /** disk: the disk's timing, present only when it is not rp06 (so results
   *  of runs without the knob are as they were). */
  machine: {
    cpu: string; nsPerInstruction: number; memoryMB: number; memoryNote: string; boot: string; direct: true; disk?: DiskTiming;
    /** The seeds each step ran with (disk spin seed and placement line): 1..spinSeeds (RunOptions.spinSeeds); absent in results from
     *  before the seeds (their disks turned in step with virtual time). */
    spinSeeds?: number;
    /** 2 when the machine had a second drive with /usr on it (MachineSpec.drives); absent with one. */
    drives?: number;
    /** 'locked' when the disks turned in step with virtual time (the spin setting, toggles.ts); absent: drifting. */
    spin?: Spin;
  };
  image: { name: string; sha256?: string } | null;
  /** The kernel booted, present when it is not the image's /vmunix: a
   *  variant the installer built (experiments/kernels: "no-name-cache:
   *  4.3BSD without the name cache"; Table 2's default, "paper-1985: 4.3BSD
   *  with the open-file scans and without the text cache ..."; before 26
   *  November 2026 "ofile-scans-1985: ...") or an a.out file, with
   *  its SHA-256; and for an experiment that boots a variant by default
   *  (Table 2; Tables 7 and 8: like-4.2) also when /vmunix ran: "vmunix: 4.3BSD as distributed ...". */
  kernel?: { name: string; sha256?: string };
  parameters: Record<string, number>;
  /** Kernel variables set for every step (each row has its own, with the step's). */
  kernelSettings: Record<string, number>;
  /** What "ours" is compared with. */
  compare: string;
  status: 'ok' | 'failed';
  rows: RowResult[];
  group: string;
  paperRef: string;
  view: ExperimentView;
}

/** The result as the JSON file holds it (2-space indent, final newline). */
export function resultJson(result: ExperimentResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

// ------------------------------------------------------------ the schema

const numbers = rec(num);
/** Memory in MB: the memoryMB toggle's range in its steps of 0.25 (256 KB). */
const MEMORY_TOGGLE = TOGGLES.find((t) => t.name === 'memoryMB')!;
export const MEMORY_MB_SCHEMA: IntS = { k: 'int', min: MEMORY_TOGGLE.min, max: MEMORY_TOGGLE.max, step: MEMORY_TOGGLE.step };

const FAILURE_KINDS = members<FailureKind>({
  'time limit': true, panic: true, stopped: true, 'parse failure': true, 'program error': true, 'console overflow': true,
  'damaged image': true,
});
const VIEWS = members<ExperimentResult['view']>({ table2: true, paging: true, namecache: true });

export const ROW_SCHEMA = obj({
  test: str(200),
  command: str(2000),
  iterations: int(),
  status: oneOf('ok', 'failed'),
  limitSeconds: num,
  paper: nul(obj(
    { scale: num, iterations: int(), source: str(1000), column: str(1000), scaled: oneOf(true, false) },
    { elapsed: num, user: num, system: num, pageFaults: num, pfst: num },
  )),
  step: str(200),
  kernelSettings: numbers,
}, {
  failure: obj({ kind: { k: 'enum', values: FAILURE_KINDS } as EnumS<FailureKind[]>, message: str(10_000), output: str() }),
  guest: obj({ real: num, user: num, sys: num, line: str(1000) }),
  emulator: obj({
    instructions: str(30, /^\d+$/, 'a whole number in a string'),
    virtualSeconds: num,
    machineInstructions: str(30, /^\d+$/, 'a whole number in a string'),
    machineVirtualSeconds: num,
  }),
  counters: obj({ t: arr(num), values: rec(arr(num), 256) }),
  readback: rec(nul(num)),
  totals: numbers,
  derived: obj({}, { pageFaults: num, pfstMs: num, paperPfstMs: num }),
  calibration: oneOf(true),
  spread: obj({
    seeds: int(), real: obj({ min: num, max: num }), user: obj({ min: num, max: num }), sys: obj({ min: num, max: num }),
  }, { pageFaults: obj({ min: num, max: num }) }),
  profile: obj({
    format: oneOf(SUMMARY_FORMAT), version: oneOf(SUMMARY_VERSION), nsPerInstruction: num, scale: num, instructions: num,
    cost: num, idleCost: num, minShare: num, names: arr(str(300), 100_000),
    tree: arr(str(300, /^-?\d+(,\d+){9}$/, 'ten whole numbers separated by commas'), 200_000),
    top: arr(obj({ name: str(300), calls: num, selfMs: num, totalMs: num }), 1000), notes: arr(str(2000), 100),
  }),
});

export const RESULT_SCHEMA = obj({
  format: oneOf(RESULT_FORMAT),
  version: oneOf(RESULT_VERSION),
  experiment: str(100),
  title: str(1000),
  machine: obj({
    cpu: str(20), nsPerInstruction: num, memoryMB: MEMORY_MB_SCHEMA, memoryNote: str(1000), boot: str(100), direct: oneOf(true),
  }, { disk: oneOf(...DISK_TIMINGS), spinSeeds: int(), drives: int(), spin: oneOf(...SPINS) }),
  image: nul(obj({ name: str(1000) }, { sha256: str(200) })),
  parameters: numbers,
  kernelSettings: numbers,
  compare: str(5000),
  status: oneOf('ok', 'failed'),
  rows: arr(ROW_SCHEMA, 1000),
  group: str(200),
  paperRef: str(1000),
  view: { k: 'enum', values: VIEWS } as EnumS<ExperimentResult['view'][]>,
}, { kernel: obj({ name: str(1000) }, { sha256: str(200) }) });

/**
 * Compile-time checks that the schema is the types above, field for field
 * (exported only so that they count as used).  An error here ("Type 'false'
 * does not satisfy the constraint 'true'"): the result's types changed; make
 * the schema say the same.
 */
export type ResultSchemaChecks = [
  Expect<Same<Infer<typeof ROW_SCHEMA>, RowResult>>,
  Expect<Same<Paths<Infer<typeof ROW_SCHEMA>>, Paths<RowResult>>>,
  Expect<Same<Omit<Infer<typeof RESULT_SCHEMA>, 'rows'>, Omit<ExperimentResult, 'rows'>>>,
  Expect<Same<Paths<Omit<Infer<typeof RESULT_SCHEMA>, 'rows'>>, Paths<Omit<ExperimentResult, 'rows'>>>>,
];

/**
 * Checks a result read from outside, found at `path` (as SchemaError says
 * where): every field (RESULT_SCHEMA), and that each counter series has a
 * value per sample time.  Returns a clean copy.  The version is not judged
 * apart: a caller that reads other versions says so first (a mismatch is a
 * SchemaError at .version).
 */
export function validateResult(v: unknown, path: string): ExperimentResult {
  const result = check(RESULT_SCHEMA, v, path);
  checkSeries(result, path);
  checkRanges(result, path);
  return result;
}

/** The longest time a result may hold, in seconds (a step's limit is at most hours; this is 11 days). */
export const MAX_RESULT_SECONDS = 1e6;
/** The largest count (instructions, counters) a result may hold. */
export const MAX_RESULT_COUNT = 1e15;
/** The slowest processor a result may say it modelled, in ns per instruction (the 750 is about 3,333). */
export const MAX_NS_PER_INSTRUCTION = 1e6;

/**
 * The numbers of a result that have a range, in it (SchemaError naming the
 * first that is not): times from 0 to MAX_RESULT_SECONDS, ns per instruction
 * above 0, the paper's figures and its scale not negative, counts and
 * counter values no larger than MAX_RESULT_COUNT, parameters above 0.  A
 * crafted link or file cannot make the page draw a negative time or a bar of
 * 10^300 seconds: it is refused, saying which number.
 */
export function checkRanges(result: ExperimentResult, path: string): void {
  const within = (where: string, v: number | undefined, min: number, max: number, what: string, open = false) => {
    if (v === undefined) return;
    if (!(open ? v > min : v >= min) || v > max) throw new SchemaError(where, `${what} (${open ? 'above' : 'from'} ${min}${open ? ', up' : ''} to ${max})`, v);
  };
  const time = (where: string, v: number | undefined) => within(where, v, 0, MAX_RESULT_SECONDS, 'a time in seconds');
  const count = (where: string, v: number | undefined) => within(where, v, -MAX_RESULT_COUNT, MAX_RESULT_COUNT, 'a count');
  within(`${path}.machine.nsPerInstruction`, result.machine.nsPerInstruction, 0, MAX_NS_PER_INSTRUCTION, 'nanoseconds per instruction', true);
  for (const [k, v] of Object.entries(result.parameters)) within(at(`${path}.parameters`, k), v, 0, MAX_RESULT_COUNT, 'a parameter', true);
  result.rows.forEach((row, i) => {
    const r = `${path}.rows[${i}]`;
    time(`${r}.limitSeconds`, row.limitSeconds);
    if (row.guest) for (const k of ['real', 'user', 'sys'] as const) time(`${r}.guest.${k}`, row.guest[k]);
    if (row.emulator) {
      time(`${r}.emulator.virtualSeconds`, row.emulator.virtualSeconds);
      time(`${r}.emulator.machineVirtualSeconds`, row.emulator.machineVirtualSeconds);
    }
    if (row.paper) {
      within(`${r}.paper.scale`, row.paper.scale, 0, MAX_RESULT_COUNT, 'a scale', true);
      for (const k of ['elapsed', 'user', 'system', 'pfst'] as const) time(`${r}.paper.${k}`, row.paper[k]);
      within(`${r}.paper.pageFaults`, row.paper.pageFaults, 0, MAX_RESULT_COUNT, 'a count');
    }
    if (row.spread) {
      for (const k of ['real', 'user', 'sys'] as const) {
        time(`${r}.spread.${k}.min`, row.spread[k].min);
        time(`${r}.spread.${k}.max`, row.spread[k].max);
      }
      if (row.spread.pageFaults) {
        within(`${r}.spread.pageFaults.min`, row.spread.pageFaults.min, 0, MAX_RESULT_COUNT, 'a count');
        within(`${r}.spread.pageFaults.max`, row.spread.pageFaults.max, 0, MAX_RESULT_COUNT, 'a count');
      }
    }
    if (row.derived) {
      within(`${r}.derived.pageFaults`, row.derived.pageFaults, 0, MAX_RESULT_COUNT, 'a count');
      time(`${r}.derived.pfstMs`, row.derived.pfstMs);
      time(`${r}.derived.paperPfstMs`, row.derived.paperPfstMs);
    }
    for (const [k, v] of Object.entries(row.totals ?? {})) count(at(`${r}.totals`, k), v);
    const c = row.counters;
    if (c) {
      c.t.forEach((t, j) => time(`${r}.counters.t[${j}]`, t));
      for (const [k, series] of Object.entries(c.values)) series.forEach((v, j) => count(`${at(`${r}.counters.values`, k)}[${j}]`, v));
    }
  });
}

/** Every counter series of a row has a value per sample time (SchemaError if not). */
export function checkSeries(result: ExperimentResult, path: string): void {
  result.rows.forEach((row, i) => {
    const c = row.counters;
    if (!c) return;
    for (const [k, series] of Object.entries(c.values)) {
      if (series.length !== c.t.length) {
        throw new SchemaError(at(`${path}.rows[${i}].counters.values`, k), `${c.t.length} samples (as many as t)`, `${series.length} samples`);
      }
    }
  });
}
