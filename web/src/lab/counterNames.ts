// What each counter is, in words, for the chart's axes and legends and the
// counter picker.  The runner names counters as vmstat(1) and iostat(1) name
// their columns ("sy", "cs", "pi"), which a reader cannot tell apart ("sy" is
// both system calls and system CPU time): here every counter gets a name
// ("system calls"), a unit on its own ("/s") and where vmstat shows it
// ("vmstat faults: sy").  Also how counters share the chart's panels.
// No DOM.

/** The counter as the runner defines it (experiments/runner/counters.ts CounterDef). */
export interface CounterLike {
  id: string;
  label: string;
  unit: string;
  group: string;
  description: string;
}

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

const N = (name: string, unit: string, source: string, column: string, short = name): CounterName =>
  ({ name, unit, source, column, short });

const NAMES: Record<string, CounterName> = {
  'procs.r': N('runnable processes', 'processes', 'vmstat procs: r', 'r'),
  'procs.b': N('blocked processes (disk or paging)', 'processes', 'vmstat procs: b', 'b'),
  'procs.w': N('swapped-out runnable processes', 'processes', 'vmstat procs: w', 'w'),
  'memory.avm': N('active virtual memory', 'KB', 'vmstat memory: avm', 'avm'),
  'memory.fre': N('free memory, 5 s average', 'KB', 'vmstat memory: fre', 'fre'),
  'memory.freemem': N('free memory now', 'KB', 'kernel freemem', 'freemem'),
  'paging.re': N('page reclaims', 'pages/s', 'vmstat page: re', 're'),
  'paging.at': N('text pages reattached', 'pages/s', 'vmstat page: at', 'at'),
  'paging.pi': N('page-ins', 'KB/s', 'vmstat page: pi', 'pi'),
  'paging.po': N('page-outs', 'KB/s', 'vmstat page: po', 'po'),
  'paging.fr': N('freed by the page daemon', 'KB/s', 'vmstat page: fr', 'fr'),
  'paging.de': N('expected memory shortfall', 'KB', 'vmstat page: de', 'de'),
  'paging.sr': N('pages scanned by the clock', 'pages/s', 'vmstat page: sr', 'sr'),
  'faults.in': N('device interrupts', '/s', 'vmstat faults: in', 'in'),
  'faults.sy': N('system calls', '/s', 'vmstat faults: sy', 'sy'),
  'faults.cs': N('context switches', '/s', 'vmstat faults: cs', 'cs'),
  'faults.tr': N('traps', '/s', 'kernel v_trap', 'tr'),
  'faults.pf': N('page faults (translation not valid)', '/s', 'kernel v_faults', 'pf'),
  'cpu.us': N('CPU in user mode', '%', 'vmstat cpu: us', 'us', 'user'),
  'cpu.sy': N('CPU in the kernel', '%', 'vmstat cpu: sy', 'sy', 'system'),
  'cpu.id': N('CPU idle', '%', 'vmstat cpu: id', 'id', 'idle'),
  'namei.lookups': N('name lookups', '/s', 'vmstat -s', 'lookups'),
  'namei.hits': N('name cache hits', '/s', 'nchstats', 'hits'),
  'namei.misses': N('name cache misses', '/s', 'nchstats', 'misses'),
  'namei.hitRate': N('name cache hit rate', '%', 'vmstat -s', 'hit %', 'hits'),
  'namei.hitRateCum': N('name cache hit rate since the start', '%', 'vmstat -s', 'hit % (row)', 'hits since the start'),
  'namei.offsetHitRate': N('directory offset cache hit rate', '%', 'vmstat -s', 'offset %', 'offset cache hits'),
  'hw.mips': N('VAX instructions', 'MIPS', 'emulator', 'MIPS'),
  'hw.user': N('instructions in user mode', '%', 'emulator', 'user', 'user mode'),
  'hw.kernel': N('instructions in the kernel', '%', 'emulator', 'kernel', 'kernel'),
  'hw.idle': N('idle loop (skipped)', '%', 'emulator', 'idle', 'idle loop'),
  'hw.syscalls': N('CHMK instructions (system calls)', '/s', 'emulator', 'CHMK'),
  'hw.intr': N('hardware interrupts', '/s', 'emulator', 'intr'),
  'hw.softintr': N('software interrupts', '/s', 'emulator', 'soft'),
  'hw.cs': N('LDPCTX (context switches)', '/s', 'emulator', 'LDPCTX'),
  'hw.pf': N('page faults (TNV)', '/s', 'emulator', 'TNV'),
};

const DISK: Record<string, [string, string, string]> = {
  tps: ['transfers', '/s', 'tps'],
  kbps: ['data transferred', 'KB/s', 'bps'],
  sps: ['seeks', '/s', 'sps'],
  msps: ['time per seek', 'ms', 'msps'],
  util: ['busy', '%', 'util'],
};

/** The counter in words.  Counters this page does not know (a link from a newer lab) keep their own label. */
export function counterName(c: CounterLike): CounterName {
  const known = NAMES[c.id];
  if (known) return known;
  const disk = /^(hw\.)?disk\.([a-z]+\d+)\.(\w+)$/.exec(c.id);
  if (disk && DISK[disk[3]!]) {
    const [what, unit, column] = DISK[disk[3]!]!;
    const drive = disk[2]!;
    return disk[1]
      ? N(`${drive} ${what} (drive model)`, unit, 'emulator', `${drive} ${column}`, `${drive} (model)`)
      : N(`${drive} ${what}`, unit, `iostat ${drive}: ${column}`, `${drive} ${column}`, drive);
  }
  return N(c.label || c.id, c.unit, c.id, c.label || c.id);
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
