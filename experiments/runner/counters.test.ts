// The kernel's statistics read by symbol (kstats.ts) and the counters made
// of them (counters.ts).  Pure parts: the VAX float formats, the counter
// list, and a sampler over a fake kernel memory whose numbers are known.
// On the emulator (skipped, saying why, without the wasm build or the lab
// image): the real kernel's statistics are plausible and move the way they
// should; the kernel's counts agree with the hardware model's (system calls,
// interrupts, disk transfers); two runs give the same samples.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { Vax780System } from '../../emu/js/vax780';
import { COUNTER_GROUPS, COUNTERS, CounterSampler, diskCounter, kernelStatsReader, type SamplerSystem } from './counters';
import {
  KSTAT_SYMBOLS, KernelStatsReader, NCHSTATS_FIELDS, VMMETER_FIELDS, nameCacheFigures, vaxD, vaxF,
} from './kstats';
import { bootSingleUser, useLabImage } from './testLab';
import { bootBufpages } from './toggles';

const lab = useLabImage('counters.test.ts');
const skip = lab.skip;

/** A booted single-user system with /usr mounted and a session on it. */
async function boot(set: Record<string, number> = {}, onSlice?: () => void) {
  const booted = await bootSingleUser(lab, { set, hooks: { onSlice } });
  await booted.run('mount /dev/hp0g /usr');
  return booted;
}

