// The lab's state and logic, outside React: owns the worker, the Configure
// form, the current run and what the Results panel shows (a run of this
// page, a permalink or a history entry), sharing and the Terminal tab.
// Components read `store` and call the methods; console output goes through
// the two TextStreams so xterm can take it without re-rendering anything.

import type { CounterSample } from '../../../experiments/runner/counters';
import type { ExperimentResult } from '../../../experiments/runner/result';
import type { FromWorker, ImageRef, KernelName, RunProgress, TerminalPhase, ToWorker } from '../worker/protocol';
import type { RunRef, SessionRun } from './compare';
import { checkForm, experimentById, formFor, initialForm, type FormState, type RunSettings } from './config';
import { deleteRun, listRuns, saveRun, type HistoryEntry } from './history';
import { decodePermalink, encodePermalink, PermalinkError, type SharedRun } from './permalink';
import { Store, TextStream } from './store';
import { initialTheme, applyTheme, saveTheme, type Theme } from './theme';

export type MachinePhase = 'starting' | 'loading-emulator' | 'loading-image' | 'verifying' | 'ready' | 'error';

export interface RunState {
  runId: number;
  experiment: string;
  kernel: KernelName;
  settings: RunSettings;
  status: 'starting' | 'running' | 'stopping' | 'done' | 'error';
  progress: RunProgress | null;
  hostSeconds: number;
  /** Samples so far (mutable array; samplesVersion changes with it). */
  samples: CounterSample[];
  samplesVersion: number;
  result: ExperimentResult | null;
  error: string | null;
}

/** What the Results panel shows. */
export interface ViewState {
  source: 'run' | 'permalink' | 'history';
  shared: SharedRun;
  historyId?: string;
  /** Host seconds the run took (runs of this page only). */
  hostSeconds?: number;
}

export interface LabState {
  machine: {
    phase: MachinePhase;
    loaded: number;
    total: number | null;
    message: string | null;
    imageBytes: number | null;
    compressedBytes: number | null;
    wasmMs: number | null;
    imageMs: number | null;
    /** VAX instructions per host second, measured in the worker (0 when idle). */
    ips: number;
  };
  bsd42: { available: boolean; reason: string };
  form: FormState;
  filter: string;
  tab: 'lab' | 'terminal';
  run: RunState | null;
  view: ViewState | null;
  permalinkError: string | null;
  share: { url: string | null; busy: boolean; message: string | null };
  history: { entries: HistoryEntry[]; error: string | null };
  /** Runs finished in this page, newest first (SESSION_RUNS at most): what "Compare with…" offers besides the history. */
  sessionRuns: SessionRun[];
  /** The run the shown one (B) is compared with (A), or null: Results then shows both. */
  comparison: RunRef | null;
  counters: { selected: string[] | null; row: number | null };
  terminal: { phase: TerminalPhase; realtime: boolean; message: string | null; virtualSeconds: number; started: boolean };
  theme: Theme;
}

const IMAGE_BASE = `${import.meta.env.BASE_URL}images/`;
/** How often worker messages are applied to the state (ms). */
const INBOX_MS = 80;
/** How many of this page's runs "Compare with…" offers. */
const SESSION_RUNS = 10;
export const BSD42_MISSING = '4.2BSD distribution files are not present (../shared/bsd/4.2BSD)';
/** What the experiment console says before the first run (dim; short lines, for a narrow console). */
const IDLE_CONSOLE = '\x1b[2mThe machine’s console appears here\r\nwhile an experiment runs: the boot,\r\n' +
  'the shell, the timed command.\r\nPick an experiment and press Run.\x1b[0m\r\n';
const SHARED_CONSOLE = '\x1b[2mA recorded run is shown: its console\r\noutput is not kept with it. Press\r\n' +
  'Run again to run it here and watch.\x1b[0m\r\n';

/** What window.__vaxlab.stats() returns (scripts/bench-web.ts). */
export interface LabStats {
  /** VAX instructions per host second over the worker's last second (0 when nothing runs). */
  instructionsPerSecond: number;
  /** 'running' while an experiment runs, else the machine's phase ('ready', 'loading-image', ...). */
  state: string;
  machine: MachinePhase;
  run: RunState['status'] | null;
  terminal: TerminalPhase;
}

function absolute(path: string): string {
  return new URL(path, location.href).href;
}

export class LabController {
  readonly store: Store<LabState>;
  /** The experiment console (the current run's output). */
  readonly console = new TextStream();
  /** The Terminal tab's output. */
  readonly terminalOutput = new TextStream();

