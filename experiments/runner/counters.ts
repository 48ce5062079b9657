// Counters sampled while an experiment runs, named the way vmstat(1) and
// iostat(1) name them, from two sources: the kernel's own statistics, read
// by symbol from its memory (kstats.ts), and the hardware model's counts
// (Vax780System.hardwareStatsOf(), when the emulator has it).
//
// A sampler is polled after every emulator slice; once at least
// `intervalSeconds` of virtual time has passed since its last sample it
// takes one.  Rates are per virtual second over the real interval between
// samples (a slice can end a little past the second), so they stay right
// whatever the slice length.  Nothing here looks at the host clock: the
// same run gives the same numbers, natively and in WebAssembly.
//
// Where each kernel counter comes from (4.3BSD vmstat.c 5.4 / iostat.c
// 4.13, the versions on the distribution; "pgtok" is vmstat's pages-to-KB,
// a * NBPG / 1024 with NBPG = 512, so 2 pages = 1 KB, one page cluster):
//
//   procs.r   total.t_rq                      runnable, in core
//   procs.b   total.t_dw + total.t_pw         blocked: disk wait + page wait
//   procs.w   total.t_sw                      runnable or short sleepers, swapped out
//   memory.avm pgtok(total.t_avm)  KB         active virtual memory
//   memory.fre pgtok(total.t_free) KB         free memory (avefree at the last vmtotal())
//   memory.freemem pgtok(freemem)  KB         free memory now (not a vmstat column)
//   paging.re  v_pgrec - (v_xsfrec + v_xifrec)   reclaims        /s
//   paging.at  v_xsfrec + v_xifrec                "attaches": text pages found in the free list  /s
//   paging.pi  pgtok(v_pgpgin)   KB/s         paged in
//   paging.po  pgtok(v_pgpgout)  KB/s         paged out
//   paging.fr  pgtok(v_dfree)    KB/s         freed by the page daemon
//   paging.de  pgtok(deficit)    KB           anticipated short-term memory shortfall
//   paging.sr  v_scan            /s           pages scanned by the clock algorithm
//   faults.in  v_intr - clock interrupts /s   device interrupts (vmstat subtracts hz; we
//                                             subtract the clock's own count, intrcnt[clock])
//   faults.sy  v_syscall /s                   system calls (counted when syscall() returns)
//   faults.cs  v_swtch /s                     context switches (calls of Swtch)
//   faults.tr  v_trap /s, faults.pf v_faults /s   traps, address-translation faults (not vmstat columns)
//   cpu.us/sy/id  cp_time ticks, % of the interval's ticks; us = CP_USER + CP_NICE
//   disk.NAME.tps   dk_xfer /s                transfers (iostat tps, vmstat's disk columns)
//   disk.NAME.kbps  dk_wds * 64 / 1024 /s     KB transferred (dk_wds counts 64-byte units:
//                                             mba.c adds b_bcount >> 6; iostat's "bps" is
//                                             dk_wds * 32 words / 512 = the same KB)
//   disk.NAME.sps   dk_seek /s                seeks
//   disk.NAME.msps  iostat's: (dk_time/hz - dk_mspw * words) * 1000 / dk_seek   ms per seek
//   disk.NAME.util  dk_time / hz / seconds, %   busy
//   namei.*         nchstats, counted the way `vmstat -s` counts them (kstats.ts nameCacheFigures)
//
// Counts since boot are sum + cnt (vmmeter() moves cnt into sum every
// second, kstats.ts); a read that lands inside vmmeter()'s loop can see a
// count in both, so the sampler never lets a running count go down.

import type { Vax780System } from '../../emu/js/vax780';
import {
  DK_NDRIVE, KernelStatsReader, nameCacheFigures, SAMPLE_PARTS, type KernelSampleStats, type KernelDrive, type KernelMemory,
  type SamplePart, type Vmmeter, type VmmeterField,
} from './kstats';
import { roundFixed } from './decimal';

/** The groups of COUNTERS, in display order. */
export const COUNTER_GROUPS = ['procs', 'memory', 'paging', 'faults', 'cpu', 'disk', 'namecache', 'hardware'] as const;
export type CounterGroup = (typeof COUNTER_GROUPS)[number];

export interface CounterDef {
  id: string;
  /** The column as vmstat or iostat heads it ("sy", "hp0 tps"), or a short name of ours ("freemem", "TNV"). */
  label: string;
  /** What it is, in words: "system calls" (vmstat's "sy" is both system calls and system CPU time). */
  name: string;
  /** The unit as an axis shows it: "/s", "KB/s", "%", "MIPS". */
  unit: string;
  /** Where vmstat or iostat (or the kernel, or the emulator) shows it: "vmstat faults: sy". */
  where: string;
  /** A shorter name for a legend shared with others of its group ("user" among CPU us/sy/id); else the name. */
  short: string;
  /** One of COUNTER_GROUPS (a plain string, so that a page can show ids it
   *  does not know under a group of its own). */
  group: string;
  /** How it is computed, from which kernel variables. */
  description: string;
  source: 'kernel' | 'hardware';
}

