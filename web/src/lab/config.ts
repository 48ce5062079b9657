// The Configure form as data: what the user typed (raw strings, so a
// half-typed number stays on screen), its validation, and the run
// configuration it makes.  No React, no worker.

import { EXPERIMENTS, type ExperimentSpec } from '../../../experiments/runner/experiments';
import { resolveRun, SettingsError } from '../../../experiments/runner/runner';
import {
  TOGGLES, choiceName, expectedValues, findToggle, settingValue, validateSetting, type ToggleDef,
} from '../../../experiments/runner/toggles';
import type { DiskTiming, Spin } from '../../../emu/js/constants';
import { DISTRIBUTED_KERNEL_NAME, effectiveKernelName, isKernelChoice } from '../../../experiments/kernels/variants';
import type { Cpu, KernelName } from '../worker/protocol';

export interface FormState {
  experimentId: string;
  kernel: KernelName;
  /** Experiment parameters as typed, per experiment id ('' or absent: the experiment's default). */
  params: Record<string, Record<string, string>>;
  /** Kernel variables as typed ('' or absent: the kernel's own value). */
  kernelToggles: Record<string, string>;
  /** Machine knobs as typed; null: the experiment's machine (the paper's). */
  cpu: string | null;
  memoryMB: string | null;
  /** The disk's timing by name ('rp06', 'eagle', 'ideal', 'rm05'; NAMED_MACHINE_SETTINGS); null: rp06, the lab's drive. */
  disk: string | null;
  /** The disks' rotation by name (NAMED_MACHINE_SETTINGS): 'locked', the platters in step with virtual time (a loop
   *  that waits for a disk lasts whole turns, as the paper's did), or 'drifting'; null: drifting, the runner's default. */
  spin: Spin | null;
  /** Profile the run (the emulator's exact profiler; the guest runs the same). */
  profile: boolean;
  /** A kernel variant the installer built (experiments/kernels/variants.ts, by name) to boot instead of the
   *  experiment's own, or 'vmunix' (DISTRIBUTED_KERNEL_NAME) for the image's /vmunix; null: the experiment's
   *  own (ExperimentSpec.kernel: Table 2's is the paper's kernel, Tables 7 and 8's like-4.2; the others boot /vmunix
   *  as distributed). */
  variant: string | null;
  /** How many seeds each step runs with (1..N, RunOptions.spinSeeds: the disks' phase, the clock's and the page
   *  placement; each row the median run, with its range), as typed; null: 1, one run of each step. */
  seeds: string | null;
}

/** What a run is given; the same shape a permalink keeps (SharedRun.config). */
export interface RunSettings {
  cpu: Cpu;
  memoryMB: number;
  /** Kernel variables only. */
  set: Record<string, number>;
  parameters: Record<string, number>;
  /** The disk's timing, only when it is not rp06 (the default). */
  disk?: DiskTiming;
  /** The disks' rotation, only when locked (the spin setting of toggles.ts, the runner's RunOptions.spin; absent: drifting). */
  spin?: 'locked';
  /** The kernel asked for by name (a variant, or 'vmunix': the image's /vmunix), only when one was; absent:
   *  the experiment's own (ExperimentSpec.kernel, else /vmunix). */
  kernel?: string;
  /** Each step run with seeds 1..spinSeeds (RunOptions.spinSeeds; `vaxlab run --seeds N`), only when more than 1:
   *  absent, one run with seed 1 (so the settings of runs and links made before there was a choice read as they were). */
  spinSeeds?: number;
}

/** The most seeds the page's form takes: each seed is a whole run of every step, and the page is for runs of
 *  minutes (the command line takes up to runner.ts's MAX_SPIN_SEEDS; the README's fidelity figures are of 3 and 5). */
export const MAX_PAGE_SEEDS = 9;

/** Why a number of seeds is not one the page runs, or null (1..MAX_PAGE_SEEDS). */
export function seedsProblem(n: number | null): string | null {
  return n === null || n < 1 || n > MAX_PAGE_SEEDS ? `a whole number from 1 to ${MAX_PAGE_SEEDS}` : null;
}

export const KERNEL_TOGGLES: ToggleDef[] = TOGGLES.filter((t) => t.kind === 'kernel');
export const MACHINE_TOGGLES: ToggleDef[] = TOGGLES.filter((t) => t.kind === 'machine');

/**
 * The machine settings with named values, by their toggle's name (toggles.ts's choices, the default first): the
 * disk's timing and the disks' rotation.  The form holds each by name, null for the default; a run's settings (so a
 * permalink) have one only when it is not the default, as the runner's result records it; the address names one
 * only then too.
 */
export const NAMED_MACHINE_SETTINGS = ['disk', 'spin'] as const;
export type NamedMachineSetting = (typeof NAMED_MACHINE_SETTINGS)[number];

