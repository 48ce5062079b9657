// The lab's tools for watching the system (vmstat.c, iostat.c, w.c,
// uptime.c here, built by the installer into /lab/bin) on the lab image in
// the WebAssembly emulator: what they print is plausible, moves the way it
// should (disk transfers while dd reads the disk, none when idle), and
// agrees with the same kernel variables read from the host
// (experiments/runner/kstats.ts).  Also the distribution's own /etc/pstat
// -T against the kernel's table sizes, the errors (no /dev/kmem, no
// /vmunix, a kernel without symbols), and the multi-user login the lab's
// terminal uses: TERM=vt100 and the tools on the path.  Skipped, saying
// why, without the wasm build or the image.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { type KernelStats, KernelStatsReader } from '../runner/kstats';
import { bootSingleUser, printed, useLabImage } from '../runner/testLab';
import { ConsoleSession } from '../runner/session';

const lab = useLabImage('tools.test.ts');
const skip = lab.skip;

/** The lines of numbers under the header line that starts with `columns`. */
function table(lines: string[], columns: RegExp): { header: string[]; rows: number[][] } {
  const at = lines.findIndex((l) => columns.test(l));
  assert.ok(at >= 0, `no header ${columns} in:\n${lines.join('\n')}`);
  const header = lines[at]!.trim().split(/\s+/);
  const rows = lines.slice(at + 1).filter((l) => /^[\s\d.]+$/.test(l) && l.trim() !== '')
    .map((l) => l.trim().split(/\s+/).map(Number));
  for (const r of rows) assert.equal(r.length, header.length, `a row of ${r.length} numbers under ${header.length} columns`);
  return { header, rows };
}

/** A rate since boot that a tool printed (rounded to a whole number) lies
 *  between the counts the host read before and after the tool ran, each
 *  over the seconds since boot (cp_time's ticks over hz) of the other
 *  reading. */
function bracketed(what: string, got: number, before: KernelStats, after: KernelStats, count: (k: KernelStats) => number): void {
  const secs = (k: KernelStats) => ticks(k) / k.params.hz!;
  const lo = count(before) / secs(after) - 0.5;
  const hi = count(after) / secs(before) + 0.5;
  assert.ok(got >= lo && got <= hi, `${what}: ${got}, the host's ${lo.toFixed(2)} .. ${hi.toFixed(2)}`);
}

const ticks = (k: KernelStats): number => k.cpTime!.user + k.cpTime!.nice + k.cpTime!.sys + k.cpTime!.idle;
/** Percent of cp_time's ticks in the states named. */
const cpuPct = (k: KernelStats, ...states: ('user' | 'nice' | 'sys' | 'idle')[]): number =>
  (100 * states.reduce((s, x) => s + k.cpTime![x], 0)) / ticks(k);