/** One sample: the values over the interval that ended at t. */
export interface CounterSample {
  /** Index of the row (step) of the experiment. */
  row: number;
  /** Virtual seconds since the row's timed command started. */
  t: number;
  values: Record<string, number>;
}

/** A row's samples, column-wise (what the result JSON keeps). */
export interface CounterSeries {
  t: number[];
  values: Record<string, number[]>;
}

/** Cumulative figures over a whole row (see CounterSampler.totals). */
export type CounterTotals = Record<string, number>;

/** The disks the static list describes: the iostat slots of GENERIC's
 *  mbdinit (hp0-hp3; DK_NDRIVE is 4).  Samples carry only the drives the
 *  kernel found. */
export const COUNTER_DRIVES = ['hp0', 'hp1', 'hp2', 'hp3'] as const;

const k = (group: CounterGroup, id: string, label: string, name: string, unit: string, where: string, description: string,
  short = name): CounterDef => ({ id, label, name, unit, where, short, group, description, source: 'kernel' });
const hw = (id: string, label: string, name: string, unit: string, description: string, short = name): CounterDef =>
  ({ id, label, name, unit, where: 'emulator', short, group: 'hardware', description, source: 'hardware' });

/** A disk's figures, for any drive: [what, unit, iostat's column, how the kernel counts it, how the drive model does]. */
const DISK_FIGURES: Record<string, [string, string, string, string, string | null]> = {
  tps: ['transfers', '/s', 'tps', 'transfers, dk_xfer', 'data transfers done by the drive model'],
  kbps: ['data transferred', 'KB/s', 'bps', 'KB transferred, dk_wds (64-byte units) / 16', 'KB read and written by the drive model'],
  sps: ['seeks', '/s', 'sps', 'seeks, dk_seek', 'seeks done by the drive model'],
  msps: ['time per seek', 'ms', 'msps', 'ms per seek as iostat computes it, (busy - transfer time) / seeks', null],
  util: ['busy', '%', 'util', '% of the interval the drive was busy, dk_time / hz', '% of the interval the drive model was busy'],
};

/**
 * The counter of a disk figure by its id, for any drive: disk.DRIVE.FIGURE
 * (the kernel's iostat figures) or hw.disk.DRIVE.FIGURE (the drive model's);
 * null for another id.  COUNTERS lists GENERIC's drives; a sample can carry
 * others.
 */
export function diskCounter(id: string): CounterDef | null {
  const m = /^(hw\.)?disk\.([a-z]+\d+)\.(\w+)$/.exec(id);
  const figure = m ? DISK_FIGURES[m[3]!] : undefined;
  if (!m || !figure) return null;
  const [what, unit, column, kernel, model] = figure;
  const drive = m[2]!;
  if (m[1]) {
    return model === null ? null
      : hw(id, `${drive} ${column}`, `${drive} ${what} (drive model)`, unit, `${drive}: ${model}`, `${drive} (model)`);
  }
  return k('disk', id, `${drive} ${column}`, `${drive} ${what}`, unit, `iostat ${drive}: ${column}`, `${drive}: ${kernel}`, drive);
}

const disks = (prefix: string) =>
  COUNTER_DRIVES.flatMap((d) => Object.keys(DISK_FIGURES).map((f) => diskCounter(`${prefix}${d}.${f}`)))
    .filter((c): c is CounterDef => c !== null);

