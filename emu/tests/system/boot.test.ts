// Booting 4.3BSD on the emulated 780 (issue: "Boot 4.3BSD ... headless").
//
// Runs emu/build/vax780 on a private copy of the reference RP06 image
// (emu/build/images/43bsd-rp06.dsk, unpacked by `make -C emu images` from
// ../shared) with expect/send scripts, and checks what the real 4.3BSD
// userland prints.  Without the image the tests are skipped, saying why.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { REPO_ROOT } from '../../js/vaxNode';
import { BSDFS, outputOf, runVax780, typeFile, VAX780, type Run } from './guestShell';

// $VAXLAB_VAX780 picks another build of the machine: npm test runs these
// tests again with the ASan/UBSan one (emu/build/asan/vax780).
const REF = process.env.VAXLAB_REF_IMAGE ?? join(REPO_ROOT, 'emu/build/images/43bsd-rp06.dsk');
const haveImage = existsSync(REF);
const skip = haveImage ? false : `reference image ${REF} absent (make -C emu images needs ../shared)`;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-boot-'));
after(() => rmSync(work, { recursive: true, force: true }));

function writeScript(script: string): string {
  const path = join(work, `script-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(path, script);
  return path;
}

const vax780 = (args: string[], script?: string): Run => runVax780(work, args, script);

test('single-user: ls, df, ps, date, sum /vmunix, a C program compiled by the guest cc', { skip }, () => {
  const disk = join(work, 'single.dsk');
  copyFileSync(REF, disk);
  const script = [
    'timeout 600',
    'expect \\n# ',
    'send ls -l /', 'expect \\n# ',
    'send df', 'expect \\n# ',
    'send ps ax', 'expect \\n# ',
    'send date', 'expect \\n# ',
    typeFile('/tmp/sum.c', 'sum.c'),
    'send cc -o /tmp/sum /tmp/sum.c', 'expect \\n# ',
    'send /tmp/sum /vmunix', 'expect \\n# ',
    typeFile('/tmp/arith.c', 'arith.c'),
    'send cc -o /tmp/arith /tmp/arith.c', 'expect \\n# ',
    'send /tmp/arith', 'expect \\n# ',
    'send sync', 'expect \\n# ',
  ].join('\n');
  const r = vax780(['--disk', `hp0=${disk}`, '--boot', 'single'], script);
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-3000)}`);
  const t = r.stdout;
  assert.match(t, /4\.3 BSD UNIX #1: Fri Jun {2}6 19:55:29 PDT 1986/);

  const ls = outputOf(t, 'ls -l /');
  assert.match(ls, /^-rwxr-xr-x +\d+ root +407552 .* vmunix$/m, ls);
  assert.match(ls, /^drwxr-xr-x +\d+ root +\d+ .* bin$/m, ls);

  const df = outputOf(t, 'df');
  assert.match(df, /^\/dev\/hp0a +\d+ +\d+ +\d+ +\d+% +\/$/m, df);

  const ps = outputOf(t, 'ps ax');
  assert.match(ps, /PID TT STAT +TIME COMMAND/, ps);
  assert.ok(ps.trim().split('\n').length >= 4, `too few processes:\n${ps}`);

  assert.match(outputOf(t, 'date'), /^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \w{3} \d{4}$/m);

  const hostSum = spawnSync(BSDFS, [disk, 'sum', '/vmunix'], { encoding: 'utf8' });
  assert.equal(hostSum.status, 0, hostSum.stderr);
  assert.equal(outputOf(t, '/tmp/sum /vmunix').trim(), hostSum.stdout.trim());

  assert.equal(outputOf(t, '/tmp/arith').trim(), [
    'squares 338350 quotient -3 remainder -1',
    'string vaxlab-4.3 length 10',
    'double 57.6650 9.500000e+00 0.666667',
    'float 0.333333 int 5766',
  ].join('\n'));
});

