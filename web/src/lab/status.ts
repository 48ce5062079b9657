// The words the header and the progress line show, from the state alone.

import { KERNEL_BENCHMARK_MACHINE } from '../../../experiments/paper';
import type { ExperimentResult } from '../../../experiments/runner/result';
import { expectedSeconds, resolveRun, STEP_PREPARE_SECONDS } from '../../../experiments/runner/runner';
import { rowsDone } from '../../../experiments/runner/resultView';
import { experimentById, type RunSettings } from './config';
import { isRunning, type RunState } from './state/runs';
import type { MachineState } from './state/workerLink';
import type { Cpu } from '../worker/protocol';

export function megabytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function formatRate(ips: number): string {
  if (ips >= 1e6) return `${(ips / 1e6).toFixed(1)} M instructions/s`;
  if (ips >= 1e3) return `${(ips / 1e3).toFixed(0)} k instructions/s`;
  return `${ips} instructions/s`;
}

export function imagePercent(machine: MachineState): number | null {
  const { loaded, total } = machine;
  if (machine.phase === 'ready' || machine.phase === 'verifying') return 100;
  if (!total) return null;
  return Math.min(100, Math.floor((100 * loaded) / total));
}

/** machine-status: contains "ready" when a run can start, "running" while one runs. */
export function machineStatus(m: MachineState, run: RunState | null): { text: string; tone: 'busy' | 'ok' | 'run' | 'error' } {
  if (run && isRunning(run)) {
    const step = run.progress ? ` — step ${run.progress.step} of ${run.progress.steps}` : ' — starting';
    const verb = run.status === 'stopping' ? 'stopping' : 'running';
    return { text: `${verb} ${run.experiment}${step}`, tone: 'run' };
  }
  switch (m.phase) {
    case 'starting':
    case 'loading-emulator':
      return { text: 'loading the emulator…', tone: 'busy' };
    case 'loading-image': {
      const pct = imagePercent(m);
      return { text: `loading the 4.3BSD image${pct === null ? '…' : ` ${pct}%`}`, tone: 'busy' };
    }
    case 'verifying':
      return { text: 'checking the image (SHA-256)…', tone: 'busy' };
    case 'error':
      return { text: `error: ${m.message ?? 'the emulator stopped'}`, tone: 'error' };
    case 'ready':
      return { text: 'ready', tone: 'ok' };
  }
}

/** The run's progress line, under the Run panel's experiment (`shownExperiment`): a run of another one (the list
 *  was clicked while it ran, or after) is named first, or its steps would read as that experiment's. */
export function progressText(run: RunState | null, estimate: RunEstimate | null = null, shownExperiment: string | null = null): string | null {
  const text = runProgressText(run, estimate);
  return text !== null && shownExperiment !== null && run!.experiment !== shownExperiment ? `${run!.experiment}: ${text}` : text;
}

function runProgressText(run: RunState | null, estimate: RunEstimate | null): string | null {
  if (!run) return null;
  const p = run.progress;
  const host = `host ${run.hostSeconds.toFixed(1)} s`;
  if (run.status === 'error') return `The run could not go on: ${run.error ?? 'unknown error'}`;
  if (run.status === 'done' && run.result) {
    const rows = run.result.rows;
    const failed = rows.filter((r) => r.status !== 'ok');
    const stopped = failed.some((r) => r.failure?.kind === 'stopped');
    const virtual = rows.reduce((a, r) => a + (r.emulator?.virtualSeconds ?? 0), 0);
    // The emulator's time from typing each command to the shell's next prompt: more than the guest's /bin/time
    // reports (the shell starts /bin/time, which starts the program), so say which is which.
    const typed = `${virtual.toFixed(1)} virtual s from typing the command${rows.length === 1 ? '' : 's'} to the next prompt ` +
      `(the table has /bin/time's figures), ${host}`;
    if (stopped) {
      // The stopped row is not one done: counted as the results' outcome counts them (runOutcome).
      const { done, total } = rowsDone(run.result, run.progress?.steps);
      return `Stopped: ${done} of ${total} rows done; ${typed}`;
    }
    const head = failed.length ? `Finished, ${failed.length} of ${rows.length} rows failed` : 'Finished';
    return `${head}: ${rows.length} row${rows.length === 1 ? '' : 's'}; ${typed}`;
  }
  if (!p) return `Starting… ${host}`;
  const expected = estimate?.steps[p.step - 1];
  return `Step ${p.step} of ${p.steps}: ${p.label}${p.seed ? `, seed ${p.seed.n} of ${p.seed.of}` : ''} — virtual ${p.virtualSeconds.toFixed(1)} s` +
    `${expected ? ` of about ${Math.round(expected).toLocaleString('en-US')}` : ''}, ${host}`;
}

