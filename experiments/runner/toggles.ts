// The knobs an experiment can turn: kernel variables patched into /vmunix's
// data before the kernel runs (Vax780Options.set, the CLI's --set; needs a
// direct boot), and the machine's own settings.  Each is described with the
// paper section it belongs to, a range in which the kernel still boots, and
// what the kernel does with it — several of 4.3BSD's sizes are computed at
// boot, and what matters is whether a value patched beforehand is used or
// overwritten (checked in the 4.3BSD sources, srcsys.tar):
//
//  - Statically initialised in param.c (GENERIC: MAXUSERS 8, HZ 100), read
//    as they are by startup()/main(): hz, tick, nproc (20 + 8 * MAXUSERS =
//    84), nchsize (NINODE * 11 / 10 = 154).  A patch is used.  But param.c's
//    other formulas (ninode, nfile, ntext, ncallout) were evaluated at
//    compile time from the original NPROC and do not follow nproc.
//  - nbuf and bufpages are 0 in the image (BUFPAGES undefined) and
//    startup() (vax/machdep.c) computes them only when they are 0: bufpages
//    = 10% of the first 2 MB + 5% of the rest, in 1 KB clusters; nbuf =
//    bufpages / 2, at least 16.  A patched value is used, then clamped:
//    nbuf to what SYSPTSIZE leaves room for ("SYSPTSIZE limits number of
//    buffers to N": 140 at 8 MB, so GENERIC's own nbuf is that limit), and
//    bufpages to nbuf * 8 (MAXBSIZE / CLBYTES).  Read the kernel's value
//    back (kstats.ts, params) to see what it used.
//  - unpst_sendspace/unpst_recvspace (sys/uipc_usrreq.c, PIPSIZ 4096) are
//    read by every socketpair, so by every pipe().
//  - dzhighrate/dzlowrate (vaxuba/dz.c) steer the DZ11's auto-siloing.
//
// hz and tick go together: hardclock adds tick microseconds to the time of
// day at each of the hz interrupts, so hz without a matching tick makes the
// guest's clock (and /bin/time's "real") run fast or slow.  We set tick
// ourselves: completeSettings() adds tick = 1000000 / hz (param.c's formula)
// when hz is set and tick is not; validateSettings() refuses a tick that
// does not match hz (or 100).  Callers pass the completed set to the
// machine — resolveSettings() does both.
//
// Settings are numbers.  A knob whose values are names (disk: rp06, eagle,
// ideal, rm05) has `choices`; its value is the index of the name (disk=1 is
// eagle), and settingValue() turns a typed name into it, so --set disk=eagle
// and the web form's select both end up as the same number.

import { DISK_TIMINGS, SPINS, type DiskTiming, type Spin } from '../../emu/js/constants';

/** What a disk timing is called: `label`, short, for the lab page's select; `words`, what the command line's
 *  result says of it after its id ("disk timing eagle (Fujitsu Eagle; the pack stays an RP06's)"); `figures`, what
 *  the disk toggle's help adds to the words (a real drive's speed; the RP06's is in its defaultNote). */
export interface DiskTimingNames {
  readonly label: string;
  readonly words: string;
  readonly figures?: string;
}

/** The disk timings' names, one entry per DISK_TIMINGS id: the page's select, the command line's result text and
 *  the disk toggle's help (its description) all read them here. */
export const DISK_TIMING_NAMES: Readonly<Record<DiskTiming, DiskTimingNames>> = {
  rp06: { label: 'DEC RP06', words: 'DEC RP06' },
  eagle: { label: 'Fujitsu Eagle', words: 'Fujitsu Eagle', figures: '3961 rpm, 1.86 MB/s, 18 ms average seek' },
  ideal: { label: 'Ideal (no latency)', words: 'no seek or rotational latency, not a real drive', figures: 'transfer time only' },
  rm05: { label: 'DEC RM05', words: 'DEC RM05', figures: '3600 rpm, 1.2 MB/s, 30 ms average seek' },
};

