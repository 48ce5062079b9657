// Sweeps in the page: the experiment chosen in the form, run at every point
// of one or two settings (experiments/runner/sweep.ts), on the pool's
// workers (pool.ts) — or, in a page without shared memory, on the one
// worker — with progress (overall, per worker, the time left), the counters
// the workers send as they run (poolCounters.ts), Stop, the result shown as
// a line chart and a table, kept in the sweep history and exported.  Also
// runs of one experiment on several workers (Table 2's rows, or one step's
// seeds), which report to the run part (runs.ts) in the messages the worker
// would have sent, so the rest of the page sees an ordinary run.
// No React.

import type { ExperimentResult } from '../../../../experiments/runner/result';
import { SettingsError } from '../../../../experiments/runner/runner';
import {
  assembleSweep, KERNEL_SETTING, MAX_SWEEP_AXES, parseAxis, planSweep, runProgressOf, runUnits, sweepSetting, unitLabel, validateSweep,
  type SweepPlan, type SweepProgress, type SweepRequest, type SweepResult, type UnitExecutor,
} from '../../../../experiments/runner/sweep';
import { TOGGLES } from '../../../../experiments/runner/toggles';
import { checkForm, experimentById, isMachineSetting, type FormState } from '../config';
import { cores, defaultJobs, UnitRequests, type StartsListener, type UnitListeners, type WorkerPool } from '../pool';
import { encodeSweepLink } from '../permalink';
import type { SweepHistoryEntry } from '../sweepHistory';
import type { FromWorker, KernelName, MachineStarts, RunConfig, ToWorker } from '../../worker/protocol';
import { Atom, batch } from './atom';
import { PoolCounters, type PoolOwner } from './poolCounters';
import { wrapWords, type TextStream } from './textStream';

export interface SweepAxisInput {
  /** A setting or parameter name; '' for no second setting. */
  setting: string;
  /** As typed: a list (50,100,250) or a range (1..8, 1..8:0.5). */
  values: string;
}

export interface SweepFormState {
  /** The first and the second setting. */
  axes: SweepAxisInput[];
  /** Workers, as typed ('' = the default: the cores less one). */
  jobs: string;
}

export function initialSweepForm(): SweepFormState {
  return { axes: [{ setting: 'hz', values: '50,100,250,1000' }, { setting: '', values: '' }], jobs: '' };
}

/** What can be swept for an experiment: its parameters, then every setting. */
export function sweepChoices(experimentId: string): { name: string; label: string }[] {
  const spec = experimentById(experimentId);
  const params = spec ? Object.keys(spec.parameters).map((name) => ({ name, label: `${name} (parameter)` })) : [];
  return [...params, ...TOGGLES.map((t) => ({ name: t.name, label: t.name })),
    { name: KERNEL_SETTING, label: `${KERNEL_SETTING} (the kernel variants)` }];
}

/** The workers as typed: a number from 1 to the cores, or why not. */
export function parseJobs(raw: string): { jobs: number; error: string | null } {
  const max = cores();
  const s = raw.trim();
  if (s === '') return { jobs: defaultJobs(), error: null };
  if (!/^\d+$/.test(s)) return { jobs: defaultJobs(), error: `a whole number from 1 to ${max}` };
  const n = Number(s);
  if (n < 1) return { jobs: defaultJobs(), error: 'at least 1 worker' };
  if (n > max) return { jobs: max, error: `at most ${max} (this machine's cores)` };
  return { jobs: n, error: null };
}

export interface SweepCheck {
  request: SweepRequest | null;
  plan: SweepPlan | null;
  /** Every problem, each naming its setting and value; nothing runs while there are any. */
  problems: string[];
  notes: string[];
  jobs: number;
  jobsError: string | null;
}

/**
 * The sweep the forms describe, checked as the command line checks it: the
 * experiment's settings from the form (a setting that is swept is taken
 * from the sweep, not the form), the axes, and every point together.
 */