// ------------------------------------------------------------ how long a run takes

/**
 * How long a run takes on this computer: a model of the host's work, counted
 * in instructions, at the rate this computer runs them.  A run's host time is
 * not its virtual time at some speed: each step's machine starts from a
 * snapshot at its single-user prompt, so the boot's virtual seconds cost no
 * instructions, while every machine costs the same fixed work however short
 * its command (restoring the snapshot, typing the set-up lines, reading the
 * counters) — Table 2, 29 short steps, took 4 times what its virtual time
 * said, and Table 8, 3 long ones, half.  So a run's work is RUN_WORK, plus
 * for each step's machine STEP_WORK and its timed command's instructions:
 * the paper's elapsed time for it (expectedSeconds) at
 * INSTRUCTIONS_PER_780_SECOND.  Its host time is that work at the rate
 * measured on the last run (measuredRate), DEFAULT_RATE before any.  Fixed
 * costs are counted in instructions so that the one measured figure scales
 * all of it to this computer.
 *
 * Fitted on runs in the page (scripts/bench-estimate.ts; 2-core shared AMD
 * EPYC, headless Chromium, 28 November 2026 04:10 UTC, load average 3 to 5):
 * Table 2 divided by 5, twice, and Table 8 divided by 2, 61 steps' host
 * seconds against their commands' instructions (least squares: 0.48 s a step
 * and 24.5 M instructions a second, so STEP_WORK is 0.48 s of them), and
 * 0.6 to 0.9 s before the first step (RUN_WORK).  The commands' instructions
 * follow the paper's elapsed time, not its user and system time: 0.30 to
 * 0.78 M instructions per 780 second of it on every step, the paging ones too
 * (their machines are busy most of the time here, 1.9 to 3.7 M per second of
 * the paper's user and system time), 0.51 M over all of them.
 */
export const RUN_WORK = 17e6;
export const STEP_WORK = 11.7e6;
export const INSTRUCTIONS_PER_780_SECOND = 510_000;
/** Instructions per host second before any run: what the fit above measured. */
export const DEFAULT_RATE = 24.5e6;
const RATE_KEY = 'vaxlab-instruction-rate';
/** A processor's speed relative to a 780's (the paper's footnote [7]: a 750 runs at 60%). */
export const RELATIVE_SPEED: Record<Cpu, number> = { '780': 1, '750': KERNEL_BENCHMARK_MACHINE.speedRelativeTo780 };

/** The rate a finished run shows, instructions per host second, its fixed work counted (null when it is too short
 *  to tell). */
export function measuredRate(result: ExperimentResult, hostSeconds: number): number | null {
  let work = RUN_WORK;
  for (const r of result.rows) {
    if (!r.emulator) continue;
    // A row of several seeds keeps the median run's instructions: the other seeds' machines ran about as many.
    const seeds = r.spread?.seeds ?? 1;
    work += seeds * (STEP_WORK + Number(r.emulator.instructions));
  }
  if (hostSeconds < 0.5 || work <= RUN_WORK) return null;
  return work / hostSeconds;
}

export function loadRate(storage: Pick<Storage, 'getItem'> | null): number | null {
  const v = Number(storage?.getItem(RATE_KEY));
  return Number.isFinite(v) && v > 1e3 && v < 1e11 ? v : null;
}

export function saveRate(storage: Pick<Storage, 'setItem'> | null, rate: number): void {
  try {
    storage?.setItem(RATE_KEY, String(Number(rate.toPrecision(4))));
  } catch {
    // Storage full or blocked: the estimate starts from the default next time.
  }
}

export interface RunEstimate {
  /** Virtual seconds the steps' machines take (boot and set-up included; every seed's), about. */
  virtualSeconds: number;
  /** Host seconds at the rate given, about. */
  hostSeconds: number;
  /** Each step's expected virtual seconds (boot and set-up included), for one seed's machine. */
  steps: number[];
  /** Each step's expected host seconds, for one seed's machine (its fixed work and its command's instructions). */
  stepHostSeconds: number[];
  /** Host seconds of the run's own work, before its first step. */
  runHostSeconds: number;
  /** How many times each step runs (RunSettings.spinSeeds; 1 without). */
  seeds: number;
}

/** About how long a run of these settings takes: each step's expected virtual time (the paper's, in proportion to
 *  the count and the processor's speed), and its host time by the model above at `rate` (instructions per host
 *  second). */