/** The disk timings in words, in DISK_TIMINGS' order: "rp06 (DEC RP06), eagle (Fujitsu Eagle: 3961 rpm, ...), ...
 *  or rm05 (...)". */
function diskTimingList(): string {
  const each = DISK_TIMINGS.map((id) => {
    const { words, figures } = DISK_TIMING_NAMES[id];
    return `${id} (${words}${figures ? `: ${figures}` : ''})`;
  });
  return `${each.slice(0, -1).join(', ')} or ${each[each.length - 1]}`;
}

/** A knob. */
export interface ToggleDef {
  name: string;
  kind: 'kernel' | 'machine';
  /** One line. */
  description: string;
  /** Paper section, e.g. '4.1.1 Name cacheing'. */
  section: string;
  min: number;
  max: number;
  /** The value when not set, and where it comes from. */
  defaultNote: string;
  /** GENERIC's value of a kernel variable, when the kernel does not compute
   *  it at boot (nbuf and bufpages it does): the paper's kernel's, so the
   *  point of a sweep where the paper's figures apply. */
  generic?: number;
  /** Other toggles it interacts with, and how. */
  related?: string[];
  /** Values are multiples of step (memoryMB's 0.25: 256 KB); without it, whole numbers. */
  step?: number;
  /** Only these values (within min..max) are allowed: cpu's 750 and 780. */
  values?: number[];
  /** A knob with named values: value i is choices[i] (disk: 0 rp06, 1 eagle,
   *  2 ideal).  The name is what users type and see (settingValue, choiceName). */
  choices?: readonly string[];
  /** What a value outside the range would break, or the kernel's own limits. */
  notes?: string;
  /** A kernel setting that patches code, not a variable: the kernel has no
   *  symbol _NAME (emu/src/boot/kernelvars.c). */
  code?: boolean;
  /** Why the paper's value of this machine setting is not known (disk,
   *  spin): a sweep sets the paper's figures beside the lab's default and
   *  says so, rather than calling that value the paper's. */
  paperUnknown?: string;
}

