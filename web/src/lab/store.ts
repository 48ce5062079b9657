// A minimal observable store: the controller owns one and replaces its state
// immutably; React components read it through useStore (useSyncExternalStore).

import { useSyncExternalStore } from 'react';

export class Store<T extends object> {
  private listeners = new Set<() => void>();
  private batching = 0;
  private changed = false;

  constructor(private state: T) {}

  get = (): T => this.state;

  /** Shallow-merges a patch (or the patch a function returns) into the state. */
  update(patch: Partial<T> | ((s: T) => Partial<T>)): void {
    const p = typeof patch === 'function' ? patch(this.state) : patch;
    this.state = { ...this.state, ...p };
    if (this.batching > 0) this.changed = true;
    else this.emit();
  }

  /** Runs f; subscribers hear once at the end, however many updates it made. */
  batch(f: () => void): void {
    this.batching++;
    try {
      f();
    } finally {
      if (--this.batching === 0 && this.changed) {
        this.changed = false;
        this.emit();
      }
    }
  }

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

export function useStore<T extends object>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** A stream of text (console output) that late subscribers can replay. */
export class TextStream {
  private text = '';
  private listeners = new Set<(event: { reset: boolean; text: string }) => void>();

  constructor(private readonly keep = 512 * 1024) {}

  /** Everything kept so far (the last `keep` characters). */
  get contents(): string {
    return this.text;
  }

  append(text: string): void {
    if (!text) return;
    this.text += text;
    if (this.text.length > this.keep) this.text = this.text.slice(this.text.length - this.keep);
    for (const l of [...this.listeners]) l({ reset: false, text });
  }

  reset(text = ''): void {
    this.text = text;
    for (const l of [...this.listeners]) l({ reset: true, text });
  }

  subscribe(listener: (event: { reset: boolean; text: string }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