export function checkSweep(form: FormState, sweep: SweepFormState): SweepCheck {
  const { jobs, error: jobsError } = parseJobs(sweep.jobs);
  const out: SweepCheck = { request: null, plan: null, problems: [], notes: [], jobs, jobsError };
  const spec = experimentById(form.experimentId);
  if (!spec) return { ...out, problems: [`no experiment "${form.experimentId}"`] };
  const axes = sweep.axes.filter((a, i) => i === 0 || a.setting !== '');
  if (axes.length === 0 || axes[0]!.setting === '') return { ...out, problems: ['choose a setting to sweep'] };
  if (axes.length > MAX_SWEEP_AXES) out.problems.push(`at most ${MAX_SWEEP_AXES} settings`);
  const swept = axes.map((a) => a.setting);

  // The form without the swept settings: the sweep gives them.
  const typedParams = { ...(form.params[spec.id] ?? {}) };
  const kernelToggles = { ...form.kernelToggles };
  const unswept: FormState = { ...form, params: { ...form.params, [spec.id]: typedParams }, kernelToggles };
  for (const name of swept) {
    const typed = typedParams[name] ?? kernelToggles[name] ?? (isMachineSetting(name) ? form[name] : null);
    if (typed && typed.trim() !== '') out.notes.push(`${name}: the sweep's values replace the settings' ${typed.trim()}`);
    delete typedParams[name];
    delete kernelToggles[name];
    if (isMachineSetting(name)) unswept[name] = null;
  }
  const base = checkForm(unswept);
  if (!base.settings) {
    out.problems.push(...(Object.keys(base.errors).length > 0 ? ['fix the settings marked in red'] : base.problems));
    return out;
  }
  const s = base.settings;
  const request: SweepRequest = {
    experiment: spec.id,
    axes: [],
    base: {
      // Only what differs from the experiment's own, so the request says what was chosen.
      parameters: Object.fromEntries(Object.entries(s.parameters).filter(([k, v]) => spec.parameters[k] !== v)),
      set: { ...s.set },
      ...(s.cpu !== spec.machine.cpu ? { cpu: s.cpu } : {}),
      ...(s.memoryMB !== spec.machine.memoryMB ? { memoryMB: s.memoryMB } : {}),
      ...(s.disk ? { disk: s.disk } : {}),
      ...(s.spin ? { spin: s.spin } : {}),
      ...(s.spinSeeds ? { spinSeeds: s.spinSeeds } : {}),
      // A sweep over the kernel variants boots each; otherwise every point boots the form's.
      ...(s.kernel && !swept.includes(KERNEL_SETTING) ? { kernel: s.kernel } : {}),
    },
  };
  for (const a of axes) {
    const setting = sweepSetting(spec, a.setting);
    if (typeof setting === 'string') {
      out.problems.push(setting);
      continue;
    }
    const { axis, problems } = parseAxis(setting, a.values);
    out.problems.push(...problems);
    if (axis) request.axes.push(axis);
  }
  if (new Set(swept).size !== swept.length) out.problems.push(`${swept[0]}: chosen twice`);
  if (out.problems.length > 0) return { ...out, problems: [...new Set(out.problems)] };
  try {
    return { ...out, request, plan: planSweep(request) };
  } catch (e) {
    return { ...out, problems: e instanceof SettingsError ? e.problems : [String(e)] };
  }
}

/** A worker's machine starts as the sweep panel says them: "3 restored (2 shipped, 1 saved here), 1 booted". */
export function startsText(s: MachineStarts): string {
  return `${s.shipped + s.here} restored (${s.shipped} shipped, ${s.here} saved here), ${s.booted} booted`;
}

export interface SweepRunState {
  id: number;
  experiment: string;
  kernel: KernelName;
  jobs: number;
  units: number;
  status: 'running' | 'stopping' | 'done' | 'error';
  progress: SweepProgress | null;
  error: string | null;
  hostSeconds: number;
  /** Stop ended it. */
  stopped: boolean;
  /** How each worker's machines started so far (restored from a snapshot, or booted), by worker. */
  starts: MachineStarts[];
}

export interface ShownSweep {
  result: SweepResult;
  source: 'run' | 'history' | 'file' | 'link';
  /** Its permalink's value, once made (or the link it was opened from). */
  link?: string;
  /** What that link leaves out of the sweep (permalink.ts encodeSweepLink), said beside it. */
  omitted?: string[];
  hostSeconds?: number;
  jobs?: number;
  historyId?: string;
}

export interface SweepShare {
  url: string | null;
  busy: boolean;
  message: string | null;
}

