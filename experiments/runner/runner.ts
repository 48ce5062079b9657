// Runs an experiment (experiments.ts) on the WebAssembly VAX-11/780 through
// emu/js/vax780.ts: one fresh machine per step, booted
// single-user as the paper ran, with the step's kernel settings, /usr
// mounted, the step's set-up lines typed and its command timed by the
// guest's /bin/time.  Every setting is checked before the first machine
// runs.  No host clock and no Node APIs here, so the browser can use it
// too; the result is a JSON value that two runs give byte for byte.

import { CONSOLE_SLICE, CPU_NS_PER_INSTRUCTION, DISK_TIMINGS, SPINS, type DiskTiming, type Spin } from '../../emu/js/constants';
import type { DiskImage } from '../../emu/js/diskImage';
import type { Vax780Api, Vax780Options, Vax780System } from '../../emu/js/vax780';
import type { ProfileSummary } from '../profile/summaryFormat';
import { kernelResultName } from '../kernels/variants';

/** What a profiled run needs of experiments/profile, loaded only then (the
 *  page that checks settings with this module need not carry it). */
type ProfileCode = typeof import('../profile/index');
import { CounterSampler, type CounterSample, type CounterSeries } from './counters';
import { roundFixed } from './decimal';
import {
  LAB_BIN, LAB_USR_BIN, TABLE2_COMPARE, stepCommand, stepCount, stepPaper, type ExperimentSpec, type MachineSpec,
  type StepSpec,
} from './experiments';
import { i32 } from './kstats';
import {
  RESULT_FORMAT, RESULT_VERSION, type ExperimentResult, type RowDerived, type RowPaper, type RowResult,
  type SpreadRange,
} from './result';
import { BootSnapshots, SINGLE_USER_BOOT, bootKey, encodeHostPart, type BootSnapshot } from './bootSnapshots';
import { ConsoleSession, SessionFailure, type SessionHooks } from './session';
import { parseTimedOutput } from './timeparse';
import { DEFAULT_DISK_TIMING, DEFAULT_SPIN, findToggle, resolveSettings, validateSetting, validateSettings } from './toggles';

export const PROMPT = SINGLE_USER_BOOT.prompt;
/** Virtual-second limits of the steps around the timed command. */
export const BOOT_LIMIT_S = SINGLE_USER_BOOT.limitSeconds;
export const SETUP_LIMIT_S = 60;
/** The lines every step types first, on a one-drive machine. */
export const COMMON_SETUP = ['mount /dev/hp0g /usr', `cd ${LAB_BIN}`];
/** The same on a two-drive machine (MachineSpec.drives 2): /usr from the
 *  second drive (its device node is not in the image: hp is block major 0,
 *  minor 8 * unit + partition), the programs from /usr/lab/bin there. */
export const SECOND_DRIVE_SETUP = ['mknod /dev/hp1g b 0 14', 'mount /dev/hp1g /usr', `cd ${LAB_USR_BIN}`];

/** The lines every step of an experiment on this machine types first. */
export function machineSetup(machine: Pick<MachineSpec, 'drives'>): readonly string[] {
  return machine.drives === 2 ? SECOND_DRIVE_SETUP : COMMON_SETUP;
}

/** Bytes of memory per seed that the placement line's process touches. */
export const PLACEMENT_STEP_BYTES = 1536;
/** The line each step types after the machine's own, before its set-up: one
 *  fork of a process that has touched PLACEMENT_STEP_BYTES x (seed - 1) bytes
 *  of sbrk'd memory (the lab's `forks`).  It leaves the kernel's free page
 *  list in an order of its own for each seed, so the timed command's pages
 *  fall on other physical frames — other colours of the 750's 4 KB
 *  direct-mapped cache — and the seeds sample the placement as they sample
 *  the disks' rotation (emu/docs/timing.md, "Physical page placement"). */
export function placementSetup(seed: number): string {
  return `./forks 1 ${PLACEMENT_STEP_BYTES * (seed - 1)}`;
}

