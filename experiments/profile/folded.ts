// Folded stacks ("a;b;c 1234" per line), the input of Brendan Gregg's
// flamegraph.pl, inferno, speedscope and most flame-graph tools: one line
// per calling context with self time, the value in virtual ns (rounded), the
// frames from the root (a program [name] or an interrupt handler) down.
// Skipped idle loops appear as a frame (idle) under the function they were
// skipped in (4.3BSD's Swtch).

import { IDLE, MODE_SLOTS, ns, stackOf, type Mode, type Profile } from './aggregate';
import { SLOTS } from './raw';

const IDLE_SLOT = SLOTS.indexOf('idle');

export interface Stack {
  frames: string[];
  /** Virtual ns. */
  value: number;
}

/** The calling contexts with self time in the mode (kernel and all: with
 *  the idle frames), in tree order. */
export function stacks(profile: Profile, mode: Mode = 'all'): Stack[] {
  const out: Stack[] = [];
  for (const t of profile.tree) {
    const self = MODE_SLOTS[mode].reduce((s, i) => s + t.self[i]!, 0);
    const idle = mode === 'user' ? 0 : t.self[IDLE_SLOT]!;
    if (self === 0 && idle === 0) continue;
    const frames = stackOf(profile, t.id);
    if (self > 0) out.push({ frames, value: ns(profile, self) });
    if (idle > 0) out.push({ frames: [...frames, IDLE], value: ns(profile, idle) });
  }
  return out;
}

/** The folded text: a line per stack, integer ns, ';' in names replaced;
 *  with a prefix, every stack starts with that frame (several profiles in
 *  one file, e.g. the steps of an experiment). */
export function foldedStacks(profile: Profile, mode: Mode = 'all', prefix?: string): string {
  return stacks(profile, mode)
    .map((s) => `${(prefix === undefined ? s.frames : [prefix, ...s.frames]).map((f) => f.replace(/[;\s]/g, '_')).join(';')} ${Math.round(s.value)}`)
    .filter((line) => !line.endsWith(' 0'))
    .join('\n') + '\n';
}