export const COUNTERS: CounterDef[] = [
  k('procs', 'procs.r', 'r', 'runnable processes', 'processes', 'vmstat procs: r', 'runnable processes in core (vmtotal t_rq; recomputed every 5 s)'),
  k('procs', 'procs.b', 'b', 'blocked processes (disk or paging)', 'processes', 'vmstat procs: b', 'processes blocked for disk or paging (t_dw + t_pw)'),
  k('procs', 'procs.w', 'w', 'swapped-out runnable processes', 'processes', 'vmstat procs: w', 'runnable or short-sleeping processes swapped out (t_sw)'),
  k('memory', 'memory.avm', 'avm', 'active virtual memory', 'KB', 'vmstat memory: avm', 'active virtual memory, pgtok(t_avm): pages of processes run or sleeping < 20 s'),
  k('memory', 'memory.fre', 'fre', 'free memory, 5 s average', 'KB', 'vmstat memory: fre', 'free memory, pgtok(t_free) (the 5 s average avefree at the last vmtotal)'),
  k('memory', 'memory.freemem', 'freemem', 'free memory now', 'KB', 'kernel freemem', 'free memory at the sample, pgtok(freemem) (not a vmstat column)'),
  k('paging', 'paging.re', 're', 'page reclaims', 'pages/s', 'vmstat page: re', 'page reclaims, v_pgrec - (v_xsfrec + v_xifrec)'),
  k('paging', 'paging.at', 'at', 'text pages reattached', 'pages/s', 'vmstat page: at', 'text pages found in the free list ("attaches"), v_xsfrec + v_xifrec'),
  k('paging', 'paging.pi', 'pi', 'page-ins', 'KB/s', 'vmstat page: pi', 'paged in, pgtok(v_pgpgin)'),
  k('paging', 'paging.po', 'po', 'page-outs', 'KB/s', 'vmstat page: po', 'paged out, pgtok(v_pgpgout)'),
  k('paging', 'paging.fr', 'fr', 'freed by the page daemon', 'KB/s', 'vmstat page: fr', 'freed by the page daemon, pgtok(v_dfree)'),
  k('paging', 'paging.de', 'de', 'expected memory shortfall', 'KB', 'vmstat page: de', 'anticipated short-term memory shortfall, pgtok(deficit)'),
  k('paging', 'paging.sr', 'sr', 'pages scanned by the clock', 'pages/s', 'vmstat page: sr', 'pages scanned by the clock algorithm, v_scan'),
  k('faults', 'faults.in', 'in', 'device interrupts', '/s', 'vmstat faults: in', 'device interrupts other than the clock, v_intr minus intrcnt\'s clock count'),
  k('faults', 'faults.sy', 'sy', 'system calls', '/s', 'vmstat faults: sy', 'system calls, v_syscall (counted as syscall() returns)'),
  k('faults', 'faults.cs', 'cs', 'context switches', '/s', 'vmstat faults: cs', 'context switches, v_swtch (calls of Swtch)'),
  k('faults', 'faults.tr', 'tr', 'traps', '/s', 'kernel v_trap', 'traps, v_trap (page faults, arithmetic traps ...; not a vmstat column)'),
  k('faults', 'faults.pf', 'pf', 'page faults (translation not valid)', '/s', 'kernel v_faults', 'address translation faults taken, v_faults (not a vmstat column)'),
  k('cpu', 'cpu.us', 'us', 'CPU in user mode', '%', 'vmstat cpu: us', 'user time, cp_time CP_USER + CP_NICE, % of the interval\'s clock ticks', 'user'),
  k('cpu', 'cpu.sy', 'sy', 'CPU in the kernel', '%', 'vmstat cpu: sy', 'system time, cp_time CP_SYS, % of ticks', 'system'),
  k('cpu', 'cpu.id', 'id', 'CPU idle', '%', 'vmstat cpu: id', 'idle time, cp_time CP_IDLE, % of ticks', 'idle'),
  ...disks('disk.'),
  k('namecache', 'namei.lookups', 'lookups', 'name lookups', '/s', 'vmstat -s', 'name lookups (path components): goodhits + badhits + falsehits + miss + long, as vmstat -s'),
  k('namecache', 'namei.hits', 'hits', 'name cache hits', '/s', 'nchstats', 'system-wide name cache hits, ncs_goodhits'),
  k('namecache', 'namei.misses', 'misses', 'name cache misses', '/s', 'nchstats', 'lookups the name cache did not satisfy: lookups - goodhits'),
  k('namecache', 'namei.hitRate', 'hit %', 'name cache hit rate', '%', 'vmstat -s', 'name cache hit rate over the interval, goodhits / lookups (vmstat -s "cache hits")', 'hits'),
  k('namecache', 'namei.hitRateCum', 'hit % (row)', 'name cache hit rate since the start', '%', 'vmstat -s', 'name cache hit rate since the row\'s command started', 'hits since the start'),
  k('namecache', 'namei.offsetHitRate', 'offset %', 'directory offset cache hit rate', '%', 'vmstat -s', 'per-process directory offset cache: ncs_pass2 / lookups (vmstat -s "per-process")', 'offset cache hits'),
  hw('hw.mips', 'MIPS', 'VAX instructions', 'MIPS', 'VAX instructions executed per virtual second, in millions'),
  hw('hw.user', 'user', 'instructions in user mode', '%', 'instructions executed in user mode, % of all', 'user mode'),
  hw('hw.kernel', 'kernel', 'instructions in the kernel', '%', 'instructions executed in kernel mode and on the interrupt stack, % of all', 'kernel'),
  hw('hw.idle', 'idle', 'idle loop (skipped)', '%', 'instructions of the kernel\'s idle loop the model skipped over, % of all (= % of time)', 'idle loop'),
  hw('hw.syscalls', 'CHMK', 'CHMK instructions (system calls)', '/s', 'CHMK instructions (system calls) executed'),
  hw('hw.intr', 'intr', 'hardware interrupts', '/s', 'hardware interrupts taken (IPL 16-31), the clock included'),
  hw('hw.softintr', 'soft', 'software interrupts', '/s', 'software interrupts taken (IPL 1-15)'),
  hw('hw.cs', 'LDPCTX', 'LDPCTX (context switches)', '/s', 'LDPCTX instructions (process context loads)'),
  hw('hw.pf', 'TNV', 'page faults (TNV)', '/s', 'translation-not-valid faults (page faults), process and system space'),
  ...disks('hw.disk.'),
];

