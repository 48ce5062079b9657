// The page's state as small observable values ("atoms", as speedscope keeps
// its state): each part of the lab (the machine, the run, what Results
// shows, the terminal, ...) holds a few, and a component subscribes to the
// atoms it shows, so a change re-renders only what shows it.  Updates made
// inside batch() are announced once, at its end.  No React here but useAtom.

import { useSyncExternalStore } from 'react';

let batching = 0;
/** The announcements batch() owes, one per atom changed. */
const pending = new Set<() => void>();

export class Atom<T> {
  private listeners = new Set<() => void>();

  constructor(private value: T) {}

  get = (): T => this.value;

  /** Replaces the value; subscribers hear of it unless it is the same value. */
  set(value: T): void {
    if (Object.is(value, this.value)) return;
    this.value = value;
    if (batching > 0) pending.add(this.emit);
    else this.emit();
  }

  update(f: (value: T) => T): void {
    this.set(f(this.value));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit = (): void => {
    for (const l of [...this.listeners]) l();
  };
}

/** An atom holding an object, with a shallow merge. */
export class ObjectAtom<T extends object> extends Atom<T> {
  patch(patch: Partial<T>): void {
    this.set({ ...this.get(), ...patch });
  }
}

/** Runs f; each atom it changed is announced once, at the end (also when f throws). */
export function batch(f: () => void): void {
  batching++;
  try {
    f();
  } finally {
    if (--batching === 0) {
      const changed = [...pending];
      pending.clear();
      for (const emit of changed) emit();
    }
  }
}

/** The atom's value in a React component, which re-renders when it changes. */
export function useAtom<T>(atom: Atom<T>): T {
  return useSyncExternalStore(atom.subscribe, atom.get, atom.get);
}

/** What a component needs of an atom's value (select: a primitive, as whether a run is going): it re-renders when
 *  that changes, not at every change of the value (a run's changes many times a second while it goes). */
export function useAtomSelect<T, S extends string | number | boolean | null | undefined>(atom: Atom<T>, select: (value: T) => S): S {
  const selected = (): S => select(atom.get());
  return useSyncExternalStore(atom.subscribe, selected, selected);
}
