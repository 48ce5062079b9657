// Sweeps: one experiment run at every point of one or two settings
// (`nchsize=0,32,64,154,500,1000`, `memoryMB=1..8`, `hz=50,100,250,1000`,
// `cpu=750,780`), to see how a figure changes as a knob turns.
//
// A sweep is data (SweepRequest: the experiment, the axes, the settings
// every point shares), so the command line, the page's workers and a batch
// engine's shards all make the same plan from it (planSweep): the points,
// each with its own experiment and run options, and the units of work — one
// step of one point, or with several seeds (RunOptions.spinSeeds) one seed
// of one step of one point: the smallest thing that boots its own machine,
// so a step's seeds spread over the workers too.  Units
// are independent and deterministic, so they can run anywhere, in any order,
// on any number of workers: the sweep's result is assembled from their
// results in the plan's order (assembleSweep: a step's row from its seeds'
// runs as runner.ts stepRow makes it) and is byte for byte the same
// whatever ran them.  The same units make `run EXPERIMENT --jobs N` (a sweep
// with no axes: one point) and the shards of a sweep spread over machines
// (sweepShard.ts).
//
// Any setting of toggles.ts can be an axis, any parameter of the experiment
// (iterations, divisor), and `kernel`: the kernel variants the installer
// builds (experiments/kernels/variants.ts) — a new knob or variant there is
// a new axis or value here, with nothing to add.  A setting the experiment's own steps set (namecache's
// nchsize: off, GENERIC's, 1000) replaces those steps' own values: the steps
// of one family (StepSpec.family) become one row, run at every point.
//
// No Node APIs and no host clock in the results: this runs in the browser's
// workers too.

import { DISK_TIMINGS, SPINS, type DiskTiming, type Spin } from '../../emu/js/constants';
import type { DiskImage } from '../../emu/js/diskImage';
import type { Vax780Api } from '../../emu/js/vax780';
import { DISTRIBUTED_KERNEL_NAME, KERNELS, effectiveKernelName, isKernelChoice } from '../kernels/variants';
import { findExperiment, type ExperimentSpec, type ExperimentView, type StepSpec } from './experiments';
import { MEMORY_MB_SCHEMA, RESULT_SCHEMA, checkSeries, type ExperimentResult, type RowResult } from './result';
import {
  arr, at, check, int, num, nul, obj, oneOf, rec, str, type Expect, type Infer, type Paths, type Same,
} from './schema';
import { BootSnapshots } from './bootSnapshots';
import type { CounterSample } from './counters';
import { roundFixed } from './decimal';
import {
  checkKernelSettings, ImageError, MAX_PARAMETER, MAX_SPIN_SEEDS, resolveRun, runExperiment, SettingsError, stepRow, type RunOptions, type RunProgress,
} from './runner';
import { choiceName, closeToggles, expectedValues, findToggle, settingValue, TOGGLES, validateSetting } from './toggles';

/** The most points a sweep may have (the product of its axes' lengths). */
export const MAX_SWEEP_POINTS = 200;
/** One or two settings. */
export const MAX_SWEEP_AXES = 2;
/** The most workers a sweep (or run --jobs) may have: each holds a machine
 *  and its own emulator (about 30 MB), and more than the cores only share them. */
export const MAX_JOBS = 32;

export const SWEEP_FORMAT = 'vaxlab-sweep-result';
export const SWEEP_VERSION = 1;

// ------------------------------------------------------------ the request

/** One setting and the values it takes, in the order given. */
export interface SweepAxis {
  setting: string;
  values: number[];
}

/** What every point shares: the run options of `vaxlab run` (a --set here is fixed, not swept). */
export interface SweepBase {
  cpu?: '750' | '780';
  memoryMB?: number;
  disk?: DiskTiming;
  parameters: Record<string, number>;
  /** Kernel and machine settings (toggles.ts), by name. */
  set: Record<string, number>;
  limitSeconds?: number;
  counters?: 'experiment' | 'all';
  /** Runs of each step with seeds 1..N: disk phase, clock phase and page placement (RunOptions.spinSeeds). */
  spinSeeds?: number;
  /** The disks' rotation (RunOptions.spin). */
  spin?: Spin;
  /** A kernel variant to boot instead of the experiment's own (ExperimentSpec.kernel; absent: the image's
   *  /vmunix), by name (experiments/kernels); DISTRIBUTED_KERNEL_NAME: the image's /vmunix. */
  kernel?: string;
  /** Profile each step's timed command (RunOptions.profile). */
  profile?: boolean;
}

/** The kernel a variant's name stands for, as RunOptions takes it (its bytes
 *  loaded by whoever runs the units: the CLI from the files beside the image). */
export type KernelResolver = (name: string) => RunOptions['kernel'] | undefined;

/** The setting that picks the kernel variant (values: indexes of KERNELS, as disk's are of its timings). */
export const KERNEL_SETTING = 'kernel';

export interface SweepRequest {
  experiment: string;
  axes: SweepAxis[];
  base: SweepBase;
}

// ------------------------------------------------------------ settings

/** Where the paper's figures belong on an axis: at one value (the paper's
 *  machine and kernel: hz 100, a 750, 4.5 MB), at the values the
 *  experiment's own steps used ('rows': each row says, by having figures or
 *  not), or nowhere (the paper's value is unknown: nbuf is computed at boot). */
