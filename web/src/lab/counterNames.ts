// What each counter is, in words, for the chart's axes and legends and the
// counter picker: the runner's catalogue (experiments/runner/counters.ts
// COUNTERS) names every counter ("system calls", where vmstat's column is
// "sy", which is also system CPU time), gives its unit on its own ("/s") and
// where vmstat shows it ("vmstat faults: sy").  Here: those words for any
// counter a result carries, even one this page does not know, and how
// counters share the chart's panels.  No DOM.

import { COUNTERS, diskCounter, type CounterDef } from '../../../experiments/runner/counters';

/** A counter as a result or the picker has it: the catalogue's, or only what an unknown one brings. */
export type CounterLike = Pick<CounterDef, 'id' | 'label' | 'unit' | 'group' | 'description'> & Partial<CounterDef>;

export interface CounterName {
  /** What it is, in words: "system calls". */
  name: string;
  /** The unit as an axis shows it: "/s", "KB/s", "%". */
  unit: string;
  /** Where vmstat/iostat (or the kernel, or the emulator) shows it: "vmstat faults: sy". */
  source: string;
  /** The column on its own: "sy" (for a shared panel's title, "us/sy/id"). */
  column: string;
  /** A short name for a shared panel's legend ("user" in the CPU panel); else the name. */
  short: string;
}

const KNOWN = new Map(COUNTERS.map((c) => [c.id, c]));

/** The catalogue's counter for an id, or one made of the id alone (a counter this page does not know). */
export function counterDef(id: string): CounterDef {
  return KNOWN.get(id) ?? diskCounter(id)
    ?? { id, label: id, name: id, unit: '', where: id, short: id, group: 'other', description: '', source: 'kernel' };
}

/** The counter in words.  Counters this page does not know (a link from a newer lab) keep their own label. */
export function counterName(c: CounterLike): CounterName {
  const def = KNOWN.get(c.id) ?? diskCounter(c.id);
  if (def) return { name: def.name, unit: def.unit, source: def.where, column: def.label, short: def.short };
  const label = c.label || c.id;
  return { name: label, unit: c.unit, source: c.id, column: label, short: label };
}

/** "system calls /s (vmstat faults: sy)": what it is, its unit, where vmstat shows it. */
export function counterTitle(c: CounterLike): string {
  const n = counterName(c);
  return `${n.name} ${n.unit} (${n.source})`;
}

/** One panel of the counter chart: the counters drawn on one y axis. */
export interface ChartPanel {
  key: string;
  /** The panel's first line: what it shows and the unit ("system calls /s", "CPU time %"). */
  heading: string;
  /** Where vmstat shows it ("vmstat faults: sy"); a shared panel's legend says it per counter. */
  source: string;
  /** heading and source in one line: "system calls /s (vmstat faults: sy)". */
  title: string;
  /** The y axis's label: the unit. */
  axis: string;
  /** The counter ids, in the order given. */
  ids: string[];
  /** Legend entries of a shared panel (one per id): "user (us)". */
  legend: string[];
}

/** What a group of percentages is, for a shared panel's heading. */
const PERCENT_GROUPS: Record<string, [string, string]> = {
  cpu: ['CPU time', 'vmstat cpu'],
  hardware: ['instructions by mode', 'emulator'],
  namecache: ['name cache hit rates', 'vmstat -s'],
  disk: ['disks busy', 'iostat'],
};

function axisLabel(unit: string): string {
  if (unit === '/s') return 'per second';
  if (unit === '%') return '% of the interval';
  return unit;
}

/**
 * The chart's panels.  Percentages of one group share a panel (CPU us/sy/id
 * add up to 100 on one axis); every other counter has its own, so that a
 * rate of thousands does not flatten one of tens, and every y axis says
 * exactly what it shows.
 */
export function chartPanels(counters: readonly CounterLike[]): ChartPanel[] {
  const panels: { key: string; ids: string[]; members: CounterLike[] }[] = [];
  const shared = new Map<string, (typeof panels)[number]>();
  for (const c of counters) {
    if (counterName(c).unit === '%') {
      const key = `%:${c.group}`;
      const panel = shared.get(key);
      if (panel) {
        panel.ids.push(c.id);
        panel.members.push(c);
        continue;
      }
      const p = { key, ids: [c.id], members: [c] };
      shared.set(key, p);
      panels.push(p);
      continue;
    }
    panels.push({ key: c.id, ids: [c.id], members: [c] });
  }
  return panels.map(({ key, ids, members }): ChartPanel => {
    if (members.length === 1) {
      const n = counterName(members[0]!);
      const heading = `${n.name} ${n.unit}`;
      return { key, heading, source: n.source, title: `${heading} (${n.source})`, axis: axisLabel(n.unit), ids, legend: [] };
    }
    const names = members.map(counterName);
    const group = members[0]!.group;
    const [what, where] = PERCENT_GROUPS[group] ?? [group, group];
    const heading = `${what} %`;
    const source = `${where}: ${names.map((n) => n.column).join('/')}`;
    return {
      key, heading, source, title: `${heading} (${source})`, axis: axisLabel('%'), ids,
      legend: names.map((n) => `${n.short} (${n.column})`),
    };
  });
}
