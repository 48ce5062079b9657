// Two profiles side by side, function by function (e.g. the name cache off
// and on: which routines got faster or slower).  Per function: self and
// total virtual ms and calls in each, their differences, and per call,
// since two runs seldom do the same number of calls.  Functions found in
// only one profile are in the diff with the other side null.

import { inMode, ns, selfInMode, type Mode, type Profile } from './aggregate';
import { roundFixed } from '../runner/decimal';

export interface Side {
  calls: number;
  selfMs: number;
  totalMs: number;
  selfMsPerCall: number | null;
  totalMsPerCall: number | null;
}

export interface DiffEntry {
  name: string;
  a: Side | null;
  b: Side | null;
  /** b - a (a missing side counts as zero). */
  deltaSelfMs: number;
  deltaTotalMs: number;
  deltaCalls: number;
  /** (b - a) / a of total ms, %; null when a has none. */
  totalChangePercent: number | null;
  /** Per call, b - a of total ms; null unless both were called. */
  deltaTotalMsPerCall: number | null;
}

export interface ProfileDiff {
  mode: Mode;
  aMs: number;
  bMs: number;
  entries: DiffEntry[];
  omitted: number;
}

const round = (x: number, d = 6): number => roundFixed(x, d);

function side(p: Profile, key: string, mode: Mode): Side | null {
  const f = p.functions.get(key);
  if (!f || !inMode(f, mode)) return null;
  const self = ns(p, selfInMode(f, mode)) / 1e6, total = ns(p, f.totalCost) / 1e6;
  if (self === 0 && total === 0 && f.calls === 0) return null;
  return {
    calls: f.calls, selfMs: round(self), totalMs: round(total),
    selfMsPerCall: f.calls ? round(self / f.calls) : null, totalMsPerCall: f.calls ? round(total / f.calls) : null,
  };
}

function modeMs(p: Profile, mode: Mode): number {
  let c = 0;
  for (const f of p.functions.values()) if (inMode(f, mode)) c += selfInMode(f, mode);
  return round(ns(p, c) / 1e6);
}

/** The functions of either profile, biggest change of total time first. */
export function diffProfiles(a: Profile, b: Profile, options: { mode?: Mode; top?: number } = {}): ProfileDiff {
  const mode = options.mode ?? 'all';
  const keys = new Set([...a.functions.keys(), ...b.functions.keys()]);
  const entries: DiffEntry[] = [];
  for (const key of keys) {
    const sa = side(a, key, mode), sb = side(b, key, mode);
    if (!sa && !sb) continue;
    const za = sa ?? { calls: 0, selfMs: 0, totalMs: 0 }, zb = sb ?? { calls: 0, selfMs: 0, totalMs: 0 };
    entries.push({
      name: key, a: sa, b: sb,
      deltaSelfMs: round(zb.selfMs - za.selfMs), deltaTotalMs: round(zb.totalMs - za.totalMs), deltaCalls: zb.calls - za.calls,
      totalChangePercent: sa && sa.totalMs > 0 ? round((100 * (zb.totalMs - sa.totalMs)) / sa.totalMs, 2) : null,
      deltaTotalMsPerCall: sa?.totalMsPerCall != null && sb?.totalMsPerCall != null ? round(sb.totalMsPerCall - sa.totalMsPerCall) : null,
    });
  }
  entries.sort((x, y) => Math.abs(y.deltaTotalMs) - Math.abs(x.deltaTotalMs) || Math.abs(y.deltaSelfMs) - Math.abs(x.deltaSelfMs) ||
    (x.name < y.name ? -1 : 1));
  const top = options.top ?? entries.length;
  return { mode, aMs: modeMs(a, mode), bMs: modeMs(b, mode), entries: entries.slice(0, top), omitted: Math.max(0, entries.length - top) };
}

const f = (x: number | null | undefined, d = 3): string => (x === null || x === undefined ? '-' : x.toFixed(d));
const signed = (x: number | null, d = 3): string => (x === null ? '-' : `${x > 0 ? '+' : ''}${x.toFixed(d)}`);

/** The diff as a table: A and B total ms, their difference and change, per call. */
export function formatDiff(d: ProfileDiff, labels: { a: string; b: string } = { a: 'A', b: 'B' }): string {
  const head = ['name', `${labels.a} total ms`, `${labels.b} total ms`, 'Δ total ms', 'Δ %', `${labels.a} calls`, `${labels.b} calls`,
    `${labels.a} ms/call`, `${labels.b} ms/call`, `${labels.a} self ms`, `${labels.b} self ms`];
  const body = d.entries.map((e) => [e.name, f(e.a?.totalMs), f(e.b?.totalMs), signed(e.deltaTotalMs),
    e.totalChangePercent === null ? '-' : `${signed(e.totalChangePercent, 1)}%`, e.a ? String(e.a.calls) : '-', e.b ? String(e.b.calls) : '-',
    f(e.a?.totalMsPerCall), f(e.b?.totalMsPerCall), f(e.a?.selfMs), f(e.b?.selfMs)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const lines = [`${labels.a}: ${(d.aMs / 1000).toFixed(3)} virtual s, ${labels.b}: ${(d.bMs / 1000).toFixed(3)} virtual s ` +
    `(${d.mode === 'all' ? 'all modes' : `${d.mode} mode`}); biggest changes of total time first`, '', line(head), ...body.map(line)];
  if (d.omitted > 0) lines.push(`(${d.omitted} more functions not shown)`);
  return lines.join('\n');
}
