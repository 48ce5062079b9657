// The run the shown one (B) is compared with (A): chosen from this page's
// runs or the history, kept while other runs are shown, until cleared.
// Whether the two can be compared, and how, is compare.ts's.

import type { RunRef } from '../compare';
import type { HistoryEntry } from '../history';
import { Atom } from './atom';

export class Comparison {
  readonly against = new Atom<RunRef | null>(null);

  compareWith(ref: RunRef): void {
    this.against.set(ref);
  }

  compareWithHistory(entry: HistoryEntry): void {
    this.compareWith({ shared: entry.run, source: 'history', at: entry.savedAt, historyId: entry.id });
  }

  clear(): void {
    this.against.set(null);
  }
}
