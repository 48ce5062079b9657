// gprof's two listings from a profile (aggregate.ts): the flat profile
// (%time, cumulative, self, calls, self ms/call, total ms/call, name) and the
// call graph (each function with its callers above and its callees below,
// and how time flows along the arcs), as text and the flat one as JSON.
//
// Unlike gprof's, the figures are exact: every instruction is charged where
// it ran, calls are counted by the processor, and the time along an arc is
// the callee's actual time under those calls, not a share by call counts.

import { IDLE, inMode, MODE_SLOTS, ns, selfInMode, type Arc, type FunctionStats, type Mode, type Profile } from './aggregate';
import { SLOTS, type Slot } from './raw';
import { roundFixed } from '../runner/decimal';

export interface FlatEntry {
  name: string;
  /** The program for user code, null for the kernel. */
  program: string | null;
  calls: number;
  /** Calls of it from itself (recursion), among calls. */
  selfCalls: number;
  /** Virtual ms of its own instructions (in the mode's slots). */
  selfMs: number;
  /** Virtual ms with everything it called (recursion counted once). */
  totalMs: number;
  selfMsPerCall: number | null;
  totalMsPerCall: number | null;
  /** selfMs as a share of the mode's time, %. */
  percent: number;
  instructions: number;
  /** Self virtual ms by processor mode (the emulator's slots; zeros left out). */
  bySlotMs: Partial<Record<Slot, number>>;
}

export interface FlatProfile {
  mode: Mode;
  /** The mode's virtual ms: the sum of every function's self (the idle row included). */
  totalMs: number;
  instructions: number;
  entries: FlatEntry[];
  /** Functions left out by `top`. */
  omitted: number;
  notes: string[];
}

const ms = (p: Profile, cost: number): number => ns(p, cost) / 1e6;
const round = (x: number, d = 6): number => roundFixed(x, d);

/** The flat profile: functions by self time (then calls, then name), the
 *  IDLE row for the idle loops skipped over (kernel and all modes). */
export function flatProfile(profile: Profile, options: { mode?: Mode; top?: number } = {}): FlatProfile {
  const mode = options.mode ?? 'all';
  const rows: { f: FunctionStats; self: number }[] = [];
  for (const f of profile.functions.values()) {
    if (!inMode(f, mode)) continue;
    const self = selfInMode(f, mode);
    if (self > 0 || f.calls > 0) rows.push({ f, self });
  }
  const idle = mode === 'user' ? 0 : profile.idleCost;
  const total = rows.reduce((s, r) => s + r.self, 0) + idle;
  rows.sort((a, b) => b.self - a.self || b.f.calls - a.f.calls || (a.f.name.key < b.f.name.key ? -1 : 1));
  const entries: FlatEntry[] = rows.map(({ f, self }) => {
    const bySlot: Partial<Record<Slot, number>> = {};
    for (const s of MODE_SLOTS[mode]) if (f.self[s]! > 0) bySlot[SLOTS[s]!] = round(ms(profile, f.self[s]!));
    return {
      name: f.name.key, program: f.name.program, calls: f.calls, selfCalls: f.selfCalls,
      selfMs: round(ms(profile, self)), totalMs: round(ms(profile, f.totalCost)),
      selfMsPerCall: f.calls > 0 ? round(ms(profile, self) / f.calls) : null,
      totalMsPerCall: f.calls > 0 ? round(ms(profile, f.totalCost) / f.calls) : null,
      percent: total > 0 ? round((100 * self) / total, 4) : 0,
      instructions: f.instructions, bySlotMs: bySlot,
    };
  });
  if (idle > 0) {
    entries.push({
      name: IDLE, program: null, calls: 0, selfCalls: 0, selfMs: round(ms(profile, idle)), totalMs: round(ms(profile, idle)),
      selfMsPerCall: null, totalMsPerCall: null, percent: total > 0 ? round((100 * idle) / total, 4) : 0, instructions: 0,
      bySlotMs: { idle: round(ms(profile, idle)) },
    });
    entries.sort((a, b) => b.selfMs - a.selfMs || b.calls - a.calls || (a.name < b.name ? -1 : 1));
  }
  const top = options.top ?? entries.length;
  return {
    mode, totalMs: round(ms(profile, total)), instructions: profile.instructions,
    entries: entries.slice(0, top), omitted: Math.max(0, entries.length - top), notes: profile.notes,
  };
}

const pad = (s: string, n: number): string => s.padStart(n);
const num = (x: number | null, d: number): string => (x === null ? '' : x.toFixed(d));