const COUNTER_IDS = new Set(COUNTERS.map((c) => c.id));

/** What a sampler needs of a system: the clocks, kernel memory and, when
 *  the emulator has them, the hardware model's counters. */
export type SamplerSystem = Pick<Vax780System, 'timeNs' | 'instructionCount'> & KernelMemory & {
  /** The named model counters (Vax780System.hardwareStatsOf): only those, a sample must stay cheap. */
  hardwareStatsOf?: (names: readonly string[]) => Record<string, number | bigint>;
};

// ------------------------------------------------------------ snapshots

interface Snapshot {
  ns: bigint;
  instr: bigint;
  k: KernelSampleStats;
  /** sum + cnt, never below the previous snapshot's (see the top). */
  since: Vmmeter | null;
  hw: HwFigures | null;
  /** Only the parts the sampler's counters need were read (CounterSampler's `only`). */
  partial: boolean;
}

/** What a sample must read for counter `id` beyond the clock, the instruction count and the vmmeter counts
 *  (always read): the kernel's parts (kstats.ts SamplePart) and the model's counters ('hw'). */
function partsOf(id: string): readonly (SamplePart | 'hw')[] {
  if (id === 'hw.mips') return [];
  if (id.startsWith('hw.')) return ['hw'];
  if (id.startsWith('procs.') || id === 'memory.avm' || id === 'memory.fre') return ['total'];
  if (id === 'memory.freemem') return ['freemem'];
  if (id === 'paging.de') return ['deficit'];
  if (id === 'faults.in') return ['intr'];
  if (id.startsWith('paging.') || id.startsWith('faults.')) return [];
  if (id.startsWith('cpu.')) return ['cpTime'];
  if (id.startsWith('disk.')) return ['disk'];
  if (id.startsWith('namei.')) return ['nchstats'];
  return [...SAMPLE_PARTS, 'hw'];   // one this list does not know: everything
}

/** The readers of systems already seen: the symbols are resolved once per
 *  machine (kernelSymbols reads /vmunix from the disk). */
const readers = new WeakMap<object, KernelStatsReader>();

/** The (shared) kernel statistics reader of a system. */
export function kernelStatsReader(sys: KernelMemory): KernelStatsReader {
  let r = readers.get(sys);
  if (!r) {
    r = new KernelStatsReader(sys);
    readers.set(sys, r);
  }
  return r;
}

/** The model's counters, or null when the system has none (a kernel-only
 *  system, as the tests' fakes; or the call throws). */
function hwFiguresOf(sys: SamplerSystem): HwFigures | null {
  if (typeof sys.hardwareStatsOf !== 'function') return null;
  let raw: Record<string, number | bigint>;
  try {
    raw = sys.hardwareStatsOf(HW_MODEL_KEYS);
  } catch {
    return null;
  }
  return hwFigures(raw);
}

const round = (x: number, digits: number): number => {
  if (!Number.isFinite(x)) return 0;
  const r = roundFixed(x, digits);
  return Object.is(r, -0) ? 0 : r;
};
/** Rates: 3 decimals; percentages: 2; KB sizes: whole. */
const rate3 = (x: number): number => round(x, 3);
const pct = (part: number, whole: number): number => (whole > 0 ? round((100 * part) / whole, 2) : 0);
const pgtok = (pages: number): number => (pages * 512) / 1024;

/** The model's counters under the lab's names (emu/src/system/vax780_stats.c
 *  names them), picked out once per snapshot: a sample must stay cheap, and
 *  the model has over 600 counters. */
type HwFigures = Record<string, number | null>;
const HW_DRIVES = ['hp0', 'hp1', 'hp2', 'hp3', 'hp4', 'hp5', 'hp6', 'hp7'];
const HW_DISK_FIELDS = ['xfers', 'seeks', 'bytes_read', 'bytes_written', 'busy_ns'];