/** The form's machine settings, each under its toggle's name: null is the experiment's own (cpu, memoryMB) or the
 *  toggle's default (disk, spin). */
export const MACHINE_SETTINGS = ['cpu', 'memoryMB', ...NAMED_MACHINE_SETTINGS] as const;
export type MachineSetting = (typeof MACHINE_SETTINGS)[number];

export function isNamedMachineSetting(name: string): name is NamedMachineSetting {
  return (NAMED_MACHINE_SETTINGS as readonly string[]).includes(name);
}

export function isMachineSetting(name: string): name is MachineSetting {
  return (MACHINE_SETTINGS as readonly string[]).includes(name);
}

/** A named machine setting's names, the default first (its toggle's choices). */
export function machineChoices(name: NamedMachineSetting): readonly string[] {
  return findToggle(name)?.choices ?? [];
}

/** A named machine setting's default: its first name (rp06, drifting). */
export function defaultChoice(name: NamedMachineSetting): string {
  return machineChoices(name)[0] ?? '';
}

/**
 * A named machine setting as the form holds it, from a select or an address's value; null when the form does not
 * take it (the address's reader says so).  The disk's timing is held as given, as the processor and the memory are
 * (disk=Eagle is the Eagle, and a name it does not have is marked by checkForm as a typed error is; rp06 chosen is
 * held, as 750 chosen is); the rotation only by one of its names, its default as not set (spin=drifting reads as
 * an address without spin always has).
 */
export function heldChoice(name: NamedMachineSetting, given: string): Partial<Pick<FormState, NamedMachineSetting>> | null {
  if (name === 'disk') return { disk: given };
  if (!machineChoices('spin').includes(given)) return null;
  return { spin: given === defaultChoice('spin') ? null : (given as Spin) };
}

/** The name a named machine setting's select shows, and the changed-settings count goes by: the form's, when it is
 *  one of the toggle's (in any case), else the default (not set, or a name checkForm marks). */
export function shownChoice(form: FormState, name: NamedMachineSetting): string {
  const held = form[name]?.trim().toLowerCase() ?? '';
  return machineChoices(name).includes(held) ? held : defaultChoice(name);
}

export function initialForm(): FormState {
  return {
    experimentId: EXPERIMENTS.find((e) => e.id === 'syscall')?.id ?? EXPERIMENTS[0]?.id ?? '',
    kernel: '4.3BSD',
    params: {},
    kernelToggles: {},
    cpu: null,
    memoryMB: null,
    disk: null,
    spin: null,
    profile: false,
    variant: null,
    seeds: null,
  };
}

export function experimentById(id: string): ExperimentSpec | undefined {
  return EXPERIMENTS.find((e) => e.id === id);
}

/** The experiments in their paper sections, in the order EXPERIMENTS lists them, filtered by a search. */
export function groupedExperiments(filter: string): { group: string; experiments: ExperimentSpec[] }[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const groups = new Map<string, ExperimentSpec[]>();
  for (const e of EXPERIMENTS) {
    const hay = [e.id, e.title, e.group, e.description, e.paperRef].join(' ').toLowerCase();
    if (!words.every((w) => hay.includes(w))) continue;
    const list = groups.get(e.group) ?? [];
    list.push(e);
    groups.set(e.group, list);
  }
  return [...groups].map(([group, experiments]) => ({ group, experiments }));
}

