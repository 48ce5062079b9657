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
}

export class Ui {
  readonly tab = new Atom<Tab>('lab');
  readonly theme = new Atom<Theme>(initialTheme());
  readonly counters = new ObjectAtom<CounterChoice>({ selected: null, row: null });

  setCounterSelection(selected: string[]): void {
    this.counters.patch({ selected });
  }

  setCounterRow(row: number | null): void {
    this.counters.patch({ row });
  }
}
