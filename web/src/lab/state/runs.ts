// The current experiment run: started with the settings the form gives,
// followed through the worker's messages (started, progress, counter
// samples, done or error), stopped on request; its console output goes to
// a TextStream.  A finished run is announced (onFinished) as the run it can
// be shared as, for what Results shows and the history.

import type { CounterSample } from '../../../../experiments/runner/counters';
import { findExperiment } from '../../../../experiments/runner/experiments';
import { effectiveKernelName, kernelResultName } from '../../../../experiments/kernels/variants';
import { LOCKED_SPIN_WORDS, type ExperimentResult } from '../../../../experiments/runner/result';
import type { RunSettings } from '../config';
import type { SharedRun } from '../permalink';
import type { FromWorker, KernelName, RunProgress, ToWorker } from '../../worker/protocol';
import { Atom } from './atom';
import { TextStream } from './textStream';

export interface RunState {
  runId: number;
  experiment: string;
  kernel: KernelName;
  settings: RunSettings;
  status: 'starting' | 'running' | 'stopping' | 'done' | 'error';
  progress: RunProgress | null;
  hostSeconds: number;
  /** The host seconds at which the current step's machine (its seed's, with several) first said how far it was: what
   *  it has taken so far is against what it should (status.ts runFraction).  Null before the first progress. */
  unitStartedAt: number | null;
  /** The result so far (the rows done), from the worker after each step; null before the first. */
  partial: ExperimentResult | null;
  /** Samples so far (mutable array; samplesVersion changes with it). */
  samples: CounterSample[];
  samplesVersion: number;
  result: ExperimentResult | null;
  error: string | null;
}

/** A run that has not ended (it may be stopping). */
export function isRunning(run: RunState | null): boolean {
  return run !== null && (run.status === 'starting' || run.status === 'running' || run.status === 'stopping');
}

/** The run as a permalink and the history keep it: its experiment, settings and result (and when it ended). */
export function sharedRun(run: RunState, result: ExperimentResult, ranAt?: string): SharedRun {
  return {
    experiment: run.experiment,
    config: {
      cpu: run.settings.cpu, memoryMB: run.settings.memoryMB, set: run.settings.set, parameters: result.parameters,
      ...(run.settings.disk ? { disk: run.settings.disk } : {}),
      ...(run.settings.spin ? { spin: run.settings.spin } : {}),
      ...(run.settings.kernel ? { kernel: run.settings.kernel } : {}),
      ...(run.settings.spinSeeds ? { spinSeeds: run.settings.spinSeeds } : {}),
    },
    result,
    ...(ranAt ? { ranAt } : {}),
  };
}

/** How often the host seconds of a run are brought up to date (ms), at least: each progress message brings them up
 *  to date too, and the timer only fills in when none came for this long (a slow start, a step's boot), so that it
 *  does not re-render the run's panels between the messages' own updates. */
const HOST_TICK_MS = 250;

export class Runs {
  readonly run = new Atom<RunState | null>(null);
  /** The experiment console (the current run's output). */
  readonly console = new TextStream();

  private nextRunId = 1;
  private hostTimer: ReturnType<typeof setInterval> | null = null;
  private startedAt = 0;
  /** When the host seconds were last brought up to date (the page's clock, ms). */
  private hostUpdatedAt = 0;
  private readonly finished: ((shared: SharedRun, hostSeconds: number) => void)[] = [];
  private readonly partials: ((shared: SharedRun) => void)[] = [];
  private readonly failures: (() => void)[] = [];

  constructor(
    private readonly link: { post(message: ToWorker): void },
    private readonly now: () => number = () => performance.now(),
    private readonly date: () => Date = () => new Date(),
  ) {}

  get running(): boolean {
    return isRunning(this.run.get());
  }

  /** Starts a run of the experiment with these settings (nothing if one is running); its id.
   *  profile: profile each row's command (RowResult.profile). */
  start(experiment: string, kernel: KernelName, settings: RunSettings, profile = false): number | null {
    if (this.running) return null;
    const runId = this.nextRunId++;
    this.console.reset();
    const drives = (settings.disk ? `, ${settings.disk} disk timing` : '') + (settings.spin ? `, ${LOCKED_SPIN_WORDS}` : '') +
      (settings.spinSeeds ? `, each step with seeds 1..${settings.spinSeeds} (the row: the median run)` : '');
    // The kernel that boots: the one asked for, else the experiment's own (Table 2: the paper's; Tables 7, 8: like-4.2).
    const booted = effectiveKernelName(findExperiment(experiment)?.kernel, settings.kernel);
    const variant = booted !== null ? ` (kernel ${kernelResultName(booted)})`
      : settings.kernel ? ` (kernel ${kernelResultName(null)})` : '';
    this.console.note(`\x1b[1m${experiment}\x1b[0m on a VAX-11/${settings.cpu} model, ${settings.memoryMB} MB${drives}, ${kernel}${variant}\r\n`);
    this.run.set({
      runId, experiment, kernel, settings, status: 'starting', progress: null,
      hostSeconds: 0, unitStartedAt: null, partial: null, samples: [], samplesVersion: 0, result: null, error: null,
    });
    this.startedAt = this.now();
    this.startHostTimer();
    this.link.post({
      type: 'run',
      runId,
      experiment,
      config: {
        kernel, cpu: settings.cpu, memoryMB: settings.memoryMB, set: settings.set, parameters: settings.parameters,
        ...(settings.disk ? { disk: settings.disk } : {}), ...(settings.spin ? { spin: settings.spin } : {}), ...(profile ? { profile: true } : {}),
        ...(settings.kernel ? { variant: settings.kernel } : {}), ...(settings.spinSeeds ? { spinSeeds: settings.spinSeeds } : {}),
      },
    });
    return runId;
  }

