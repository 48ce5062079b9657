// A raw profile (raw.ts) named (symbolize.ts) and summed up: the calling-
// context tree by function name, the functions with their self and total
// time and calls, and the arcs of the call graph, gprof's quantities but
// exact.
//
//   self(f)      the time f's own instructions took, everywhere it ran
//   total(f)     self plus everything it called, counting each instance of
//                f only where no caller above it is f too (so recursion is
//                not counted twice)
//   calls(f)     CALLS/CALLG/JSB/BSB to it (an exception or interrupt
//                handler: the times it was entered); recursive ones are in
//                selfCalls too
//   arc p -> f   the calls from p to f and the time of f (self, and its
//                descendants) under those calls
//
// Times are kept as the emulator's integer costs (exact sums) and converted
// to virtual ns by `scale` for display.  Idle: the idle loops the emulator
// skipped over (emu/src/cpu/idle.c) are their own slot; a function's time
// is its time in the other five slots, and the idle time is the
// pseudo-function IDLE, so that everything adds up to the run's time.

import { costToNs, SLOTS, type Kind, type RawProfile } from './raw';
import { KERNEL_PROGRAM, Symbolizer, symbolNotes, type FunctionName } from './symbolize';

export const IDLE = '(idle)';
const IDLE_SLOT = SLOTS.indexOf('idle');
export const NSLOTS = SLOTS.length;

/** Which slots a mode takes: kernel is system time (kernel, executive,
 *  supervisor and interrupt-stack), user is user time, all is both. */
export type Mode = 'kernel' | 'user' | 'all';
export const MODE_SLOTS: Record<Mode, readonly number[]> = {
  kernel: [0, 1, 2, 4],
  user: [3],
  all: [0, 1, 2, 3, 4],
};

/** A node of the calling-context tree by name: raw nodes of the same
 *  function under the same parent are one. */
export interface TreeNode {
  id: number;
  parent: number;
  fn: string;
  /** How it was entered (the first raw node's kind): a call, a root... */
  kind: Kind;
  calls: number;
  instructions: number;
  /** Self cost by slot. */
  self: number[];
  /** Self plus descendants, all slots (idle included). */
  total: number;
  children: number[];
}

export interface FunctionStats {
  name: FunctionName;
  /** Self cost by slot (idle stays with the function it was skipped in:
   *  the IDLE row reports the sum). */
  self: number[];
  /** Self cost, all slots but idle. */
  selfCost: number;
  /** Inclusive cost (see above), all slots but idle. */
  totalCost: number;
  calls: number;
  selfCalls: number;
  instructions: number;
  /** Tree nodes of this function. */
  nodes: number[];
}

export interface Arc {
  caller: string;
  callee: string;
  calls: number;
  /** The callee's own cost and its descendants' under these calls. */
  selfCost: number;
  childCost: number;
}

export interface Profile {
  /** Virtual ns per cost unit. */
  scale: number;
  nsPerInstruction: number;
  instructions: number;
  /** The run's cost: the sum of every node's, idle included. */
  cost: number;
  /** Skipped idle loops' cost (the IDLE pseudo-function). */
  idleCost: number;
  tree: TreeNode[];
  roots: number[];
  functions: Map<string, FunctionStats>;
  /** caller + '\0' + callee. */
  arcs: Map<string, Arc>;
  /** Things a reader should know: images without symbols, bounds hit. */
  notes: string[];
}

const withoutIdle = (self: number[]): number => self.reduce((s, c, i) => (i === IDLE_SLOT ? s : s + c), 0);
const zeros = (): number[] => new Array<number>(NSLOTS).fill(0);

/** Ns of a cost. */
export function ns(profile: Pick<Profile, 'scale'>, cost: number): number {
  return cost * profile.scale;
}