export type AxisPaper = { at: number } | 'rows' | null;

/** A setting as a sweep turns it. */
export interface SweepSetting {
  name: string;
  kind: 'toggle' | 'parameter' | 'kernel';
  /** Values that are names (disk: rp06, eagle, ideal): no ranges. */
  named: boolean;
  /** A value as typed (a number, or a name), or null. */
  parse(raw: string): number | null;
  /** Why a value is refused, or null. */
  check(value: number): string | null;
  /** A value as shown (disk 1: eagle). */
  label(value: number): string;
  /** What the setting takes, in words. */
  expected: string;
  paper: AxisPaper;
}

/** The steps of spec that set kernel variable `name` themselves. */
function stepsSetting(spec: ExperimentSpec, name: string): StepSpec[] {
  return spec.steps.filter((s) => Object.hasOwn(s.kernel, name));
}

/** How a sweep of spec turns setting `name`, or why it cannot. */
export function sweepSetting(spec: ExperimentSpec, name: string): SweepSetting | string {
  if (name === KERNEL_SETTING) {
    // The distributed /vmunix last, so the variants keep their indexes (links and results made before it).
    const names = [...KERNELS.map((k) => k.name), DISTRIBUTED_KERNEL_NAME];
    return {
      name, kind: 'kernel', named: true,
      parse: (raw) => {
        const i = names.indexOf(raw.trim());
        return i >= 0 ? i : null;
      },
      check: (v) => (Number.isInteger(v) && names[v] !== undefined ? null : `${name}: one of ${names.join(', ')}, got ${v}`),
      label: (v) => names[v] ?? String(v),
      expected: `one of ${names.join(', ')}`,
      // The paper's point is the kernel the experiment boots by default: Table 2's rows the paper's kernel as the
      // CSRG history dates it (ExperimentSpec.kernel), the paging rows like-4.2, the others the image's /vmunix.
      paper: { at: names.indexOf(effectiveKernelName(spec.kernel) ?? DISTRIBUTED_KERNEL_NAME) },
    };
  }
  if (Object.hasOwn(spec.parameters, name)) {
    return {
      name, kind: 'parameter', named: false,
      parse: (raw) => (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(Number(raw.trim())) ? Number(raw.trim()) : null),
      check: (v) => (!Number.isSafeInteger(v) || v < 1 ? `${name}: a whole number, 1 or more, got ${v}`
        : v > MAX_PARAMETER ? `${name}: at most ${MAX_PARAMETER} (the guest's program reads it as a C int), got ${v}` : null),
      label: (v) => String(v),
      expected: 'a whole number, 1 or more',
      // The experiment's default is the paper's count (iterations) or all of it (divisor 1).
      paper: { at: spec.parameters[name]! },
    };
  }
  const toggle = findToggle(name);
  if (!toggle) {
    const close = closeToggles(name);
    const params = Object.keys(spec.parameters);
    return `unknown setting "${name}"${close.length ? ` (did you mean ${close.map((c) => `"${c}"`).join(' or ')}?)` : ''}; ` +
      `a sweep turns ${TOGGLES.map((t) => t.name).join(', ')}, ${KERNEL_SETTING}${params.length ? ` or ${spec.id}'s ${params.join(', ')}` : ''}`;
  }
  let paper: AxisPaper = null;
  const own = stepsSetting(spec, name);
  if (own.length > 0) {
    const loose = own.filter((s) => !s.family);
    if (loose.length > 0) {
      return `${name}: ${spec.id}'s steps ${loose.map((s) => s.id).join(', ')} set it themselves, as the experiment's own comparison`;
    }
    paper = 'rows';
  } else if (name === 'cpu') paper = { at: Number(spec.machine.cpu) };
  else if (name === 'memoryMB') paper = { at: spec.machine.memoryMB };
  else if (name === 'disk' || name === 'spin') paper = { at: 0 };
  else if (toggle.generic !== undefined) paper = { at: toggle.generic };
  return {
    name, kind: 'toggle', named: !!toggle.choices,
    parse: (raw) => settingValue(name, raw),
    check: (v) => validateSetting(name, v),
    label: (v) => choiceName(name, v) ?? String(v),
    expected: expectedValues(name),
    paper,
  };
}

/** The setting's value the experiment's step uses on its own (its kernel's, else GENERIC's), or undefined. */
function ownValue(step: StepSpec, name: string): number | undefined {
  return Object.hasOwn(step.kernel, name) ? step.kernel[name] : findToggle(name)?.generic;
}

// ------------------------------------------------------------ values

/** Decimal-safe: 1..2:0.1 gives 1.1, not 1.1000000000000001. */
const tidy = (x: number): number => roundFixed(x, 9);

/** How many values a range lo..hi:step has (Infinity when it never ends). */
function rangeCount(lo: number, hi: number, step: number): number {
  return Math.floor(tidy((hi - lo) / step)) + 1;
}

/**
 * The values of one axis as typed: a list (`0,32,64`), ranges (`1..8`: every
 * whole number from 1 to 8; `1..8:0.5` in steps of 0.5), or both
 * (`50,60,100..1000:100`); named values by name (`disk=rp06,eagle`).  Every
 * value is checked; problems name the setting and the value.  A range is
 * counted before it is made, so a huge one costs nothing.
 */
