// The 4.3BSD kernel's own statistics, read by symbol from the running
// kernel's memory: what vmstat(1), iostat(1) and `vmstat -s` read through
// /dev/kmem, decoded here on the host so that nothing runs in the guest.
//
// Layouts are 4.3BSD's (srcsys.tar: h/vmmeter.h, h/dk.h, h/namei.h,
// h/kernel.h, vaxmba/mbavar.h, h/buf.h) as the VAX compiler lays them out:
// longs and ints 4 bytes little-endian, shorts 2, natural alignment (so
// struct vmtotal has 2 bytes of padding after its five shorts).  float is
// VAX F_floating and double D_floating (decoded below).  Every layout was
// checked against a booted kernel: cp_time sums to intrcnt's clock count,
// vmtotal's t_free equals avefree, mbdinit's hp0 entry reads dk 0 alive.
//
// Counts in `cnt` run for at most a second: once a second vmmeter()
// (sys/vm_sched.c) adds each of v_swtch..v_fastpgrec to `sum` and zeroes it
// (v_swpin/v_swpout every five seconds), so the count since boot is
// sum + cnt (what `vmstat -s` prints is sum alone, up to the last second).
// `rate` is vmmeter()'s 5-second decaying average; we keep it only for
// reference.  A symbol the kernel lacks reads as null, never an error.

/** The two Vax780System calls this needs (emu/js/vax780.ts). */
export interface KernelMemory {
  kernelSymbols(names: string[]): Record<string, number | null>;
  readKernel(address: number, length: number): Uint8Array;
}

/** struct vmmeter, in 4.3BSD's order (h/vmmeter.h): 31 unsigned longs. */
export const VMMETER_FIELDS = [
  'v_swtch', 'v_trap', 'v_syscall', 'v_intr', 'v_soft', 'v_pdma', 'v_pswpin', 'v_pswpout', 'v_pgin', 'v_pgout',
  'v_pgpgin', 'v_pgpgout', 'v_intrans', 'v_pgrec', 'v_xsfrec', 'v_xifrec', 'v_exfod', 'v_zfod', 'v_vrfod',
  'v_nexfod', 'v_nzfod', 'v_nvrfod', 'v_pgfrec', 'v_faults', 'v_scan', 'v_rev', 'v_seqfree', 'v_dfree',
  'v_fastpgrec', 'v_swpin', 'v_swpout',
] as const;
export type VmmeterField = (typeof VMMETER_FIELDS)[number];
export type Vmmeter = Record<VmmeterField, number>;

/** struct vmtotal (h/vmmeter.h), recomputed by vmtotal() every 5 seconds.
 *  Memory sizes in 512-byte pages. */
export interface VmTotal {
  t_rq: number; t_dw: number; t_pw: number; t_sl: number; t_sw: number;
  t_vm: number; t_avm: number; t_rm: number; t_arm: number;
  t_vmtxt: number; t_avmtxt: number; t_rmtxt: number; t_armtxt: number;
  /** avefree at the time (vm_sched.c: total.t_free = avefree). */
  t_free: number;
}
const VMTOTAL_SHORTS = ['t_rq', 't_dw', 't_pw', 't_sl', 't_sw'] as const;
const VMTOTAL_LONGS = ['t_vm', 't_avm', 't_rm', 't_arm', 't_vmtxt', 't_avmtxt', 't_rmtxt', 't_armtxt', 't_free'] as const;
const VMTOTAL_SIZE = 12 + 4 * VMTOTAL_LONGS.length; // 5 shorts, 2 bytes padding, 9 longs

/** struct nchstats (h/namei.h), in order. */
export const NCHSTATS_FIELDS = [
  'ncs_goodhits', 'ncs_badhits', 'ncs_falsehits', 'ncs_miss', 'ncs_long', 'ncs_pass2', 'ncs_2passes',
] as const;
export type NchStats = Record<(typeof NCHSTATS_FIELDS)[number], number>;

/** cp_time[CPUSTATES] (h/dk.h): clock ticks by state. */
export interface CpTime { user: number; nice: number; sys: number; idle: number }

/** DK_NDRIVE (h/dk.h). */
export const DK_NDRIVE = 4;

