// The lab page's parts, put together: the worker (state/workerLink.ts), the
// form (state/form.ts), the run (state/runs.ts), what Results shows and
// sharing it (state/shown.ts), the history (state/runHistory.ts), the
// comparison (state/comparison.ts), the Terminal tab (state/terminal.ts),
// the tab, theme and counter choice (state/ui.ts), the charts to export
// (charts/handles.ts), and sweeps on the pool of workers (state/sweeps.ts,
// pool.ts), which also takes a multi-step run when several workers are asked
// for.  Each part keeps its state in atoms that components subscribe to; what
// involves several parts (running, opening a shared run or a comparison, the
// address, keeping a run in the history as it goes) is here.  No React.

import { startLabWorker, type EarlyWorker } from '../earlyWorker';
import { fragmentFor, readFragment } from './address';
import { checkForm, experimentById } from './config';
import { ChartHandles } from './charts/handles';
import { compareBlocker, type RunRef } from './compare';
import { deleteRun, listRuns, saveRun } from './history';
import type { LinkPayload } from './permalink';
import { Atom, batch } from './state/atom';
import { Comparison } from './state/comparison';
import { Form } from './state/form';
import { broadcastChannel, RunHistory, type HistoryChannel, type HistoryStore } from './state/runHistory';
import { Runs, type RunState } from './state/runs';
import { browserAddress, Shown, type PageAddress, type ViewState } from './state/shown';
import { Terminal } from './state/terminal';
import { Ui, type Tab } from './state/ui';
import { WorkerLink, type MachinePhase } from './state/workerLink';
import { DEFAULT_RATE, loadRate, measuredRate, saveRate } from './status';
import { Sweeps } from './state/sweeps';
import { WorkerPool } from './pool';
import { deleteSweep, listSweeps, saveSweep } from './sweepHistory';
import { applyTheme, saveTheme, type Theme } from './theme';
import type { FromWorker, KernelName, TerminalPhase, ToWorker } from '../worker/protocol';

export const BSD42_MISSING = 'this lab has no 4.2BSD disk image (its distribution files were not there when the images were built)';

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

export interface LabOptions {
  /** Where the disk images and their manifests are (the page's images/). */
  imageBase: string;
  address: PageAddress;
  /** Where runs are kept (the browser's IndexedDB), and how the page's tabs tell each other of changes. */
  store?: HistoryStore;
  channel?: HistoryChannel | null;
  /** Where the measured speed is kept between visits (localStorage). */
  storage?: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** The lab worker, started (and told to load) before the page's code (earlyWorker.ts); else start() starts it. */
  started?: { early: EarlyWorker | null; error: string | null };
}

export class LabController {
  readonly link = new WorkerLink();
  readonly form = new Form();
  // A run goes to the worker, or to the pool when it runs its steps (or a step's seeds) on several workers.
  readonly runs = new Runs({ post: (m) => this.routeRun(m) });
  readonly pool = new WorkerPool();
  readonly sweeps = new Sweeps(this.pool, (m) => this.link.post(m), this.runs.console, { saveSweep, listSweeps, deleteSweep });
  readonly shown: Shown;
  readonly history: RunHistory;
  readonly comparison = new Comparison();
  readonly terminal = new Terminal(this.link);
  readonly ui = new Ui();
  readonly charts = new ChartHandles();
  /** Whether 4.2BSD can be chosen: only when its image's manifest is there. */
  readonly bsd42 = new Atom<{ available: boolean; reason: string }>({ available: false, reason: BSD42_MISSING });
  /** What the last "Run again" could not take from the run it repeated (adoptShared), said until the next Run. */
  readonly runAgainNote = new Atom<{ dropped: string[]; notRun: string | null } | null>(null);
  /** How fast this computer runs the machine (status.ts measuredRate): instructions per host second, its runs' fixed
   *  work counted. */
  readonly speed: Atom<{ instructionsPerSecond: number; measured: boolean }>;

  private readonly address: PageAddress;
  /** The history entry the current run is kept in (null until its first save, or without a history). */
  private runEntry: Promise<string | null> | null = null;
  /** Not written while it is being read (at start, on hashchange). */
  private readingAddress = false;

