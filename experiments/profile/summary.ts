// A profile small enough to travel in a permalink or an exported result:
// the top N functions of the flat profile, and the calling-context tree cut
// to the nodes that took at least a given share of the run (the rest of
// each parent's time shows as its self), with function names listed once.
// A summary is a Profile-like value again (fromSummary), so the flat
// profile, the call graph, flame graphs and diffs work on it too, within
// what was kept.

import { completeProfile, NSLOTS, type Profile, type TreeNode } from './aggregate';
import { flatProfile } from './gprof';
import { KINDS } from './raw';
import { SUMMARY_FORMAT, SUMMARY_VERSION, type ProfileSummary, type SummaryEntry } from './summaryFormat';

export { SUMMARY_FORMAT, SUMMARY_VERSION, type ProfileSummary, type SummaryEntry } from './summaryFormat';

/** Keeps the top `top` functions and the tree nodes with at least
 *  `minShare` of the run's cost (default 0.2%). */
export function summarize(profile: Profile, options: { top?: number; minShare?: number } = {}): ProfileSummary {
  const minShare = options.minShare ?? 0.002;
  const minCost = profile.cost * minShare;
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const nameOf = (n: string): number => {
    let i = nameIndex.get(n);
    if (i === undefined) {
      i = names.length;
      nameIndex.set(n, i);
      names.push(n);
    }
    return i;
  };
  const kept = new Map<number, number>();
  const tree: number[][] = [];
  for (const t of profile.tree) {
    // Roots are few (programs, interrupt vectors) and always kept, so that
    // every cost has a place to go.
    if (t.parent >= 0 && (t.total < minCost || !kept.has(t.parent))) continue;
    kept.set(t.id, tree.length);
    tree.push([t.parent < 0 ? -1 : kept.get(t.parent)!, nameOf(t.fn), KINDS.indexOf(t.kind), t.calls, ...t.self]);
  }
  // What was cut shows in the parent's self, so the costs still add up.
  for (const t of profile.tree) {
    if (kept.has(t.id) || t.parent < 0 || !kept.has(t.parent)) continue;
    const row = tree[kept.get(t.parent)!]!;
    for (let s = 0; s < NSLOTS; s++) row[4 + s]! += subtreeSlot(profile, t.id, s);
  }
  const top = flatProfile(profile, { mode: 'all', top: options.top ?? 30 }).entries
    .map((e): SummaryEntry => ({ name: e.name, calls: e.calls, selfMs: e.selfMs, totalMs: e.totalMs }));
  return {
    format: SUMMARY_FORMAT, version: SUMMARY_VERSION, nsPerInstruction: profile.nsPerInstruction, scale: profile.scale,
    instructions: profile.instructions, cost: profile.cost, idleCost: profile.idleCost, minShare, names,
    tree: tree.map((r) => r.join(',')), top, notes: profile.notes,
  };
}

/** A smaller summary of a summary (what it kept, cut further): for a
 *  permalink.  Its top list is the old one's first `top`. */
export function shrinkSummary(s: ProfileSummary, options: { top: number; minShare: number }): ProfileSummary {
  const smaller = summarize(fromSummary(s), options);
  return { ...smaller, top: s.top.slice(0, options.top), notes: s.notes };
}

function subtreeSlot(profile: Profile, id: number, slot: number): number {
  let c = 0;
  const stack = [id];
  while (stack.length) {
    const t = profile.tree[stack.pop()!]!;
    c += t.self[slot]!;
    stack.push(...t.children);
  }
  return c;
}

/** A summary back as a Profile of the tree it kept. */
export function fromSummary(s: ProfileSummary): Profile {
  if (s.format !== SUMMARY_FORMAT || s.version !== SUMMARY_VERSION) throw new Error('not a vaxlab profile summary');
  const tree: TreeNode[] = s.tree.map((text, id) => {
    const r = text.split(',').map(Number);
    const parent = r[0]!;
    if (r.length !== 4 + NSLOTS || r.some((x) => !Number.isSafeInteger(x)) || parent < -1 || parent >= id ||
      s.names[r[1]!] === undefined || KINDS[r[2]!] === undefined) {
      throw new Error(`not a vaxlab profile summary: tree node ${id} is "${text.slice(0, 80)}"`);
    }
    return {
      id, parent, fn: s.names[r[1]!]!, kind: KINDS[r[2]!]!, calls: r[3]!, instructions: 0, self: r.slice(4), total: 0, children: [],
    };
  });
  return completeProfile({
    scale: s.scale, nsPerInstruction: s.nsPerInstruction, instructions: s.instructions, cost: s.cost, tree,
    notes: [...s.notes, `a summary: the calling contexts with at least ${(100 * s.minShare).toFixed(2)}% of the run ` +
      '(what was cut is in its caller\'s self time), no instruction counts'],
  });
}