/** The lab's figures that sum model counters (null when the model has none of them). */
const HW_SUMS: Readonly<Record<string, readonly string[]>> = {
  user: ['instr.user'],
  kernel: ['instr.kernel', 'instr.interrupt', 'instr.exec', 'instr.super'],
  idle: ['instr.idle'],
  idleNs: ['ns.idle'],
  syscalls: ['chmk.total'],
  intr: ['intr.hw'],
  softintr: ['intr.soft'],
  cs: ['ctx.ldpctx'],
  pf: ['fault.tnv.process', 'fault.tnv.system'],
};
/** Each drive's counters, kept under the model's own names. */
const HW_DRIVE_KEYS: ReadonlyMap<string, readonly string[]> = new Map(
  HW_DRIVES.map((drive) => [drive, HW_DISK_FIELDS.map((field) => `disk.${drive}.${field}`)]));
const HW_DISK_KEYS = [...HW_DRIVE_KEYS.values()].flat();
/** Every model counter hwFigures reads: what a snapshot asks the emulator for. */
const HW_MODEL_KEYS: readonly string[] = [...Object.values(HW_SUMS).flat(), ...HW_DISK_KEYS];

function hwFigures(h: Record<string, number | bigint>): HwFigures {
  const out: HwFigures = {};
  for (const [name, keys] of Object.entries(HW_SUMS)) {
    const present = keys.filter((k) => k in h);
    out[name] = present.length > 0 ? present.reduce((a, k) => a + Number(h[k]), 0) : null;
  }
  for (const key of HW_DISK_KEYS) if (key in h) out[key] = Number(h[key]);
  return out;
}

/** Counts since boot, not allowed below prev (vmmeter()'s race, see the top). */
function monotone(now: Vmmeter | null, prev: Vmmeter | null): Vmmeter | null {
  if (!now || !prev) return now;
  const out = { ...now };
  for (const f of Object.keys(out) as VmmeterField[]) if (out[f] < prev[f]) out[f] = prev[f];
  return out;
}

// ------------------------------------------------------------ the sampler

export class CounterSampler {
  private readonly reader: KernelStatsReader;
  private readonly first: Snapshot;
  private last: Snapshot;
  private readonly samples: CounterSample[] = [];
  private readonly hz: number;
  /** What the samples between the first and the last read (null: everything). */
  private readonly kernelParts: ReadonlySet<SamplePart> | null;
  private readonly readsHw: boolean;

  /** only: the counters whose series are wanted (a run that keeps some and shows none live). The samples that
   *  poll() takes then read and give only what those need (and may give others, computed from what was read);
   *  the first snapshot, finish()'s and totals() read everything, so totals() and the wanted counters' values are
   *  what they would be without it.  A sample reads about 45 figures from the emulator otherwise. */
  constructor(
    private readonly sys: SamplerSystem,
    private readonly row: number,
    private readonly intervalSeconds = 1,
    only?: ReadonlySet<string>,
  ) {
    this.reader = kernelStatsReader(sys);
    const parts = only ? new Set([...only].flatMap(partsOf)) : null;
    this.kernelParts = parts ? new Set(SAMPLE_PARTS.filter((p) => parts.has(p))) : null;
    this.readsHw = parts === null || parts.has('hw');
    this.first = this.last = this.snapshot(null, true);
    this.hz = this.reader.long('_hz') ?? 100;
  }

  /** A sample if a whole interval has passed since the last one, else null. */
  poll(): CounterSample | null {
    const now = this.sys.timeNs();
    if (Number(now - this.last.ns) < this.intervalSeconds * 1e9) return null;
    return this.take(false);
  }

  /** The last, partial interval (null if nothing ran since the last sample). */
  finish(): CounterSample | null {
    return this.sys.timeNs() > this.last.ns ? this.take(true) : null;
  }

  series(): CounterSeries {
    const out: CounterSeries = { t: [], values: {} };
    for (const s of this.samples) {
      out.t.push(s.t);
      for (const [key, v] of Object.entries(s.values)) (out.values[key] ??= []).push(v);
    }
    return out;
  }

  /** The samples taken so far. */
  allSamples(): readonly CounterSample[] {
    return this.samples;
  }

  /** The kernel statistics reader (symbols resolved once per machine). */
  kernel(): KernelStatsReader {
    return this.reader;
  }