  private worker: Worker | null = null;
  /** The last run of this page, to go back to when a shared run is closed. */
  private lastRunView: ViewState | null = null;
  private nextRunId = 1;
  private hostTimer: ReturnType<typeof setInterval> | null = null;
  private runStartedAt = 0;

  constructor() {
    this.store = new Store<LabState>({
      machine: {
        phase: 'starting', loaded: 0, total: null, message: null, imageBytes: null, compressedBytes: null,
        wasmMs: null, imageMs: null, ips: 0,
      },
      bsd42: { available: false, reason: BSD42_MISSING },
      form: initialForm(),
      filter: '',
      tab: 'lab',
      run: null,
      view: null,
      permalinkError: null,
      share: { url: null, busy: false, message: null },
      history: { entries: [], error: null },
      sessionRuns: [],
      comparison: null,
      counters: { selected: null, row: null },
      terminal: { phase: 'off', realtime: true, message: null, virtualSeconds: 0, started: false },
      theme: initialTheme(),
    });
  }

  get state(): LabState {
    return this.store.get();
  }

  /** Starts the worker, reads the URL's permalink and the history. */
  start(): void {
    applyTheme(this.state.theme);
    this.console.reset(IDLE_CONSOLE);
    this.startWorker();
    void this.checkBsd42();
    void this.refreshHistory();
    void this.openFromLocation();
    addEventListener('hashchange', () => void this.openFromLocation());
  }