function parseInteger(raw: string): number | null {
  const s = raw.trim();
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

export interface FormCheck {
  /** Messages by input id: 'param-NAME', 'toggle-NAME'. */
  errors: Record<string, string>;
  /** Problems of the settings together (hz with tick, a variable the experiment sets itself, ...). */
  problems: string[];
  /** What the kernel will do differently from what was asked (clamping). */
  notes: string[];
  settings: RunSettings | null;
}

export function checkForm(form: FormState): FormCheck {
  const errors: Record<string, string> = {};
  const spec = experimentById(form.experimentId);
  if (!spec) return { errors: { experiment: `no experiment "${form.experimentId}"` }, problems: [], notes: [], settings: null };

  const parameters: Record<string, number> = {};
  const typed = form.params[spec.id] ?? {};
  for (const [name, dflt] of Object.entries(spec.parameters)) {
    const raw = typed[name];
    if (raw === undefined || raw.trim() === '') {
      parameters[name] = dflt;
      continue;
    }
    const n = parseInteger(raw);
    if (n === null || n < 1) errors[`param-${name}`] = 'a whole number, 1 or more';
    else parameters[name] = n;
  }

  const set: Record<string, number> = {};
  for (const t of KERNEL_TOGGLES) {
    const raw = form.kernelToggles[t.name];
    if (raw === undefined || raw.trim() === '') continue;
    // As the command line's --set reads it (negative too: maxtextcache's -1, the release's "every text cached").
    const n = settingValue(t.name, raw);
    const message = n === null ? expectedValues(t.name) : validateSetting(t.name, n);
    if (message !== null || n === null) errors[`toggle-${t.name}`] = message ?? expectedValues(t.name);
    else set[t.name] = n;
  }

  let cpu: Cpu = spec.machine.cpu;
  if (form.cpu !== null && form.cpu.trim() !== '') {
    const n = parseInteger(form.cpu);
    const message = n === null ? '750 or 780' : validateSetting('cpu', n);
    if (message !== null || n === null) errors['toggle-cpu'] = message ?? '750 or 780';
    else cpu = n === 780 ? '780' : '750';
  }
  let memoryMB = spec.machine.memoryMB;
  if (form.memoryMB !== null && form.memoryMB.trim() !== '') {
    const n = settingValue('memoryMB', form.memoryMB);
    const message = n === null ? `megabytes: ${expectedValues('memoryMB')}, e.g. 4.5` : validateSetting('memoryMB', n);
    if (message !== null || n === null) errors['toggle-memoryMB'] = message ?? expectedValues('memoryMB');
    else memoryMB = n;
  }

  // The disk's timing and the rotation by name, into the settings only when not the default.
  const chosen: Partial<Record<NamedMachineSetting, string>> = {};
  for (const name of NAMED_MACHINE_SETTINGS) {
    const raw = form[name];
    if (raw === null || raw.trim() === '') continue;
    const n = settingValue(name, raw);
    const message = n === null ? expectedValues(name) : validateSetting(name, n);
    if (message !== null || n === null) errors[`toggle-${name}`] = message ?? expectedValues(name);
    else if (choiceName(name, n) !== defaultChoice(name)) chosen[name] = choiceName(name, n);
  }
  // Each is one of its toggle's names (validateSetting), and not the default.
  const machine = chosen as Pick<RunSettings, NamedMachineSetting>;

  const variant = form.variant === null || form.variant === '' ? null : form.variant;
  if (variant !== null && !isKernelChoice(variant)) errors['kernel-variant'] = `no kernel variant "${variant.slice(0, 40)}"`;

  let spinSeeds = 1;
  if (form.seeds !== null && form.seeds.trim() !== '') {
    const n = parseInteger(form.seeds);
    const message = seedsProblem(n);
    if (message !== null) errors.seeds = message;
    else spinSeeds = n ?? 1; // (seedsProblem refuses null)
  }

  if (Object.keys(errors).length > 0) return { errors, problems: [], notes: [], settings: null };
  // The runner's own check of everything together, before anything runs.
  try {
    const run = resolveRun(spec, { cpu, memoryMB, parameters, set, ...machine });
    const settings: RunSettings = {
      cpu, memoryMB, set, parameters, ...machine, ...(variant !== null ? { kernel: variant } : {}), ...(spinSeeds > 1 ? { spinSeeds } : {}),
    };
    return { errors, problems: [], notes: run.notes, settings };
  } catch (e) {
    const problems = e instanceof SettingsError ? e.problems : [e instanceof Error ? e.message : String(e)];
    return { errors, problems, notes: [], settings: null };
  }
}

/** How many settings differ from the paper's (the experiment's parameters, the machine, the kernel and its
 *  variables), and the kernel variables changed ("nbuf=100").  The seeds are not among them: they say how often
 *  each step is measured, not how (the paper's own figures are each one run's), so "Paper's settings" keeps them. */
export function changedSettings(form: FormState): { total: number; kernel: string[] } {
  const spec = experimentById(form.experimentId);
  if (!spec) return { total: 0, kernel: [] };
  const typed = form.params[spec.id] ?? {};
  let total = 0;
  for (const [name, dflt] of Object.entries(spec.parameters)) {
    const v = typed[name]?.trim();
    if (v && v !== String(dflt)) total++;
  }
  if (form.cpu !== null && form.cpu.trim() !== '' && form.cpu.trim() !== spec.machine.cpu) total++;
  if (form.memoryMB !== null && form.memoryMB.trim() !== '' && form.memoryMB.trim() !== String(spec.machine.memoryMB)) total++;
  for (const name of NAMED_MACHINE_SETTINGS) if (shownChoice(form, name) !== defaultChoice(name)) total++;
  if (form.kernel !== '4.3BSD') total++;
  // Another kernel than the experiment's own (Table 2: the paper's; Tables 7 and 8: like-4.2; the others: /vmunix).
  const ownKernel = effectiveKernelName(spec.kernel);
  if (effectiveKernelName(spec.kernel, form.variant === '' ? null : form.variant) !== ownKernel) total++;
  const kernel = KERNEL_TOGGLES.filter((t) => (form.kernelToggles[t.name] ?? '').trim() !== '')
    .map((t) => `${t.name}=${form.kernelToggles[t.name]!.trim()}`);
  return { total: total + kernel.length, kernel };
}

/** A shared run's settings as the form takes them, and what of them this lab cannot set, each in words
 *  ("kernel variable foo=3: this lab cannot set it"): "Run again" says those, never silently runs defaults. */
export function adoptShared(shared: SharedRunSettings, previous: FormState): { form: FormState; dropped: string[] } {
  const dropped: string[] = [];
  const spec = experimentById(shared.experiment);
  const config = shared.config;
  const parameters: Record<string, number> = {};
  for (const [k, v] of Object.entries(config.parameters)) {
    if (spec && Object.hasOwn(spec.parameters, k)) parameters[k] = v;
    else dropped.push(`parameter ${k}=${v}: ${shared.experiment} has no such parameter here`);
  }
  const set: Record<string, number> = {};
  for (const [k, v] of Object.entries(config.set)) {
    if (KERNEL_TOGGLES.some((t) => t.name === k)) set[k] = v;
    else dropped.push(`kernel variable ${k}=${v}: this lab cannot set it`);
  }
  let kernel: string | undefined;
  // The variant by the link's settings, else by the result (a run of `vaxlab run --kernel NAME`); a result that
  // names none, of an experiment that now boots a variant by default (Table 2; Tables 7 and 8), ran the image's /vmunix.
  const named = config.kernel ?? shared.result.kernel?.name.split(':')[0]?.trim() ??
    (spec?.kernel !== undefined ? DISTRIBUTED_KERNEL_NAME : undefined);
  if (named !== undefined && isKernelChoice(named)) kernel = named;
  else if (named !== undefined) {
    dropped.push(`kernel ${named.slice(0, 60)}: not one of this lab's kernel variants; the distributed /vmunix boots instead`);
    // As it says (not the experiment's own, which for Table 2 is a variant).
    if (spec?.kernel !== undefined) kernel = DISTRIBUTED_KERNEL_NAME;
  }
  // The seeds by the link's settings, else by the result (a run of `vaxlab run --seeds N`); more than the page
  // takes (MAX_PAGE_SEEDS) are held as they are, so the form marks them and Run again says why it does not run.
  const seeds = config.spinSeeds ?? shared.result.machine.spinSeeds;
  // The disk's timing and the rotation: a result made in Node (`vaxlab run --spin locked --disk eagle`) has them in
  // its result only, the page's own links in their settings too (which win where both say); the default is not set.
  const machine: Partial<Record<NamedMachineSetting, string>> = {};
  for (const name of NAMED_MACHINE_SETTINGS) {
    const value = config[name] ?? shared.result.machine[name];
    if (value !== undefined && value !== defaultChoice(name) && machineChoices(name).includes(value)) machine[name] = value;
  }
  const settings: RunSettings = {
    ...config, parameters, set, ...(kernel ? { kernel } : {}), ...(machine as Pick<RunSettings, NamedMachineSetting>),
    ...(seeds !== undefined && seeds > 1 ? { spinSeeds: seeds } : {}),
  };
  if (!kernel) delete settings.kernel;
  if (seeds === undefined || seeds <= 1) delete settings.spinSeeds;
  return { form: formFor(shared.experiment, settings, previous), dropped };
}

/** What adoptShared needs of a shared run (permalink.ts's SharedRun). */
export interface SharedRunSettings {
  experiment: string;
  config: RunSettings;
  result: { kernel?: { name: string }; machine: { spinSeeds?: number } & Partial<Record<NamedMachineSetting, string>> };
}

/** The form that reproduces a run's settings (a permalink's "Run again"). */
export function formFor(experimentId: string, settings: RunSettings, previous: FormState): FormState {
  const spec = experimentById(experimentId);
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(settings.parameters)) params[k] = String(v);
  const kernelToggles: Record<string, string> = {};
  for (const [k, v] of Object.entries(settings.set)) kernelToggles[k] = String(v);
  // The disk's timing and the rotation by name; the default as not set.
  let machine: Pick<FormState, NamedMachineSetting> = { disk: null, spin: null };
  for (const name of NAMED_MACHINE_SETTINGS) {
    const value = settings[name];
    if (value !== undefined && value !== defaultChoice(name)) machine = { ...machine, ...heldChoice(name, value) };
  }
  return {
    ...previous,
    experimentId,
    params: { ...previous.params, [experimentId]: params },
    kernelToggles,
    cpu: spec && settings.cpu === spec.machine.cpu ? null : settings.cpu,
    memoryMB: spec && settings.memoryMB === spec.machine.memoryMB ? null : String(settings.memoryMB),
    ...machine,
    variant: settings.kernel ?? null,
    seeds: settings.spinSeeds !== undefined && settings.spinSeeds > 1 ? String(settings.spinSeeds) : null,
  };
}