test('vmstat: the first line since boot agrees with the kernel read from the host; three lines of numbers', { skip }, async () => {
  const { sys, run } = await bootSingleUser(lab);
  try {
    const reader = new KernelStatsReader(sys);
    await run('mount /dev/hp0g /usr');
    const early = reader.read();
    const one = table(printed(await run('/lab/bin/vmstat')), /^\s*r b w\s+avm/);
    const host = reader.read();
    assert.deepEqual(one.header,
      ['r', 'b', 'w', 'avm', 'fre', 're', 'at', 'pi', 'po', 'fr', 'de', 'sr', 'h0', 'in', 'sy', 'cs', 'us', 'sy', 'id']);
    assert.equal(one.rows.length, 1);
    const col = (row: number[], name: string, nth = 0): number => {
      let seen = 0;
      const i = one.header.findIndex((h) => h === name && seen++ === nth);
      return row[i]!;
    };
    const v = one.rows[0]!;
    // memory in kilobytes from vmtotal (512-byte pages / 2), within physical memory; vmtotal is
    // recomputed every 5 seconds, so vmstat saw what the host read before or what it read after
    const physKB = host.params.physmem! / 2;
    assert.ok(col(v, 'fre') > 0 && col(v, 'fre') <= physKB, `fre ${col(v, 'fre')} of ${physKB} KB`);
    for (const [name, field] of [['fre', 't_free'], ['avm', 't_avm']] as const) {
      const seen = [early, host].map((k) => Math.trunc(k.total![field] / 2));
      assert.ok(seen.includes(col(v, name)), `${name} ${col(v, name)}, the host's ${seen.join(' or ')}`);
    }
    // rates since boot: between what the host read just before and just after
    const since = (what: string, got: number, count: (k: KernelStats) => number) =>
      bracketed(what, got, early, host, count);
    since('sy', col(v, 'sy'), (k) => k.since!.v_syscall);
    since('cs', col(v, 'cs'), (k) => k.since!.v_swtch);
    since('in', col(v, 'in'), (k) => k.since!.v_intr - ticks(k));
    since('h0', col(v, 'h0'), (k) => k.disk!.xfer[0]!);
    since('pi', col(v, 'pi'), (k) => k.since!.v_pgpgin / 2);
    since('re', col(v, 're'), (k) => k.since!.v_pgrec - k.since!.v_xsfrec - k.since!.v_xifrec);
    assert.ok(Math.abs(col(v, 'us') - cpuPct(host, 'user', 'nice')) <= 3, `us ${col(v, 'us')}`);
    assert.ok(Math.abs(col(v, 'sy', 1) - cpuPct(host, 'sys')) <= 3, `sy ${col(v, 'sy', 1)}`);
    assert.ok(Math.abs(col(v, 'id') - cpuPct(host, 'idle')) <= 3, `id ${col(v, 'id')}`);

    // vmstat 1 3: the line since boot, then two one-second lines of an idle system
    const t0 = sys.timeNs();
    const three = table(printed(await run('/lab/bin/vmstat 1 3')), /^\s*r b w\s+avm/);
    const took = Number(sys.timeNs() - t0) / 1e9;
    assert.equal(three.rows.length, 3);
    assert.ok(took >= 2 && took < 4, `vmstat 1 3 took ${took} virtual s`);
    for (const r of three.rows) {
      const cpu = r.slice(-3).reduce((a, b) => a + b, 0);
      assert.ok(cpu >= 98 && cpu <= 102, `us+sy+id = ${cpu}`);
      assert.ok(r[4]! > 0 && r[4]! <= physKB);
    }
    assert.ok(Math.abs(three.rows[0]![13]! - col(v, 'in')) <= 30, 'the first line is since boot again');
    for (const r of three.rows.slice(1)) {
      assert.equal(r[12], 0, 'no disk transfers in an idle second');
      assert.ok(r[18]! >= 90, `an idle second is idle: ${r.join(' ')}`);
      assert.ok(r[14]! > 0 && r[14]! < 200, `system calls in an idle second: ${r[14]}`);
    }

    // vmstat -s: counts since boot, up to the moment it read them
    const before = reader.read();
    const sums = printed(await run('/lab/bin/vmstat -s'));
    const after = reader.read();
    const count = (what: string): number => {
      const l = sums.find((s) => s.trim().endsWith(` ${what}`));
      assert.ok(l, `no "${what}" in vmstat -s`);
      return Number(l.trim().split(/\s+/)[0]);
    };
    const between = (got: number, lo: number, hi: number, what: string) =>
      assert.ok(got >= lo && got <= hi, `${what}: vmstat -s ${got}, host ${lo} .. ${hi}`);
    between(count('system calls'), before.since!.v_syscall, after.since!.v_syscall, 'system calls');
    between(count('cpu context switches'), before.since!.v_swtch, after.since!.v_swtch, 'context switches');
    between(count('pages paged in'), before.since!.v_pgpgin, after.since!.v_pgpgin, 'pages paged in');
    between(count('zero fill page faults'), before.since!.v_zfod, after.since!.v_zfod, 'zero fill faults');
    const lookups = (k: KernelStats) => Object.entries(k.nchstats!).filter(([f]) => !/pass2|2passes/.test(f))
      .reduce((s, [, n]) => s + n, 0);
    between(count('total name lookups'), lookups(before), lookups(after), 'name lookups');

    // vmstat -i: the clock's interrupts are cp_time's ticks
    const intr = printed(await run('/lab/bin/vmstat -i'));
    const clock = intr.find((l) => l.startsWith('clock'));
    assert.ok(clock, intr.join('\n'));
    const k = reader.read();
    between(Number(clock.split(/\s+/)[1]), before.intr!.clock!, k.intr!.clock!, 'clock interrupts');
    assert.ok(intr.some((l) => /^mba0\s+\d+/.test(l)) && /^Total\s+\d+\s+\d+$/.test(intr.at(-1)!), intr.join('\n'));
  } finally {
    sys.destroy();
  }
});