export function parseAxis(setting: SweepSetting, raw: string): { axis: SweepAxis | null; problems: string[] } {
  const name = setting.name;
  const problems: string[] = [];
  const values: number[] = [];
  const text = raw.trim();
  if (text === '') return { axis: null, problems: [`${name}: no values (give a list such as ${name}=1,2,3 or a range such as ${name}=1..8)`] };
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') {
      problems.push(`${name}=${text}: an empty value between commas`);
      continue;
    }
    const range = /^(.+?)\.\.(.+?)(?::(.+))?$/.exec(item);
    if (range && !/^\d*\.\d+$/.test(item)) {
      if (setting.named) {
        problems.push(`${name}=${item}: ${name} takes names, not a range (${setting.expected})`);
        continue;
      }
      const [lo, hi, step] = [range[1]!, range[2]!, range[3] ?? '1'].map((s) => (/^-?\d*\.?\d+$/.test(s.trim()) ? Number(s) : NaN));
      if (!Number.isFinite(lo!) || !Number.isFinite(hi!) || !Number.isFinite(step!)) {
        problems.push(`${name}=${item}: a range is FROM..TO or FROM..TO:STEP with numbers (e.g. ${name}=1..8 or 1..8:0.5)`);
        continue;
      }
      if (!(step! > 0)) {
        problems.push(`${name}=${item}: the step must be more than 0`);
        continue;
      }
      if (lo! > hi!) {
        problems.push(`${name}=${item}: an empty range (${lo} is above ${hi})`);
        continue;
      }
      const count = rangeCount(lo!, hi!, step!);
      if (count > MAX_SWEEP_POINTS) {
        problems.push(`${name}=${item}: ${count.toLocaleString('en-US')} values; a sweep has at most ${MAX_SWEEP_POINTS} points`);
        continue;
      }
      for (let i = 0; i < count; i++) values.push(tidy(lo! + i * step!));
      continue;
    }
    const v = setting.parse(item);
    if (v === null) {
      problems.push(`${name}=${item}: not a value of ${name} (${setting.expected})`);
      continue;
    }
    values.push(v);
  }
  for (const v of values) {
    const why = setting.check(v);
    if (why !== null) problems.push(`${name}=${setting.label(v)}: ${why.startsWith(`${name}: `) ? why.slice(name.length + 2) : why}`);
  }
  const seen = new Set<number>();
  for (const v of values) {
    if (seen.has(v)) problems.push(`${name}=${setting.label(v)}: listed twice`);
    seen.add(v);
  }
  if (values.length > MAX_SWEEP_POINTS) {
    problems.push(`${name}: ${values.length} values; a sweep has at most ${MAX_SWEEP_POINTS} points`);
  }
  return { axis: problems.length === 0 ? { setting: name, values } : null, problems: [...new Set(problems)] };
}

// ------------------------------------------------------------ the plan

export interface SweepPoint {
  index: number;
  /** The axes' values at this point, by setting. */
  values: Record<string, number>;
  /** The experiment as this point runs it (its steps' families turned into rows, for a setting they set). */
  spec: ExperimentSpec;
  options: RunOptions;
  /** The kernel variant the point boots (its name: the request's, else the experiment's default), or null for
   *  the image's /vmunix. */
  kernel: string | null;
}

/** One step of one point, or one seed of it: what one worker runs at a time. */
export interface SweepUnit {
  index: number;
  point: number;
  step: string;
  /** With several seeds (SweepBase.spinSeeds > 1): the one seed of the step this unit runs (RunOptions.seed), the
   *  step's units its seeds 1..N in turn; absent with one seed (the unit is the step's row). */
  seed?: number;
}

export interface SweepPlan {
  request: SweepRequest;
  spec: ExperimentSpec;
  settings: SweepSetting[];
  points: SweepPoint[];
  units: SweepUnit[];
}

/** "hz=50 memoryMB=1" */
export function pointLabel(settings: SweepSetting[], values: Record<string, number>): string {
  return settings.map((s) => `${s.name}=${s.label(values[s.name]!)}`).join(' ');
}

/**
 * The experiment at one point.  Steps that set a swept variable themselves
 * are replaced by one step per family, with the family's id and label, the
 * variable left to the point, and the paper's figures of the family's member
 * whose own value is the point's (none when no member ran at that value).
 */
export function pointSpec(spec: ExperimentSpec, swept: string[], values: Record<string, number>): ExperimentSpec {
  const own = swept.filter((name) => stepsSetting(spec, name).length > 0);
  if (own.length === 0) return spec;
  // The families some member of which sets a swept variable.
  const families = new Set(spec.steps.filter((s) => s.family && own.some((n) => Object.hasOwn(s.kernel, n))).map((s) => s.family!.id));
  const steps: StepSpec[] = [];
  const done = new Set<string>();
  for (const step of spec.steps) {
    const family = step.family;
    if (!family || !families.has(family.id)) {
      steps.push(step);
      continue;
    }
    if (done.has(family.id)) continue;
    done.add(family.id);
    const members = spec.steps.filter((s) => s.family?.id === family.id);
    // The member that sets none of the swept variables (GENERIC's) stands for the family; else the first.
    const base = members.find((m) => own.every((n) => !Object.hasOwn(m.kernel, n))) ?? members[0]!;
    const match = members.find((m) => own.every((n) => ownValue(m, n) === values[n]));
    const kernel = { ...base.kernel };
    for (const n of own) delete kernel[n];
    steps.push({ ...base, id: family.id, label: family.label, kernel, paper: match?.paper ?? null });
  }
  return { ...spec, steps };
}