export interface RunOptions {
  cpu?: MachineSpec['cpu'];
  memoryMB?: number;
  /** The disk's timing (toggles.ts `disk`; Vax780Options.diskTiming): rp06 when not given. */
  disk?: DiskTiming;
  /** Experiment parameters (the CLI's --param NAME=VALUE; see spec.parameters). */
  parameters?: Record<string, number>;
  /** Kernel variables (_NAME, patched before each step's kernel runs; the
   *  CLI's --set).  Deprecated: a name that is one of the experiment's
   *  parameters (iterations, divisor) is taken as that parameter, as in
   *  version 1, unless `parameters` has it too. */
  set?: Record<string, number>;
  /** Virtual-second limit of each timed command (default: per step, see stepLimit). */
  limitSeconds?: number;
  /** Run only these steps (ids), in the experiment's order; the others are
   *  left out of the result as if the experiment had only these.  A row of
   *  this run is byte for byte the row a whole run gives (each step boots
   *  its own machine), so the rows of runs of disjoint subsets joined in
   *  step order make the whole run's result (sweep.ts: parallel runs). */
  steps?: string[];
  /** Identifies the disk image in the result (e.g. its SHA-256). */
  image?: { name: string; sha256?: string };
  /** A kernel to boot instead of the image's /vmunix (e.g. a variant of
   *  experiments/kernels: the CLI's --kernel), named in the result's kernel.
   *  The runner takes bytes, not names: whoever loads them picks the
   *  experiment's default (ExperimentSpec.kernel, effectiveKernelName) when
   *  no other was asked for; absent here, the image's /vmunix boots (and a
   *  result of an experiment with a default kernel says so). */
  kernel?: { name: string; bytes: Uint8Array; sha256?: string };
  /** Which counter series the result keeps: the experiment's (default) or all. */
  counters?: 'experiment' | 'all';
  /** Profile each step's timed command (emu/src/profile; the guest runs the
   *  same): RowResult.profile holds its summary (experiments/profile). */
  profile?: boolean;
  /** Called as steps start and end (host-side progress; not part of the result). */
  onStep?: (event: { step: StepSpec; index: number; phase: 'start' | 'end'; result?: RowResult }) => void;
  /** Stop: the current step fails with kind 'stopped', the rest are not run. */
  signal?: AbortSignal;
  /** Awaited between emulator slices every few tens of ms (see session.ts
   *  PAUSE_EVERY); a browser worker yields to its message queue here. */
  pause?: () => Promise<void>;
  /** All console output as it comes (boot, set-up and the timed commands). */
  onConsole?: (text: string) => void;
  /** Counters (all of them), once per virtual second of each timed command. */
  onSample?: (sample: CounterSample) => void;
  onProgress?: (progress: RunProgress) => void;
  /** The result so far: once before the first step (no rows) and after each step; the last is what
   *  runExperiment returns.  (The page keeps it, so a run cut short by a reload is not lost.) */
  onPartial?: (result: ExperimentResult) => void;
  /** Virtual seconds between counter samples (default: samplingFor). */
  sampleSeconds?: number;
  /** Machines booted to the single-user prompt, saved (bootSnapshots.ts):
   *  a step whose machine is configured like one there starts from it
   *  instead of booting, and a step that boots saves its machine there.
   *  Results are the same either way.  Default: a store for this run alone;
   *  null: boot every step.  Profiled runs always boot (the profile starts
   *  at the boot). */
  bootSnapshots?: BootSnapshots | null;
  /** How many times each step runs, with seeds 1..N: disk spin seed N
   *  (Vax780Options.diskSpinSeed: each disk command finds the platter at a
   *  pseudo-random angle, so no row hinges on a lock between computing and
   *  rotation; each clock interrupt a pseudo-random delay after its
   *  overflow, so no row's user and system time hinge on a lock between a
   *  loop and the statistical clock) and placement line N (placementSetup: the command's pages on
   *  other physical frames, so no row hinges on a cache colour).  The row is
   *  the run with the median elapsed time; with N > 1 it has the range
   *  (`spread`).  Default 1. */
  spinSeeds?: number;
  /** Run each step with this one of the seeds 1..spinSeeds only: its row is
   *  that seed's run as it is, without the median and the range — a part of
   *  the step's row, which stepRow makes from every seed's part in seed
   *  order (sweep.ts runs a step's seeds as units of their own, so they
   *  spread over the workers).  The result still says spinSeeds. */
  seed?: number;
  /** The disks' rotation, the spin setting of toggles.ts (also `set.spin`,
   *  as its index): 'drifting' (the default: a request that finds a drive
   *  idle a turn or more finds the platter at an angle drawn from the seed,
   *  so a row does not hinge on how its computing falls against whole turns)
   *  or 'locked' (the platters turn in step with virtual time, as a real
   *  spindle over the few turns of a loop; the seeds still draw the clock's
   *  sampling and the page placement): a loop that waits for the disk then
   *  lasts whole turns, as the paper's exec rows did (emu/docs/timing.md,
   *  "Whole turns").  The result records 'locked'. */
  spin?: Spin;
}

/** Where a run is: step `step` (1-based) of `steps`, and the machine's clocks. */
export interface RunProgress {
  step: number;
  steps: number;
  label: string;
  /** Virtual seconds since this step's machine was powered on. */
  virtualSeconds: number;
  instructions: number;
  /** With several seeds (RunOptions.spinSeeds), the one this step's machine runs, of how many (each seed's machine
   *  starts again from 0 virtual seconds). */
  seed?: { n: number; of: number };
}

/** Table 2's comparison note (version 1's name). */
export const COMPARE_NOTE = TABLE2_COMPARE;