export const TOGGLES: ToggleDef[] = [
  {
    name: 'nchsize', kind: 'kernel', section: '4.1.1 Name Cacheing',
    description: 'Entries in the system-wide name cache (namei); 0 turns the cache off.',
    min: 0, max: 4096,
    defaultNote: 'GENERIC: 154 (param.c: ninode * 11 / 10, ninode = 140 for maxusers 8); used as patched',
    generic: 154,
    notes: '48 bytes of kernel memory per entry, allocated by startup(); with 0 no entry is ever made, so every lookup misses',
  },
  {
    name: 'nbuf', kind: 'kernel', section: '3.2.6 File system buffer cache',
    description: 'Buffer headers of the file system buffer cache.',
    min: 16, max: 1024,
    defaultNote: 'computed at boot (0 in the image): bufpages / 2, at least 16, capped by SYSPTSIZE — 148 at 4.5 MB, 140 at 8 MB, 30 at 64 MB',
    related: ['bufpages: capped at nbuf * 8 clusters'],
    notes: 'startup() caps it to what the system page table has room for (148 at 4.5 MB, 140 at 8 MB, 30 at 64 MB, fewer with a larger nproc or nchsize), printing "SYSPTSIZE limits number of buffers to N"',
  },
  {
    name: 'bufpages', kind: 'kernel', section: '3.2.6 File system buffer cache',
    description: 'Memory of the buffer cache, in 1 KB page clusters.',
    min: 16, max: 16384,
    defaultNote: 'computed at boot (0 in the image): 10% of the first 2 MB + 5% of the rest — 332 (KB) at 4.5 MB, 512 at 8 MB',
    related: ['nbuf: bufpages is capped at nbuf * 8', 'memoryMB: at most memoryMB * 512 - 256'],
    notes: 'more than the kernel leaves free stops the boot with a machine check (1 MB with bufpages 512 does); memoryMB * 512 - 256 boots (128 at 0.75 MB, 256 at 1 MB, 768 at 2 MB, 2048 at 4.5 MB)',
  },
  {
    name: 'unpst_sendspace', kind: 'kernel', section: '3.2.1 Micro-operation benchmarks (pipes)',
    description: 'Send buffer of UNIX-domain stream sockets, so of every pipe, in bytes.',
    min: 1024, max: 32768,
    defaultNote: 'PIPSIZ: 4096 (sys/uipc_usrreq.c)',
    generic: 4096,
    related: ['unpst_recvspace'],
    notes: 'sbreserve() refuses more than 52428 bytes (every pipe() would fail with ENOBUFS) and the socket buffer counts are 16-bit, so 32768 is the top',
  },
  {
    name: 'unpst_recvspace', kind: 'kernel', section: '3.2.1 Micro-operation benchmarks (pipes)',
    description: 'Receive buffer of UNIX-domain stream sockets (pipes), in bytes.',
    min: 1024, max: 32768,
    defaultNote: 'PIPSIZ: 4096 (sys/uipc_usrreq.c)',
    generic: 4096,
    related: ['unpst_sendspace'],
  },
  {
    name: 'hz', kind: 'kernel', section: '4.1.5 Clock Handling',
    description: 'Clock interrupts per second (the interval timer is loaded with -1000000 / hz µs).',
    min: 50, max: 1000,
    defaultNote: 'GENERIC: 100 (param.c HZ)',
    generic: 100,
    related: ['tick = 1000000 / hz µs: added automatically when only hz is set'],
    notes: 'below 50 the kernel\'s hz/30 and hz/10 timers degenerate; the time of day stays right only with tick = 1000000 / hz',
  },
  {
    name: 'tick', kind: 'kernel', section: '4.1.5 Clock Handling',
    description: 'Microseconds added to the time of day at each clock interrupt; must be 1000000 / hz.',
    min: 1000, max: 20000,
    defaultNote: 'GENERIC: 10000 (param.c: 1000000 / HZ); set from hz when hz is set alone',
    generic: 10000,
    related: ['hz'],
  },
  {
    name: 'nproc', kind: 'kernel', section: '4.1.3 Process Table Management',
    description: 'Slots in the process table.',
    min: 20, max: 1000,
    defaultNote: 'GENERIC: 84 (param.c: 20 + 8 * maxusers); used as patched',
    generic: 84,
    notes: 'ninode, nfile, ntext and ncallout were computed from the original 84 at compile time and do not follow',
  },
  {
    name: 'dzhighrate', kind: 'kernel', section: '4.1.2 Intelligent Auto Siloing',
    description: 'DZ11 input characters per second above which the silo is turned on.',
    min: 0, max: 10000,
    defaultNote: '100 (vaxuba/dz.c)',
    generic: 100,
    related: ['dzlowrate: must not be above dzhighrate'],
    notes: 'acts only on input to DZ11 lines; the lab types on the console terminal, so no experiment exercises it yet',
  },
  {
    name: 'dzlowrate', kind: 'kernel', section: '4.1.2 Intelligent Auto Siloing',
    description: 'Smoothed DZ11 input rate (chars/s) below which the silo is turned off again.',
    min: 0, max: 10000,
    defaultNote: '75 (vaxuba/dz.c)',
    generic: 75,
    related: ['dzhighrate'],
  },
  {
    name: 'sosend_cluster_min', kind: 'kernel', section: '3.2.1 Micro-operation benchmarks (pipes)', code: true,
    description: 'The smallest socket or pipe write sosend() puts into a 1 KB mbuf cluster: 512 (the 4.3BSD release) ' +
      'or 1024 (the paper\'s 1985 kernel: a 512-byte message went as five 112-byte mbufs).',
    min: 512, max: 1024, values: [512, 1024],
    defaultNote: 'the release\'s 512 (uipc_socket.c: uio_resid >= CLBYTES / 2); Table 2 runs with 1024, as the paper\'s ' +
      'kernel (before delta 6.12 of uipc_socket.c, 2 June 1985, clusters were for writes of CLBYTES)',
    notes: 'patches the constant in the kernel\'s sosend(), not a variable (emu/src/boot/kernelvars.c); emu/docs/timing.md ' +
      'has the evidence',
  },
  {
    name: 'maxtextcache', kind: 'kernel', section: '3.2.1 Micro-operation benchmarks (exec)',
    description: 'How many unused program texts xfree (sys/vm_text.c) keeps cached after their last process exits: 0 ' +
      'releases a text at its last exit, so the next exec builds its page table from the file instead of reading it ' +
      'back from swap, as kernels before the text free list of 9 November 1985 did.',
    min: -1, max: 1000,
    defaultNote: 'the release\'s -1, which xinit replaces by ntext (44 in GENERIC): every text cached; Table 2\'s default ' +
      'kernel, paper-1985, starts it at 0 (the kernels text-release-1985 and paper-1985: no text cache, as of spring 1985)',
    notes: 'the CSRG SCCS history of h/text.h dates the cache: delta 6.4 (9 November 1985, "keep free list of texts") ' +
      'and 6.5 (26 November 1985, XUNUSED and the text statistics); 4.2BSD\'s sys/vm_text.c (6.1) released a ' +
      'non-sticky text at its last exit. Only the cache is turned off: the release\'s xalloc still finds a text by ' +
      'its inode, where 4.2BSD searched the text table. On paper-1985, -1 gives the release\'s cache back',
  },
  {
    name: 'memoryMB', kind: 'machine', section: '3.2.1 Micro-operation benchmarks',
    description: 'Physical memory of the machine, in megabytes, in steps of 0.25 (256 KB, an MS780-C memory array).',
    min: 0.75, max: 64, step: 0.25,
    defaultNote: 'the experiment\'s machine: 4.5 MB for Table 2, as the paper\'s 750',
    notes: '0.75 MB is the least 4.3BSD boots in (0.5 MB stops the boot with a machine check); 4.3BSD sizes memory by probing, so any multiple of 256 KB works',
  },
  {
    name: 'cpu', kind: 'machine', section: '3.2.1 Micro-operation benchmarks',
    description: 'The processor modelled: 780 (200 ns microcycle, 8 KB two-way cache, 128-entry TB) or 750 (320 ns, 4 KB ' +
      'direct-mapped cache, 512-entry TB); emu/docs/timing.md.',
    min: 750, max: 780, values: [750, 780],
    defaultNote: 'the experiment\'s machine: a 750 for Table 2, as the paper',
  },
  {
    name: 'disk', kind: 'machine', section: '3.2.1 Micro-operation benchmarks',
    description: `Disk timing: ${diskTimingList()}. The pack and the geometry 4.3BSD sees stay the RP06's; only the ` +
      'timing changes.',
    min: 0, max: DISK_TIMINGS.length - 1, values: DISK_TIMINGS.map((_, i) => i), choices: DISK_TIMINGS,
    defaultNote: 'rp06: the lab\'s pack is an RP06 (22 sectors x 19 tracks x 815 cylinders, 3600 rpm, 25 ms average seek); ' +
      'Table 2 ran "with two disks on a MASSBUS controller", the Berkeley 780 of Table 5 (section 3.2.6) had an RP06 and ' +
      'Fujitsu Eagles on an Emulex SC780',
    notes: 'eagle lays the RP06 pack\'s blocks along the Eagle\'s own 48-sector, 20-track cylinders (the pack fills its ' +
      'first 355 of 842); emu/src/massbus/rp.c, "Timing profiles", gives the figures and their sources',
    paperUnknown: 'the paper does not name its 750\'s two disks',
  },
  {
    name: 'spin', kind: 'machine', section: '3.2.1 Micro-operation benchmarks (exec)',
    description: 'How the platters turn against the computing: drifting (a request that finds a drive idle a turn or ' +
      'more finds the platter at an angle drawn from the seed, so no row hinges on how its computing falls against ' +
      'whole turns) or locked (in step with virtual time, as a real spindle over a loop\'s few turns: a loop that ' +
      'waits for the disk then lasts whole turns, as the paper\'s exec rows did). The seeds still draw the clock\'s ' +
      'sampling and the page placement.',
    min: 0, max: SPINS.length - 1, values: SPINS.map((_, i) => i), choices: SPINS,
    defaultNote: 'drifting: each row the median over seeds of the disks\' phase (emu/docs/timing.md, "Whole turns")',
    related: ['disk: the length of a turn (16.7 ms on the RP06 and the RM05, 15.1 on the Eagle)'],
    notes: 'the paper\'s six null-exec rows all took 66.0 s, 3.96 turns an exec, and its five big-job rows 101 s, ' +
      '6.06 turns: its loops locked onto the rotation. Locked, a row hinges on a millisecond of computing, which is ' +
      'why drifting is the default',
    paperUnknown: 'the paper does not say how its disks turned against the computing (its exec rows last whole ' +
      'turns, as locked ones do: emu/docs/timing.md, "Whole turns")',
  },
];

