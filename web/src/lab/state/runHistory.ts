// The history's entries as the page shows them: runs kept in the browser
// (history.ts, IndexedDB), refreshed after each change, with the reason when
// the browser keeps none.  A run is kept from its start, row by row, marked
// interrupted until it ends, so a reload or a closed tab leaves what it had
// done.  Other tabs of the page hear of every change (and of which runs are
// still going) on a broadcast channel and refresh.

import type { HistoryEntry } from '../history';
import type { SharedRun } from '../permalink';
import { Atom, ObjectAtom } from './atom';

/** Where runs are kept (history.ts in the browser). */
export interface HistoryStore {
  listRuns(): Promise<HistoryEntry[]>;
  saveRun(run: SharedRun, options?: { id?: string; interrupted?: boolean }): Promise<HistoryEntry>;
  deleteRun(id: string): Promise<void>;
}

/** What the tabs of the page tell each other (a BroadcastChannel in the browser). */
export interface HistoryChannel {
  post(message: HistoryMessage): void;
  listen(listener: (message: HistoryMessage) => void): void;
}

export type HistoryMessage =
  /** The history changed: read it again. */
  | { type: 'changed' }
  /** These entries are runs going on in the sending tab (said every HEARTBEAT_MS while they run). */
  | { type: 'running'; ids: string[] };

export interface HistoryState {
  entries: HistoryEntry[];
  error: string | null;
  /** Said when runs were dropped to keep the history within its cap (HISTORY_CAP). */
  note: string | null;
}

/** How many runs the history keeps: a new run beyond it drops the oldest (each entry may be hundreds of KB). */
export const HISTORY_CAP = 100;

/**
 * The entries to drop to keep `cap`, oldest first: never one in `keep` (a run still going, here or in
 * another tab).  entries: newest first, as listRuns gives them.
 */
export function historyOverflow(entries: readonly HistoryEntry[], cap: number, keep: ReadonlySet<string>): HistoryEntry[] {
  const over = entries.length - cap;
  if (over <= 0) return [];
  return [...entries].reverse().filter((e) => !keep.has(e.id)).slice(0, over);
}