function runOptionsOf(base: SweepBase): RunOptions {
  const o: RunOptions = { parameters: { ...base.parameters }, set: { ...base.set } };
  if (base.cpu !== undefined) o.cpu = base.cpu;
  if (base.memoryMB !== undefined) o.memoryMB = base.memoryMB;
  if (base.disk !== undefined) o.disk = base.disk;
  if (base.limitSeconds !== undefined) o.limitSeconds = base.limitSeconds;
  if (base.counters !== undefined) o.counters = base.counters;
  if (base.spinSeeds !== undefined) o.spinSeeds = base.spinSeeds;
  if (base.spin !== undefined) o.spin = base.spin;
  if (base.profile) o.profile = true;
  return o;
}

/**
 * Checks a sweep and lays it out: every axis (known, not fixed as well,
 * values checked) and every point's settings together (resolveRun), each
 * problem named once (with the point when only some points have it).
 * Throws SettingsError listing them all; nothing has run.  No axes is one
 * point: the experiment as `run` runs it, in units (run --jobs).
 */
export function planSweep(request: SweepRequest): SweepPlan {
  const problems: string[] = [];
  const spec = findExperiment(request.experiment);
  if (!spec) throw new SettingsError([`no experiment "${request.experiment}" (vaxlab list shows them)`]);
  if (request.axes.length > MAX_SWEEP_AXES) {
    problems.push(`${request.axes.length} settings swept (${request.axes.map((a) => a.setting).join(', ')}); a sweep turns one or two`);
  }
  const settings: SweepSetting[] = [];
  const names = new Set<string>();
  for (const axis of request.axes) {
    if (names.has(axis.setting)) {
      problems.push(`${axis.setting}: swept twice`);
      continue;
    }
    names.add(axis.setting);
    const s = sweepSetting(spec, axis.setting);
    if (typeof s === 'string') {
      problems.push(s);
      continue;
    }
    settings.push(s);
    if (axis.values.length === 0) problems.push(`${axis.setting}: no values`);
    for (const v of axis.values) {
      const why = s.check(v);
      if (why !== null) problems.push(`${axis.setting}=${s.label(v)}: ${why.startsWith(`${axis.setting}: `) ? why.slice(axis.setting.length + 2) : why}`);
    }
    if (new Set(axis.values).size !== axis.values.length) problems.push(`${axis.setting}: a value listed twice`);
    const fixed = Object.hasOwn(request.base.set, axis.setting) ? `--set ${axis.setting}=${request.base.set[axis.setting]}`
      : Object.hasOwn(request.base.parameters, axis.setting) ? `--param ${axis.setting}=${request.base.parameters[axis.setting]}`
        : axis.setting === 'cpu' && request.base.cpu !== undefined ? `--cpu ${request.base.cpu}`
          : axis.setting === 'memoryMB' && request.base.memoryMB !== undefined ? `--mem ${request.base.memoryMB}`
            : axis.setting === 'disk' && request.base.disk !== undefined ? `--disk ${request.base.disk}`
              : axis.setting === 'spin' && request.base.spin !== undefined ? `--spin ${request.base.spin}`
              : axis.setting === KERNEL_SETTING && request.base.kernel !== undefined ? `--kernel ${request.base.kernel}` : null;
    if (fixed) problems.push(`${axis.setting}: both swept and fixed (${fixed}); give it once`);
  }
  if (request.base.kernel !== undefined && !isKernelChoice(request.base.kernel)) {
    problems.push(`--kernel ${request.base.kernel}: a sweep boots the kernel variants by name (${KERNELS.map((k) => k.name).join(', ')}, ${DISTRIBUTED_KERNEL_NAME})`);
  }
  const seeds = request.base.spinSeeds;
  if (seeds !== undefined && (!Number.isSafeInteger(seeds) || seeds < 1 || seeds > MAX_SPIN_SEEDS)) {
    problems.push(`spinSeeds: a whole number from 1 to ${MAX_SPIN_SEEDS}, got ${seeds}`);
  }
  const count = request.axes.reduce((n, a) => n * a.values.length, 1);
  if (count > MAX_SWEEP_POINTS) {
    problems.push(`${count.toLocaleString('en-US')} points (${request.axes.map((a) => `${a.values.length} ${a.setting}`).join(' × ')}); ` +
      `a sweep has at most ${MAX_SWEEP_POINTS}`);
  }
  if (problems.length > 0) throw new SettingsError([...new Set(problems)]);

  // Every point's settings together, as `run` would check them.
  const swept = settings.map((s) => s.name);
  const grid: Record<string, number>[] = [{}];
  for (const axis of request.axes) {
    const next: Record<string, number>[] = [];
    for (const g of grid) for (const v of axis.values) next.push({ ...g, [axis.setting]: v });
    grid.splice(0, grid.length, ...next);
  }
  const points: SweepPoint[] = [];
  const byProblem = new Map<string, string[]>();
  for (const [index, values] of grid.entries()) {
    const options = runOptionsOf(request.base);
    // The experiment's own kernel (Table 2: the paper's) unless the request names another.
    let kernel = effectiveKernelName(spec.kernel, request.base.kernel);
    for (const s of settings) {
      if (s.kind === 'parameter') options.parameters = { ...options.parameters, [s.name]: values[s.name]! };
      else if (s.kind === 'kernel') kernel = effectiveKernelName(spec.kernel, s.label(values[s.name]!));
      else options.set = { ...options.set, [s.name]: values[s.name]! };
    }
    const ps = pointSpec(spec, swept.filter((n) => n !== KERNEL_SETTING), values);
    try {
      resolveRun(ps, options);
    } catch (e) {
      if (!(e instanceof SettingsError)) throw e;
      for (const p of e.problems) byProblem.set(p, [...(byProblem.get(p) ?? []), pointLabel(settings, values)]);
    }
    points.push({ index, values, spec: ps, options, kernel });
  }
  if (byProblem.size > 0) {
    throw new SettingsError([...byProblem].map(([p, at]) => (at.length === points.length || settings.length === 0 ? p : `${at.join(', ')}: ${p}`)));
  }
  const units: SweepUnit[] = [];
  const spinSeeds = request.base.spinSeeds ?? 1;
  for (const point of points) {
    for (const step of point.spec.steps) {
      if (spinSeeds === 1) units.push({ index: units.length, point: point.index, step: step.id });
      else for (let seed = 1; seed <= spinSeeds; seed++) units.push({ index: units.length, point: point.index, step: step.id, seed });
    }
  }
  return { request, spec, settings, points, units };
}

