// The history's entries as the page shows them: finished runs kept in the
// browser (history.ts, IndexedDB), refreshed after each change, with the
// reason when the browser keeps none.

import type { HistoryEntry } from '../history';
import type { SharedRun } from '../permalink';
import { ObjectAtom } from './atom';

/** Where runs are kept (history.ts in the browser). */
export interface HistoryStore {
  listRuns(): Promise<HistoryEntry[]>;
  saveRun(run: SharedRun): Promise<HistoryEntry>;
  deleteRun(id: string): Promise<void>;
}

export interface HistoryState {
  entries: HistoryEntry[];
  error: string | null;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class RunHistory {
  readonly history = new ObjectAtom<HistoryState>({ entries: [], error: null });

  constructor(private readonly store: HistoryStore) {}

  entry(id: string): HistoryEntry | undefined {
    return this.history.get().entries.find((e) => e.id === id);
  }

  async refresh(): Promise<void> {
    try {
      this.history.set({ entries: await this.store.listRuns(), error: null });
    } catch (e) {
      this.history.patch({ error: `History unavailable: ${message(e)}` });
    }
  }

  async save(shared: SharedRun): Promise<void> {
    try {
      await this.store.saveRun(shared);
      await this.refresh();
    } catch (e) {
      this.history.patch({ error: `Not saved in this browser: ${message(e)}` });
    }
  }

  async delete(id: string): Promise<void> {
    try {
      await this.store.deleteRun(id);
    } finally {
      await this.refresh();
    }
  }
}