  /**
   * Cumulative counts over the whole row: from the sampler's creation to the
   * last sample (or to now, if the machine ran on since).  Flat names:
   * seconds, instructions; kernel: syscalls, cs, intr, traps, faults, pgin,
   * pgout, pgpgin, pgpgout, pgrec, zfod, exfod, swpin, swpout, scan, rev, dfree, seqfree,
   * cp_time.user/nice/sys/idle (ticks), cpu.us/sy/id (%), namei.lookups,
   * namei.hits, namei.misses, namei.hitRate (%), namei.badhits,
   * namei.falsehits, namei.miss (ncs_miss itself), namei.long, namei.pass2,
   * namei.offsetHitRate (%), disk.NAME.xfers/seeks/kb/busyTicks; hardware
   * (if the model counts): hw.instructions.user/kernel/idle, hw.syscalls,
   * hw.intr, hw.softintr, hw.cs, hw.pf, hw.disk.NAME.xfers/seeks/kb/busyMs.
   */
  totals(): CounterTotals {
    // A partial last sample at this very time is read again whole: the machine has not run since, so the same.
    const end = this.sys.timeNs() === this.last.ns && !this.last.partial ? this.last : this.snapshot(this.last, true);
    const a = this.first;
    const out: CounterTotals = {
      seconds: round(Number(end.ns - a.ns) / 1e9, 6),
      instructions: Number(end.instr - a.instr),
    };
    if (a.since && end.since) {
      const d = (f: VmmeterField) => end.since![f] - a.since![f];
      Object.assign(out, {
        syscalls: d('v_syscall'), cs: d('v_swtch'), intr: d('v_intr'), traps: d('v_trap'), faults: d('v_faults'),
        pgin: d('v_pgin'), pgout: d('v_pgout'), pgpgin: d('v_pgpgin'), pgpgout: d('v_pgpgout'), pgrec: d('v_pgrec'),
        zfod: d('v_zfod'), exfod: d('v_exfod'), swpin: d('v_swpin'), swpout: d('v_swpout'),
        // The page daemon's clock (vm_page.c pageout): steps of the hand(s), revolutions of the (front) hand,
        // pages it freed, and pages of sequential (vadvise) processes freed at fault time.
        scan: d('v_scan'), rev: d('v_rev'), dfree: d('v_dfree'), seqfree: d('v_seqfree'),
      });
    }
    const cp0 = a.k.cpTime;
    const cp1 = end.k.cpTime;
    if (cp0 && cp1) {
      const user = cp1.user - cp0.user;
      const nice = cp1.nice - cp0.nice;
      const sys = cp1.sys - cp0.sys;
      const idle = cp1.idle - cp0.idle;
      const all = user + nice + sys + idle;
      Object.assign(out, {
        'cp_time.user': user, 'cp_time.nice': nice, 'cp_time.sys': sys, 'cp_time.idle': idle,
        'cpu.us': pct(user + nice, all), 'cpu.sy': pct(sys, all), 'cpu.id': pct(idle, all),
      });
    }
    const n0 = a.k.nchstats;
    const n1 = end.k.nchstats;
    if (n0 && n1) {
      const f0 = nameCacheFigures(n0);
      const f1 = nameCacheFigures(n1);
      const lookups = f1.lookups - f0.lookups;
      const hits = f1.hits - f0.hits;
      Object.assign(out, {
        'namei.lookups': lookups, 'namei.hits': hits, 'namei.misses': lookups - hits, 'namei.hitRate': pct(hits, lookups),
        'namei.badhits': n1.ncs_badhits - n0.ncs_badhits, 'namei.falsehits': n1.ncs_falsehits - n0.ncs_falsehits,
        'namei.miss': n1.ncs_miss - n0.ncs_miss, 'namei.long': n1.ncs_long - n0.ncs_long,
        'namei.pass2': n1.ncs_pass2 - n0.ncs_pass2, 'namei.offsetHitRate': pct(n1.ncs_pass2 - n0.ncs_pass2, lookups),
      });
    }
    const d0 = a.k.disk;
    const d1 = end.k.disk;
    if (d0 && d1) {
      for (const { dk, name } of this.reader.drives()) {
        out[`disk.${name}.xfers`] = d1.xfer[dk]! - d0.xfer[dk]!;
        out[`disk.${name}.seeks`] = d1.seek[dk]! - d0.seek[dk]!;
        out[`disk.${name}.kb`] = round(((d1.wds[dk]! - d0.wds[dk]!) * 64) / 1024, 3);
        out[`disk.${name}.busyTicks`] = d1.time[dk]! - d0.time[dk]!;
      }
    }
    if (a.hw && end.hw) {
      const h0 = a.hw;
      const h1 = end.hw;
      const d = (key: string): number | null => (h0[key] != null && h1[key] != null ? h1[key]! - h0[key]! : null);
      const put = (name: string, v: number | null) => { if (v !== null) out[name] = v; };
      put('hw.instructions.user', d('user'));
      put('hw.instructions.kernel', d('kernel'));
      put('hw.instructions.idle', d('idle'));
      put('hw.syscalls', d('syscalls'));
      put('hw.intr', d('intr'));
      put('hw.softintr', d('softintr'));
      put('hw.cs', d('cs'));
      put('hw.pf', d('pf'));
      for (const name of hwDrives(h1, this.reader.drives())) {
        put(`hw.disk.${name}.xfers`, d(`disk.${name}.xfers`));
        put(`hw.disk.${name}.seeks`, d(`disk.${name}.seeks`));
        const r = d(`disk.${name}.bytes_read`);
        const w = d(`disk.${name}.bytes_written`);
        if (r !== null || w !== null) out[`hw.disk.${name}.kb`] = round(((r ?? 0) + (w ?? 0)) / 1024, 3);
        const busy = d(`disk.${name}.busy_ns`);
        if (busy !== null) out[`hw.disk.${name}.busyMs`] = round(busy / 1e6, 3);
      }
    }
    return out;
  }