  constructor(private readonly options: LabOptions = {
    imageBase: `${import.meta.env.BASE_URL}images/`, address: browserAddress(),
  }) {
    this.address = options.address;
    this.shown = new Shown();
    this.history = new RunHistory(options.store ?? { listRuns, saveRun, deleteRun }, options.channel ?? null);
    const stored = loadRate(options.storage ?? null);
    this.speed = new Atom(stored ? { instructionsPerSecond: stored, measured: true } : { instructionsPerSecond: DEFAULT_RATE, measured: false });
    this.link.onText((m) => {
      this.runs.text(m);
      this.terminal.text(m);
    });
    this.link.onMessage((m) => {
      this.runs.handle(m);
      this.terminal.handle(m);
      this.sweeps.handle(m);
    });
    // A run is kept in the history from its start, row by row, marked interrupted until it ends.
    this.runs.onPartial((shared) => {
      const previous = this.runEntry ?? Promise.resolve(null);
      this.runEntry = previous.then((id) => this.history.keep(shared, id, true));
    });
    this.runs.onFinished((shared, hostSeconds) => {
      this.shown.runFinished(shared, hostSeconds);
      const previous = this.runEntry ?? Promise.resolve(null);
      this.runEntry = null;
      void previous.then((id) => this.history.keep(shared, id, false));
      // A run spread over the pool's workers took less than one worker's time for its work: its rate is not the one
      // worker's that the estimate is for, so it is not kept.
      // (The pool still owns the run here: Sweeps.runParallel lets it go only after its run-done is handled.)
      const pooled = this.sweeps.ownsRun(this.runs.run.get()?.runId ?? -1);
      const rate = pooled ? null : measuredRate(shared.result, hostSeconds);
      if (rate !== null) {
        this.speed.set({ instructionsPerSecond: rate, measured: true });
        saveRate(options.storage ?? null, rate);
      }
    });
    this.runs.onFailed(() => {
      const previous = this.runEntry;
      this.runEntry = null;
      void previous?.then((id) => id && this.history.abandon(id));
    });
    // The address follows the form and the link shown; a comparison that no longer applies is let go.
    this.form.form.subscribe(() => this.syncAddress());
    this.shown.link.subscribe(() => this.syncAddress());
    this.sweeps.shown.subscribe(() => this.syncAddress());
    this.shown.view.subscribe(() => {
      const view = this.shown.view.get();
      const against = this.comparison.against.get();
      if (view && against && compareBlocker(view.shared, against.shared) !== null) this.comparison.clear();
    });
  }

  /** Starts the worker, reads the address (settings and permalink) and the history. */
  start(): void {
    applyTheme(this.ui.theme.get());
    this.runs.console.reset(IDLE_CONSOLE);
    this.startWorker();
    void this.checkBsd42();
    void this.history.refresh();
    void this.sweeps.refresh();
    void this.openFromAddress();
    addEventListener('hashchange', () => void this.openFromAddress());
    // Leaving the page during a run loses what the current row has done: the browser asks first.
    addEventListener('beforeunload', (e) => {
      if (!this.running) return;
      e.preventDefault();
      e.returnValue = '';
    });
  }

  private startWorker(): void {
    // Started by the page's entry already, as a rule (its first image loading since); else now.
    const { early, error } = this.options.started ?? startLabWorker(this.options.imageBase);
    if (!early) {
      this.link.fail(error ?? 'The worker did not start');
      return;
    }
    early.worker.onerror = (e: ErrorEvent) => {
      this.link.fail(`The emulator worker failed: ${e.message || 'see the browser console'}`);
      this.runs.fail(e.message || 'the worker failed');
    };
    this.link.connect(early, early.images, { initSent: true });
  }

  private async checkBsd42(): Promise<void> {
    try {
      const r = await fetch(`${this.options.imageBase}42bsd.json`, { cache: 'no-store' });
      const type = r.headers.get('content-type') ?? '';
      if (!r.ok || !type.includes('json')) return;
      const manifest = (await r.json()) as { name?: unknown };
      if (manifest && typeof manifest === 'object' && manifest.name) this.bsd42.set({ available: true, reason: '' });
    } catch {
      // Not there: stays disabled.
    }
  }

  // ---------------------------------------------------------- the address

  /** The page's address: the form's settings, and the permalink when one is shown (address.ts). */
  currentUrl(link = this.shown.link.get() ?? this.sweeps.shown.get()?.link ?? null): string {
    return `${this.address.base()}${fragmentFor(this.form.form.get(), link)}`;
  }

  private syncAddress(): void {
    if (this.readingAddress) return;
    const url = this.currentUrl();
    if (url !== `${this.address.base()}${this.address.hash()}`) this.address.replace(url);
  }

  /** Reads the address: the settings it names go into the form, a permalink's run (or comparison) is shown. */
  async openFromAddress(): Promise<void> {
    const contents = readFragment(this.address.hash());
    this.readingAddress = true;
    // What was wrong with the address read before (another one typed into this tab) is not this one's.
    this.shown.permalinkError.set(null);
    try {
      const payload = contents.link ? await this.shown.read(contents.link) : null;
      batch(() => {
        if (payload) this.openPayload(payload, contents.link!);
        // The address's own settings after the link's: they are what the page was set to.
        if (contents.form && !this.running) this.form.form.update(contents.form);
        if (contents.problems.length && !this.shown.permalinkError.get()) this.shown.permalinkError.set(contents.problems.join(' '));
      });
    } finally {
      this.readingAddress = false;
    }
    this.syncAddress();
  }