export function estimateRun(experimentId: string, settings: RunSettings, rate: number): RunEstimate | null {
  const spec = experimentById(experimentId);
  if (!spec) return null;
  let steps: number[];
  let stepHostSeconds: number[];
  try {
    // (The kernel variant changes no step's expected time: its name is not the runner's kernel option.)
    const run = resolveRun(spec, { cpu: settings.cpu, memoryMB: settings.memoryMB, set: settings.set, parameters: settings.parameters, disk: settings.disk });
    // The paper's times are for the experiment's processor; another one takes them in proportion to its speed.
    const ratio = RELATIVE_SPEED[spec.machine.cpu] / RELATIVE_SPEED[run.cpu];
    steps = run.steps.map((s) => (STEP_PREPARE_SECONDS + expectedSeconds(s.step, s.count)) * ratio);
    // The instructions are the program's whatever the processor: its seconds on the experiment's one.
    const perSecond = INSTRUCTIONS_PER_780_SECOND * RELATIVE_SPEED[spec.machine.cpu];
    stepHostSeconds = run.steps.map((s) => (STEP_WORK + expectedSeconds(s.step, s.count) * perSecond) / rate);
  } catch {
    return null;
  }
  const seeds = settings.spinSeeds ?? 1;
  const virtualSeconds = seeds * steps.reduce((a, b) => a + b, 0);
  const runHostSeconds = RUN_WORK / rate;
  const hostSeconds = runHostSeconds + seeds * stepHostSeconds.reduce((a, b) => a + b, 0);
  return { virtualSeconds, hostSeconds, steps, stepHostSeconds, runHostSeconds, seeds };
}

/**
 * Where a run's machines go, in words, beside the estimate: a run of several
 * units (steps, or a step's seeds: experiments/runner/sweep.ts) goes to the
 * page's pool when the Sweep panel's Workers field asks for more than one
 * (Sweeps.parallelFor), which a reader of the Run panel would not guess.
 * `workers`: how many it will use, or null for the one worker.  Null when
 * there is nothing to say: one unit, or no pool in this page.
 */
export function workersWords(estimate: Pick<RunEstimate, 'steps' | 'seeds'>, workers: number | null, poolAvailable: boolean): string | null {
  const units = estimate.steps.length * estimate.seeds;
  if (units < 2 || !poolAvailable) return null;
  const steps = estimate.steps.length;
  const what = estimate.seeds === 1 ? `${steps} steps` : steps === 1 ? `${units} seeds` : `${steps} steps × ${estimate.seeds} seeds (${units} machines)`;
  return workers !== null && workers > 1
    ? `Its ${what} run on ${workers} workers at once (Workers, under Sweep), so it takes less than one worker's time above, as far as this computer's cores allow; the results are the same bytes.`
    : `Its ${what} run in turn on one worker; Workers, under Sweep, spreads them over several.`;
}

/** A duration in words, rounded: "about 3 s", "about 2 min 20 s", "about 1 h 5 min".  Rounded to what is shown first
 *  (a second, then ten seconds, then a minute), so that a rounding up carries: 119 s is "about 2 min", not "1 min 60 s". */
export function durationWords(seconds: number): string {
  if (seconds < 1) return 'under a second';
  if (Math.round(seconds) < 60) return `about ${Math.round(seconds)} s`;
  const tens = Math.round(seconds / 10) * 10;
  if (tens < 600) {
    const m = Math.floor(tens / 60);
    const s = tens - 60 * m;
    return `about ${m} min${s ? ` ${s} s` : ''}`;
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes - 60 * h;
  return `about ${h} h${m ? ` ${m} min` : ''}`;
}

/** How far a run is, 0..1, in expected host time: the run's own work and the steps' machines done, and within the
 *  current one, the host seconds it has taken (run.unitStartedAt on) against what it should take, at most 95% of it
 *  until it is done (it is only expected).  Each step counts for its own expected time, not the same share. */
export function runFraction(run: RunState | null, estimate: RunEstimate | null): number | null {
  const p = run?.progress;
  if (!run || !p) return null;
  if (!estimate || estimate.hostSeconds <= 0 || estimate.stepHostSeconds.length !== p.steps) return Math.min(1, (p.step - 1) / p.steps);
  const seedsBefore = p.seed ? p.seed.n - 1 : 0;
  let done = estimate.runHostSeconds;
  for (let i = 0; i < p.step - 1; i++) done += estimate.seeds * estimate.stepHostSeconds[i]!;
  const current = estimate.stepHostSeconds[p.step - 1]!;
  done += seedsBefore * current;
  const within = Math.min(0.95 * current, Math.max(0, run.hostSeconds - (run.unitStartedAt ?? run.hostSeconds)));
  return Math.min(1, (done + within) / estimate.hostSeconds);
}