export interface SweepStore {
  saveSweep(result: SweepResult, extra: { hostSeconds?: number; jobs?: number }): Promise<SweepHistoryEntry>;
  listSweeps(): Promise<SweepHistoryEntry[]>;
  deleteSweep(id: string): Promise<void>;
}

/** The first worker, as an executor of units (its replies come through the page's link, batched). */
export class LinkExecutors {
  private readonly requests: UnitRequests;

  constructor(private readonly post: (m: ToWorker) => void) {
    this.requests = new UnitRequests(post);
  }

  handle(m: FromWorker): void {
    this.requests.handle(m);
  }

  private request(m: Extract<ToWorker, { id: number }>, listeners?: UnitListeners): Promise<FromWorker> {
    return this.requests.request(m, listeners);
  }

  executor(kernel: KernelName, request: SweepRequest, onStarts?: StartsListener): UnitExecutor {
    return {
      check: async () => {
        const m = await this.request({ type: 'units-check', id: 0, kernel, request });
        return m.type === 'units-checked' ? { problems: m.problems, image: m.image } : { problems: [], image: false };
      },
      run: async (unit, onProgress, onSamples) => {
        const m = await this.request({ type: 'units-run', id: 0, kernel, request, unit }, { onProgress, onSamples });
        if (m.type !== 'units-done') throw new Error(`unexpected reply ${m.type}`);
        onStarts?.(m.starts, 0);
        return m.result;
      },
      stop: () => this.post({ type: 'units-stop' }),
    };
  }
}

const now = () => performance.now();

export class Sweeps {
  readonly form = new Atom<SweepFormState>(initialSweepForm());
  readonly run = new Atom<SweepRunState | null>(null);
  readonly shown = new Atom<ShownSweep | null>(null);
  readonly history = new Atom<{ entries: SweepHistoryEntry[]; error: string | null }>({ entries: [], error: null });
  /** The measure the chart and table show (a MEASURES id); null: the sweep's default. */
  readonly measure = new Atom<string | null>(null);
  readonly fileError = new Atom<string | null>(null);
  /** Making the shown sweep's permalink: the address to copy, or why there is none. */
  readonly share = new Atom<SweepShare>({ url: null, busy: false, message: null });
  /** The counters the workers send while a sweep or a run spread over them runs (the Counters panel's live view). */
  readonly live = new PoolCounters();

  private nextId = 1;
  private abort: AbortController | null = null;
  private parallel: { runId: number; abort: AbortController } | null = null;
  readonly link: LinkExecutors;

  constructor(
    private readonly pool: WorkerPool,
    post: (m: ToWorker) => void,
    private readonly console: TextStream,
    private readonly store: SweepStore,
  ) {
    this.link = new LinkExecutors(post);
    // A link made for one sweep is not offered beside another.
    let last: SweepResult | null = null;
    this.shown.subscribe(() => {
      const result = this.shown.get()?.result ?? null;
      if (result !== last && this.share.get().url !== null) this.share.set({ url: null, busy: false, message: null });
      last = result;
    });
  }

  get running(): boolean {
    const r = this.run.get();
    return (r !== null && (r.status === 'running' || r.status === 'stopping')) || this.parallel !== null;
  }

  /** The first worker's messages (pack, units replies). */
  handle(m: FromWorker): void {
    this.pool.handle(m);
    this.link.handle(m);
  }

  setAxis(i: number, patch: Partial<SweepAxisInput>): void {
    this.form.update((f) => ({ ...f, axes: f.axes.map((a, j) => (j === i ? { ...a, ...patch } : a)) }));
  }

  setJobs(raw: string): void {
    this.form.update((f) => ({ ...f, jobs: raw }));
  }

  /** How many workers run, and on what: the pool's, or the first worker alone. */
  private executors(jobs: number, kernel: KernelName, request: SweepRequest, onStarts?: StartsListener):
    { executors: UnitExecutor[]; note: string | null } {
    const a = this.pool.availability();
    if (!a.available) return { executors: [this.link.executor(kernel, request, onStarts)], note: a.reason };
    return { executors: this.pool.executors(jobs, kernel, request, onStarts), note: null };
  }