  private startWorker(): void {
    let worker: Worker;
    try {
      worker = new Worker(new URL('../worker/labWorker.ts', import.meta.url), { type: 'module', name: 'vaxlab' });
    } catch (e) {
      this.setMachine({ phase: 'error', message: `The worker did not start: ${String(e)}` });
      return;
    }
    this.worker = worker;
    worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    worker.onerror = (e: ErrorEvent) => {
      this.setMachine({ phase: 'error', message: `The emulator worker failed: ${e.message || 'see the browser console'}` });
      this.failRun(e.message || 'the worker failed');
    };
    // The first loads now; 4.2BSD only if chosen (and the form offers it only when its manifest is there).
    const images: ImageRef[] = [
      { kernel: '4.3BSD', manifestUrl: absolute(`${IMAGE_BASE}43bsd.json`) },
      { kernel: '4.2BSD', manifestUrl: absolute(`${IMAGE_BASE}42bsd.json`) },
    ];
    this.post({ type: 'init', images });
    this.setMachine({ phase: 'loading-emulator' });
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private setMachine(patch: Partial<LabState['machine']>): void {
    this.store.update((s) => ({ machine: { ...s.machine, ...patch } }));
  }

  /** 4.2BSD is offered only when its image's manifest is there. */
  private async checkBsd42(): Promise<void> {
    try {
      const r = await fetch(`${IMAGE_BASE}42bsd.json`, { cache: 'no-store' });
      const type = r.headers.get('content-type') ?? '';
      if (!r.ok || !type.includes('json')) return;
      const manifest = (await r.json()) as { name?: unknown };
      if (manifest && typeof manifest === 'object' && manifest.name) {
        this.store.update({ bsd42: { available: true, reason: '' } });
      }
    } catch {
      // Not there: stays disabled.
    }
  }

  // ---------------------------------------------------------- worker messages

  private inbox: FromWorker[] = [];
  private inboxTimer: ReturnType<typeof setTimeout> | null = null;

  /** Console text goes to its stream at once; everything that changes the
   *  state is applied in batches, at most every INBOX_MS, so a fast run does
   *  not re-render the page for each of its messages. */
  private receive(m: FromWorker): void {
    if (m.type === 'terminal-output') return this.terminalOutput.append(m.text);
    if (m.type === 'run-console') {
      if (this.state.run?.runId === m.runId) this.console.append(m.text);
      return;
    }
    this.inbox.push(m);
    if (this.inboxTimer === null) this.inboxTimer = setTimeout(() => this.drain(), INBOX_MS);
  }

  private drain(): void {
    this.inboxTimer = null;
    const messages = this.inbox.splice(0);
    this.store.batch(() => {
      for (const m of messages) this.onWorkerMessage(m);
    });
  }

  private onWorkerMessage(m: FromWorker): void {
    switch (m.type) {
      case 'loading':
        if (m.kernel !== '4.3BSD') return;
        this.setMachine({
          phase: m.phase === 'emulator' ? 'loading-emulator' : m.phase === 'verify' ? 'verifying' : 'loading-image',
          loaded: m.loaded,
          total: m.total,
        });
        return;
      case 'ready':
        if (m.kernel !== '4.3BSD') return;
        this.setMachine({
          phase: 'ready', imageBytes: m.image.bytes, compressedBytes: m.image.compressedBytes, wasmMs: m.wasmMs,
          imageMs: m.imageMs, loaded: m.image.bytes, total: m.image.bytes, message: null,
        });
        return;
      case 'fatal':
        this.setMachine({ phase: 'error', message: m.message });
        return;
      case 'speed':
        this.setMachine({ ips: m.instructionsPerSecond });
        return;
      case 'run-started':
        this.patchRun(m.runId, () => ({ status: 'running' }));
        return;
      case 'run-console':
        if (this.state.run?.runId === m.runId) this.console.append(m.text);
        return;
      case 'run-sample':
        this.patchRun(m.runId, (r) => {
          r.samples.push(m.sample);
          return { samplesVersion: r.samplesVersion + 1 };
        });
        return;
      case 'run-progress':
        this.patchRun(m.runId, () => ({ progress: m.progress }));
        return;
      case 'run-done':
        this.finishRun(m.runId, m.result, m.hostSeconds);
        return;
      case 'run-error':
        if (this.state.run?.runId !== m.runId) return;
        this.console.append(`\r\n\x1b[31mThe run could not go on: ${m.message}\x1b[0m\r\n`);
        this.failRun(m.message);
        return;
      case 'terminal-output':
        this.terminalOutput.append(m.text);
        return;
      case 'terminal-status':
        this.store.update((s) => ({
          terminal: { ...s.terminal, phase: m.phase, message: m.message ?? null, virtualSeconds: m.virtualSeconds, realtime: m.realtime },
        }));
        return;
    }
  }

  private patchRun(runId: number, f: (r: RunState) => Partial<RunState>): void {
    const run = this.state.run;
    if (!run || run.runId !== runId) return;
    this.store.update({ run: { ...run, ...f(run) } });
  }

  // ---------------------------------------------------------- the form

  selectExperiment(id: string): void {
    if (!experimentById(id)) return;
    this.store.update((s) => ({ form: { ...s.form, experimentId: id } }));
  }

  setFilter(filter: string): void {
    this.store.update({ filter });
  }

  setParameter(name: string, raw: string): void {
    this.store.update((s) => {
      const id = s.form.experimentId;
      return { form: { ...s.form, params: { ...s.form.params, [id]: { ...s.form.params[id], [name]: raw } } } };
    });
  }

  setKernelToggle(name: string, raw: string): void {
    this.store.update((s) => ({ form: { ...s.form, kernelToggles: { ...s.form.kernelToggles, [name]: raw } } }));
  }

  setCpu(raw: string): void {
    this.store.update((s) => ({ form: { ...s.form, cpu: raw } }));
  }

  setMemory(raw: string): void {
    this.store.update((s) => ({ form: { ...s.form, memoryMB: raw } }));
  }

  /** The disk's timing by name (rp06, eagle, ideal). */
  setDisk(raw: string): void {
    this.store.update((s) => ({ form: { ...s.form, disk: raw } }));
  }

  setKernel(kernel: KernelName): void {
    if (kernel === '4.2BSD' && !this.state.bsd42.available) return;
    this.store.update((s) => ({ form: { ...s.form, kernel } }));
  }

  /** Back to the paper's settings: the experiment's parameters and machine, the kernel's variables. */
  resetForm(): void {
    this.store.update((s) => ({
      form: { ...s.form, params: { ...s.form.params, [s.form.experimentId]: {} }, kernelToggles: {}, cpu: null, memoryMB: null, disk: null },
    }));
  }

  // ---------------------------------------------------------- runs

  get running(): boolean {
    const r = this.state.run;
    return r !== null && (r.status === 'starting' || r.status === 'running' || r.status === 'stopping');
  }

  canRun(): boolean {
    return this.state.machine.phase === 'ready' && !this.running && checkForm(this.state.form).settings !== null;
  }

  run(): void {
    if (this.running || this.state.machine.phase !== 'ready') return;
    const { form } = this.state;
    const { settings } = checkForm(form);
    if (!settings) return;
    const runId = this.nextRunId++;
    this.clearHash();
    this.console.reset();
    const disk = settings.disk ? `, ${settings.disk} disk timing` : '';
    this.console.append(`\x1b[1m${form.experimentId}\x1b[0m on a VAX-11/${settings.cpu} model, ${settings.memoryMB} MB${disk}, ${form.kernel}\r\n`);
    this.store.update({
      run: {
        runId, experiment: form.experimentId, kernel: form.kernel, settings, status: 'starting', progress: null,
        hostSeconds: 0, samples: [], samplesVersion: 0, result: null, error: null,
      },
      view: null,
      permalinkError: null,
      share: { url: null, busy: false, message: null },
      counters: { ...this.state.counters, row: null },
    });
    this.runStartedAt = performance.now();
    this.startHostTimer();
    this.post({
      type: 'run',
      runId,
      experiment: form.experimentId,
      config: {
        kernel: form.kernel, cpu: settings.cpu, memoryMB: settings.memoryMB, set: settings.set, parameters: settings.parameters,
        ...(settings.disk ? { disk: settings.disk } : {}),
      },
    });
  }

  stop(): void {
    const run = this.state.run;
    if (!run || !this.running) return;
    this.post({ type: 'stop', runId: run.runId });
    this.patchRun(run.runId, () => ({ status: 'stopping' }));
  }

  private startHostTimer(): void {
    this.stopHostTimer();
    this.hostTimer = setInterval(() => {
      const run = this.state.run;
      if (!run || !this.running) return this.stopHostTimer();
      this.patchRun(run.runId, () => ({ hostSeconds: (performance.now() - this.runStartedAt) / 1000 }));
    }, 250);
  }

  private stopHostTimer(): void {
    if (this.hostTimer !== null) clearInterval(this.hostTimer);
    this.hostTimer = null;
  }

  private finishRun(runId: number, result: ExperimentResult, hostSeconds: number): void {
    const run = this.state.run;
    if (!run || run.runId !== runId) return;
    this.stopHostTimer();
    const shared: SharedRun = {
      experiment: run.experiment,
      config: {
        cpu: run.settings.cpu, memoryMB: run.settings.memoryMB, set: run.settings.set, parameters: result.parameters,
        ...(run.settings.disk ? { disk: run.settings.disk } : {}),
      },
      result,
    };
    const stopped = result.rows.some((r) => r.failure?.kind === 'stopped');
    this.console.append(`\r\n\x1b[1m${result.status === 'ok' ? 'Done' : stopped ? 'Stopped' : 'Finished with a failure'}\x1b[0m in ${hostSeconds.toFixed(1)} s of host time.\r\n`);
    const view: ViewState = { source: 'run', shared, hostSeconds };
    this.lastRunView = view;
    // A shared run opened while this one ran stays on screen.
    const showing = this.state.view;
    this.store.update((s) => ({
      run: { ...run, status: 'done', result, hostSeconds },
      view: showing && showing.source !== 'run' ? showing : view,
      sessionRuns: [{ shared, at: new Date().toISOString() }, ...s.sessionRuns].slice(0, SESSION_RUNS),
    }));
    void this.save(shared);
  }

  private failRun(message: string): void {
    const run = this.state.run;
    if (!run || !this.running) return;
    this.stopHostTimer();
    this.store.update({ run: { ...run, status: 'error', error: message } });
  }

  // ---------------------------------------------------------- charts

  setCounterSelection(selected: string[]): void {
    this.store.update((s) => ({ counters: { ...s.counters, selected } }));
  }

  setCounterRow(row: number | null): void {
    this.store.update((s) => ({ counters: { ...s.counters, row } }));
  }

  // ---------------------------------------------------------- sharing and history

  async copyPermalink(): Promise<void> {
    const view = this.state.view;
    if (!view) return;
    this.store.update({ share: { url: null, busy: true, message: null } });
    try {
      const fragment = await encodePermalink(view.shared);
      const url = `${location.origin}${location.pathname}${location.search}#r=${fragment}`;
      history.replaceState(null, '', url);
      let message = 'Copied to the clipboard.';
      try {
        await navigator.clipboard.writeText(url);
      } catch {
        message = 'Select the link and copy it (the clipboard was not available).';
      }
      this.store.update({ share: { url, busy: false, message } });
    } catch (e) {
      this.store.update({ share: { url: null, busy: false, message: `No link: ${e instanceof Error ? e.message : String(e)}` } });
    }
  }

  private clearHash(): void {
    if (location.hash) history.replaceState(null, '', `${location.pathname}${location.search}`);
  }

  private async openFromLocation(): Promise<void> {
    const hash = location.hash;
    if (!hash.startsWith('#r=')) return;
    try {
      const shared = await decodePermalink(hash.slice(3));
      this.openShared({ source: 'permalink', shared });
    } catch (e) {
      const message = e instanceof PermalinkError
        ? e.message
        : `This link could not be read (${e instanceof Error ? e.message : String(e)}).`;
      this.store.update({ permalinkError: message });
    }
  }

  /** Closes a shared or history run: back to this page's last run, if any. */
  closeView(): void {
    if (!this.state.view || this.state.view.source === 'run') return;
    this.clearHash();
    this.store.update({ view: this.running ? null : this.lastRunView, share: { url: null, busy: false, message: null }, counters: { ...this.state.counters, row: null } });
    if (!this.state.run) this.console.reset(IDLE_CONSOLE);
  }

  /** For scripts/bench-web.ts and the console: the worker's speed and what the page is doing. */
  stats(): LabStats {
    const s = this.state;
    return {
      instructionsPerSecond: s.machine.ips,
      state: this.running ? 'running' : s.machine.phase,
      machine: s.machine.phase,
      run: s.run?.status ?? null,
      terminal: s.terminal.phase,
    };
  }

  dismissPermalinkError(): void {
    this.store.update({ permalinkError: null });
    this.clearHash();
  }

  private openShared(view: ViewState): void {
    const { shared } = view;
    const known = experimentById(shared.experiment) !== undefined;
    if (!this.state.run) this.console.reset(SHARED_CONSOLE);
    this.store.update((s) => ({
      view,
      permalinkError: null,
      share: { url: view.source === 'permalink' ? location.href : null, busy: false, message: null },
      counters: { ...s.counters, row: null },
      form: known && !this.running ? formFor(shared.experiment, shared.config, s.form) : s.form,
    }));
  }

  openHistory(id: string): void {
    const entry = this.state.history.entries.find((e) => e.id === id);
    if (!entry) return;
    this.clearHash();
    this.openShared({ source: 'history', shared: entry.run, historyId: entry.id });
  }

  /** Runs the shown permalink/history run again with its settings. */
  runAgain(): void {
    const view = this.state.view;
    if (!view || this.running) return;
    if (!experimentById(view.shared.experiment)) {
      this.store.update({ permalinkError: `This lab has no experiment "${view.shared.experiment}".` });
      return;
    }
    this.store.update((s) => ({ form: formFor(view.shared.experiment, view.shared.config, s.form) }));
    this.run();
  }

  private async save(shared: SharedRun): Promise<void> {
    try {
      await saveRun(shared);
      await this.refreshHistory();
    } catch (e) {
      this.store.update((s) => ({ history: { ...s.history, error: `Not saved in this browser: ${e instanceof Error ? e.message : String(e)}` } }));
    }
  }

  async refreshHistory(): Promise<void> {
    try {
      const entries = await listRuns();
      this.store.update({ history: { entries, error: null } });
    } catch (e) {
      this.store.update((s) => ({ history: { ...s.history, error: `History unavailable: ${e instanceof Error ? e.message : String(e)}` } }));
    }
  }

  // ---------------------------------------------------------- comparing two runs

  /** Compares the shown run (B) with this one (A); it stays A while other runs are shown, until cleared. */
  compareWith(ref: RunRef): void {
    this.store.update({ comparison: ref });
  }

  compareWithHistory(id: string): void {
    const entry = this.state.history.entries.find((e) => e.id === id);
    if (entry) this.compareWith({ shared: entry.run, source: 'history', at: entry.savedAt, historyId: entry.id });
  }

  clearComparison(): void {
    this.store.update({ comparison: null });
  }

  async deleteHistory(id: string): Promise<void> {
    try {
      await deleteRun(id);
    } finally {
      await this.refreshHistory();
    }
  }

  // ---------------------------------------------------------- tabs, theme, terminal

  setTab(tab: 'lab' | 'terminal'): void {
    this.store.update({ tab });
    if (tab === 'terminal' && !this.state.terminal.started) this.startTerminal();
  }

  setTheme(theme: Theme): void {
    applyTheme(theme);
    saveTheme(theme);
    this.store.update({ theme });
  }

  toggleTheme(): void {
    this.setTheme(this.state.theme === 'dark' ? 'light' : 'dark');
  }

  startTerminal(): void {
    this.terminalOutput.reset();
    const realtime = this.state.terminal.realtime;
    this.store.update((s) => ({ terminal: { ...s.terminal, phase: 'booting', message: null, started: true, virtualSeconds: 0 } }));
    this.post({ type: 'terminal-start', cpu: '780', memoryMB: 8, realtime });
  }

  stopTerminal(): void {
    this.post({ type: 'terminal-stop' });
  }

  terminalInput(text: string): void {
    this.post({ type: 'terminal-input', text });
  }

  setTerminalRealtime(realtime: boolean): void {
    this.store.update((s) => ({ terminal: { ...s.terminal, realtime } }));
    this.post({ type: 'terminal-speed', realtime });
  }
}