test('multi-user: reboot to login:, log in as root, halt; the file systems check clean on the next boot', { skip }, () => {
  const disk = join(work, 'multi.dsk');
  copyFileSync(REF, disk);
  const first = vax780(['--disk', `hp0=${disk}`, '--boot', 'single'], [
    'timeout 600',
    'expect \\n# ',
    'send sync', 'expect \\n# ',
    'send reboot',
    'expect login: ',
    'send root',
    'expect myname# ',   // root's csh prompt, set by /.cshrc
    'send sync', 'expect myname# ',
    'send /etc/halt',
    'expect halting (in tight loop)',   // then the operator's ^P and HALT
    'expect HALT',
    'type \\x10',
    'wait-halt',
  ].join('\n'));
  assert.equal(first.status, 0, `vax780 failed: ${first.stderr}\n${first.stdout.slice(-3000)}`);
  const second = vax780(['--disk', `hp0=${disk}`, '--boot', 'multi'], ['timeout 600', 'expect login: '].join('\n'));
  assert.equal(second.status, 0, `vax780 failed: ${second.stderr}\n${second.stdout.slice(-3000)}`);
  assert.match(second.stdout, /\/dev\/hp0a: \d+ files, \d+ used, \d+ free/);
  assert.match(second.stdout, /\/dev\/rhp0g: \d+ files, \d+ used, \d+ free/);
  assert.doesNotMatch(second.stdout, /UNEXPECTED INCONSISTENCY|FILE SYSTEM WAS MODIFIED|unclean/);
});

test('--boot askname: /boot asks for the program, the kernel for its root device', { skip }, () => {
  const disk = join(work, 'askname.dsk');
  copyFileSync(REF, disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--boot', 'askname'], [
    'timeout 120', 'expect Boot', 'expect : ', 'send hp(0,0)vmunix', 'expect root device? ', 'send hp0', 'expect \\n# ',
  ].join('\n'));
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-2000)}`);
  assert.match(r.stdout, /279844\+80872\+100324 start 0x12f8/);
});

test('--direct loads /vmunix without /boot and reaches the same shell', { skip }, () => {
  const disk = join(work, 'direct.dsk');
  copyFileSync(REF, disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--direct'], ['timeout 120', 'expect \\n# ', 'send date', 'expect \\n# '].join('\n'));
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-2000)}`);
  assert.doesNotMatch(r.stdout, /: hp\(0,0\)vmunix/);   // /boot never ran
  assert.match(r.stdout, /4\.3 BSD UNIX #1/);
  assert.match(outputOf(r.stdout, 'date'), /19\d\d$/m);
});

test('a guest halt the script did not wait for ends the run with its reason', { skip }, () => {
  const disk = join(work, 'halt.dsk');
  copyFileSync(REF, disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--direct'], ['timeout 120', 'expect \\n# ', 'type \\x10', 'expect never printed'].join('\n'));
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /^vax780: guest halted: operator halt/m);
});

test('an expect that never matches fails after its virtual time limit', { skip }, () => {
  const disk = join(work, 'timeout.dsk');
  copyFileSync(REF, disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--direct'], ['timeout 5', 'expect never printed'].join('\n'));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /expect "never printed" timed out after 5 virtual seconds/);
});

test('--set patches a kernel variable before the kernel runs: adb reads it back', { skip }, () => {
  const disk = join(work, 'set.dsk');
  copyFileSync(REF, disk);
  const script = ['timeout 120', 'expect \\n# ', 'send adb /vmunix /dev/kmem', 'send _nchsize/D', 'send $q', 'expect \\n# '].join('\n');
  const plain = vax780(['--disk', `hp0=${disk}`, '--direct'], script);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /_nchsize:\s+154\b/);   // GENERIC's name cache size
  const patched = vax780(['--disk', `hp0=${disk}`, '--direct', '--set', 'nchsize=0'], script);
  assert.equal(patched.status, 0, patched.stderr);
  assert.match(patched.stderr, /_nchsize = 0 \(was 154\)/);
  assert.match(patched.stdout, /_nchsize:\s+0\b/);
  // A C int's negative value, as the lab's toggles take it (maxtextcache=-1: every text cached, xinit making it ntext);
  // it was refused as not a number from 0 to 4294967295.
  const textScript = ['timeout 120', 'expect \\n# ', 'send adb /vmunix /dev/kmem', 'send _maxtextcache/D', 'send $q', 'expect \\n# '].join('\n');
  const negative = vax780(['--disk', `hp0=${disk}`, '--direct', '--set', 'maxtextcache=-1'], textScript);
  assert.equal(negative.status, 0, negative.stderr);
  assert.match(negative.stderr, /_maxtextcache = 4294967295 /);
  assert.match(negative.stdout, /_maxtextcache:\s+44\b/);   // GENERIC's ntext
  const below = vax780(['--disk', `hp0=${disk}`, '--direct', '--set', 'maxtextcache=-2147483649']);
  assert.equal(below.status, 2);
  assert.match(below.stderr, /VALUE must be a number from -2147483648 to 4294967295/);
  const unknown = vax780(['--disk', `hp0=${disk}`, '--direct', '--set', 'nosuchvariable=1']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /has no symbol _nosuchvariable/);
  const viaBoot = vax780(['--disk', `hp0=${disk}`, '--set', 'nchsize=0']);
  assert.equal(viaBoot.status, 2);
  assert.match(viaBoot.stderr, /--set needs --direct/);
});