export function buildProfile(raw: RawProfile): Profile {
  const sym = new Symbolizer(raw.images);
  const tree: TreeNode[] = [];
  const byKey = new Map<string, number>();
  const mapped = new Int32Array(raw.nodes.length);
  const names = new Map<string, FunctionName>();
  // Nodes with nothing in their subtree (made before the profile was
  // cleared, say) are left out.
  const active = new Uint8Array(raw.nodes.length);
  for (let i = raw.nodes.length - 1; i >= 0; i--) {
    const r = raw.nodes[i]!;
    if (active[i] || r.calls > 0 || r.instructions > 0 || r.cost.some((c) => c > 0)) {
      active[i] = 1;
      if (r.parent >= 0) active[r.parent] = 1;
    }
  }
  const used = new Set<number>();
  for (const [i, r] of raw.nodes.entries()) {
    if (!active[i]) continue;
    used.add(r.image);
    const name = sym.nodeFunction(r);
    names.set(name.key, name);
    const parent = r.parent < 0 ? -1 : mapped[r.parent]!;
    const key = `${parent}\u0000${name.key}`;
    let id = byKey.get(key);
    if (id === undefined) {
      id = tree.length;
      byKey.set(key, id);
      tree.push({ id, parent, fn: name.key, kind: r.kind, calls: 0, instructions: 0, self: zeros(), total: 0, children: [] });
    }
    const t = tree[id]!;
    // Only entries count as calls: a frame found by walking the stack was
    // not seen entered.
    if (r.kind !== 'resume') t.calls += r.calls;
    t.instructions += r.instructions;
    for (let s = 0; s < NSLOTS; s++) t.self[s]! += r.cost[s] ?? 0;
    mapped[i] = id;
  }
  const notes = symbolNotes(raw, used);
  if (raw.overflow.nodes > 0) {
    notes.push(`${raw.overflow.nodes} calls beyond the profiler's ${raw.limits.nodes} call paths were charged to their callers`);
  }
  if (raw.overflow.depth > 0) notes.push(`${raw.overflow.depth} frames beyond a shadow stack's ${raw.limits.depth} were dropped`);
  if (raw.overflow.contexts > 0) notes.push(`${raw.overflow.contexts} process contexts beyond ${raw.limits.contexts} shared one`);
  if (raw.overflow.images > 0) notes.push(`${raw.overflow.images} programs beyond ${raw.limits.images} were not named`);
  return completeProfile({
    scale: costToNs(raw, 1), nsPerInstruction: raw.nsPerInstruction, instructions: raw.instructions, cost: raw.cost,
    tree, names, notes,
  });
}

/** A function's name from its key (the inverse of symbolize.ts's naming). */
export function functionName(key: string): FunctionName {
  if (key.startsWith('[') && key.endsWith(']')) {
    return { key, symbol: key, program: key === KERNEL_PROGRAM ? null : key.slice(1, -1), isProgram: true };
  }
  const tick = key.indexOf('`');
  if (tick > 0) return { key, symbol: key.slice(tick + 1), program: key.slice(0, tick), isProgram: false };
  return { key, symbol: key, program: null, isProgram: false };
}

/** The functions, arcs and totals of a named tree whose nodes have their
 *  parent, function, kind, calls, instructions and self costs (children
 *  and totals are filled in here; parents come before their children). */