  private openPayload(payload: LinkPayload, link: string): void {
    if (payload.kind === 'sweep') {
      // The address now names the sweep, not a run shown before it.
      this.shown.link.set(null);
      this.sweeps.openShared(payload.sweep, payload.omitted, link);
      return;
    }
    if (payload.kind === 'run') {
      this.shown.rememberLinkRuns([payload.run]);
      this.openShared({ source: 'permalink', shared: payload.run }, link);
      return;
    }
    this.shown.rememberLinkRuns([payload.a, payload.b]);
    this.openShared({ source: 'permalink', shared: payload.b }, link);
    this.comparison.compareWith({ shared: payload.a, source: 'permalink', at: payload.a.ranAt });
  }

  // ---------------------------------------------------------- runs

  get running(): boolean {
    return this.runs.running || this.sweeps.running;
  }

  /** A run's messages to the worker: a run of several units (steps, or one step's seeds) with several workers asked
   *  for goes to the pool instead. */
  private routeRun(m: ToWorker): void {
    const emit = (reply: FromWorker) => (reply.type === 'run-console' ? this.runs.text(reply) : this.runs.handle(reply));
    if (m.type === 'run' && this.sweeps.parallelFor(m.experiment, m.config.spinSeeds) !== null) this.sweeps.runParallel(m.runId, m.experiment, m.config, emit);
    else if (m.type === 'stop' && this.sweeps.ownsRun(m.runId)) this.sweeps.stop();
    else this.link.post(m);
  }

  /** Runs the sweep the Sweep panel describes over the experiment and settings of the form (its chart and table
   *  then on `measure`, a MEASURES id, or the sweep's default). */
  runSweep(measure: string | null = null): void {
    if (this.running || this.link.machine.get().phase !== 'ready') return;
    this.ui.setCounterWorker(null);
    this.sweeps.start(this.form.form.get(), measure);
  }

  /** Sweeps an experiment over one setting's values: the Sweep panel's form set to them (the experiment's own
   *  settings otherwise, as "Run as the paper ran it" sets them), its chart and table on `measure` (a MEASURES id;
   *  null: the sweep's default), each step with `seeds` seeds when given (else the form's), then run. */
  sweepSettingOf(experimentId: string, setting: string, values: readonly number[], measure: string | null = null,
    seeds: number | null = null): void {
    if (this.running || this.link.machine.get().phase !== 'ready' || !experimentById(experimentId)) return;
    batch(() => {
      this.form.select(experimentId);
      this.form.reset();
      if (seeds !== null) this.form.setSeeds(seeds > 1 ? String(seeds) : '');
      this.sweeps.form.update((f) => ({ ...f, axes: [{ setting, values: values.join(',') }, { setting: '', values: '' }] }));
    });
    this.runSweep(measure);
  }

  canRun(): boolean {
    return this.link.machine.get().phase === 'ready' && !this.running && checkForm(this.form.form.get()).settings !== null;
  }

  /** Runs the experiment as the form says. */
  run(): void {
    if (this.running || this.link.machine.get().phase !== 'ready') return;
    this.runAgainNote.set(null);
    const form = this.form.form.get();
    const { settings } = checkForm(form);
    if (!settings) return;
    batch(() => {
      this.shown.runStarted();
      this.ui.counters.patch({ row: null, worker: null });
      this.runEntry = null;
      this.runs.start(form.experimentId, form.kernel, settings, form.profile);
    });
  }

  /** Runs an experiment as the paper ran it (its machine, its own kernel — Table 2's the paper's, Tables 7 and 8's
   *  like-4.2, the others /vmunix — and its own counts): for "How close are we?". */
  runAsThePaperRan(experimentId: string): void {
    if (this.running || !experimentById(experimentId)) return;
    batch(() => {
      this.form.select(experimentId);
      this.form.reset();
    });
    this.run();
  }

  stop(): void {
    this.runs.stop();
    this.sweeps.stop();
  }

  setKernel(kernel: KernelName): void {
    if (kernel === '4.2BSD' && !this.bsd42.get().available) return;
    this.form.setKernel(kernel);
  }

  // ---------------------------------------------------------- shared runs

  private openShared(view: ViewState, link: string | null = null): void {
    if (!this.runs.run.get()) this.runs.console.reset(SHARED_CONSOLE);
    batch(() => {
      this.shown.open(view, link);
      this.ui.setCounterRow(null);
      if (experimentById(view.shared.experiment) !== undefined && !this.running) this.form.adopt(view.shared);
    });
  }