test('a kernel panic is the kernel\'s own (panicstr), not "panic:" typed on the console', { skip }, () => {
  const disk = join(work, 'panic.dsk');
  copyFileSync(REF, disk);
  // Typed text that only looks like a panic is echoed and printed; the run goes on.
  const typed = vax780(['--disk', `hp0=${disk}`, '--direct'],
    ['timeout 120', 'expect \\n# ', 'send echo panic: typed', 'expect panic: typed\\r\\n# '].join('\n'));
  assert.equal(typed.status, 0, typed.stderr);
  // A process table too big for the system page table: the kernel's
  // startup() panics "sys pt too small" (vax/machdep.c).  Exit 5, the
  // kernel's own message, and its words on the console.
  const real = vax780(['--disk', `hp0=${disk}`, '--direct', '--set', 'nproc=30000'],
    ['timeout 120', 'expect \\n# '].join('\n'));
  assert.equal(real.status, 5, real.stderr);
  assert.match(real.stderr, /^vax780: kernel panic: sys pt too small$/m);
  assert.match(real.stdout, /panic: sys pt too small/);
});

test('a long paste arrives whole: 400 lines (24,400 characters) typed at once into cat', { skip }, () => {
  // More than the console's 8192-character queue, and far more than the
  // kernel's TTYHOG (255) while cat is still starting: the typist waits for
  // room and for the reader, so nothing is dropped.
  const disk = join(work, 'paste.dsk');
  copyFileSync(REF, disk);
  const lines = Array.from({ length: 400 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR'.slice(0, 51)}`);
  const script = ['timeout 300', 'expect \\n# ', 'send cat > /tmp/p.txt', `type ${lines.map((l) => `${l}\\r`).join('')}\\x04`,
    'expect # ', 'send ls -l /tmp/p.txt', 'expect \\n# '].join('\n');
  const r = vax780(['--disk', `hp0=${disk}`, '--direct'], script);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\s24400 \w{3} [ \d]\d \d\d:\d\d \/tmp\/p\.txt/);
});

test('a disk image of the wrong size is refused with a clear message', { skip }, () => {
  const disk = join(work, 'short.dsk');
  writeFileSync(disk, Buffer.alloc(1 << 20));
  const r = vax780(['--disk', `hp0=${disk}`]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^vax780: .*(wrong size|not a 4\.3BSD file system|too small)/m);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('a truncated image is refused with a clear message', { skip }, () => {
  const disk = join(work, 'truncated.dsk');
  copyFileSync(REF, disk);
  truncateSync(disk, 100 * 1024 * 1024);
  const r = vax780(['--disk', `hp0=${disk}`]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^vax780: .*wrong size/m);
});

test('an image that is not a 4.3BSD file system is refused', () => {
  const disk = join(work, 'zeros.dsk');
  writeFileSync(disk, Buffer.alloc(0));
  truncateSync(disk, 174_416_896);
  const r = vax780(['--disk', `hp0=${disk}`]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^vax780: .*not a 4\.3BSD file system/m);
});

test('a missing image and an unknown option are refused', () => {
  const missing = vax780(['--disk', `hp0=${join(work, 'nonexistent.dsk')}`]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /cannot open image/);
  const unknown = vax780(['--frobnicate']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown option --frobnicate/);
  // Asked for, the usage is no error: stdout, exit 0 (it was exit 2 on stderr).
  for (const flag of ['--help', '-h']) {
    const help = vax780([flag]);
    assert.equal(help.status, 0, flag);
    assert.match(help.stdout, /^usage: vax780 --disk hp0=IMAGE/, flag);
    assert.equal(help.stderr, '', flag);
  }
  for (const bad of ['hp8=x', 'hp4294967296=x', 'hp=x', 'hp0=']) {
    const r = vax780(['--disk', bad]);
    assert.equal(r.status, 2, bad);
    assert.match(r.stderr, /--disk takes hpN=IMAGE\[:TYPE\] with N from 0 to 7/, bad);
  }
  // One line, whatever bytes the name holds.
  const odd = vax780(['--disk', `hp0=${join(work, 'bad\nname\x01.dsk')}`]);
  assert.equal(odd.status, 3);
  assert.equal(odd.stderr.trimEnd().split('\n').length, 1);
  assert.match(odd.stderr, /bad\\nname\\x01\.dsk/);
});

test('a script that is a directory, and bad timeouts, are refused; two machines may not write one image', { skip }, () => {
  const disk = join(work, 'lock.dsk');
  copyFileSync(REF, disk);
  const dir = vax780(['--disk', `hp0=${disk}`, '--script', work]);
  assert.equal(dir.status, 2);
  assert.match(dir.stderr, /is not a regular file/);
  for (const t of ['inf', 'nan', '12abc', '-1', '0']) {
    const r = vax780(['--disk', `hp0=${disk}`], `timeout ${t}\nexpect \\n# `);
    assert.equal(r.status, 2, t);
    assert.match(r.stderr, /timeout needs a positive, finite number of seconds/, t);
  }
  // A long script line is one line: its tail is not run as a command.
  const long = vax780(['--disk', `hp0=${disk}`], `# ${'x'.repeat(5000)} timeout 7\nexpect \\n# `);
  assert.equal(long.status, 0, long.stderr);
  // While one machine runs on the pack, a second is refused.
  const first = spawn(VAX780, ['--disk', `hp0=${disk}`, '--quiet', '--script', writeScript('timeout 600\nexpect never-printed')]);
  try {
    let second: Run | undefined;
    for (let i = 0; i < 50 && second?.status !== 3; i++) {
      spawnSync('sleep', ['0.05']);
      second = vax780(['--disk', `hp0=${disk}`, '--quiet']);
    }
    assert.equal(second?.status, 3);
    assert.match(second!.stderr, /is in use by another process/);
  } finally {
    first.kill();
  }
});

// Memory comes in steps of 256 KB (an MS780-C array): the paper's 750 had
// 4.5 MB, and the kernel's probe finds all of it.  0.75 MB is the least
// 4.3BSD boots in; 0.5 MB stops its boot with a machine check.
test('--mem 4.5 boots with 4.5 MB; 0.75 is the least (1 MB through /boot); 0.5 is too small; sizes off the 256 KB steps are refused', { skip }, () => {
  const disk = join(work, 'mem.dsk');
  copyFileSync(REF, disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--direct', '--mem', '4.5'], ['timeout 120', 'expect \\n# '].join('\n'));
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-2000)}`);
  assert.match(r.stdout, /real mem {2}= 4718592\r?\n/);
  copyFileSync(REF, disk);
  const small = vax780(['--disk', `hp0=${disk}`, '--direct', '--mem', '0.5'], ['timeout 120', 'expect \\n# '].join('\n'));
  assert.notEqual(small.status, 0);
  assert.match(small.stdout, /real mem {2}= 524288\r?\n[^]*panic: mchk/);
  // 0.75 MB is the least that boots, loaded directly; /boot needs 1 MB and is refused with the reason.
  copyFileSync(REF, disk);
  const least = vax780(['--disk', `hp0=${disk}`, '--direct', '--mem', '0.75'], ['timeout 120', 'expect \\n# '].join('\n'));
  assert.equal(least.status, 0, least.stderr);
  const viaBoot = vax780(['--disk', `hp0=${disk}`, '--mem', '0.75'], ['timeout 120', 'expect \\n# '].join('\n'));
  assert.equal(viaBoot.status, 3);
  assert.match(viaBoot.stderr, /booting through \/boot needs at least 1 MB of memory/);
  // With 0.5 MB the reason must not send one to --direct as if 512 KB booted there (it panics, above).
  const halfViaBoot = vax780(['--disk', `hp0=${disk}`, '--mem', '0.5'], ['timeout 120', 'expect \\n# '].join('\n'));
  assert.equal(halfViaBoot.status, 3);
  assert.match(halfViaBoot.stderr, /this machine has 512 KB\); loaded directly \(--direct\), 4\.3BSD's kernel boots in 768 KB\n$/);
  for (const bad of ['4.3', '0', '64.25', '4.5MB', '']) {
    const refused = vax780(['--disk', `hp0=${disk}`, '--mem', bad]);
    assert.equal(refused.status, 2, `--mem ${bad}: ${refused.stderr}`);
    assert.match(refused.stderr, /--mem takes a size in MB from 0\.25 to 64 in steps of 0\.25/);
  }
});