test('iostat: transfers while dd reads the disk, none when idle; the line since boot agrees with the host', { skip }, async () => {
  const { sys, run } = await bootSingleUser(lab);
  try {
    const reader = new KernelStatsReader(sys);
    const early = reader.read();
    const first = table(printed(await run('/lab/bin/iostat')), /^\s*tin\s+tout/);
    const host = reader.read();
    assert.deepEqual(first.header, ['tin', 'tout', 'bps', 'tps', 'msps', 'us', 'ni', 'sy', 'id']);
    const [tin, tout, bps, tps, , us, ni, sy, id] = first.rows[0]!;
    bracketed('tps', tps!, early, host, (k) => k.disk!.xfer[0]!);
    bracketed('bps', bps!, early, host, (k) => (k.disk!.wds[0]! * 64) / 1024);
    assert.ok(tin! >= 0 && tout! > 0, `tin ${tin} tout ${tout}`);
    assert.ok(Math.abs(us! + ni! + sy! + id! - 100) <= 2);

    // 3 MB read from the raw root partition in the background: about 30 transfers of 10 KB a second on an RP06
    const a = reader.read();
    const busy = table(printed(await run('dd if=/dev/rhp0a of=/dev/null bs=10k count=300 2>/dev/null & /lab/bin/iostat 1 3', 60)),
      /^\s*tin\s+tout/);
    const b = reader.read();
    assert.equal(busy.rows.length, 3);
    const moving = busy.rows.slice(1);
    for (const r of moving) {
      assert.ok(r[3]! >= 10 && r[2]! >= 100, `the disk is busy: ${r.join(' ')}`);
      assert.ok(Math.abs(r[2]! - 10 * r[3]!) <= 20, `10 KB transfers: ${r.join(' ')}`);
      assert.ok(Math.abs(r[5]! + r[6]! + r[7]! + r[8]! - 100) <= 2);
    }
    assert.ok(b.disk!.xfer[0]! - a.disk!.xfer[0]! >= moving.reduce((s, r) => s + r[3]!, 0) - 2,
      `host: ${b.disk!.xfer[0]! - a.disk!.xfer[0]!} transfers`);
    // msps is (busy time - transfer time) / seeks: 0 when the kernel counted no seeks
    if (b.disk!.seek[0] === a.disk!.seek[0]) for (const r of moving) assert.equal(r[4], 0);
    else for (const r of moving) assert.ok(r[4]! >= 0 && r[4]! < 100, `msps ${r[4]}`);

    await run('wait', 60);
    const idle = table(printed(await run('/lab/bin/iostat 1 2')), /^\s*tin\s+tout/);
    assert.deepEqual(idle.rows[1]!.slice(2, 4), [0, 0], `idle: ${idle.rows[1]!.join(' ')}`);
    assert.ok(idle.rows[1]![8]! >= 90);
  } finally {
    sys.destroy();
  }
});

test('pstat -T (the distribution\'s /etc/pstat), uptime and w', { skip }, async () => {
  const { sys, run } = await bootSingleUser(lab);
  try {
    const reader = new KernelStatsReader(sys);
    const host = reader.read();
    const pstat = printed(await run('/etc/pstat -T'));
    const used = (what: string): [number, number] => {
      const l = pstat.find((s) => new RegExp(`^\\s*\\d+/\\s*\\d+ ${what}`).test(s));
      assert.ok(l, `no ${what} in pstat -T:\n${pstat.join('\n')}`);
      const m = /(\d+)\/\s*(\d+)/.exec(l)!;
      return [Number(m[1]), Number(m[2])];
    };
    const tables: [string, number][] = [['files', host.params.nfile!], ['inodes', host.params.ninode!],
      ['processes', host.params.nproc!], ['texts', host.params.ntext!]];
    for (const [what, size] of tables) {
      const [n, of] = used(what);
      assert.equal(of, size, `${what}: pstat's table size is the kernel's`);
      assert.ok(n > 0 && n <= of, `${what}: ${n}/${of}`);
    }
    assert.ok(used('processes')[0] >= 4, 'swapper, init, pagedaemon and the shell at least');
    used('00k swap');

    const up = printed(await run('/lab/bin/uptime'));
    const k = reader.read();
    assert.equal(up.length, 1, up.join('\n'));
    const m = /^\s*\d{1,2}:\d\d[ap]m {2}up (?:\d+ days?, )?(?:\s?\d+:\d\d|\d+ mins?), {2}0 users, {2}load average: (\d+\.\d\d), (\d+\.\d\d), (\d+\.\d\d)$/
      .exec(up[0]!);
    assert.ok(m, up[0]);
    [1, 2, 3].forEach((i) => assert.ok(Math.abs(Number(m[i]) - k.avenrun![i - 1]!) <= 0.1,
      `load ${m[i]}, host ${k.avenrun![i - 1]}`));
    const mins = Math.floor((k.time!.sec - k.boottime!.sec + 30) / 60);
    assert.match(up[0]!, mins === 1 ? / 1 min,/ : new RegExp(` ${mins} mins,`));

    const w = printed(await run('/lab/bin/w'));
    assert.equal(w.length, 2, w.join('\n'));
    assert.match(w[0]!, /load average: /);
    assert.match(w[1]!, /^User\s+tty\s+login@\s+idle$/);
  } finally {
    sys.destroy();
  }
});