  /** Runs the sweep the forms describe (nothing if it does not check, or something runs); its chart and table then
   *  show `measure` (a MEASURES id), or the sweep's default. */
  start(form: FormState, measure: string | null = null): void {
    if (this.running) return;
    const check = checkSweep(form, this.form.get());
    if (!check.plan || !check.request || check.jobsError) return;
    const { plan, request } = check;
    const id = this.nextId++;
    const jobs = Math.min(check.jobs, plan.units.length);
    const onStarts: StartsListener = (s, worker) => {
      const r = this.run.get();
      if (!r || r.id !== id) return;
      const starts = r.starts.map((x, i) => (i === worker
        ? { shipped: x.shipped + s.shipped, here: x.here + s.here, booted: x.booted + s.booted } : x));
      this.run.set({ ...r, starts });
    };
    const { executors, note } = this.executors(jobs, form.kernel, request, onStarts);
    const abort = new AbortController();
    this.abort = abort;
    const started = now();
    const axes = request.axes.map((a) => `${a.setting}=${a.values.length} values`).join(' × ');
    this.console.reset();
    const seeds = request.base.spinSeeds ?? 1;
    this.console.note(`\x1b[1m${plan.spec.id} sweep\x1b[0m ${axes}: ${plan.points.length} points, ${plan.units.length} units` +
      `${seeds > 1 ? ` (each step's seeds 1..${seeds} a unit each)` : ''} on ${executors.length} worker${executors.length === 1 ? '' : 's'}\r\n`);
    if (note) this.console.note(`\x1b[2m(${note})\x1b[0m\r\n`);
    this.run.set({
      id, experiment: plan.spec.id, kernel: form.kernel, jobs: executors.length, units: plan.units.length, status: 'running',
      progress: null, error: null, hostSeconds: 0, stopped: false,
      starts: executors.map(() => ({ shipped: 0, here: 0, booted: 0 })),
    });
    const patch = (p: Partial<SweepRunState>) => {
      const r = this.run.get();
      if (r && r.id === id) this.run.set({ ...r, ...p });
    };
    const owner: PoolOwner = { kind: 'sweep', id };
    this.live.begin(owner, plan.spec.id, executors.length);
    let done = 0;
    void runUnits(plan, plan.units.map((u) => u.index), executors, {
      signal: abort.signal,
      onProgress: (progress) => {
        patch({ progress, hostSeconds: (now() - started) / 1000 });
        this.live.progress(owner, progress.workers);
      },
      onSamples: (samples, from) => this.live.samples(owner, from, samples),
      onUnit: (unit, outcome, info) => {
        done++;
        const row = 'result' in outcome ? outcome.result.rows[0] : undefined;
        const said = !row ? `\x1b[31mcould not run: ${'error' in outcome ? outcome.error : ''}\x1b[0m`
          : row.status === 'ok' ? `${row.guest?.real.toFixed(1)} s real` : `\x1b[31m${row.failure?.kind}\x1b[0m`;
        this.console.note(`[${done}/${plan.units.length}] ${unitLabel(plan, unit)}: ${said} \x1b[2m(worker ${info.worker + 1}, ${info.hostSeconds.toFixed(1)} s)\x1b[0m\r\n`);
      },
    }).then(({ outcomes, stopped }) => {
      const result = assembleSweep(plan, outcomes, stopped);
      const hostSeconds = (now() - started) / 1000;
      this.console.note(`\r\n\x1b[1m${stopped ? 'Stopped' : 'Done'}\x1b[0m in ${hostSeconds.toFixed(1)} s of host time.\r\n`);
      batch(() => {
        patch({ status: 'done', hostSeconds, stopped });
        this.shown.set({ result, source: 'run', hostSeconds, jobs: executors.length });
        this.measure.set(measure);
      });
      void this.save(result, { hostSeconds, jobs: executors.length });
    }, (e: unknown) => {
      const message = e instanceof SettingsError ? `refused, nothing was run: ${e.problems.join('; ')}` : e instanceof Error ? e.message : String(e);
      this.console.note(`\r\n\x1b[31mThe sweep could not run: ${message}\x1b[0m\r\n`);
      patch({ status: 'error', error: message, hostSeconds: (now() - started) / 1000 });
    }).finally(() => {
      this.live.end(owner);
      if (this.abort === abort) this.abort = null;
    });
  }

  /** Stops every worker at once (each unit running ends 'stopped'; no more start). */
  stop(): void {
    const r = this.run.get();
    if (r && r.status === 'running' && this.abort) {
      this.abort.abort();
      this.run.set({ ...r, status: 'stopping' });
    }
    this.parallel?.abort.abort();
  }

  // ---------------------------------------------------------- one run on several workers

  /** Whether a run of this experiment with `seeds` seeds goes to several workers, and to how many: it has several
   *  units (steps, or seeds of a step: sweep.ts), the pool is there, and more than one worker is asked for. */
  parallelFor(experiment: string, seeds = 1): number | null {
    const spec = experimentById(experiment);
    const { jobs, error } = parseJobs(this.form.get().jobs);
    const units = (spec?.steps.length ?? 0) * seeds;
    if (!spec || units < 2 || error || jobs < 2 || !this.pool.availability().available) return null;
    return Math.min(jobs, units);
  }

  /**
   * Runs an experiment's steps on several workers (with several seeds, each
   * seed of each step a unit of its own), reporting to `emit` as the
   * worker reports a run (run-started, run-console, run-progress, run-done or
   * run-error), so runs.ts takes it as any run.  The result is the one the
   * experiment run whole gives, byte for byte.
   */
  runParallel(runId: number, experiment: string, config: RunConfig, emit: (m: FromWorker) => void): void {
    const jobs = this.parallelFor(experiment, config.spinSeeds) ?? 1;
    const spec = experimentById(experiment)!;
    const request: SweepRequest = {
      experiment, axes: [],
      base: {
        parameters: config.parameters, set: config.set,
        ...(config.cpu !== spec.machine.cpu ? { cpu: config.cpu } : {}),
        ...(config.memoryMB !== spec.machine.memoryMB ? { memoryMB: config.memoryMB } : {}),
        ...(config.disk ? { disk: config.disk } : {}),
        ...(config.spin ? { spin: config.spin } : {}),
        ...(config.limitSeconds !== undefined ? { limitSeconds: config.limitSeconds } : {}),
        ...(config.profile ? { profile: true } : {}),
        ...(config.variant ? { kernel: config.variant } : {}),
        ...(config.spinSeeds !== undefined ? { spinSeeds: config.spinSeeds } : {}),
      },
    };
    let plan: SweepPlan;
    try {
      plan = planSweep(request);
    } catch (e) {
      emit({ type: 'run-error', runId, message: e instanceof SettingsError ? e.problems.join('; ') : String(e) });
      return;
    }
    const abort = new AbortController();
    this.parallel = { runId, abort };
    const started = now();
    const executors = this.pool.executors(jobs, config.kernel, request);
    emit({ type: 'run-started', runId });
    const steps = plan.points[0]!.spec.steps.length;
    const seeds = config.spinSeeds ?? 1;
    const units = `${steps} step${steps === 1 ? '' : 's'}${seeds > 1 ? ` × ${seeds} seeds: ${plan.units.length} units` : ''}`;
    // The page's own lines, so broken to the console's width as its others are (TextStream.note).
    const say = (text: string) => emit({ type: 'run-console', runId, text: wrapWords(text, this.console.columns) });
    say(`\x1b[2m${units} on ${executors.length} workers\x1b[0m\r\n`);
    const owner: PoolOwner = { kind: 'run', runId };
    this.live.begin(owner, experiment, executors.length);
    let done = 0;
    void runUnits(plan, plan.units.map((u) => u.index), executors, {
      signal: abort.signal,
      onProgress: (p) => {
        this.live.progress(owner, p.workers);
        emit({ type: 'run-progress', runId, hostSeconds: p.elapsedSeconds, progress: runProgressOf(plan, p) });
      },
      onSamples: (samples, from) => this.live.samples(owner, from, samples),
      onUnit: (unit, outcome, info) => {
        done++;
        const row = 'result' in outcome ? outcome.result.rows[0] : undefined;
        say(`[${done}/${plan.units.length}] ${unitLabel(plan, unit)}: ${row?.guest?.line ?? (row ? row.failure?.message : 'error' in outcome ? outcome.error : '')} ` +
          `\x1b[2m(worker ${info.worker + 1}, ${info.hostSeconds.toFixed(1)} s)\x1b[0m\r\n`);
      },
    }).then(({ outcomes, stopped }) => {
      // Before the run is said to end: the panel then draws the result's series, as for a run on one worker.
      this.live.end(owner);
      const point = assembleSweep(plan, outcomes, stopped).points[0]!;
      const result: ExperimentResult | null = point.result;
      if (!result) emit({ type: 'run-error', runId, message: point.errors?.map((e) => e.message).join('; ') || 'no step ran' });
      else emit({ type: 'run-done', runId, result, hostSeconds: (now() - started) / 1000 });
    }, (e: unknown) => {
      this.live.end(owner);
      emit({ type: 'run-error', runId, message: e instanceof SettingsError ? e.problems.join('; ') : e instanceof Error ? e.message : String(e) });
    }).finally(() => {
      if (this.parallel?.abort === abort) this.parallel = null;
    });
  }

  /** True when this run is one of ours (then Stop goes to its workers). */
  ownsRun(runId: number): boolean {
    return this.parallel?.runId === runId;
  }

  // ---------------------------------------------------------- showing, history, files

  private async save(result: SweepResult, extra: { hostSeconds?: number; jobs?: number }): Promise<void> {
    try {
      const entry = await this.store.saveSweep(result, extra);
      const shown = this.shown.get();
      if (shown && shown.result === result) this.shown.set({ ...shown, historyId: entry.id });
      await this.refresh();
    } catch (e) {
      this.history.set({ ...this.history.get(), error: e instanceof Error ? e.message : String(e) });
    }
  }

  async refresh(): Promise<void> {
    try {
      this.history.set({ entries: await this.store.listSweeps(), error: null });
    } catch (e) {
      this.history.set({ entries: [], error: e instanceof Error ? e.message : String(e) });
    }
  }

  openHistory(id: string): void {
    const entry = this.history.get().entries.find((e) => e.id === id);
    if (!entry) return;
    batch(() => {
      this.shown.set({ result: entry.result, source: 'history', historyId: entry.id, hostSeconds: entry.hostSeconds, jobs: entry.jobs });
      this.measure.set(null);
    });
  }

  async deleteHistory(id: string): Promise<void> {
    try {
      await this.store.deleteSweep(id);
      if (this.shown.get()?.historyId === id && this.shown.get()?.source === 'history') this.shown.set(null);
      await this.refresh();
    } catch (e) {
      this.history.set({ ...this.history.get(), error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** A sweep's JSON (an export, or `vaxlab sweep --json` / `vaxlab merge`), shown if it reads. */
  openFile(name: string, text: string): void {
    try {
      const result = validateSweep(JSON.parse(text), name);
      batch(() => {
        this.fileError.set(null);
        this.shown.set({ result, source: 'file' });
        this.measure.set(null);
      });
    } catch (e) {
      this.fileError.set(`${name} is not a sweep's result: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** A sweep from a permalink (opened from the address). */
  openShared(result: SweepResult, omitted: string[], link: string): void {
    batch(() => {
      this.fileError.set(null);
      this.share.set({ url: null, busy: false, message: null });
      this.shown.set({ result, source: 'link', link, omitted });
      this.measure.set(null);
    });
  }

  /** The shown sweep's permalink: kept with it (the address follows), and copied as `url(link)` when the page may. */
  async makeLink(url: (link: string) => string, copy: (text: string) => Promise<void>): Promise<void> {
    const shown = this.shown.get();
    if (!shown || this.share.get().busy) return;
    this.share.set({ url: null, busy: true, message: null });
    try {
      const { value, omitted } = await encodeSweepLink(shown.result);
      if (this.shown.get() !== shown) return;
      this.shown.set({ ...shown, link: value, omitted });
      const address = url(value);
      let message = `Copied to the clipboard (${value.length.toLocaleString('en-US')} characters` +
        `${omitted.length ? `; without ${omitted.join(', ')}: the JSON export has them` : ''}).`;
      try {
        await copy(address);
      } catch {
        message = 'Select the link and copy it (the clipboard was not available).';
      }
      this.share.set({ url: address, busy: false, message });
    } catch (e) {
      this.share.set({ url: null, busy: false, message: `No link: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  close(): void {
    this.shown.set(null);
  }
}