/** The per-drive instrumentation (h/dk.h), indexed by dk number. */
export interface DiskStats {
  /** dk_busy: bit n set while drive n transfers or seeks. */
  busy: number;
  /** Transfers started (vaxmba/mba.c mbustart). */
  xfer: number[];
  /** Seeks started (mba.c, when the drive is sent a search). */
  seek: number[];
  /** Words transferred in units of 32 16-bit words (64 bytes): mba.c adds b_bcount >> 6. */
  wds: number[];
  /** Clock ticks the drive was busy (kern_clock.c hardclock, per dk_busy bit). */
  time: number[];
  /** Seconds per 16-bit word transferred (float; hp.c sets it from the geometry). */
  mspw: number[];
}

/** One read of everything; fields are null when the kernel lacks the symbol. */
export interface KernelStats {
  /** Counts of the current second (zeroed each second, see the top). */
  cnt: Vmmeter | null;
  /** Counts up to the last second. */
  sum: Vmmeter | null;
  /** 5-second decaying averages (per second). */
  rate: Vmmeter | null;
  /** sum + cnt: counts since boot (the monotone view the counters use). */
  since: Vmmeter | null;
  total: VmTotal | null;
  cpTime: CpTime | null;
  disk: DiskStats | null;
  nchstats: NchStats | null;
  /** Free memory now, in 512-byte pages (vmsystm.h). */
  freemem: number | null;
  /** 5-second average of freemem, pages. */
  avefree: number | null;
  /** vmmeter's estimate of memory needed by swapped-in processes, pages (vmstat's "de"). */
  deficit: number | null;
  /** Load averages over 1, 5 and 15 minutes (double, D_floating). */
  avenrun: [number, number, number] | null;
  /** Interrupts by name since boot (locore's intrnames/intrcnt: clock, cnr, mba0, uba0 ...). */
  intr: Record<string, number> | null;
  /** The kernel's time of day and boot time, seconds + microseconds. */
  time: { sec: number; usec: number } | null;
  boottime: { sec: number; usec: number } | null;
  /** Tunables and sizes as the running kernel has them (after startup()). */
  params: Record<KernelParam, number | null>;
}

/** The part of KernelStats that changes from second to second: what a
 *  counter sample reads (KernelStatsReader.readForSample). */
export type KernelSampleStats = Pick<KernelStats,
  'cnt' | 'sum' | 'since' | 'total' | 'cpTime' | 'disk' | 'nchstats' | 'freemem' | 'deficit' | 'intr'>;

/** The parts of a sample's read (readForSample) that a sampler giving only some counters may leave out; each is
 *  null when left out.  The vmmeter counts (cnt, sum, since) are always read: every sample's `since` is kept from
 *  going below the previous one's, so leaving one out could change a later count. */
export type SamplePart = 'total' | 'cpTime' | 'disk' | 'nchstats' | 'freemem' | 'deficit' | 'intr';
export const SAMPLE_PARTS: readonly SamplePart[] = ['total', 'cpTime', 'disk', 'nchstats', 'freemem', 'deficit', 'intr'];

/** Single ints (longwords) read as they are. */
export const KERNEL_PARAMS = [
  'hz', 'phz', 'tick', 'tickadj', 'nchsize', 'nbuf', 'bufpages', 'nswbuf', 'nproc', 'ninode', 'nfile', 'ntext',
  'ncallout', 'physmem', 'maxmem', 'unpst_sendspace', 'unpst_recvspace', 'dzhighrate', 'dzlowrate', 'dk_ndrive',
] as const;
export type KernelParam = (typeof KERNEL_PARAMS)[number];

/** Every symbol a reader resolves (with the underscore). */
export const KSTAT_SYMBOLS: string[] = [
  '_cnt', '_sum', '_rate', '_total', '_cp_time', '_dk_busy', '_dk_xfer', '_dk_seek', '_dk_wds', '_dk_time',
  '_dk_mspw', '_nchstats', '_freemem', '_avefree', '_deficit', '_avenrun', '_intrnames', '_eintrnames',
  '_intrcnt', '_eintrcnt', '_time', '_boottime', '_mbdinit', ...KERNEL_PARAMS.map((p) => `_${p}`),
];