  private snapshot(prev: Snapshot | null, whole: boolean): Snapshot {
    const partial = !whole && this.kernelParts !== null;
    const k = this.reader.readForSample(partial ? this.kernelParts! : undefined);
    return {
      ns: this.sys.timeNs(),
      instr: this.sys.instructionCount(),
      k,
      since: monotone(k.since, prev?.since ?? null),
      hw: partial && !this.readsHw ? null : hwFiguresOf(this.sys),
      partial,
    };
  }

  private take(whole: boolean): CounterSample {
    const prev = this.last;
    const cur = this.snapshot(prev, whole);
    const values = this.values(prev, cur, this.first);
    this.last = cur;
    const sample = { row: this.row, t: round(Number(cur.ns - this.first.ns) / 1e9, 6), values };
    this.samples.push(sample);
    return sample;
  }

  /** The values of one interval, prev -> cur; first: the row's start (for the cumulative rates). */
  private values(prev: Snapshot, cur: Snapshot, first: Snapshot): Record<string, number> {
    const dt = Number(cur.ns - prev.ns) / 1e9;
    const per = (x: number): number => rate3(dt > 0 ? x / dt : 0);
    const v: Record<string, number> = {};
    const dInstr = Number(cur.instr - prev.instr);
    v['hw.mips'] = round(dt > 0 ? dInstr / dt / 1e6 : 0, 4);

    const t = cur.k.total;
    if (t) {
      v['procs.r'] = t.t_rq;
      v['procs.b'] = t.t_dw + t.t_pw;
      v['procs.w'] = t.t_sw;
      v['memory.avm'] = Math.trunc(pgtok(t.t_avm));
      v['memory.fre'] = Math.trunc(pgtok(t.t_free));
    }
    if (cur.k.freemem !== null) v['memory.freemem'] = Math.trunc(pgtok(cur.k.freemem));
    if (cur.k.deficit !== null) v['paging.de'] = Math.trunc(pgtok(cur.k.deficit));

    if (prev.since && cur.since) {
      const d = (f: VmmeterField) => cur.since![f] - prev.since![f];
      const attach = d('v_xsfrec') + d('v_xifrec');
      v['paging.re'] = per(d('v_pgrec') - attach);
      v['paging.at'] = per(attach);
      v['paging.pi'] = per(pgtok(d('v_pgpgin')));
      v['paging.po'] = per(pgtok(d('v_pgpgout')));
      v['paging.fr'] = per(pgtok(d('v_dfree')));
      v['paging.sr'] = per(d('v_scan'));
      const c0 = prev.k.intr?.clock;
      const c1 = cur.k.intr?.clock;
      const clock = c0 !== undefined && c1 !== undefined ? c1 - c0 : this.hz * dt;
      v['faults.in'] = per(Math.max(0, d('v_intr') - clock));
      v['faults.sy'] = per(d('v_syscall'));
      v['faults.cs'] = per(d('v_swtch'));
      v['faults.tr'] = per(d('v_trap'));
      v['faults.pf'] = per(d('v_faults'));
    }

    const cp0 = prev.k.cpTime;
    const cp1 = cur.k.cpTime;
    if (cp0 && cp1) {
      const us = cp1.user - cp0.user + cp1.nice - cp0.nice;
      const sy = cp1.sys - cp0.sys;
      const id = cp1.idle - cp0.idle;
      const all = us + sy + id;
      v['cpu.us'] = pct(us, all);
      v['cpu.sy'] = pct(sy, all);
      v['cpu.id'] = pct(id, all);
    }

    const d0 = prev.k.disk;
    const d1 = cur.k.disk;
    if (d0 && d1) {
      for (const { dk, name } of this.reader.drives()) {
        if (dk >= DK_NDRIVE) continue;
        const xfer = d1.xfer[dk]! - d0.xfer[dk]!;
        const seek = d1.seek[dk]! - d0.seek[dk]!;
        const wds = d1.wds[dk]! - d0.wds[dk]!;
        const busyS = (d1.time[dk]! - d0.time[dk]!) / this.hz;
        v[`disk.${name}.tps`] = per(xfer);
        v[`disk.${name}.kbps`] = per((wds * 64) / 1024);
        v[`disk.${name}.sps`] = per(seek);
        // iostat: words = dk_wds * 32; transfer time = dk_mspw * words; the rest of the busy time is seeking.
        let xtime = d1.mspw[dk]! * wds * 32;
        let itime = busyS - xtime;
        if (xtime < 0) { itime += xtime; xtime = 0; }
        if (itime < 0) { xtime += itime; itime = 0; }
        v[`disk.${name}.msps`] = seek > 0 ? round((itime * 1000) / seek, 3) : 0;
        v[`disk.${name}.util`] = dt > 0 ? round((100 * busyS) / dt, 2) : 0;
      }
    }

    const n0 = prev.k.nchstats;
    const n1 = cur.k.nchstats;
    const nf = first.k.nchstats;
    if (n0 && n1 && nf) {
      const f0 = nameCacheFigures(n0);
      const f1 = nameCacheFigures(n1);
      const ff = nameCacheFigures(nf);
      const lookups = f1.lookups - f0.lookups;
      const hits = f1.hits - f0.hits;
      v['namei.lookups'] = per(lookups);
      v['namei.hits'] = per(hits);
      v['namei.misses'] = per(lookups - hits);
      v['namei.hitRate'] = pct(hits, lookups);
      v['namei.hitRateCum'] = pct(f1.hits - ff.hits, f1.lookups - ff.lookups);
      v['namei.offsetHitRate'] = pct(f1.offsetHits - f0.offsetHits, lookups);
    }

    if (prev.hw && cur.hw) {
      const h0 = prev.hw;
      const h1 = cur.hw;
      const d = (key: string): number | null => (h0[key] != null && h1[key] != null ? h1[key]! - h0[key]! : null);
      const user = d('user');
      const kernel = d('kernel');
      const idle = d('idle');
      const modes = (user ?? 0) + (kernel ?? 0) + (idle ?? 0);
      const all = modes > 0 ? modes : dInstr;
      if (user !== null) v['hw.user'] = pct(user, all);
      if (kernel !== null) v['hw.kernel'] = pct(kernel, all);
      if (idle !== null) v['hw.idle'] = pct(idle, all);
      else {
        const idleNs = d('idleNs');
        if (idleNs !== null && dt > 0) v['hw.idle'] = round(idleNs / 1e9 / dt * 100, 2);
      }
      for (const [id, key] of [['hw.syscalls', 'syscalls'], ['hw.intr', 'intr'], ['hw.softintr', 'softintr'],
        ['hw.cs', 'cs'], ['hw.pf', 'pf']] as const) {
        const x = d(key);
        if (x !== null) v[id] = per(x);
      }
      for (const name of hwDrives(h1, this.reader.drives())) {
        const x = d(`disk.${name}.xfers`);
        if (x !== null) v[`hw.disk.${name}.tps`] = per(x);
        const r = d(`disk.${name}.bytes_read`);
        const w = d(`disk.${name}.bytes_written`);
        if (r !== null || w !== null) v[`hw.disk.${name}.kbps`] = per(((r ?? 0) + (w ?? 0)) / 1024);
        const s = d(`disk.${name}.seeks`);
        if (s !== null) v[`hw.disk.${name}.sps`] = per(s);
        const busy = d(`disk.${name}.busy_ns`);
        if (busy !== null && dt > 0) v[`hw.disk.${name}.util`] = round((100 * busy) / 1e9 / dt, 2);
      }
    }
    // Only the listed ids (a drive beyond hp3, say, is left out rather than undocumented), in the order made;
    // copied rather than deleted from v, which would turn v into a slow dictionary on every sample.
    const out: Record<string, number> = {};
    for (const key of Object.keys(v)) if (COUNTER_IDS.has(key)) out[key] = v[key]!;
    return out;
  }
}

/** The drives of the model worth reporting: those the kernel found (its
 *  iostat drives) and any other that has done something.  The model lists
 *  hp0-hp7 whether or not a pack is mounted. */
function hwDrives(f: Record<string, number | null>, kernelDrives: readonly KernelDrive[]): string[] {
  const names = new Set<string>(kernelDrives.map((d) => d.name));
  for (const [drive, keys] of HW_DRIVE_KEYS) if (keys.some((key) => f[key])) names.add(drive);
  return [...names].filter((n) => HW_DRIVE_KEYS.get(n)?.some((key) => key in f) ?? false).sort();
}