  stop(): void {
    const run = this.run.get();
    if (!run || !this.running) return;
    this.link.post({ type: 'stop', runId: run.runId });
    this.patch(run.runId, () => ({ status: 'stopping' }));
  }

  /** The run cannot go on (the worker failed). */
  fail(message: string): void {
    const run = this.run.get();
    if (!run || !this.running) return;
    this.stopHostTimer();
    this.run.set({ ...run, status: 'error', error: message });
    for (const l of this.failures) l();
  }

  /** Calls listener with the run so far, as it can be kept: before its first step and after each. */
  onPartial(listener: (shared: SharedRun) => void): void {
    this.partials.push(listener);
  }

  /** Calls listener when a run ends without a result (the worker failed or refused it). */
  onFailed(listener: () => void): void {
    this.failures.push(listener);
  }

  /** Calls listener when a run finishes with a result (stopped or failed rows included). */
  onFinished(listener: (shared: SharedRun, hostSeconds: number) => void): void {
    this.finished.push(listener);
  }

  /** The worker's console text for the current run. */
  text(m: FromWorker): void {
    if (m.type === 'run-console' && this.run.get()?.runId === m.runId) this.console.append(m.text);
  }

  /** The worker's other messages about runs. */
  handle(m: FromWorker): void {
    switch (m.type) {
      case 'run-started':
        this.patch(m.runId, () => ({ status: 'running' }));
        return;
      case 'kernel-loading':
        // Only a fetch this run began: one a sweep's check began before the run (its message can come after the
        // run's first console text, which is not batched) is not this run's.
        if (this.running && m.runId !== undefined && this.run.get()?.runId === m.runId) this.console.note(`\x1b[2mFetching the kernel ${m.variant} (checked against the image's manifest)\x1b[0m\r\n`);
        return;
      case 'counter-samples':
        // A unit's are the pool's (state/poolCounters.ts), not a run's.
        if (m.of.kind !== 'run') return;
        this.patch(m.of.runId, (r) => {
          r.samples.push(...m.samples);
          return { samplesVersion: r.samplesVersion + 1 };
        });
        return;
      case 'run-progress':
        this.patch(m.runId, (r) => {
          const hostSeconds = this.hostSecondsNow();
          const sameUnit = r.progress !== null && r.progress.step === m.progress.step && r.progress.seed?.n === m.progress.seed?.n;
          return { progress: m.progress, hostSeconds, unitStartedAt: sameUnit ? r.unitStartedAt : hostSeconds };
        });
        return;
      case 'run-partial': {
        const run = this.run.get();
        if (!run || run.runId !== m.runId || !this.running) return;
        this.run.set({ ...run, partial: m.result });
        for (const l of this.partials) l(sharedRun(run, m.result));
        return;
      }
      case 'run-done':
        this.finish(m.runId, m.result, m.hostSeconds);
        return;
      case 'run-error':
        if (this.run.get()?.runId !== m.runId) return;
        this.console.note(`\r\n\x1b[31mThe run could not go on: ${m.message}\x1b[0m\r\n`);
        this.fail(m.message);
        return;
      default:
    }
  }

  private patch(runId: number, f: (r: RunState) => Partial<RunState>): void {
    const run = this.run.get();
    if (!run || run.runId !== runId) return;
    this.run.set({ ...run, ...f(run) });
  }

  private finish(runId: number, result: ExperimentResult, hostSeconds: number): void {
    const run = this.run.get();
    if (!run || run.runId !== runId) return;
    this.stopHostTimer();
    const stopped = result.rows.some((r) => r.failure?.kind === 'stopped');
    this.console.note(`\r\n\x1b[1m${result.status === 'ok' ? 'Done' : stopped ? 'Stopped' : 'Finished with a failure'}\x1b[0m in ${hostSeconds.toFixed(1)} s of host time.\r\n`);
    this.run.set({ ...run, status: 'done', result, hostSeconds });
    const shared = sharedRun(run, result, this.date().toISOString());
    for (const l of this.finished) l(shared, hostSeconds);
  }

  /** The run's host seconds so far, by the page's clock (and when they were last asked for). */
  private hostSecondsNow(): number {
    this.hostUpdatedAt = this.now();
    return (this.hostUpdatedAt - this.startedAt) / 1000;
  }

  private startHostTimer(): void {
    this.stopHostTimer();
    this.hostTimer = setInterval(() => {
      const run = this.run.get();
      if (!run || !this.running) return this.stopHostTimer();
      if (this.now() - this.hostUpdatedAt < HOST_TICK_MS) return;
      this.patch(run.runId, () => ({ hostSeconds: this.hostSecondsNow() }));
    }, HOST_TICK_MS);
  }

  private stopHostTimer(): void {
    if (this.hostTimer !== null) clearInterval(this.hostTimer);
    this.hostTimer = null;
  }
}