  openHistory(id: string): void {
    const entry = this.history.entry(id);
    if (!entry) return;
    this.openShared({ source: 'history', shared: entry.run, historyId: entry.id });
  }

  /** Closes a shared or history run: back to this page's last run, if any. */
  closeView(): void {
    if (!this.shown.close(this.running)) return;
    this.ui.setCounterRow(null);
    if (!this.runs.run.get()) this.runs.console.reset(IDLE_CONSOLE);
  }

  /** Runs the shown permalink/history run again with its settings. */
  runAgain(): void {
    const view = this.shown.view.get();
    if (!view || this.running) return;
    if (!experimentById(view.shared.experiment)) {
      this.shown.permalinkError.set(`This lab has no experiment "${view.shared.experiment}".`);
      return;
    }
    const dropped = this.form.adopt(view.shared);
    const check = checkForm(this.form.form.get());
    if (!check.settings) {
      // Its settings are outside this lab's ranges: nothing runs, and the page says why (never a silent no-op).
      const why = [...Object.entries(check.errors).map(([id, m]) => `${id.replace(/^(param|toggle)-/, '')}: ${m}`), ...check.problems];
      this.runAgainNote.set({ dropped, notRun: `Not run: ${why.join('; ')}.` });
      return;
    }
    this.run();
    if (dropped.length) {
      this.runAgainNote.set({ dropped, notRun: null });
      this.runs.console.note(`\x1b[33mRun again left out what this lab cannot set: ${dropped.join('; ')}\x1b[0m\r\n`);
    }
  }

  /** Compares the shown run (B) with this entry of the history (A). */
  compareWithHistory(id: string): void {
    const entry = this.history.entry(id);
    if (entry) this.comparison.compareWithHistory(entry);
  }

  /** A and B change places: A is shown (and is B), the run shown becomes A. */
  swapComparison(): void {
    const view = this.shown.view.get();
    const against = this.comparison.against.get();
    if (!view || !against) return;
    const wasShown: RunRef = this.shown.shownRef(view.historyId ? this.history.entry(view.historyId)?.savedAt : undefined)!;
    batch(() => {
      const source = against.source === 'session' ? 'run' : against.source;
      this.shown.open({
        source, shared: against.shared, ...(against.historyId ? { historyId: against.historyId } : {}),
      }, null);
      this.comparison.compareWith(wasShown);
      this.ui.setCounterRow(null);
    });
  }

  /** The permalink of what Results shows: the run, or it and the run it is compared with (A and B). */
  async copyPermalink(): Promise<void> {
    const view = this.shown.view.get();
    if (!view || this.shown.share.get().busy) return;
    const against = this.comparison.against.get();
    const payload: LinkPayload = against && compareBlocker(view.shared, against.shared) === null
      ? { kind: 'comparison', a: against.shared, b: view.shared }
      : { kind: 'run', run: view.shared };
    await this.shown.makeLink(payload, (link) => this.currentUrl(link), (text) => this.address.copy(text));
  }

  /** The sweep shown, as a permalink: into the address and onto the clipboard. */
  async copySweepLink(): Promise<void> {
    await this.sweeps.makeLink((link) => this.currentUrl(link), (text) => this.address.copy(text));
  }

  // ---------------------------------------------------------- tabs, theme

  setTab(tab: Tab): void {
    this.ui.tab.set(tab);
    if (tab === 'terminal' && !this.terminal.state.get().started) this.terminal.start();
  }

  setTheme(theme: Theme): void {
    applyTheme(theme);
    saveTheme(theme);
    this.ui.theme.set(theme);
  }

  toggleTheme(): void {
    this.setTheme(this.ui.theme.get() === 'dark' ? 'light' : 'dark');
  }

  /** For scripts/bench-web.ts and the console: the worker's speed and what the page is doing. */
  stats(): LabStats {
    const m = this.link.machine.get();
    return {
      instructionsPerSecond: m.ips,
      state: this.running ? 'running' : m.phase,
      machine: m.phase,
      run: this.runs.run.get()?.status ?? null,
      terminal: this.terminal.state.get().phase,
    };
  }
}

/** The controller the page runs: the browser's address, history and the channel between its tabs. */
export function browserLab(started?: LabOptions['started']): LabController {
  let storage: Storage | null = null;
  try {
    storage = localStorage;
  } catch {
    // Storage blocked: the speed is not kept.
  }
  return new LabController({
    imageBase: `${import.meta.env.BASE_URL}images/`, address: browserAddress(), channel: broadcastChannel(), storage, started,
  });
}