/** The rotation when not set: drifting. */
export const DEFAULT_SPIN: Spin = SPINS[0];

/** The value a knob takes when not set: disk's rp06. */
export const DEFAULT_DISK_TIMING: DiskTiming = DISK_TIMINGS[0];

/** Kernel defaults of GENERIC that cross-checks use when a toggle is not set. */
const KERNEL_DEFAULTS: Record<string, number> = Object.fromEntries(
  TOGGLES.filter((t) => t.generic !== undefined).map((t) => [t.name, t.generic!]),
);

export function findToggle(name: string): ToggleDef | undefined {
  return TOGGLES.find((t) => t.name === name);
}

/** A toggle in words, as the command line's usage and the lab page's settings both say it: what it is, then its
 *  default. */
export function toggleHelp(t: ToggleDef): string {
  return `${t.description} Default: ${t.defaultNote}.`;
}

/** param.c's tick for a clock rate. */
export function tickFor(hz: number): number {
  return Math.floor(1000000 / hz);
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

/** The toggles whose names are close to name (for "did you mean"). */
export function closeToggles(name: string): string[] {
  const n = name.toLowerCase().replace(/^_/, '');
  return TOGGLES.map((t) => ({ t: t.name, d: editDistance(n, t.name.toLowerCase()) }))
    .filter(({ t, d }) => d <= Math.max(2, Math.floor(t.length / 3)) || t.includes(n) || (n.length >= 3 && n.includes(t)))
    .sort((a, b) => a.d - b.d || a.t.localeCompare(b.t))
    .map(({ t }) => t);
}

/** What the settings are checked against besides each other. */
export interface SettingsContext {
  /** The machine's memory when the set has no memoryMB (for bufpages). */
  memoryMB?: number;
}

/** The buffer cache 4.3BSD's startup() gives itself when bufpages is 0 (as
 *  in the image), in 1 KB clusters: 10% of the first 2 MB and 5% of the
 *  rest (vax/machdep.c; SCCS 6.12 of 3 March 1985, "only allocate 5% of
 *  memory to the buffer pool after the first 2M"), 10% of all below 2 MB.
 *  physmem counts 512-byte pages, CLSIZE is 2.  332 at 4.5 MB, 512 at 8 MB,
 *  as the kernels print at boot ("using 148 buffers containing 339968
 *  bytes").  The like-4.2 kernel keeps this rule (see fidelity.ts). */
export function bootBufpages(memoryMB: number): number {
  const physmem = memoryMB * 2048;
  const clsize = 2;
  return physmem < 2 * 1024 * clsize
    ? Math.floor(Math.floor(physmem / 10) / clsize)
    : Math.floor(Math.floor((2 * 1024 * clsize + physmem) / 20) / clsize);
}

/** The largest bufpages that still boots with memoryMB of memory (a whole
 *  number for every quarter megabyte: 128 at 0.75 MB, 2048 at 4.5 MB). */
export function maxBufpages(memoryMB: number): number {
  return memoryMB * 512 - 256;
}

/** The values of a knob with choices, in words: "rp06 (0), eagle (1), ideal (2)". */
function choiceList(t: ToggleDef): string {
  return (t.choices ?? []).map((c, i) => `${c} (${i})`).join(', ');
}

/** The name of a knob's value ('eagle' for disk 1); undefined if it has none. */
export function choiceName(name: string, value: number): string | undefined {
  return findToggle(name)?.choices?.[value];
}

/**
 * A value as typed (--set NAME=VALUE, a form field): a whole number (negative too), or for
 * a knob with choices one of its names (case-insensitive).  null when it is
 * neither; validateSetting then says what the knob takes.
 */
export function settingValue(name: string, raw: string): number | null {
  const s = raw.trim();
  // A minus sign too: maxtextcache's -1 (the release's "every text") is in its range; validateSetting refuses a
  // negative value elsewhere as out of range.
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : null;
  }
  if (findToggle(name)?.step !== undefined && /^\d*\.\d+$/.test(s)) return Number(s); // memoryMB=4.5
  const i = findToggle(name)?.choices?.findIndex((c) => c.toLowerCase() === s.toLowerCase()) ?? -1;
  return i >= 0 ? i : null;
}

