// What the Profile view shows, worked out from a row's profile summary
// (experiments/profile/summary.ts) without React or D3: the flame graph's
// tree, the flat table and its sorting, search, and the diff of two rows'
// profiles.  Times are virtual ms.

import {
  diffProfiles, flatProfile, foldedStacks, fromSummary, IDLE, MODE_SLOTS, toSpeedscope, type DiffEntry, type FlatEntry,
  type Mode, type Profile,
} from '../../../experiments/profile/index';
import type { ProfileSummary } from '../../../experiments/profile/summary';
import type { ExperimentResult, RowResult } from '../../../experiments/runner/result';

const IDLE_SLOT = 5;

/** A node of the flame graph: a calling context with its own and total time. */
export interface FlameNode {
  /** Unique in the tree: the path of names from the root. */
  id: string;
  name: string;
  /** Virtual ms of its own instructions (the mode's slots; idle as its own child). */
  selfMs: number;
  /** selfMs plus its children's totalMs. */
  totalMs: number;
  calls: number;
  children: FlameNode[];
}

/** The rows of a result that have a profile. */
export function profiledRows(result: ExperimentResult): RowResult[] {
  return result.rows.filter((r) => r.profile !== undefined);
}

const cache = new WeakMap<ProfileSummary, Profile>();
/** The summary as a Profile (kept per summary: building it walks the tree). */
export function profileOf(summary: ProfileSummary): Profile {
  let p = cache.get(summary);
  if (!p) {
    p = fromSummary(summary);
    cache.set(summary, p);
  }
  return p;
}

/** The flame graph's tree: one root ("all") over the profile's roots, in the
 *  mode's slots; skipped idle loops are "(idle)" children (kernel and all). */
export function flameTree(profile: Profile, mode: Mode): FlameNode {
  const ms = (cost: number): number => (cost * profile.scale) / 1e6;
  const build = (id: number, path: string): FlameNode | null => {
    const t = profile.tree[id]!;
    const here = `${path};${t.fn}`;
    const self = MODE_SLOTS[mode].reduce((s, i) => s + t.self[i]!, 0);
    const children = t.children.map((c) => build(c, here)).filter((c): c is FlameNode => c !== null);
    if (mode !== 'user' && t.self[IDLE_SLOT]! > 0) {
      const idle = ms(t.self[IDLE_SLOT]!);
      children.push({ id: `${here};${IDLE}`, name: IDLE, selfMs: idle, totalMs: idle, calls: 0, children: [] });
    }
    const total = ms(self) + children.reduce((s, c) => s + c.totalMs, 0);
    if (total <= 0) return null;
    children.sort((a, b) => b.totalMs - a.totalMs || (a.name < b.name ? -1 : 1));
    return { id: here, name: t.fn, selfMs: ms(self), totalMs: total, calls: t.calls, children };
  };
  const roots = profile.roots.map((r) => build(r, '')).filter((c): c is FlameNode => c !== null)
    .sort((a, b) => b.totalMs - a.totalMs || (a.name < b.name ? -1 : 1));
  return { id: '', name: 'all', selfMs: 0, totalMs: roots.reduce((s, c) => s + c.totalMs, 0), calls: 0, children: roots };
}

/** Does the name match the search (case-insensitive substring; '' matches nothing)? */
export function matches(name: string, search: string): boolean {
  const s = search.trim().toLowerCase();
  return s !== '' && name.toLowerCase().includes(s);
}

/** The share of the tree's time in frames that match the search, counted once
 *  where matches nest (a matching frame's total covers what is below it). */
export function matchedMs(tree: FlameNode, search: string): number {
  if (matches(tree.name, search)) return tree.totalMs;
  return tree.children.reduce((s, c) => s + matchedMs(c, search), 0);
}

export type FlatColumn = 'name' | 'calls' | 'selfMs' | 'totalMs' | 'selfMsPerCall' | 'totalMsPerCall';
export interface Sort { column: FlatColumn; descending: boolean }

/** The flat profile of the kept contexts (all functions), sorted. */
export function flatRows(profile: Profile, mode: Mode, sort: Sort): FlatEntry[] {
  const rows = [...flatProfile(profile, { mode }).entries];
  const key = (e: FlatEntry): number | string => (sort.column === 'name' ? e.name : e[sort.column] ?? -1);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    const c = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    return sort.descending ? -c : c;
  });
  return rows;
}

/** A click on a column: the same column turns its order around, another sorts by it (names up, numbers down). */
export function nextSort(sort: Sort, column: FlatColumn): Sort {
  return sort.column === column ? { column, descending: !sort.descending } : { column, descending: column !== 'name' };
}

/** The diff of two profiles (A, then B), biggest change of total time first. */
export function profileDiff(a: ProfileSummary, b: ProfileSummary, mode: Mode, top = 40): DiffEntry[] {
  return diffProfiles(profileOf(a), profileOf(b), { mode, top }).entries;
}

/** What a row's profile can be compared with: the run's other profiled rows. */
export function diffCandidates(result: ExperimentResult, step: string): RowResult[] {
  return profiledRows(result).filter((r) => r.step !== step);
}

/** Exports of a row's profile: speedscope's JSON and folded stacks. */
export function profileExports(result: ExperimentResult, row: RowResult, mode: Mode): { speedscope: string; folded: string } {
  const p = profileOf(row.profile!);
  return {
    speedscope: `${JSON.stringify(toSpeedscope(p, { name: `${result.experiment} ${row.step}: ${row.command}`, mode }))}\n`,
    folded: foldedStacks(p, mode),
  };
}