// ------------------------------------------------------------ decoding

/** An unsigned little-endian longword at byte offset o. */
export function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}
/** A signed little-endian longword. */
export function i32(b: Uint8Array, o: number): number {
  return u32(b, o) | 0;
}
/** A signed little-endian word. */
export function i16(b: Uint8Array, o: number): number {
  const v = b[o]! | (b[o + 1]! << 8);
  return v >= 0x8000 ? v - 0x10000 : v;
}
function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}

/** VAX F_floating (4 bytes: two little-endian words, the first holding
 *  sign, 8-bit excess-128 exponent and the top 7 fraction bits; hidden
 *  leading 1, fraction in [0.5, 1)).  Exponent 0 is zero (or, with the sign,
 *  a reserved operand: NaN here). */
export function vaxF(b: Uint8Array, o: number): number {
  const w0 = u16(b, o);
  const w1 = u16(b, o + 2);
  const exp = (w0 >> 7) & 0xff;
  const sign = w0 >> 15;
  if (exp === 0) return sign ? NaN : 0;
  const frac = (((w0 & 0x7f) | 0x80) * 0x10000 + w1) / 2 ** 24;
  return (sign ? -1 : 1) * frac * 2 ** (exp - 128);
}

/** VAX D_floating (8 bytes: F_floating's layout with 32 more fraction bits
 *  in words 2 and 3). */
export function vaxD(b: Uint8Array, o: number): number {
  const w0 = u16(b, o);
  const exp = (w0 >> 7) & 0xff;
  const sign = w0 >> 15;
  if (exp === 0) return sign ? NaN : 0;
  const hi = ((w0 & 0x7f) | 0x80) * 0x10000 + u16(b, o + 2); // 24 bits
  const lo = u16(b, o + 4) * 0x10000 + u16(b, o + 6); // 32 bits
  const frac = hi / 2 ** 24 + lo / 2 ** 56;
  return (sign ? -1 : 1) * frac * 2 ** (exp - 128);
}

function decodeVmmeter(b: Uint8Array): Vmmeter {
  const out = {} as Vmmeter;
  VMMETER_FIELDS.forEach((f, i) => { out[f] = u32(b, 4 * i); });
  return out;
}

function decodeVmtotal(b: Uint8Array): VmTotal {
  const out = {} as VmTotal;
  VMTOTAL_SHORTS.forEach((f, i) => { out[f] = i16(b, 2 * i); });
  VMTOTAL_LONGS.forEach((f, i) => { out[f] = i32(b, 12 + 4 * i); });
  return out;
}

// ------------------------------------------------------------ the reader

/** A drive of the iostat instrumentation: dk number and name (hp0 ...),
 *  from the kernel's mbdinit table as vmstat's read_names() finds them. */
export interface KernelDrive { dk: number; name: string }

/** struct mba_device (vaxmba/mbavar.h): mi_driver, then shorts mi_unit,
 *  mi_mbanum, mi_drive, mi_dk, mi_alive, mi_type, a struct buf (56 bytes)
 *  and three pointers: 88 bytes.  struct mba_driver: md_dname at 28. */
const MBA_DEVICE_SIZE = 88;
const MD_DNAME = 28;

/**
 * Reads the kernel's statistics from a running system.  Resolves the
 * symbols once (kernelSymbols reads /vmunix from the disk), then each
 * read() is a few small copies of kernel memory.
 */
export class KernelStatsReader {
  readonly symbols: Record<string, number | null>;
  private intrNames: string[] | null = null;
  private driveList: KernelDrive[] | null = null;

  constructor(private readonly mem: KernelMemory) {
    let symbols: Record<string, number | null>;
    try {
      symbols = mem.kernelSymbols(KSTAT_SYMBOLS);
    } catch {
      // No readable /vmunix (a standalone boot, a foreign disk): nothing to read.
      symbols = Object.fromEntries(KSTAT_SYMBOLS.map((s) => [s, null]));
    }
    this.symbols = symbols;
  }