test('the tools say what is missing and exit 1: no /dev/kmem, no /vmunix, a kernel without symbols, a bad argument', { skip }, async () => {
  const { sys, run } = await bootSingleUser(lab);
  try {
    const status = async (cmd: string) => printed(await run(`${cmd}; echo status $?`)).join('\n');
    assert.match(await status('/lab/bin/vmstat -x'), /^usage: vmstat .*\nstatus 1$/);
    assert.match(await status('/lab/bin/iostat 0'), /^usage: iostat .*\nstatus 1$/);
    await run('mv /dev/kmem /dev/kmem.away');
    for (const tool of ['vmstat', 'iostat', 'uptime', 'w'])
      assert.match(await status(`/lab/bin/${tool}`), new RegExp(`^${tool}: cannot open /dev/kmem: No such file or directory\\nstatus 1$`));
    await run('mv /dev/kmem.away /dev/kmem');
    await run('mv /vmunix /vmunix.away');
    assert.match(await status('/lab/bin/vmstat'), /^vmstat: cannot read the symbol table of \/vmunix: No such file or directory\nstatus 1$/);
    await run('cp /vmunix.away /vmunix; strip /vmunix', 120);
    assert.match(await status('/lab/bin/iostat'), /^iostat: \/vmunix has no symbol _tk_nin\nstatus 1$/);
    await run('mv /vmunix.away /vmunix');
    assert.match(await status('/lab/bin/uptime'), /load average: .*\nstatus 0$/);
  } finally {
    sys.destroy();
  }
});

test('the lab\'s terminal: a multi-user root login has TERM=vt100, and vmstat 1 3, iostat, pstat -T and w by name', { skip }, async () => {
  const sys = lab.api.vax780.create({ memoryMB: 8, disk: lab.disk, boot: 'multi', direct: true });
  const session = new ConsoleSession(sys, (r) => lab.api.vax780.stopName(r));
  try {
    await session.expect('login: ', 600);
    session.send('root');
    // csh's prompt is the host name and "# " (/.cshrc)
    const prompt = '\nmyname# ';
    await session.expect(prompt, 60);
    const run = async (line: string) => {
      session.send(line);
      return printed((await session.expect(prompt, 120)).output);
    };
    assert.deepEqual(await run('echo TERM=$TERM'), ['TERM=vt100']);
    assert.match((await run('echo $path')).join(' '), / \/lab\/bin$/);
    const vm = table(await run('vmstat 1 3'), /^\s*r b w\s+avm/);
    assert.equal(vm.rows.length, 3);
    for (const r of vm.rows) assert.ok(Math.abs(r.slice(-3).reduce((a, b) => a + b, 0) - 100) <= 2, r.join(' '));
    // the distribution's pstat (in /etc, on root's path) and our iostat, by name
    assert.match((await run('pstat -T')).join('\n'), /^\s*\d+\/\s*\d+ processes$/m);
    assert.equal(table(await run('iostat'), /^\s*tin\s+tout/).rows.length, 1);
    const w = await run('w');
    assert.match(w[0]!, / 1 user, /);
    assert.match(w.at(-1)!, /^root\s+console\s+\d{1,2}:\d\d[ap]m/);
    // sh's login profile puts /lab/bin last on its PATH too
    assert.match((await run(`sh -c '. /.profile; echo $PATH'`)).at(-1)!, /:\/lab\/bin$/);
  } finally {
    sys.destroy();
  }
});