// ------------------------------------------------------------ settings

/** The largest parameter: the guest's programs read their counts as a C int (atoi), so a larger one would run
 *  another count (2^32 + 1 ran as 1) under the number the result gives. */
export const MAX_PARAMETER = 2 ** 31 - 1;

/** Settings refused before anything ran; `problems` has one line each. */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

/** Refused because the disk image or the kernel cannot be used (the machine cannot be made from them, with no
 *  setting of the run's): a SettingsError for whoever refuses a run, which the command line tells apart (exit 3,
 *  as for a missing image, not 2, a bad setting). */
export class ImageError extends SettingsError {
  constructor(problems: string[]) {
    super(problems);
    this.name = 'ImageError';
  }
}

export interface ResolvedRun {
  cpu: MachineSpec['cpu'];
  memoryMB: number;
  disk: DiskTiming;
  spin: Spin;
  parameters: Record<string, number>;
  /** Kernel variables for every step. */
  kernel: Record<string, number>;
  /** The steps to run (all of the experiment's, or those RunOptions.steps names), with `index` their place in the experiment. */
  steps: { step: StepSpec; index: number; count: number | null; kernel: Record<string, number> }[];
  /** Deprecation notes (a parameter given through `set`). */
  notes: string[];
}

/**
 * Checks and resolves a run's settings without a machine: the processor
 * and memory, parameters (known to the experiment, whole numbers >= 1),
 * --set (toggles.ts: known names, ranges, hz with tick; machine toggles
 * memoryMB, cpu and disk go to the machine), and that no --set overrides what
 * the experiment varies from step to step.  Throws SettingsError listing
 * every problem.
 */
export function resolveRun(spec: ExperimentSpec, options: RunOptions = {}): ResolvedRun {
  const problems: string[] = [];
  const notes: string[] = [];

  const parameters = { ...spec.parameters };
  const known = Object.keys(spec.parameters);
  // Names are looked up as own properties only: "constructor" or "__proto__"
  // is an unknown name like any other, never something an object inherits.
  const isParameter = (name: string): boolean => Object.hasOwn(spec.parameters, name);
  const given: Record<string, number> = Object.assign(Object.create(null) as Record<string, number>, options.parameters ?? {});
  const toggles: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (isParameter(name)) {
      if (!Object.hasOwn(given, name)) {
        given[name] = value;
        notes.push(`--set ${name}=${value}: ${name} is a parameter of ${spec.id}, taken as --param ${name}=${value} ` +
          '(deprecated: --set is for kernel and machine settings)');
      }
      continue;
    }
    toggles[name] = value;
  }
  for (const [name, value] of Object.entries(given)) {
    if (!isParameter(name)) {
      problems.push(`parameter ${name}: ${spec.id} has ${known.length ? `only ${known.join(', ')}` : 'no parameters'}`);
    } else if (!Number.isSafeInteger(value) || value < 1) {
      problems.push(`parameter ${name}: a whole number, 1 or more, got ${value}`);
    } else if (value > MAX_PARAMETER) {
      problems.push(`parameter ${name}: at most ${MAX_PARAMETER} (the guest's program reads it as a C int), got ${value}`);
    } else parameters[name] = value;
  }

  const settings = resolveSettings(toggles, undefined, { memoryMB: options.memoryMB ?? spec.machine.memoryMB });
  problems.push(...settings.errors.map((e) => `--set: ${e}`));
  notes.push(...settings.notes);
  const pick = <T>(what: string, option: T | undefined, fromSet: T | undefined, dflt: T): T => {
    if (option !== undefined && fromSet !== undefined && option !== fromSet) {
      problems.push(`${what}: given twice, as ${String(option)} and as --set ${what}=${String(fromSet)}`);
    }
    return option ?? fromSet ?? dflt;
  };
  const cpu = pick('cpu', options.cpu, settings.machine.cpu, spec.machine.cpu);
  if (!Object.hasOwn(CPU_NS_PER_INSTRUCTION, cpu)) problems.push(`cpu: ${JSON.stringify(cpu)} is not one of ${Object.keys(CPU_NS_PER_INSTRUCTION).join(', ')}`);
  const memoryMB = pick('memoryMB', options.memoryMB, settings.machine.memoryMB, spec.machine.memoryMB);
  // A --set memoryMB was checked with the settings; the option and the spec's are checked here.
  const memoryProblem = settings.machine.memoryMB === undefined ? validateSetting('memoryMB', memoryMB) : null;
  if (memoryProblem !== null) problems.push(memoryProblem);
  const disk = pick('disk', options.disk, settings.machine.disk, DEFAULT_DISK_TIMING);
  if (!(DISK_TIMINGS as readonly string[]).includes(disk)) {
    problems.push(`disk: ${JSON.stringify(disk)} is not one of ${DISK_TIMINGS.join(', ')}`);
  }
  const spin = pick('spin', options.spin, settings.machine.spin, DEFAULT_SPIN);
  if (!(SPINS as readonly string[]).includes(spin)) problems.push(`spin: ${JSON.stringify(spin)} is not one of ${SPINS.join(', ')}`);

  const kernel = settings.kernel;
  const varied = new Map<string, number[]>();
  for (const step of spec.steps) {
    for (const [name, value] of Object.entries(step.kernel)) varied.set(name, [...(varied.get(name) ?? []), value]);
  }
  for (const name of Object.keys(kernel)) {
    const values = varied.get(name);
    if (values) {
      problems.push(`--set ${name}: ${spec.id} sets ${name} itself, step by step (${[...new Set(values)].join(', ')}` +
        `${values.length < spec.steps.length ? ' and the kernel\'s own' : ''}); a --set would override the comparison`);
    }
  }
  for (const step of spec.steps) {
    problems.push(...validateSettings(step.kernel, undefined, { memoryMB }).map((p) => `step ${step.id}: ${p}`));
  }
  const chosen = options.steps === undefined ? null : new Set(options.steps);
  for (const id of chosen ?? []) {
    if (!spec.steps.some((s) => s.id === id)) problems.push(`step ${id}: ${spec.id} has no such step (${spec.steps.map((s) => s.id).join(', ')})`);
  }
  if (chosen !== null && chosen.size === 0) problems.push(`steps: none chosen (${spec.id} has ${spec.steps.map((s) => s.id).join(', ')})`);
  if (problems.length > 0) throw new SettingsError(problems);
  return {
    cpu, memoryMB, disk, spin, parameters, kernel, notes,
    steps: spec.steps.map((step, index) => ({ step, index, count: stepCount(spec, step, parameters), kernel: { ...kernel, ...step.kernel } }))
      .filter((s) => chosen === null || chosen.has(s.step.id)),
  };
}