/** The flat profile as gprof lays it out (times in virtual seconds and ms). */
export function formatFlat(flat: FlatProfile): string {
  const lines = [
    `flat profile, ${flat.mode === 'all' ? 'all modes' : `${flat.mode} mode`}: ${(flat.totalMs / 1000).toFixed(3)} virtual s, ` +
      `every instruction charged where it ran`,
    '',
    '  %     cumulative     self                 self      total',
    ' time     seconds   seconds       calls   ms/call   ms/call  name',
  ];
  let cumulative = 0;
  for (const e of flat.entries) {
    cumulative += e.selfMs;
    const calls = e.calls === 0 ? '' : e.selfCalls > 0 ? `${e.calls - e.selfCalls}+${e.selfCalls}` : String(e.calls);
    lines.push(`${pad(e.percent.toFixed(1), 5)} ${pad((cumulative / 1000).toFixed(3), 11)} ${pad((e.selfMs / 1000).toFixed(3), 9)} ` +
      `${pad(calls, 11)} ${pad(num(e.selfMsPerCall, 3), 9)} ${pad(num(e.totalMsPerCall, 3), 9)}  ${e.name}`);
  }
  if (flat.omitted > 0) lines.push(`(${flat.omitted} more functions not shown)`);
  for (const n of flat.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

/** The call graph, gprof style: for the functions in order of total time
 *  (the first `top` of them, in the mode's code), callers above, callees
 *  below.  Program roots ([syscall]) are callers like any other; a root
 *  with no caller (an interrupt) has <spontaneous>. */
export function formatCallGraph(profile: Profile, options: { mode?: Mode; top?: number } = {}): string {
  const mode = options.mode ?? 'all';
  const total = profile.cost - profile.idleCost;
  const fns = [...profile.functions.values()]
    .filter((f) => inMode(f, mode) && (f.totalCost > 0 || f.calls > 0))
    .sort((a, b) => b.totalCost - a.totalCost || b.selfCost - a.selfCost || (a.name.key < b.name.key ? -1 : 1));
  const index = new Map<string, number>();
  fns.forEach((f, i) => index.set(f.name.key, i + 1));
  const ref = (key: string): string => (index.has(key) ? `${key} [${index.get(key)}]` : key);
  const into = new Map<string, Arc[]>();
  const outof = new Map<string, Arc[]>();
  for (const a of profile.arcs.values()) {
    if (!into.has(a.callee)) into.set(a.callee, []);
    if (!outof.has(a.caller)) outof.set(a.caller, []);
    into.get(a.callee)!.push(a);
    outof.get(a.caller)!.push(a);
  }
  const s = (cost: number): string => pad((ms(profile, cost) / 1000).toFixed(3), 9);
  const lines = [
    `call graph, ${mode === 'all' ? 'all modes' : `${mode} code`}: times in virtual seconds, exact (not apportioned by calls)`,
    '',
    'index  % time      self  children       called      name',
  ];
  const top = options.top ?? fns.length;
  for (const f of fns.slice(0, top)) {
    const key = f.name.key;
    const parents = (into.get(key) ?? []).sort((a, b) => a.selfCost + a.childCost - (b.selfCost + b.childCost));
    if (parents.length === 0) lines.push(`${' '.repeat(42)}<spontaneous>`);
    for (const a of parents) {
      lines.push(`${' '.repeat(13)}${s(a.selfCost)} ${s(a.childCost)} ${pad(`${a.calls}/${f.calls - f.selfCalls}`, 14)}      ${ref(a.caller)}`);
    }
    const called = f.selfCalls > 0 ? `${f.calls - f.selfCalls}+${f.selfCalls}` : f.calls > 0 ? String(f.calls) : '';
    const pct = total > 0 ? ((100 * f.totalCost) / total).toFixed(1) : '0.0';
    lines.push(`${pad(`[${index.get(key)}]`, 6)} ${pad(pct, 6)} ${s(f.selfCost)} ${s(f.totalCost - f.selfCost)} ${pad(called, 14)}  ${ref(key)}`);
    const children = (outof.get(key) ?? []).sort((a, b) => b.selfCost + b.childCost - (a.selfCost + a.childCost));
    for (const a of children) {
      const g = profile.functions.get(a.callee)!;
      lines.push(`${' '.repeat(13)}${s(a.selfCost)} ${s(a.childCost)} ${pad(`${a.calls}/${g.calls - g.selfCalls}`, 14)}      ${ref(a.callee)}`);
    }
    lines.push('-'.repeat(60));
  }
  if (fns.length > top) lines.push(`(${fns.length - top} more functions not shown)`);
  return lines.join('\n');
}
