// What the page shows besides the lab's data: the tab, the theme, and which
// counters the chart draws for which row.

import { initialTheme, type Theme } from '../theme';
import { Atom, ObjectAtom } from './atom';

export type Tab = 'lab' | 'terminal';

export interface CounterChoice {
  /** The counters chosen; null: the experiment's own (defaultCounters). */
  selected: string[] | null;
  /** The row whose counters are drawn; null: the running row, or the first. */
  row: number | null;
  /** While the pool's workers run (a sweep, a run spread over them): the worker whose unit is drawn; null: the first
   *  still running (poolCounters.ts watchedWorker). */
  worker: number | null;
}

export class Ui {
  readonly tab = new Atom<Tab>('lab');
  readonly theme = new Atom<Theme>(initialTheme());
  readonly counters = new ObjectAtom<CounterChoice>({ selected: null, row: null, worker: null });

  setCounterSelection(selected: string[]): void {
    this.counters.patch({ selected });
  }

  setCounterRow(row: number | null): void {
    this.counters.patch({ row });
  }

  setCounterWorker(worker: number | null): void {
    this.counters.patch({ worker });
  }
}