// ------------------------------------------------------------ running units

/**
 * The worker's side of a sweep: the plan made again from the request (the
 * same everywhere), its kernel checks, and one unit at a time.
 */
export class SweepUnitRunner {
  readonly plan: SweepPlan;

  /** kernels: the variants' bytes by name, for a sweep that boots them (none: such a sweep's units fail saying so).
   *  bootSnapshots: the machines this worker booted, kept across units (bootSnapshots.ts), so a point's
   *  later steps on this worker start from its first step's machine instead of booting (the same result bytes). */
  constructor(private readonly api: Vax780Api, private readonly image: DiskImage, request: SweepRequest,
    private readonly kernels: KernelResolver = () => undefined, private readonly bootSnapshots: BootSnapshots = new BootSnapshots()) {
    this.plan = planSweep(request);
  }

  /** The point's kernel, as RunOptions takes it. */
  private kernelOf(point: SweepPoint): RunOptions['kernel'] {
    if (point.kernel === null) return undefined;
    const k = this.kernels(point.kernel);
    if (!k) throw new Error(`kernel ${point.kernel}: not available here (its file is not loaded)`);
    return k;
  }

  /** The checks that need the kernel (runner.checkKernelSettings) for every point: problems, or none. */
  check(): KernelCheck {
    const problems: string[] = [];
    let image = false;
    const seen = new Set<string>();
    for (const point of this.plan.points) {
      const run = resolveRun(point.spec, point.options);
      const key = JSON.stringify([point.kernel, run.memoryMB, run.cpu, run.disk, run.steps.map((s) => [s.kernel, s.step.readback])]);
      if (seen.has(key)) continue;
      seen.add(key);
      const at = pointLabel(this.plan.settings, point.values);
      try {
        checkKernelSettings(this.api, this.image, run, this.kernelOf(point)?.bytes);
      } catch (e) {
        if (!(e instanceof SettingsError)) {
          problems.push(`${at ? `${at}: ` : ''}${e instanceof Error ? e.message : String(e)}`);
          continue;
        }
        if (e instanceof ImageError) image = true;
        problems.push(...e.problems.map((p) => (at ? `${at}: ${p}` : p)));
      }
    }
    return { problems: [...new Set(problems)], image };
  }

  /** Runs unit `index`: its point's experiment with only its step (and only its seed). */
  async run(index: number, hooks: Pick<RunOptions, 'signal' | 'pause' | 'onProgress' | 'onConsole' | 'onSample' | 'image'> = {}): Promise<ExperimentResult> {
    const unit = this.plan.units[index];
    if (!unit) throw new RangeError(`unit ${index}: the sweep has ${this.plan.units.length}`);
    const point = this.plan.points[unit.point]!;
    const kernel = this.kernelOf(point);
    return runExperiment(this.api, this.image, point.spec, {
      ...point.options, ...hooks, ...(kernel ? { kernel } : {}), steps: [unit.step], ...(unit.seed !== undefined ? { seed: unit.seed } : {}),
      bootSnapshots: this.bootSnapshots,
    });
  }
}

/** What the kernel checks of a sweep found (SweepUnitRunner.check), as data so that it crosses a thread or a
 *  worker's messages whole: the problems (none: the units may run), and whether a machine could not be made of the
 *  image and kernel at all (an ImageError: the command line's exit 3), rather than only a setting refused. */
export interface KernelCheck {
  problems: string[];
  image: boolean;
}