/** How often a tab says which of its runs are going on. */
export const HEARTBEAT_MS = 2000;
/** An entry another tab has not said it is running for this long: it was cut short. */
const LIVE_FOR_MS = 3 * HEARTBEAT_MS;

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class RunHistory {
  readonly history = new ObjectAtom<HistoryState>({ entries: [], error: null, note: null });
  /** Runs dropped for the cap since the page loaded. */
  private droppedForCap = 0;
  /** Entries being run now: in this tab, or (heard on the channel) in another. */
  readonly running = new Atom<ReadonlySet<string>>(new Set());

  /** Writes, one after another (a row's update never overtakes the entry's creation). */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly mine = new Set<string>();
  private readonly others = new Map<string, number>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  /** While another tab's runs are heard of: when to look again whether it still says so. */
  private expiry: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly store: HistoryStore,
    private readonly channel: HistoryChannel | null = null,
    private readonly now: () => number = () => Date.now(),
    private readonly cap: number = HISTORY_CAP,
    /** How often another tab's runs are checked for silence (LIVE_FOR_MS). */
    private readonly checkEveryMs: number = HEARTBEAT_MS,
  ) {
    channel?.listen((m) => {
      if (m.type === 'changed') void this.refresh();
      else {
        for (const id of m.ids) this.others.set(id, this.now());
        this.updateRunning();
        this.watchOthers();
      }
    });
  }

  /**
   * A tab closed or reloaded during its run says nothing more: without a look of our own its entry would read
   * "running" here for as long as this tab is open.  So while another tab's runs are heard of, they are checked
   * every checkEveryMs, and when one has gone silent the history is read again: its entry is left interrupted, with
   * the rows the closed tab wrote last (the last of them perhaps after its last "changed").
   */
  private watchOthers(): void {
    if (this.expiry !== null || this.others.size === 0) return;
    this.expiry = setTimeout(() => {
      this.expiry = null;
      const before = this.others.size;
      this.updateRunning();
      if (this.others.size < before) void this.refresh();
      this.watchOthers();
    }, this.checkEveryMs);
  }

  entry(id: string): HistoryEntry | undefined {
    return this.history.get().entries.find((e) => e.id === id);
  }

  async refresh(): Promise<void> {
    try {
      this.history.patch({ entries: await this.store.listRuns(), error: null });
    } catch (e) {
      this.history.patch({ error: `History unavailable: ${message(e)}` });
    }
    this.updateRunning();
  }

  /** Saves a finished run as a new entry. */
  async save(shared: SharedRun): Promise<void> {
    await this.keep(shared, null, false);
  }

  /**
   * Keeps a run: as a new entry (id null) or entry `id` again, marked
   * interrupted while it is not finished.  Resolves with the entry's id
   * (null when the browser keeps no history: the error says why).
   */
  keep(shared: SharedRun, id: string | null, interrupted: boolean): Promise<string | null> {
    const write = this.queue.then(async () => {
      try {
        const entry = await this.store.saveRun(shared, { ...(id ? { id } : {}), interrupted });
        if (interrupted) this.mine.add(entry.id);
        else this.mine.delete(entry.id);
        await this.refresh();
        // A new entry may take the history over its cap: the oldest go (never a run still going).
        if (!id) await this.enforceCap(entry.id);
        this.channel?.post({ type: 'changed' });
        this.beat();
        return entry.id;
      } catch (e) {
        this.history.patch({ error: `Not saved in this browser: ${message(e)}` });
        return null;
      }
    });
    this.queue = write;
    return write;
  }

  private async enforceCap(newest: string): Promise<void> {
    this.updateRunning();
    const drop = historyOverflow(this.history.get().entries, this.cap, new Set([...this.running.get(), newest]));
    if (drop.length === 0) return;
    for (const e of drop) await this.store.deleteRun(e.id);
    this.droppedForCap += drop.length;
    await this.refresh();
    this.history.patch({
      note: `The history keeps the newest ${this.cap} runs: ${this.droppedForCap} older run${this.droppedForCap === 1 ? ' was' : 's were'} ` +
        'dropped, oldest first. Keep a run for longer with its permalink or Export JSON.',
    });
  }

  /** The run of entry `id` stopped being run in this tab without finishing (the worker failed): left as it was. */
  abandon(id: string): void {
    this.mine.delete(id);
    this.beat();
  }

  async delete(id: string): Promise<void> {
    try {
      await this.store.deleteRun(id);
    } finally {
      await this.refresh();
      this.channel?.post({ type: 'changed' });
    }
  }

  /** Tells the other tabs which runs this one has going, now and every HEARTBEAT_MS while it has any. */
  private beat(): void {
    if (this.mine.size > 0) {
      this.channel?.post({ type: 'running', ids: [...this.mine] });
      this.heartbeat ??= setInterval(() => {
        this.channel?.post({ type: 'running', ids: [...this.mine] });
        this.updateRunning();
      }, HEARTBEAT_MS);
    } else if (this.heartbeat !== null) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
    this.updateRunning();
  }

  private updateRunning(): void {
    const t = this.now();
    for (const [id, at] of this.others) if (t - at > LIVE_FOR_MS) this.others.delete(id);
    const ids = new Set([...this.mine, ...this.others.keys()]);
    const old = this.running.get();
    if (ids.size !== old.size || [...ids].some((id) => !old.has(id))) this.running.set(ids);
  }
}

/** The browser's channel between the page's tabs (none where BroadcastChannel is missing). */
export function broadcastChannel(name = 'vaxlab-history'): HistoryChannel | null {
  if (typeof BroadcastChannel !== 'function') return null;
  const channel = new BroadcastChannel(name);
  return {
    post: (m) => channel.postMessage(m),
    listen: (listener) => {
      channel.onmessage = (e: MessageEvent<HistoryMessage>) => {
        const m = e.data;
        if (m && typeof m === 'object' && (m.type === 'changed' || (m.type === 'running' && Array.isArray(m.ids) && m.ids.every((x) => typeof x === 'string')))) listener(m);
      };
    },
  };
}