  /** The address of a symbol (with or without its underscore), or null. */
  address(name: string): number | null {
    return this.symbols[name.startsWith('_') ? name : `_${name}`] ?? null;
  }

  /** length bytes at a symbol, or null when the kernel lacks it (or the
   *  address is outside memory). */
  bytes(name: string, length: number): Uint8Array | null {
    const a = this.address(name);
    if (a === null) return null;
    try {
      return this.mem.readKernel(a, length);
    } catch {
      return null;
    }
  }

  /** A longword variable (an int or long), signed; null if missing. */
  long(name: string): number | null {
    const b = this.bytes(name, 4);
    return b ? i32(b, 0) : null;
  }

  private longs(name: string, n: number): number[] | null {
    const b = this.bytes(name, 4 * n);
    return b ? Array.from({ length: n }, (_, i) => i32(b, 4 * i)) : null;
  }

  private vmmeter(name: string): Vmmeter | null {
    const b = this.bytes(name, 4 * VMMETER_FIELDS.length);
    return b ? decodeVmmeter(b) : null;
  }

  private timeval(name: string): { sec: number; usec: number } | null {
    const b = this.bytes(name, 8);
    return b ? { sec: i32(b, 0), usec: i32(b, 4) } : null;
  }

  /** The drives with iostat slots (dk numbers), by name; [] when the
   *  kernel has no mbdinit or autoconfiguration has not run yet. */
  drives(): KernelDrive[] {
    if (this.driveList) return this.driveList;
    const base = this.address('_mbdinit');
    const out: KernelDrive[] = [];
    if (base !== null) {
      for (let i = 0; i < 32; i++) {
        let b: Uint8Array;
        try {
          b = this.mem.readKernel(base + i * MBA_DEVICE_SIZE, 16);
        } catch {
          break;
        }
        const driver = u32(b, 0);
        if (driver === 0) break;
        const unit = i16(b, 4);
        const dk = i16(b, 10);
        const alive = i16(b, 12);
        if (dk < 0 || alive === 0 || dk >= DK_NDRIVE) continue;
        let name = `dk${dk}`;
        try {
          const dname = u32(this.mem.readKernel(driver + MD_DNAME, 4), 0);
          const two = this.mem.readKernel(dname, 2);
          if (/^[a-z]{2}$/.test(String.fromCharCode(two[0]!, two[1]!))) name = `${String.fromCharCode(two[0]!, two[1]!)}${unit}`;
        } catch {
          // keep dkN
        }
        out.push({ dk, name });
      }
    }
    out.sort((a, b) => a.dk - b.dk);
    // Cache only once autoconfiguration has found something.
    if (out.length > 0) this.driveList = out;
    return out;
  }

  private interrupts(): Record<string, number> | null {
    const [n0, n1, c0, c1] = ['_intrnames', '_eintrnames', '_intrcnt', '_eintrcnt'].map((s) => this.address(s));
    if (n0 == null || n1 == null || c0 == null || c1 == null || n1 <= n0 || c1 <= c0) return null;
    let counts: Uint8Array;
    try {
      if (!this.intrNames) {
        const raw = this.mem.readKernel(n0, n1 - n0);
        this.intrNames = String.fromCharCode(...raw).split('\0').slice(0, (c1 - c0) / 4);
      }
      counts = this.mem.readKernel(c0, c1 - c0);
    } catch {
      return null;
    }
    const out: Record<string, number> = {};
    this.intrNames.forEach((name, i) => {
      if (name) out[name] = (out[name] ?? 0) + u32(counts, 4 * i);
    });
    return out;
  }