/** What became of a unit: its result (which may have failed), or why it could not run at all. */
export type UnitOutcome = { result: ExperimentResult } | { error: string };

/** A worker that runs units (a Node worker thread, a Web Worker, or this thread). */
export interface UnitExecutor {
  /** The kernel checks of the whole sweep (SweepUnitRunner.check). */
  check(): Promise<KernelCheck>;
  /** Runs one unit; rejects only when it could not run (not when its step failed).  onSamples: the unit's
   *  counter samples as they come, a batch at a time (an executor that cannot send them leaves it uncalled). */
  run(unit: number, onProgress: (progress: RunProgress) => void, onSamples?: (samples: CounterSample[]) => void): Promise<ExperimentResult>;
  /** Stops the unit being run: it ends with its step failed, 'stopped'. */
  stop(): void;
}

export interface WorkerProgress {
  /** The unit being run, or null when idle (or finished). */
  unit: number | null;
  label: string;
  /** Units this worker has finished. */
  done: number;
  /** The step's machine's virtual seconds so far. */
  virtualSeconds: number;
}

export interface SweepProgress {
  total: number;
  done: number;
  failed: number;
  workers: WorkerProgress[];
  elapsedSeconds: number;
  /** Host seconds left, estimated from the units done so far; null before the first. */
  remainingSeconds: number | null;
  stopping: boolean;
}

export interface RunUnitsOptions {
  signal?: AbortSignal;
  /** Each unit as it ends (in the order they end, which varies), with the worker that ran it and its host seconds. */
  onUnit?: (unit: number, outcome: UnitOutcome, info: { worker: number; hostSeconds: number }) => void;
  onProgress?: (progress: SweepProgress) => void;
  /** The counter samples of the units running, a batch at a time, with the worker and unit they come from (for a
   *  live view; nothing in the result depends on them). */
  onSamples?: (samples: CounterSample[], from: { worker: number; unit: number; label: string }) => void;
  /** Host milliseconds (for the estimate only). */
  now?: () => number;
  /** The least host milliseconds between progress reports while units run (default 250). */
  progressMs?: number;
}

/** What a plan's unit is called in progress: "hz=50: syscall", "hz=50: syscall, seed 2 of 3". */
export function unitLabel(plan: SweepPlan, unit: number): string {
  const u = plan.units[unit]!;
  const point = plan.points[u.point]!;
  const step = point.spec.steps.find((s) => s.id === u.step)!;
  const at = pointLabel(plan.settings, point.values);
  const seed = u.seed !== undefined ? `, seed ${u.seed} of ${point.options.spinSeeds}` : '';
  return `${at ? `${at}: ` : ''}${step.label}${seed}`;
}

/**
 * Where a run of one experiment on several workers is (a plan of one point:
 * the page's runs over its pool), said as a run on one machine says it
 * (RunProgress): the units that ended counted in the plan's order, a step's
 * seeds in turn, so "step 2 of 3, seed 1 of 2" is as far along as the run
 * on one machine at that seed of that step; the labels of the steps the
 * workers run; the furthest virtual time among their machines.
 */
export function runProgressOf(plan: SweepPlan, progress: SweepProgress): RunProgress {
  const point = plan.points[0]!;
  const seeds = point.options.spinSeeds ?? 1;
  const at = Math.max(0, Math.min(progress.done, progress.total - 1));
  const busy = progress.workers.filter((w) => w.unit !== null);
  const labels = [...new Set(busy.map((w) => point.spec.steps.find((s) => s.id === plan.units[w.unit!]!.step)!.label))];
  return {
    step: Math.floor(at / seeds) + 1, steps: point.spec.steps.length,
    label: labels.length > 0 ? labels.join(', ') : 'starting',
    virtualSeconds: Math.max(0, ...busy.map((w) => w.virtualSeconds)), instructions: 0,
    ...(seeds > 1 ? { seed: { n: (at % seeds) + 1, of: seeds } } : {}),
  };
}

/**
 * Runs the units on the executors, each taking the next unit as it becomes
 * free.  First the kernel checks, on the first executor: problems throw
 * SettingsError (ImageError when the image or kernel is unusable) before anything runs.  A unit that fails (its step's
 * failure, or an error) is recorded and the others go on.  The signal stops
 * every executor's unit at once and runs no more.
 */