export function completeProfile(base: {
  scale: number; nsPerInstruction: number; instructions: number; cost: number; tree: TreeNode[];
  names?: Map<string, FunctionName>; notes: string[];
}): Profile {
  const { tree } = base;
  const names = base.names ?? new Map<string, FunctionName>();
  const roots: number[] = [];
  for (const t of tree) {
    t.children = [];
    t.total = 0;
  }
  for (const t of tree) {
    if (t.parent < 0) roots.push(t.id);
    else tree[t.parent]!.children.push(t.id);
  }
  for (let i = tree.length - 1; i >= 0; i--) {
    const t = tree[i]!;
    t.total += t.self.reduce((a, b) => a + b, 0);
    if (t.parent >= 0) tree[t.parent]!.total += t.total;
  }

  const functions = new Map<string, FunctionStats>();
  const fnOf = (key: string): FunctionStats => {
    let f = functions.get(key);
    if (!f) {
      f = { name: names.get(key) ?? functionName(key), self: zeros(), selfCost: 0, totalCost: 0, calls: 0, selfCalls: 0, instructions: 0, nodes: [] };
      functions.set(key, f);
    }
    return f;
  };
  const arcs = new Map<string, Arc>();
  const arcOf = (caller: string, callee: string): Arc => {
    const k = `${caller}\u0000${callee}`;
    let a = arcs.get(k);
    if (!a) {
      a = { caller, callee, calls: 0, selfCost: 0, childCost: 0 };
      arcs.set(k, a);
    }
    return a;
  };

  // Idle cost inside a subtree, to leave it out of totals.
  const idleTotal = new Float64Array(tree.length);
  for (let i = tree.length - 1; i >= 0; i--) {
    const t = tree[i]!;
    idleTotal[i]! += t.self[IDLE_SLOT]!;
    if (t.parent >= 0) idleTotal[t.parent]! += idleTotal[i]!;
  }

  // Depth first, knowing for each function on the path its outermost node:
  // an instance with no instance of the same function above it carries the
  // function's total, and the self of every inner instance is added to it.
  const outermost = new Map<string, number>();
  const ownSelf = new Float64Array(tree.length);   // the outermost instance: its function's self below it
  const stack: { id: number; next: number; owner: boolean }[] = [];
  let idleCost = 0;
  const enter = (id: number): void => {
    const t = tree[id]!;
    const f = fnOf(t.fn);
    f.nodes.push(id);
    f.instructions += t.instructions;
    for (let s = 0; s < NSLOTS; s++) f.self[s]! += t.self[s]!;
    const own = withoutIdle(t.self);
    f.selfCost += own;
    idleCost += t.self[IDLE_SLOT]!;
    f.calls += t.calls;
    const parentFn = t.parent >= 0 ? tree[t.parent]!.fn : null;
    if (parentFn === t.fn) f.selfCalls += t.calls;
    const owner = !outermost.has(t.fn);
    if (owner) outermost.set(t.fn, id);
    ownSelf[outermost.get(t.fn)!]! += own;
    if (parentFn !== null && parentFn !== t.fn) arcOf(parentFn, t.fn).calls += t.calls;
    stack.push({ id, next: 0, owner });
  };
  const leave = (): void => {
    const { id, owner } = stack.pop()!;
    if (!owner) return;
    const t = tree[id]!;
    outermost.delete(t.fn);
    const total = t.total - idleTotal[id]!;
    fnOf(t.fn).totalCost += total;
    if (t.parent >= 0 && tree[t.parent]!.fn !== t.fn) {
      const a = arcOf(tree[t.parent]!.fn, t.fn);
      a.selfCost += ownSelf[id]!;
      a.childCost += total - ownSelf[id]!;
    }
  };
  for (const r of roots) {
    enter(r);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const t = tree[top.id]!;
      if (top.next < t.children.length) enter(t.children[top.next++]!);
      else leave();
    }
  }
  return {
    scale: base.scale, nsPerInstruction: base.nsPerInstruction, instructions: base.instructions, cost: base.cost,
    idleCost, tree, roots, functions, arcs, notes: base.notes,
  };
}

/** The root-to-node path of function names. */
export function stackOf(profile: Profile, id: number): string[] {
  const out: string[] = [];
  for (let i = id; i >= 0; i = profile.tree[i]!.parent) out.push(profile.tree[i]!.fn);
  return out.reverse();
}

/** Cost of a function's self time in the slots of a mode. */
export function selfInMode(f: FunctionStats, mode: Mode): number {
  return MODE_SLOTS[mode].reduce((s, i) => s + f.self[i]!, 0);
}

/** Is the function code of the mode's kind (kernel code for kernel, a
 *  program's for user)?  Program roots belong to no mode. */
export function inMode(f: FunctionStats, mode: Mode): boolean {
  if (f.name.isProgram) return false;
  if (mode === 'all') return true;
  return (f.name.program === null) === (mode === 'kernel');
}