function hasHardwareStats(sys: Vax780System): boolean {
  const f = (sys as { hardwareStats?: unknown }).hardwareStats;
  if (typeof f !== 'function') return false;
  try {
    return Object.keys((f as () => object).call(sys)).length > 0;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------ pure parts

test('VAX F_floating and D_floating decode', () => {
  const b = (...x: number[]) => new Uint8Array(x);
  assert.equal(vaxF(b(0x80, 0x40, 0, 0), 0), 1.0);
  assert.equal(vaxF(b(0x20, 0xc1, 0, 0), 0), -2.5);
  assert.equal(vaxF(b(0, 0, 0, 0), 0), 0);
  assert.ok(Number.isNaN(vaxF(b(0, 0x80, 0, 0), 0))); // reserved operand
  assert.equal(vaxD(b(0x80, 0x40, 0, 0, 0, 0, 0, 0), 0), 1.0);
  // 0.1 in D_floating: 0x3ECC CCCC CCCC CCCD (words), stored word by word little-endian.
  assert.ok(Math.abs(vaxD(b(0xcc, 0x3e, 0xcc, 0xcc, 0xcc, 0xcc, 0xcd, 0xcc), 0) - 0.1) < 1e-16);
  // RP06 dk_mspw as the kernel stores it: 1 / 60 / (22 * 256) s per word.
  assert.ok(Math.abs(vaxF(b(0x46, 0x37, 0x0c, 0x98), 0) - 1 / 60 / (22 * 256)) < 1e-12);
});

test('COUNTERS: unique ids, known groups, every field described', () => {
  const ids = COUNTERS.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const c of COUNTERS) {
    assert.ok((COUNTER_GROUPS as readonly string[]).includes(c.group), c.id);
    assert.ok(c.label && c.unit && c.description, c.id);
    assert.equal(c.source, c.group === 'hardware' ? 'hardware' : 'kernel', c.id);
  }
  for (const id of ['procs.r', 'procs.b', 'procs.w', 'memory.avm', 'memory.fre', 'paging.re', 'paging.at', 'paging.pi',
    'paging.po', 'paging.fr', 'paging.sr', 'faults.in', 'faults.sy', 'faults.cs', 'cpu.us', 'cpu.sy', 'cpu.id',
    'disk.hp0.tps', 'disk.hp0.kbps', 'disk.hp0.sps', 'namei.hits', 'namei.misses', 'namei.hitRate', 'namei.hitRateCum',
    'hw.mips', 'hw.syscalls', 'hw.cs', 'hw.pf', 'hw.idle']) {
    assert.ok(ids.includes(id), id);
  }
});

test('the catalogue names every counter in words, with its unit and where vmstat shows it; a disk of any drive alike', () => {
  for (const c of COUNTERS) {
    assert.ok(c.name.length > 4 && c.name !== c.id && c.name !== c.label, `${c.id}: "${c.name}"`);
    assert.ok(c.where && c.short && c.unit, c.id);
    if (c.source === 'hardware') assert.equal(c.where, 'emulator', c.id);
  }
  // GENERIC's drives are listed; any other drive a sample carries is named the same way.
  assert.deepEqual(diskCounter('disk.hp0.tps'), COUNTERS.find((c) => c.id === 'disk.hp0.tps'));
  const rk = diskCounter('disk.rk1.kbps')!;
  assert.deepEqual([rk.name, rk.unit, rk.where, rk.label, rk.group], ['rk1 data transferred', 'KB/s', 'iostat rk1: bps', 'rk1 bps', 'disk']);
  assert.equal(diskCounter('hw.disk.hp4.util')!.name, 'hp4 busy (drive model)');
  assert.equal(diskCounter('hw.disk.hp0.msps'), null); // the model has no seek time per seek
  assert.equal(diskCounter('faults.sy'), null);
});

test('the name cache is counted the way vmstat -s counts it', () => {
  const f = nameCacheFigures({ ncs_goodhits: 70, ncs_badhits: 2, ncs_falsehits: 3, ncs_miss: 20, ncs_long: 5, ncs_pass2: 10, ncs_2passes: 12 });
  assert.deepEqual(f, { lookups: 100, hits: 70, misses: 30, hitRate: 70, offsetHits: 10, offsetHitRate: 10 });
  assert.equal(nameCacheFigures({ ncs_goodhits: 0, ncs_badhits: 0, ncs_falsehits: 0, ncs_miss: 0, ncs_long: 0, ncs_pass2: 0, ncs_2passes: 0 }).hitRate, 0);
});

/** A fake machine: kernel memory at 0x80000000 with the symbols laid out
 *  in order, and clocks the test moves. */
function fakeKernel(missing: string[] = []) {
  const base = 0x8000_0000;
  const mem = new Uint8Array(0x4000);
  const symbols: Record<string, number | null> = {};
  let at = 0x100;
  const size: Record<string, number> = {
    _cnt: 124, _sum: 124, _rate: 124, _total: 48, _cp_time: 16, _dk_xfer: 16, _dk_seek: 16, _dk_wds: 16, _dk_time: 16,
    _dk_mspw: 16, _nchstats: 28, _avenrun: 24, _intrnames: 12, _intrcnt: 8, _time: 8, _boottime: 8, _mbdinit: 200,
  };
  for (const s of KSTAT_SYMBOLS) {
    if (missing.includes(s)) {
      symbols[s] = null;
      continue;
    }
    symbols[s] = base + at;
    at += size[s] ?? 4;
    at = (at + 3) & ~3;
  }
  const dv = new DataView(mem.buffer);
  const put = (sym: string, offset: number, v: number) => dv.setUint32(symbols[sym]! - base + offset, v >>> 0, true);
  // intrnames "clock\0mba0\0", intrcnt [clock, mba0]; eintrnames/eintrcnt just past them.
  if (symbols._intrnames) {
    mem.set(new TextEncoder().encode('clock\0mba0\0'), symbols._intrnames - base);
    symbols._eintrnames = symbols._intrnames + 11;
    symbols._eintrcnt = symbols._intrcnt! + 8;
  }
  // mbdinit: hp0 alive at dk 0; the driver's md_dname points at "hp".
  if (symbols._mbdinit) {
    const m = symbols._mbdinit - base;
    const driver = 0x3000;
    const name = 0x3100;
    mem.set(new TextEncoder().encode('hp'), name);
    dv.setUint32(driver + 28, base + name, true);
    dv.setUint32(m, base + driver, true);
    dv.setInt16(m + 10, 0, true); // mi_dk
    dv.setInt16(m + 12, 1, true); // mi_alive
  }
  let ns = 0n;
  let instr = 0n;
  const sys: SamplerSystem = {
    timeNs: () => ns,
    instructionCount: () => instr,
    kernelSymbols: (names) => Object.fromEntries(names.map((n) => [n, symbols[n] ?? null])),
    readKernel: (address, length) => {
      const o = address - base;
      if (o < 0 || o + length > mem.length) throw new RangeError('outside');
      return mem.slice(o, o + length);
    },
  };
  return {
    sys, symbols, put,
    vm: (sym: '_cnt' | '_sum', field: (typeof VMMETER_FIELDS)[number], v: number) => put(sym, 4 * VMMETER_FIELDS.indexOf(field), v),
    advance: (seconds: number) => { ns += BigInt(Math.round(seconds * 1e9)); instr += BigInt(Math.round(seconds * 500_000)); },
  };
}

test('a sampler over a fake kernel: rates, vmstat units, percentages, totals', () => {
  const k = fakeKernel();
  k.put('_hz', 0, 100);
  k.put('_cp_time', 0, 100); // user
  k.put('_cp_time', 12, 300); // idle
  k.vm('_sum', 'v_syscall', 1000);
  k.vm('_cnt', 'v_syscall', 10);
  const s = new CounterSampler(k.sys, 3);
  assert.equal(s.poll(), null); // no time has passed

  // Two seconds: 500 system calls (some moved from cnt to sum, as vmmeter does), 200 ticks.
  k.advance(2);
  k.vm('_sum', 'v_syscall', 1400);
  k.vm('_cnt', 'v_syscall', 110);
  k.vm('_sum', 'v_intr', 250); // 200 of them the clock's
  k.put('_intrcnt', 0, 200);
  k.put('_intrcnt', 4, 50);
  k.vm('_sum', 'v_pgpgin', 40); // pages of 512 bytes
  k.vm('_sum', 'v_pgrec', 10);
  k.vm('_sum', 'v_xsfrec', 4);
  k.vm('_sum', 'v_scan', 600); // the page daemon's clock: 600 steps, one revolution, 64 pages freed
  k.vm('_cnt', 'v_rev', 1);
  k.vm('_sum', 'v_dfree', 64);
  k.put('_cp_time', 0, 150); // +50 user
  k.put('_cp_time', 4, 10); // +10 nice
  k.put('_cp_time', 8, 100); // +100 sys
  k.put('_cp_time', 12, 340); // +40 idle
  k.put('_total', 0, 2); // t_rq = 2 (short)
  k.put('_total', 16, 1000); // t_avm: 1000 pages
  k.put('_total', 44, 6000); // t_free
  k.put('_dk_xfer', 0, 30);
  k.put('_dk_wds', 0, 16 * 120); // 120 KB
  k.put('_dk_time', 0, 50); // 0.5 s busy
  const NCH = (i: string) => 4 * NCHSTATS_FIELDS.indexOf(i as never);
  k.put('_nchstats', NCH('ncs_goodhits'), 75);
  k.put('_nchstats', NCH('ncs_miss'), 25);
  const a = s.poll()!;
  assert.equal(a.row, 3);
  assert.equal(a.t, 2);
  assert.equal(a.values['faults.sy'], 250);
  assert.equal(a.values['faults.in'], 25); // (250 - 200 clock) / 2
  assert.equal(a.values['paging.pi'], 10); // 40 pages = 20 KB over 2 s
  assert.equal(a.values['paging.re'], 3); // (10 - 4) / 2
  assert.equal(a.values['paging.at'], 2);
  assert.equal(a.values['cpu.us'], 30); // (50 + 10) / 200
  assert.equal(a.values['cpu.sy'], 50);
  assert.equal(a.values['cpu.id'], 20);
  assert.equal(a.values['procs.r'], 2);
  assert.equal(a.values['memory.avm'], 500);
  assert.equal(a.values['memory.fre'], 3000);
  assert.equal(a.values['disk.hp0.tps'], 15);
  assert.equal(a.values['disk.hp0.kbps'], 60);
  assert.equal(a.values['disk.hp0.util'], 25);
  assert.equal(a.values['namei.hits'], 37.5);
  assert.equal(a.values['namei.hitRate'], 75);
  assert.equal(a.values['hw.mips'], 0.5);
  assert.equal(a.values['hw.syscalls'], undefined); // no hardware model counters here

  // vmmeter()'s race: a read inside its loop sees a count in both sum and cnt;
  // the running count never goes down, and nothing is lost once it settles.
  k.advance(1);
  k.vm('_sum', 'v_syscall', 1510); // 1400 + 110 moved ...
  k.vm('_cnt', 'v_syscall', 110); // ... but cnt not yet zeroed
  assert.equal(s.poll()!.values['faults.sy'], 110);
  k.advance(1);
  k.vm('_cnt', 'v_syscall', 50); // zeroed, then 50 more
  assert.equal(s.poll()!.values['faults.sy'], 0); // 1560 < 1620 seen: held
  k.advance(1);
  k.vm('_cnt', 'v_syscall', 200);
  assert.equal(s.poll()!.values['faults.sy'], 90); // 1710 - 1620
  assert.equal(s.finish(), null);

  const t = s.totals();
  assert.equal(t.seconds, 5);
  assert.equal(t.syscalls, 700); // 1710 - 1010
  assert.equal(t['cp_time.user'], 50);
  assert.equal(t['namei.lookups'], 100);
  assert.equal(t['namei.hitRate'], 75);
  assert.equal(t['disk.hp0.xfers'], 30);
  assert.deepEqual([t.scan, t.rev, t.dfree, t.seqfree], [600, 1, 64, 0]);
  const series = s.series();
  assert.deepEqual(series.t, [2, 3, 4, 5]);
  assert.deepEqual(series.values['faults.sy'], [250, 110, 0, 90]);
  for (const id of Object.keys(series.values)) assert.ok(COUNTERS.some((c) => c.id === id), id);
});

test('a sampler asked for some counters reads only what they need between its first and last samples: the same series and totals', () => {
  const k = fakeKernel();
  k.put('_hz', 0, 100);
  let reads = 0;
  const counted: SamplerSystem = { ...k.sys, readKernel: (a, n) => { reads++; return k.sys.readKernel(a, n); } };
  const only = new Set(['faults.sy', 'faults.cs', 'cpu.sy', 'hw.mips']);
  const whole = new CounterSampler(k.sys, 0);
  const some = new CounterSampler(counted, 0, 1, only);
  const perPoll: number[] = [];
  for (let i = 1; i <= 4; i++) {
    k.advance(1);
    k.vm('_sum', 'v_syscall', 1000 * i);
    k.vm('_cnt', 'v_swtch', 7 * i);
    k.put('_cp_time', 8, 60 * i);   // sys
    k.put('_cp_time', 12, 40 * i);  // idle
    k.put('_dk_xfer', 0, 3 * i);
    k.put('_nchstats', 0, 5 * i);
    whole.poll();
    const before = reads;
    some.poll();
    perPoll.push(reads - before);
  }
  k.advance(0.5);
  k.vm('_sum', 'v_syscall', 4400);
  assert.ok(whole.finish() && some.finish());
  // cnt, sum and cp_time: 3 reads a sample, where the whole sample reads the disks, the name cache, the interrupts...
  assert.deepEqual(perPoll, [3, 3, 3, 3]);
  const a = whole.series();
  const b = some.series();
  assert.deepEqual(b.t, a.t);
  for (const id of only) assert.deepEqual(b.values[id], a.values[id], id);
  assert.deepEqual(Object.keys(b.values).filter((id) => only.has(id)), Object.keys(a.values).filter((id) => only.has(id)));
  assert.deepEqual(some.totals(), whole.totals());
  assert.equal(whole.totals()['disk.hp0.xfers'], 12);   // read whole at the end: the totals have everything
});

test('missing kernel symbols read as null, never an error', () => {
  const k = fakeKernel(['_nchstats', '_total', '_avenrun', '_mbdinit', '_dk_xfer']);
  const r = new KernelStatsReader(k.sys);
  const st = r.read();
  assert.equal(st.nchstats, null);
  assert.equal(st.total, null);
  assert.equal(st.avenrun, null);
  assert.equal(st.disk, null);
  assert.deepEqual(r.drives(), []);
  assert.equal(r.long('_nosuchthing'), null);
  const s = new CounterSampler(k.sys, 0);
  k.advance(1);
  const v = s.poll()!.values;
  assert.equal(v['namei.hits'], undefined);
  assert.equal(v['procs.r'], undefined);
  assert.equal(typeof v['faults.sy'], 'number');

  // No symbol table at all (kernelSymbols throws): every kernel figure is missing, the clocks still count.
  const bare: SamplerSystem = { ...k.sys, kernelSymbols: () => { throw new Error('no /vmunix'); } };
  const r2 = new KernelStatsReader(bare);
  assert.ok(Object.values(r2.symbols).every((a) => a === null));
  assert.equal(r2.read().cnt, null);
  const s2 = new CounterSampler(bare, 0);
  k.advance(1);
  assert.deepEqual(Object.keys(s2.poll()!.values), ['hw.mips']);
});

// ------------------------------------------------------------ on the emulator

test('the real kernel\'s statistics are plausible and move', { skip }, async () => {
  const { sys, run } = await boot();
  try {
    const r = kernelStatsReader(sys);
    assert.equal(kernelStatsReader(sys), r); // resolved once per machine
    for (const s of ['_cnt', '_sum', '_total', '_cp_time', '_nchstats', '_dk_xfer', '_freemem', '_hz', '_avenrun']) {
      assert.notEqual(r.symbols[s], null, s);
    }
    const a = r.read();
    // What a sample reads is read()'s own figures, the same at the same moment.
    const sample = r.readForSample();
    for (const [field, value] of Object.entries(sample)) assert.deepEqual(value, a[field as keyof typeof sample], field);
    assert.equal(a.params.hz, 100);
    assert.equal(a.params.nchsize, 154);
    assert.equal(a.params.nproc, 84);
    assert.equal(a.params.physmem, 8 * 2048); // 512-byte pages
    // The buffer cache startup() gave itself is the rule the free-memory probes of `vaxlab fidelity` start from.
    assert.equal(a.params.bufpages, bootBufpages(8));
    assert.deepEqual(r.drives(), [{ dk: 0, name: 'hp0' }]);
    assert.ok(a.freemem! > 0 && a.freemem! * 512 < 8 * 1024 * 1024, String(a.freemem));
    assert.ok(a.boottime!.sec > 500_000_000 && a.time!.sec >= a.boottime!.sec);
    assert.ok(a.avenrun!.every((x) => x >= 0 && x < 10), String(a.avenrun));
    assert.ok(a.disk!.mspw[0]! > 2.9e-6 && a.disk!.mspw[0]! < 3.0e-6); // RP06
    // cp_time counts every clock tick: it agrees with intrcnt's clock entry and with the time since boot.
    const ticks = (x: typeof a) => x.cpTime!.user + x.cpTime!.nice + x.cpTime!.sys + x.cpTime!.idle;
    assert.equal(ticks(a), a.intr!.clock);
    const up = a.time!.sec + a.time!.usec / 1e6 - (a.boottime!.sec + a.boottime!.usec / 1e6);
    // (The clock runs from startrtclock(), a little before main() sets boottime.)
    assert.ok(ticks(a) >= 100 * up - 2 && ticks(a) <= 100 * up + 50, `${ticks(a)} ticks, ${up} s up`);
    assert.ok(ticks(a) <= (100 * Number(sys.timeNs())) / 1e9 + 1, 'no more ticks than virtual time since power-on');
    // vmtotal's t_free is avefree at its last run; within a few pages of freemem on an idle system.
    assert.ok(Math.abs(a.total!.t_free - a.freemem!) < 200, `${a.total!.t_free} ${a.freemem}`);

    const t0 = sys.timeNs();
    await run('cd /usr/lab/bin; ./syscall 3000');
    const b = r.read();
    assert.ok(b.since!.v_syscall - a.since!.v_syscall >= 3000, `${b.since!.v_syscall} ${a.since!.v_syscall}`);
    const dt = Number(sys.timeNs() - t0) / 1e9;
    assert.ok(Math.abs(ticks(b) - ticks(a) - 100 * dt) <= 2, `${ticks(b) - ticks(a)} ticks in ${dt} s`);

    await run('ls -l /usr/lab/names > /dev/null', 300);
    const c = r.read();
    const before = nameCacheFigures(b.nchstats!);
    const after = nameCacheFigures(c.nchstats!);
    assert.ok(after.lookups - before.lookups > 1800, `${after.lookups - before.lookups} lookups`); // 600 files x 3+ components
    assert.ok(after.hits - before.hits > 1000);
    assert.ok(c.disk!.xfer[0]! >= b.disk!.xfer[0]!);
  } finally {
    sys.destroy();
  }
});

/** Runs command under a sampler; returns the samples and totals. */
async function sampled(command: string, set: Record<string, number> = {}) {
  let sampler: CounterSampler | null = null;
  const { sys, run } = await boot(set, () => { sampler?.poll(); });
  try {
    await run('cd /usr/lab/bin');
    sampler = new CounterSampler(sys, 0);
    await run(command, 300);
    sampler.finish();
    return { series: sampler.series(), totals: sampler.totals(), hardware: hasHardwareStats(sys) };
  } finally {
    sys.destroy();
  }
}

test('counters over `syscall 20000`: vmstat\'s columns, and two runs give the same numbers', { skip }, async () => {
  const a = await sampled('./syscall 20000');
  const b = await sampled('./syscall 20000');
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  const { series, totals } = a;
  assert.ok(series.t.length >= 3, JSON.stringify(series.t));
  for (const id of Object.keys(series.values)) assert.ok(COUNTERS.some((c) => c.id === id), id);
  for (const v of Object.values(series.values).flat()) assert.ok(Number.isFinite(v));
  assert.ok(totals.syscalls! >= 20000 && totals.syscalls! < 20100, String(totals.syscalls));
  // The busy seconds run about 5,000 system calls a second (a 780 at 0.5 MIPS) and mostly in the kernel.
  assert.ok(Math.max(...series.values['faults.sy']!) > 4000, JSON.stringify(series.values['faults.sy']));
  assert.ok(totals['cpu.sy']! > 60, String(totals['cpu.sy']));
  const ticks = totals['cp_time.user']! + totals['cp_time.nice']! + totals['cp_time.sys']! + totals['cp_time.idle']!;
  assert.ok(Math.abs(ticks - 100 * totals.seconds!) <= 2, `${ticks} ticks in ${totals.seconds} s`);
  for (let i = 0; i < series.t.length; i++) {
    const sum = series.values['cpu.us']![i]! + series.values['cpu.sy']![i]! + series.values['cpu.id']![i]!;
    assert.ok(Math.abs(sum - 100) < 0.05, String(sum));
  }
});

test('the kernel and the hardware model agree: system calls, interrupts, faults, lab.disk transfers', { skip }, async (t) => {
  const { totals, series, hardware } = await sampled('./syscall 20000; ls -l /usr/lab/names > /dev/null');
  if (!hardware) {
    t.skip('this emulator build has no hardwareStats() (rebuild: make -C emu wasm)');
    return;
  }
  const near = (kernel: number, model: number, what: string, slack = 0.01) =>
    assert.ok(Math.abs(kernel - model) <= Math.max(5, slack * model), `${what}: kernel ${kernel}, model ${model}`);
  // v_syscall is counted when syscall() returns (exit's never does); the model counts every CHMK.
  near(totals.syscalls!, totals['hw.syscalls']!, 'system calls');
  // v_intr counts device and clock interrupts: the model's hardware interrupts.
  near(totals.intr!, totals['hw.intr']!, 'interrupts');
  // v_swtch counts calls of Swtch; each loads a context with LDPCTX.
  near(totals.cs!, totals['hw.cs']!, 'context switches', 0.1);
  // v_faults counts the page faults the kernel handled: translation-not-valid faults.
  near(totals.faults!, totals['hw.pf']!, 'page faults', 0.1);
  assert.equal(totals['disk.hp0.xfers'], totals['hw.disk.hp0.xfers'], 'disk transfers');
  assert.ok(Math.abs(totals['disk.hp0.kb']! - totals['hw.disk.hp0.kb']!) < 1, 'KB transferred');
  assert.ok(totals['disk.hp0.xfers']! > 10);
  // Per sample too: the kernel's sy and the model's CHMK rate.
  const sy = series.values['faults.sy']!;
  const chmk = series.values['hw.syscalls']!;
  const total = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
  assert.ok(Math.abs(total(sy) - total(chmk)) <= 0.01 * total(chmk) + 5);
  assert.ok(series.values['hw.mips']!.every((v) => v > 0));
});