export async function runUnits(
  plan: SweepPlan, units: readonly number[], executors: readonly UnitExecutor[], options: RunUnitsOptions = {},
): Promise<{ outcomes: Map<number, UnitOutcome>; stopped: boolean }> {
  if (executors.length === 0) throw new RangeError('runUnits needs at least one executor');
  const checked = await executors[0]!.check();
  if (checked.problems.length > 0) throw checked.image ? new ImageError(checked.problems) : new SettingsError(checked.problems);
  const now = options.now ?? (() => performance.now());
  const t0 = now();
  const outcomes = new Map<number, UnitOutcome>();
  const queue = [...units];
  const workers: WorkerProgress[] = executors.map(() => ({ unit: null, label: '', done: 0, virtualSeconds: 0 }));
  let failed = 0;
  let lastReport = -Infinity;
  const stopped = () => options.signal?.aborted ?? false;
  const report = () => {
    lastReport = now();
    const done = outcomes.size;
    const elapsed = (now() - t0) / 1000;
    const running = workers.filter((w) => w.unit !== null).length;
    // Units in flight count as half done; the rest go at the pace so far, spread over the workers.
    const remainingSeconds = done === 0 ? null
      : Math.max(0, (elapsed / (done + running / 2)) * (units.length - done - running / 2));
    options.onProgress?.({
      total: units.length, done, failed, workers: workers.map((w) => ({ ...w })), elapsedSeconds: elapsed,
      remainingSeconds: remainingSeconds === null ? null : remainingSeconds, stopping: stopped(),
    });
  };
  const onAbort = () => {
    for (const e of executors) e.stop();
    report();
  };
  options.signal?.addEventListener('abort', onAbort);
  try {
    report();
    await Promise.all(executors.map(async (executor, w) => {
      const me = workers[w]!;
      for (;;) {
        if (stopped()) return;
        const unit = queue.shift();
        if (unit === undefined) return;
        me.unit = unit;
        me.label = unitLabel(plan, unit);
        me.virtualSeconds = 0;
        const started = now();
        report();
        if (stopped()) {
          // Stopped by whoever heard that report: the unit never starts.
          me.unit = null;
          me.label = '';
          return;
        }
        let outcome: UnitOutcome;
        try {
          outcome = {
            result: await executor.run(unit, (p) => {
              me.virtualSeconds = p.virtualSeconds;
              if (now() - lastReport >= (options.progressMs ?? 250)) report();
            }, options.onSamples ? (samples) => options.onSamples!(samples, { worker: w, unit, label: me.label }) : undefined),
          };
        } catch (e) {
          outcome = { error: e instanceof Error ? e.message : String(e) };
        }
        // A unit stopped before its step began has no row: it did not run.
        if (!('result' in outcome && outcome.result.rows.length === 0)) {
          outcomes.set(unit, outcome);
          if (!('result' in outcome) || outcome.result.status !== 'ok') failed++;
          options.onUnit?.(unit, outcome, { worker: w, hostSeconds: (now() - started) / 1000 });
        }
        me.done++;
        me.unit = null;
        me.label = '';
        report();
      }
    }));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  report();
  return { outcomes, stopped: stopped() };
}

// ------------------------------------------------------------ the result

export interface SweepAxisResult {
  setting: string;
  values: number[];
  /** The values as shown (disk's names). */
  labels: string[];
  /** The paper's value of the setting, where its figures belong on this axis (AxisPaper's `at`). */
  paperAt?: number;
  /** The paper's figures belong wherever a row has them (AxisPaper 'rows': the steps' own values). */
  paperFromRows?: true;
}

export interface SweepPointResult {
  values: Record<string, number>;
  /** The experiment's result at this point (its rows those that ran); null when none ran. */
  result: ExperimentResult | null;
  /** Steps that could not run at all (an error in the worker, not a failed step), with why. */
  errors?: { step: string; message: string }[];
}

export interface SweepResult {
  format: typeof SWEEP_FORMAT;
  version: typeof SWEEP_VERSION;
  experiment: string;
  title: string;
  view: ExperimentView;
  axes: SweepAxisResult[];
  base: SweepBase;
  /** ok: every step of every point ran and passed; stopped: Stop ended it; failed: some step failed. */
  status: 'ok' | 'failed' | 'stopped';
  points: SweepPointResult[];
}

/**
 * The point's result from its steps' parts (each the point's experiment with
 * one step: a unit's result, or its seeds' made one), joined in step order: exactly what running the point's experiment
 * whole gives, rows and all, when every unit ran.
 */
export function joinUnitResults(steps: number, parts: ExperimentResult[]): ExperimentResult | null {
  const first = parts[0];
  if (!first) return null;
  const rows: RowResult[] = parts.flatMap((p) => p.rows);
  return { ...first, status: rows.length === steps && rows.every((r) => r.status === 'ok') ? 'ok' : 'failed', rows };
}

/**
 * A step's part of its point's result, from its units' outcomes (those there
 * are): the unit's result; with several seeds, the seeds' results made one
 * with the step's row as runExperiment makes it (stepRow, the seeds in
 * order), or null while a seed has not run and none that ran failed.  And
 * the units that could not run at all.
 */
function stepPart(point: SweepPoint, units: readonly SweepUnit[], outcomes: ReadonlyMap<number, UnitOutcome>):
  { part: ExperimentResult | null; errors: { step: string; message: string }[] } {
  const got = units.flatMap((unit) => {
    const outcome = outcomes.get(unit.index);
    return outcome ? [{ unit, outcome }] : [];
  });
  const errors = got.flatMap(({ unit, outcome }) => ('error' in outcome
    ? [{ step: unit.step, message: unit.seed !== undefined ? `seed ${unit.seed}: ${outcome.error}` : outcome.error }] : []));
  const results = got.flatMap(({ outcome }) => ('result' in outcome ? [outcome.result] : []));
  const first = results[0];
  if (!first || units[0]!.seed === undefined) return { part: first ?? null, errors };
  const runs = results.flatMap((r) => r.rows);
  if (runs.length < units.length && runs.every((r) => r.status === 'ok')) return { part: null, errors };
  const step = point.spec.steps.find((s) => s.id === units[0]!.step)!;
  return { part: { ...first, rows: [stepRow(step, runs, units.length)] }, errors };
}

/** The sweep's result from what its units gave (in any order): the same bytes whoever ran them. */
export function assembleSweep(plan: SweepPlan, outcomes: ReadonlyMap<number, UnitOutcome>, stopped: boolean): SweepResult {
  // Each point's steps, each with its units (one, or its seeds'), in the plan's order.
  const steps = new Map<number, SweepUnit[][]>();
  for (const unit of plan.units) {
    const mine = steps.get(unit.point) ?? [];
    const last = mine.at(-1);
    if (last && last[0]!.step === unit.step) last.push(unit);
    else mine.push([unit]);
    steps.set(unit.point, mine);
  }
  let complete = true;
  const points = plan.points.map((point): SweepPointResult => {
    const parts = (steps.get(point.index) ?? []).map((units) => stepPart(point, units, outcomes));
    const errors = parts.flatMap((p) => p.errors);
    const result = joinUnitResults(point.spec.steps.length, parts.flatMap((p) => (p.part ? [p.part] : [])));
    if (!result || result.status !== 'ok' || errors.length > 0) complete = false;
    return { values: point.values, result, ...(errors.length > 0 ? { errors } : {}) };
  });
  return {
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    experiment: plan.spec.id,
    title: plan.spec.title,
    view: plan.spec.view,
    axes: plan.settings.map((s, i): SweepAxisResult => ({
      setting: s.name, values: plan.request.axes[i]!.values, labels: plan.request.axes[i]!.values.map((v) => s.label(v)),
      ...(s.paper === 'rows' ? { paperFromRows: true } : s.paper ? { paperAt: s.paper.at } : {}),
    })),
    base: plan.request.base,
    status: complete ? 'ok' : stopped ? 'stopped' : 'failed',
    points,
  };
}

/** The sweep's result as a file holds it (2-space indent, final newline). */
export function sweepJson(result: SweepResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** The executors' units all in this thread, one after the other (tests; a page without workers). */
export function localExecutor(runner: SweepUnitRunner, hooks: Pick<RunOptions, 'pause' | 'image'> = {}): UnitExecutor {
  let abort: AbortController | null = null;
  return {
    check: async () => runner.check(),
    async run(unit, onProgress, onSamples) {
      abort = new AbortController();
      try {
        return await runner.run(unit, {
          ...hooks, signal: abort.signal, onProgress, ...(onSamples ? { onSample: (sample) => onSamples([sample]) } : {}),
        });
      } finally {
        abort = null;
      }
    },
    stop() {
      abort?.abort();
    },
  };
}

// ------------------------------------------------------------ the schema

export const SWEEP_BASE_SCHEMA = obj({ parameters: rec(num), set: rec(num) }, {
  cpu: oneOf('750', '780'), memoryMB: MEMORY_MB_SCHEMA, disk: oneOf(...DISK_TIMINGS), limitSeconds: num,
  counters: oneOf('experiment', 'all'), spinSeeds: int(1, MAX_SPIN_SEEDS), spin: oneOf(...SPINS), kernel: str(100), profile: oneOf(true, false),
});

export const SWEEP_SCHEMA = obj({
  format: oneOf(SWEEP_FORMAT),
  version: oneOf(SWEEP_VERSION),
  experiment: str(100),
  title: str(1000),
  view: oneOf<ExperimentView[]>('table2', 'paging', 'namecache'),
  axes: arr(obj({ setting: str(100), values: arr(num, MAX_SWEEP_POINTS), labels: arr(str(100), MAX_SWEEP_POINTS) },
    { paperAt: num, paperFromRows: oneOf(true) }), MAX_SWEEP_AXES),
  base: SWEEP_BASE_SCHEMA,
  status: oneOf('ok', 'failed', 'stopped'),
  points: arr(obj({ values: rec(num), result: nul(RESULT_SCHEMA) }, { errors: arr(obj({ step: str(200), message: str(10_000) })) }),
    MAX_SWEEP_POINTS),
});

/** The schema is the types, field for field (see result.ts ResultSchemaChecks); the results inside are RESULT_SCHEMA's. */
type PointShape = Omit<SweepPointResult, 'result'>;
type SchemaPoint = Omit<Infer<typeof SWEEP_SCHEMA>['points'][number], 'result'>;
export type SweepSchemaChecks = [
  Expect<Same<Omit<Infer<typeof SWEEP_SCHEMA>, 'points'>, Omit<SweepResult, 'points'>>>,
  Expect<Same<Paths<Omit<Infer<typeof SWEEP_SCHEMA>, 'points'>>, Paths<Omit<SweepResult, 'points'>>>>,
  Expect<Same<SchemaPoint, PointShape>>,
  Expect<Same<Paths<SchemaPoint>, Paths<PointShape>>>,
];

/** Checks a sweep result read from outside (a file, the history): every field, and each point's result as validateResult does.  A clean copy. */
export function validateSweep(v: unknown, path: string): SweepResult {
  const result = check(SWEEP_SCHEMA, v, path) as SweepResult;
  result.points.forEach((p, i) => {
    if (p.result) checkSeries(p.result, at(at(path, 'points'), String(i)) + '.result');
  });
  return result;
}