  /** What a counter sample differences and shows (CounterSampler), now: the
   *  part of read() that changes from second to second, without the ~25
   *  small reads of the tunables, the averages and the clocks that a sample
   *  never looks at (each read is a call into the emulator and a copy); with `parts`, only those besides the
   *  vmmeter counts (the rest null). */
  readForSample(parts?: ReadonlySet<SamplePart>): KernelSampleStats {
    const want = (part: SamplePart): boolean => parts === undefined || parts.has(part);
    const cnt = this.vmmeter('_cnt');
    const sum = this.vmmeter('_sum');
    const since = cnt && sum ? addVmmeter(sum, cnt) : null;
    const totalBytes = want('total') ? this.bytes('_total', VMTOTAL_SIZE) : null;
    const cp = want('cpTime') ? this.longs('_cp_time', 4) : null;
    const nch = want('nchstats') ? this.longs('_nchstats', NCHSTATS_FIELDS.length) : null;
    let nchstats: NchStats | null = null;
    if (nch) {
      nchstats = {} as NchStats;
      NCHSTATS_FIELDS.forEach((f, i) => { nchstats![f] = nch[i]!; });
    }
    const wantDisk = want('disk');
    const xfer = wantDisk ? this.longs('_dk_xfer', DK_NDRIVE) : null;
    const seek = wantDisk ? this.longs('_dk_seek', DK_NDRIVE) : null;
    const wds = wantDisk ? this.longs('_dk_wds', DK_NDRIVE) : null;
    const time = wantDisk ? this.longs('_dk_time', DK_NDRIVE) : null;
    const mspwBytes = wantDisk ? this.bytes('_dk_mspw', 4 * DK_NDRIVE) : null;
    const disk: DiskStats | null = xfer && seek && wds && time
      ? {
          busy: this.long('_dk_busy') ?? 0, xfer, seek, wds, time,
          mspw: Array.from({ length: DK_NDRIVE }, (_, i) => (mspwBytes ? vaxF(mspwBytes, 4 * i) : 0)),
        }
      : null;
    return {
      cnt, sum, since,
      total: totalBytes ? decodeVmtotal(totalBytes) : null,
      cpTime: cp ? { user: cp[0]!, nice: cp[1]!, sys: cp[2]!, idle: cp[3]! } : null,
      disk,
      nchstats,
      freemem: want('freemem') ? this.long('_freemem') : null,
      deficit: want('deficit') ? this.long('_deficit') : null,
      intr: want('intr') ? this.interrupts() : null,
    };
  }

  /** Everything, now. */
  read(): KernelStats {
    const c = this.readForSample();
    const av = this.bytes('_avenrun', 24);
    const params = {} as Record<KernelParam, number | null>;
    for (const p of KERNEL_PARAMS) params[p] = this.long(`_${p}`);
    return {
      cnt: c.cnt, sum: c.sum, rate: this.vmmeter('_rate'), since: c.since,
      total: c.total,
      cpTime: c.cpTime,
      disk: c.disk,
      nchstats: c.nchstats,
      freemem: c.freemem,
      avefree: this.long('_avefree'),
      deficit: c.deficit,
      avenrun: av ? [vaxD(av, 0), vaxD(av, 8), vaxD(av, 16)] : null,
      intr: c.intr,
      time: this.timeval('_time'),
      boottime: this.timeval('_boottime'),
      params,
    };
  }
}

/** a + b field by field (unsigned 32-bit counters; the sum stays exact in
 *  a double). */
export function addVmmeter(a: Vmmeter, b: Vmmeter): Vmmeter {
  const out = {} as Vmmeter;
  for (const f of VMMETER_FIELDS) out[f] = a[f] + b[f];
  return out;
}

/** The name cache's figures the way `vmstat -s` prints them (4.3BSD
 *  vmstat.c dosum): total lookups = goodhits + badhits + falsehits + miss +
 *  long; "cache hits" = goodhits / total (the system-wide name cache);
 *  "per-process" = pass2 / total (the per-process directory offset cache,
 *  names found on the second pass of a search that began at the offset
 *  the process last found a name at).  Percentages, 0 with no lookups. */
export function nameCacheFigures(n: NchStats): { lookups: number; hits: number; misses: number; hitRate: number; offsetHits: number; offsetHitRate: number } {
  const lookups = n.ncs_goodhits + n.ncs_badhits + n.ncs_falsehits + n.ncs_miss + n.ncs_long;
  return {
    lookups,
    hits: n.ncs_goodhits,
    misses: lookups - n.ncs_goodhits,
    hitRate: lookups > 0 ? (100 * n.ncs_goodhits) / lookups : 0,
    offsetHits: n.ncs_pass2,
    offsetHitRate: lookups > 0 ? (100 * n.ncs_pass2) / lookups : 0,
  };
}