/** What a knob takes, for a value that is not one (typed text, or a number). */
export function expectedValues(name: string): string {
  const t = findToggle(name);
  if (!t) return 'a known setting';
  if (t.choices) return `one of ${choiceList(t)}`;
  if (t.values) return `one of ${t.values.join(', ')}`;
  if (t.step !== undefined) return `a multiple of ${t.step} from ${t.min} to ${t.max}`;
  return `a whole number from ${t.min} to ${t.max}`;
}

/** One value on its own: null if fine, else why not (unknown name, not a
 *  whole number (or a multiple of the knob's step), out of range, not one of the allowed values). */
export function validateSetting(name: string, value: number): string | null {
  const t = findToggle(name);
  if (!t) {
    const close = closeToggles(name);
    return `unknown setting "${name}"${close.length ? ` (did you mean ${close.map((c) => `"${c}"`).join(' or ')}?)` : ''}; ` +
      `the settings are ${TOGGLES.map((x) => x.name).join(', ')}`;
  }
  if (t.choices && (typeof value !== 'number' || !Number.isInteger(value) || !t.values?.includes(value))) {
    return `${name}: one of ${choiceList(t)}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  }
  if (t.step !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value / t.step)) {
      return `${name}: a multiple of ${t.step} from ${t.min} to ${t.max}, got ${String(value)}`;
    }
  } else if (typeof value !== 'number' || !Number.isInteger(value)) return `${name}: a whole number, got ${String(value)}`;
  if (t.values && !t.values.includes(value)) return `${name}: one of ${t.values.join(', ')}, got ${value}`;
  if (value < t.min || value > t.max) {
    return `${name}: ${value} is out of range ${t.min}..${t.max}${t.notes ? ` (${t.notes})` : ''}`;
  }
  return null;
}

/**
 * Every problem with a set of settings (kernel and machine toggles in one
 * record), as clear messages; [] when it can be used.  With symbols (from
 * Vax780System.kernelSymbols, keys with or without the underscore), a
 * kernel toggle whose variable this kernel lacks is an error too.
 */
export function validateSettings(
  set: Record<string, number>, symbols?: Record<string, number | null>, options: SettingsContext = {},
): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(set)) {
    const e = validateSetting(name, value);
    if (e) {
      errors.push(e);
      continue;
    }
    const t = findToggle(name)!;
    if (t.kind === 'kernel' && !t.code && symbols) {
      const addr = symbols[`_${name}`] !== undefined ? symbols[`_${name}`] : symbols[name];
      if (addr === null || addr === undefined) errors.push(`${name}: this kernel has no variable _${name}`);
    }
  }
  const has = (n: string) => set[n] !== undefined && validateSetting(n, set[n]!) === null;
  const val = (n: string) => (has(n) ? set[n]! : KERNEL_DEFAULTS[n]!);
  if (has('tick')) {
    const hz = val('hz');
    if (set.tick !== tickFor(hz)) {
      errors.push(`tick: ${set.tick} does not match hz ${hz}${has('hz') ? '' : ' (the kernel\'s)'}: ` +
        `tick must be 1000000 / hz = ${tickFor(hz)} µs, or leave tick out and it is set from hz`);
    }
  }
  if ((has('dzhighrate') || has('dzlowrate')) && val('dzlowrate') > val('dzhighrate')) {
    errors.push(`dzlowrate ${val('dzlowrate')} is above dzhighrate ${val('dzhighrate')}: the silo would be turned off as soon as it is turned on`);
  }
  if (has('bufpages')) {
    const mb = has('memoryMB') ? set.memoryMB! : (options.memoryMB ?? null);
    if (mb !== null && set.bufpages! > maxBufpages(mb)) {
      errors.push(`bufpages: ${set.bufpages} KB of buffer cache does not fit beside the kernel in ${mb} MB ` +
        `(at most ${maxBufpages(mb)}: memoryMB * 512 - 256)`);
    }
  }
  return errors;
}

/** The set with what goes with it: tick = 1000000 / hz when hz is set and
 *  tick is not.  Does not validate. */
export function completeSettings(set: Record<string, number>): Record<string, number> {
  const out = { ...set };
  if (out.hz !== undefined && out.tick === undefined && Number.isInteger(out.hz) && out.hz > 0) out.tick = tickFor(out.hz);
  return out;
}

/** What a caller hands to the machine. */
export interface ResolvedSettings {
  /** Kernel variables to patch (Vax780Options.set), completed (tick). */
  kernel: Record<string, number>;
  /** Machine settings that were given. */
  machine: { memoryMB?: number; cpu?: '750' | '780'; disk?: DiskTiming; spin?: Spin };
  errors: string[];
  /** What the kernel will do differently from what was asked (clamping). */
  notes: string[];
}

/** validateSettings + completeSettings, split by kind, with notes on
 *  values the kernel will clamp. */
export function resolveSettings(
  set: Record<string, number>, symbols?: Record<string, number | null>, options: SettingsContext = {},
): ResolvedSettings {
  const errors = validateSettings(set, symbols, options);
  const completed = completeSettings(set);
  const kernel: Record<string, number> = {};
  const machine: ResolvedSettings['machine'] = {};
  const notes: string[] = [];
  for (const [name, value] of Object.entries(completed)) {
    const t = findToggle(name);
    if (!t) continue;
    if (t.kind === 'kernel') kernel[name] = value;
    else if (name === 'memoryMB') machine.memoryMB = value;
    else if (name === 'cpu' && (value === 750 || value === 780)) machine.cpu = value === 750 ? '750' : '780';
    else if (name === 'disk' && DISK_TIMINGS[value] !== undefined) machine.disk = DISK_TIMINGS[value];
    else if (name === 'spin' && SPINS[value] !== undefined) machine.spin = SPINS[value];
  }
  if (completed.tick !== undefined && set.tick === undefined) notes.push(`tick set to ${completed.tick} (1000000 / hz)`);
  if (kernel.nbuf !== undefined && kernel.nbuf > 140) {
    notes.push(`nbuf ${kernel.nbuf}: startup() caps nbuf to what SYSPTSIZE has room for (140 at 8 MB with GENERIC) and says so on the console`);
  }
  if (kernel.bufpages !== undefined && kernel.nbuf !== undefined && kernel.bufpages > kernel.nbuf * 8) {
    notes.push(`bufpages ${kernel.bufpages}: startup() caps it at nbuf * 8 = ${kernel.nbuf * 8}`);
  }
  return { kernel, machine, errors, notes };
}