/**
 * The checks that need the kernel: every variable a step sets or reads
 * back is in /vmunix's symbol table, and the emulator accepts each step's
 * settings (create() refuses symbols outside the kernel's data).  Creates
 * machines but runs none.  Throws SettingsError, or ImageError when no machine can be made of the image and the
 * kernel with the run's machine alone (a pack of the wrong size, no 4.3BSD file system, a kernel that is no a.out).
 */
export function checkKernelSettings(api: Vax780Api, disk: DiskImage, run: ResolvedRun, kernel?: Uint8Array): void {
  const problems: string[] = [];
  const base: Vax780Options = { memoryMB: run.memoryMB, disk, boot: 'single', direct: true, cpuModel: run.cpu,
    nsPerInstruction: CPU_NS_PER_INSTRUCTION[run.cpu], diskTiming: run.disk, ...(kernel ? { kernel } : {}) };
  const names = new Set<string>();
  for (const s of run.steps) {
    Object.keys(s.kernel).filter((n) => !findToggle(n)?.code).forEach((n) => names.add(n));
    s.step.readback.forEach((n) => names.add(n));
  }
  let probe: Vax780System;
  try {
    probe = api.create(base);
  } catch (e) {
    const damage = disk.takeDamage();
    throw new ImageError([`${e instanceof Error ? e.message : String(e)}${damage !== null ? ` (the disk image is damaged: ${damage})` : ''}`]);
  }
  try {
    if (names.size > 0) {
      const symbols = probe.kernelSymbols([...names].map((n) => `_${n}`));
      for (const s of run.steps) problems.push(...validateSettings(s.kernel, symbols, { memoryMB: run.memoryMB }));
      for (const n of names) if (symbols[`_${n}`] == null) problems.push(`${n}: this kernel has no variable _${n}`);
    }
  } finally {
    probe.destroy();
  }
  if (problems.length === 0) {
    const seen = new Set<string>();
    for (const s of run.steps) {
      const key = JSON.stringify(s.kernel);
      if (Object.keys(s.kernel).length === 0 || seen.has(key)) continue;
      seen.add(key);
      try {
        api.create({ ...base, set: s.kernel }).destroy();
      } catch (e) {
        problems.push(`step ${s.step.id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  if (problems.length > 0) throw new SettingsError([...new Set(problems)]);
}

// ------------------------------------------------------------ limits

const round = roundFixed;

/** Default limit: five times the paper's (scaled) elapsed time, at least 120 virtual seconds. */
export function rowLimit(paperElapsed: number): number {
  return Math.max(120, Math.ceil(5 * paperElapsed));
}

/** Virtual seconds a step's machine takes before its timed command: the single-user boot and the set-up
 *  (about 10 on the 750 of the paper's experiments, measured). */
export const STEP_PREPARE_SECONDS = 10;

/** About how many virtual seconds a step's timed command takes at this count: the paper's elapsed time (or
 *  the step's typical time), in proportion to the count.  For estimates only (the page's "about 2 min"). */
export function expectedSeconds(step: StepSpec, count: number | null): number {
  const scale = count !== null && step.count ? count / step.count : 1;
  const base = step.paper?.elapsed ?? step.typicalSeconds ?? (step.limitSeconds ?? 100) / 5;
  return base * scale;
}

/** A step's limit: rowLimit of the paper's elapsed time when it has one
 *  (scaled to our count when the figures scale), else the step's own
 *  (scaled to our count), else 600 s. */
export function stepLimit(step: StepSpec, count: number | null): number {
  const scale = count !== null && step.count ? count / step.count : 1;
  const elapsed = step.paper?.elapsed;
  if (elapsed !== undefined) return rowLimit(step.paper!.scales ? round(elapsed * scale, 3) : elapsed);
  return Math.max(120, Math.ceil((step.limitSeconds ?? 600) * Math.min(1, scale)));
}

function rowPaper(step: StepSpec, count: number | null, kernel: Record<string, number>): RowPaper | null {
  const p = stepPaper(step, kernel);
  if (!p) return null;
  const scale = count !== null && p.count > 0 ? count / p.count : 1;
  const f = (x: number | undefined) => (x === undefined ? undefined : round(p.scales ? x * scale : x, 3));
  const out: RowPaper = {
    elapsed: f(p.elapsed), user: f(p.user), system: f(p.system),
    scale: round(scale, 6), iterations: p.count,
    pageFaults: p.pageFaults === undefined ? undefined : p.scales ? Math.round(p.pageFaults * scale) : p.pageFaults,
    pfst: p.pfst, source: p.source, column: p.column, scaled: p.scales,
  };
  for (const k of Object.keys(out) as (keyof RowPaper)[]) if (out[k] === undefined) delete out[k];
  return out;
}

function readKernelLongs(sys: Vax780System, names: string[]): Record<string, number | null> {
  if (names.length === 0) return {};
  const symbols = sys.kernelSymbols(names.map((n) => `_${n}`));
  const out: Record<string, number | null> = {};
  for (const n of names) {
    const a = symbols[`_${n}`];
    out[n] = a == null ? null : i32(sys.readKernel(a, 4), 0);
  }
  return out;
}

// ------------------------------------------------------------ running

/** The most seeds a run may have (RunOptions.spinSeeds): each is a whole run of every step. */
export const MAX_SPIN_SEEDS = 99;

export async function runExperiment(
  api: Vax780Api, disk: NonNullable<Vax780Options['disk']>, spec: ExperimentSpec, options: RunOptions = {},
): Promise<ExperimentResult> {
  const run = resolveRun(spec, options);
  const nsPerInstruction = CPU_NS_PER_INSTRUCTION[run.cpu];
  const spinSeeds = options.spinSeeds ?? 1;
  if (!Number.isSafeInteger(spinSeeds) || spinSeeds < 1 || spinSeeds > MAX_SPIN_SEEDS) {
    throw new SettingsError([`spinSeeds: a whole number from 1 to ${MAX_SPIN_SEEDS}, got ${spinSeeds}`]);
  }
  const onlySeed = options.seed;
  if (onlySeed !== undefined && (!Number.isSafeInteger(onlySeed) || onlySeed < 1 || onlySeed > spinSeeds)) {
    throw new SettingsError([`seed: a whole number from 1 to spinSeeds (${spinSeeds}), got ${onlySeed}`]);
  }
  const seeds = onlySeed !== undefined ? [onlySeed] : Array.from({ length: spinSeeds }, (_, i) => i + 1);
  const memoryNote = run.memoryMB === spec.machine.memoryMB && run.cpu === spec.machine.cpu
    ? spec.machine.memoryNote
    : `${run.memoryMB} MB${run.cpu !== spec.machine.cpu ? ` on a ${run.cpu} preset` : ''}, set for this run ` +
      `(the experiment's machine: a ${spec.machine.cpu} with ${spec.machine.memoryMB} MB)`;
  // One shared image for every step (a Uint8Array would be copied per machine).
  const image = disk instanceof Uint8Array ? api.loadImage(disk) : disk;
  const rows: RowResult[] = [];
  const snapshots = options.profile ? null : options.bootSnapshots === undefined ? new BootSnapshots() : options.bootSnapshots;
  const result = (): ExperimentResult => ({
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    experiment: spec.id,
    title: spec.title,
    machine: {
      cpu: run.cpu, nsPerInstruction, memoryMB: run.memoryMB, memoryNote, boot: spec.machine.boot, direct: true,
      ...(run.disk !== DEFAULT_DISK_TIMING ? { disk: run.disk } : {}),
      spinSeeds,
      ...(run.spin !== DEFAULT_SPIN ? { spin: run.spin } : {}),
      ...(spec.machine.drives === 2 ? { drives: 2 } : {}),
    },
    image: options.image ?? null,
    // Only when the kernel is not the image's /vmunix, or when it is but the experiment boots another by
    // default (ExperimentSpec.kernel: Table 2), so a result always says which kernel ran.
    ...(options.kernel ? { kernel: { name: options.kernel.name, ...(options.kernel.sha256 ? { sha256: options.kernel.sha256 } : {}) } }
      : spec.kernel !== undefined ? { kernel: { name: kernelResultName(null) } } : {}),
    parameters: run.parameters,
    kernelSettings: run.kernel,
    compare: spec.compare,
    status: rows.length === run.steps.length && rows.every((r) => r.status === 'ok') ? 'ok' : 'failed',
    rows: [...rows],
    group: spec.group,
    paperRef: spec.paperRef,
    view: spec.view,
  });
  try {
    checkKernelSettings(api, image, run, options.kernel?.bytes);
    options.onPartial?.(result());
    const keep = options.counters === 'all' ? null : new Set(spec.counters);
    for (const { step, index, count, kernel } of run.steps) {
      // A Stop that came between two steps: this step runs into it at its first wait and is kept as the
      // stopped row, so a stopped run always ends on the row that says so (never as if it had finished).
      const stoppedBefore = options.signal?.aborted === true;
      options.onStep?.({ step, index, phase: 'start' });
      const runs: RowResult[] = [];
      for (const seed of seeds) {
        if (runs.length > 0 && options.signal?.aborted) break;
        runs.push(await runStep(api, image, spec, index, step, count, kernel, run, seed, options, keep, snapshots));
      }
      const row = onlySeed !== undefined ? runs[0]! : stepRow(step, runs, spinSeeds);
      rows.push(row);
      options.onStep?.({ step, index, phase: 'end', result: row });
      options.onPartial?.(result());
      if (stoppedBefore || (options.signal?.aborted && row.failure?.kind === 'stopped')) break;
    }
  } finally {
    if (image !== disk) image.dispose();
  }
  return result();
}

/** A step's machine, but for its disk and kernel file: how runStep creates
 *  it (and so what a shipped snapshot of it must have been made with). */
export function stepMachineOptions(run: ResolvedRun, kernel: Record<string, number>, spinSeed: number,
  drives: MachineSpec['drives'] = 1): Omit<Vax780Options, 'disk'> {
  return {
    memoryMB: run.memoryMB, boot: 'single', direct: true, set: kernel, cpuModel: run.cpu,
    nsPerInstruction: CPU_NS_PER_INSTRUCTION[run.cpu], diskTiming: run.disk, diskSpinSeed: spinSeed,
    ...(run.spin === 'locked' ? { diskSpinLocked: true } : {}),
    ...(drives === 2 ? { secondDrive: true } : {}),
  };
}

/**
 * A step's row from its runs, one per seed in seed order (every seed's, or
 * those that ran before a Stop): the median run with its range, marked as a
 * calibration row when the step is one.  The one place that makes a row of
 * seeds: runExperiment's, and sweep.ts's from seeds run as units of their
 * own (RunOptions.seed) on any workers, so both give the same bytes.  The
 * runs are not changed.
 */
export function stepRow(step: StepSpec, runs: RowResult[], seeds: number): RowResult {
  const row = medianRun(runs, seeds);
  return step.calibration ? { ...row, calibration: true } : row;
}

/** The run with the median elapsed time (the lower median for an even
 *  count; a failed run counts as slowest), with the ranges when there were
 *  several (times, and page-ins where the rows have them); the first failure
 *  if none succeeded.  A copy when it adds the ranges: the runs are not changed. */
export function medianRun(runs: RowResult[], seeds: number): RowResult {
  const ok = runs.filter((r) => r.status === 'ok' && r.guest);
  if (ok.length === 0) return runs[0]!;
  const sorted = [...ok].sort((a, b) => a.guest!.real - b.guest!.real);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  if (seeds > 1) {
    if (ok.length < runs.length) return runs.find((r) => r.status !== 'ok')!;
    const range = (f: (r: RowResult) => number): SpreadRange => ({ min: Math.min(...ok.map(f)), max: Math.max(...ok.map(f)) });
    return {
      ...median,
      spread: {
        seeds, real: range((r) => r.guest!.real), user: range((r) => r.guest!.user), sys: range((r) => r.guest!.sys),
        // The paging rows' page-ins too: Table 7 compares a count, and a reader must see whether the seed moves it.
        ...(ok.every((r) => r.derived?.pageFaults !== undefined) ? { pageFaults: range((r) => r.derived!.pageFaults!) } : {}),
      },
    };
  }
  return median;
}

/** How often the counters are sampled during a timed command, and the
 *  slice that makes that possible (samples fall on slice boundaries; a
 *  200,000-instruction slice is 0.4 virtual s on a 780, 0.67 on a 750).
 *  By default about 60 samples over the paper's time for the step, between
 *  0.1 and 1 virtual second apart, so a short run still draws a curve and a
 *  long one keeps its JSON small.  Deterministic: it depends only on the
 *  experiment, never on the host. */
export function samplingFor(expectedSeconds: number | undefined, requested?: number): { seconds: number; slice: number } {
  let seconds = requested ?? (expectedSeconds !== undefined && expectedSeconds > 0
    ? Math.min(1, Math.max(0.1, Math.round((expectedSeconds / 60) * 10) / 10))
    : 1);
  if (!(seconds > 0)) seconds = 1;
  return { seconds, slice: seconds < 0.5 ? 25_000 : CONSOLE_SLICE };
}

async function runStep(
  api: Vax780Api, image: DiskImage, spec: ExperimentSpec, index: number, step: StepSpec, count: number | null,
  kernel: Record<string, number>, run: ResolvedRun, spinSeed: number, options: RunOptions,
  keep: Set<string> | null, snapshots: BootSnapshots | null,
): Promise<RowResult> {
  const limitSeconds = options.limitSeconds ?? stepLimit(step, count);
  image.takeDamage();   // what an earlier step (or a check) read is its own
  const command = `/bin/time ${stepCommand(step, count)}`;
  const result: RowResult = {
    test: step.label, command, iterations: count ?? 1, status: 'ok', limitSeconds, paper: rowPaper(step, count, kernel),
    step: step.id, kernelSettings: kernel,
  };
  let sys: Vax780System | null = null;
  let profiling = false;
  const profileCode: ProfileCode | null = options.profile ? await import('../profile/index') : null;
  try {
    const machineOptions: Vax780Options = {
      ...stepMachineOptions(run, kernel, spinSeed, spec.machine.drives), disk: image,
      ...(options.kernel ? { kernel: options.kernel.bytes } : {}), profile: options.profile === true,
    };
    const key = snapshots ? bootKey(image, machineOptions, SINGLE_USER_BOOT, options.kernel?.sha256) : '';
    let saved: BootSnapshot | undefined = snapshots ? await snapshots.take(key) : undefined;
    if (saved) {
      try {
        sys = api.create({ ...machineOptions, restore: saved.bytes });
      } catch (e) {
        // A snapshot from elsewhere that this emulator cannot restore (another
        // build): boot instead, and save this build's.  One made here must restore.
        if (saved.origin !== 'shipped') throw e;
        snapshots!.delete(key);
        saved = undefined;
      }
    }
    if (saved) snapshots!.noteStart(saved.origin);
    sys ??= api.create(machineOptions);
    const machine = sys;
    let sampler: CounterSampler | null = null;
    let slices = 0;
    const seeds = options.spinSeeds ?? 1;
    const progress = (): void => options.onProgress?.({
      step: index + 1, steps: spec.steps.length, label: step.label,
      virtualSeconds: round(Number(machine.timeNs()) / 1e9, 3), instructions: Number(machine.instructionCount()),
      ...(seeds > 1 ? { seed: { n: spinSeed, of: seeds } } : {}),
    });
    const hooks: SessionHooks = {
      signal: options.signal,
      pause: options.pause,
      onConsole: options.onConsole,
      onSlice: () => {
        const sample = sampler?.poll();
        if (sample) options.onSample?.(sample);
        if (++slices % 10 === 0) progress();
      },
    };
    const session = new ConsoleSession(sys, (r) => api.stopName(r), hooks, saved);
    progress();
    if (saved) {
      // The boot as it was printed, for whoever shows the console.
      if (saved.transcript) options.onConsole?.(saved.transcript);
    } else {
      await session.expect(SINGLE_USER_BOOT.prompt, SINGLE_USER_BOOT.limitSeconds, SINGLE_USER_BOOT.slice);
      if (snapshots) {
        snapshots.noteStart('booted');
        const bytes = sys.snapshot(encodeHostPart(session.transcript, session.matchEnd));
        snapshots.set(key, { bytes, transcript: session.transcript, mark: session.matchEnd, origin: 'here' });
      }
    }
    for (const line of [...machineSetup(spec.machine), placementSetup(spinSeed), ...step.setup]) {
      session.send(line);
      const out = await session.expect(PROMPT, SETUP_LIMIT_S);
      const said = out.output.split(/\r?\n/).slice(1, -1).filter((l) => l.trim() !== '');
      if (said.length > 0) {
        throw new SessionFailure('program error', `set-up line \`${line}\` printed ${JSON.stringify(said.join('\n'))}`, out.output);
      }
    }
    if (step.readback.length > 0) result.readback = readKernelLongs(sys, step.readback);
    const i0 = sys.instructionCount();
    const t0 = sys.timeNs();
    const sampling = samplingFor(result.paper?.elapsed, options.sampleSeconds);
    // Nothing shown live and only some series kept: the samples read only what those need (the same values).
    sampler = new CounterSampler(sys, index, sampling.seconds, keep && !options.onSample ? keep : undefined);
    if (options.profile) sys.profileClear();
    profiling = options.profile === true;
    session.send(`${command}; echo exit $?`);
    const done = await session.expect(PROMPT, limitSeconds, sampling.slice);
    if (profiling) result.profile = profileSummary(sys, profileCode!);
    profiling = false;
    const last = sampler.finish();
    if (last) options.onSample?.(last);
    result.counters = keepSeries(sampler.series(), keep);
    result.totals = sampler.totals();
    progress();
    result.emulator = {
      instructions: (done.instructions - i0).toString(),
      virtualSeconds: round(Number(done.timeNs - t0) / 1e9, 6),
      machineInstructions: done.instructions.toString(),
      machineVirtualSeconds: round(Number(done.timeNs) / 1e9, 6),
    };
    const timed = parseTimedOutput(done.output, command);
    const times = timed.times;
    result.guest = { real: times.real, user: times.user, sys: times.sys, line: times.line };
    if (spec.view === 'paging') result.derived = pagingFigures(result);
    if (timed.exitStatus !== 0 || timed.other.length > 0) {
      throw new SessionFailure('program error',
        `\`${command}\` exited ${timed.exitStatus}${timed.other.length ? `, printing ${JSON.stringify(timed.other.join('\n'))}` : ''}`,
        done.output);
    }
  } catch (e) {
    if (!(e instanceof SessionFailure)) throw e;
    result.status = 'failed';
    result.failure = { kind: e.kind, message: limitMessage(e, limitSeconds, options), output: e.output };
    // The command's profile up to the failure: what ran.
    if (profiling && sys) result.profile = profileSummary(sys, profileCode!);
  } finally {
    sys?.destroy();
  }
  // A chunk of the image that did not decompress to its checksum: the guest's disk read it as an I/O error, and
  // whatever came of that (a hard error, a time limit, or nothing it noticed) is not a run of the experiment.
  const damage = image.takeDamage();
  if (damage !== null) {
    result.status = 'failed';
    result.failure = {
      kind: 'damaged image',
      message: `the disk image is damaged (${damage}): the guest read it as a disk error` +
        `${result.failure ? `, and then: ${result.failure.message}` : ''}`,
      output: result.failure?.output ?? '',
    };
  }
  return result;
}

/** The profile of the timed command so far, summed up (PROFILE_TOP functions,
 *  contexts with at least PROFILE_MIN_SHARE of its time). */
function profileSummary(sys: Vax780System, code: ProfileCode): ProfileSummary | undefined {
  const text = sys.profileJson();
  return text === null ? undefined
    : code.summarize(code.buildProfile(code.parseRawProfile(text)), { top: PROFILE_TOP, minShare: PROFILE_MIN_SHARE });
}

/** What a result keeps of each row's profile (RunOptions.profile). */
export const PROFILE_TOP = 40;
export const PROFILE_MIN_SHARE = 0.001;

/** A time-limit failure says which limit and how to change it. */
function limitMessage(e: SessionFailure, limitSeconds: number, options: RunOptions): string {
  if (e.kind !== 'time limit') return e.message;
  const which = e.message.includes(`within ${limitSeconds} virtual`)
    ? `the timed command's limit${options.limitSeconds === undefined ? ' (5 x the paper\'s time, at least 120 s; --limit changes it)' : ' (--limit)'}`
    : 'the boot or set-up limit';
  return `${e.message} — ${which}`;
}

function keepSeries(series: CounterSeries, keep: Set<string> | null): CounterSeries {
  if (!keep) return series;
  const values: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(series.values)) if (keep.has(k)) values[k] = v;
  return { t: series.t, values };
}

/** Page faults (page-ins) and the page fault service time of a paging row. */
export function pagingFigures(row: RowResult): RowDerived {
  const out: RowDerived = {};
  const pgin = row.totals?.pgin;
  if (pgin !== undefined) {
    out.pageFaults = pgin;
    if (pgin > 0 && row.guest) out.pfstMs = round((row.guest.sys * 1000) / pgin, 3);
  }
  if (row.paper?.pfst !== undefined) out.paperPfstMs = round(row.paper.pfst / 100, 3);
  return out;
}

/** Virtual seconds of a result: the timed commands, and the steps' machines from power-on. */
export function virtualSeconds(result: ExperimentResult): { commands: number; machines: number } {
  let commands = 0;
  let machines = 0;
  for (const r of result.rows) {
    commands += r.emulator?.virtualSeconds ?? 0;
    machines += r.emulator?.machineVirtualSeconds ?? 0;
  }
  return { commands: round(commands, 3), machines: round(machines, 3) };
}
