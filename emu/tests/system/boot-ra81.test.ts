// 4.3BSD from an RA81 on the UDA50 (MSCP): the installer's RA81 image
// (web/public/images/43bsd-ra81.dsk.gz, npm run image) boots through /boot
// with R10 = ra, single- and multi-user, and passes the checks boot.test.ts
// makes of the RP06; and the command line refuses RA images of the wrong
// size and bad VMB files with one line and exit status 3.  Without the
// image the boot tests are skipped, saying why.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, test } from 'node:test';
import { createGunzip } from 'node:zlib';

import { REPO_ROOT } from '../../js/vaxNode';
import { BSDFS, outputOf, runVax780, typeFile, type Run } from './guestShell';

// $VAXLAB_VAX780 picks another build of the machine (npm test runs these
// tests again on the ASan/UBSan one).
const IMAGE_GZ = process.env.VAXLAB_RA81_IMAGE ?? join(REPO_ROOT, 'web/public/images/43bsd-ra81.dsk.gz');
const RA81_BYTES = 891072 * 512;
const haveImage = existsSync(IMAGE_GZ);
const skip = haveImage ? false : `RA81 image ${IMAGE_GZ} absent (npm run image builds it)`;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-ra81-'));
const image = join(work, '43bsd-ra81.dsk');
before(async () => {
  if (haveImage) await pipeline(createReadStream(IMAGE_GZ), createGunzip(), createWriteStream(image));
});
after(() => rmSync(work, { recursive: true, force: true }));

const vax780 = (args: string[], script?: string): Run => runVax780(work, args, script);

test('single-user from the RA81: the UDA50 probed, root on ra0a, ls, df, ps, date, sum /vmunix, the guest cc', { skip }, () => {
  const script = [
    'timeout 600',
    'expect \\n# ',
    'send ls -l /', 'expect \\n# ',
    'send mount /dev/ra0h /usr', 'expect \\n# ',
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
  // --snapshot: the writes stay in memory, the unpacked image is shared by the tests.
  const r = vax780(['--disk', `ra0=${image}:RA81`, '--snapshot', '--boot', 'single'], script);
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-3000)}`);
  const t = r.stdout;
  assert.match(t, /^: ra\(0,0\)vmunix/m);   // /boot read the kernel through its uda driver
  assert.match(t, /4\.3 BSD UNIX #1: Fri Jun {2}6 19:55:29 PDT 1986/);
  assert.match(t, /uda0 at uba0 csr 172150 vec 774, ipl 15\r?\n\r?ra0 at uda0 slave 0/);
  assert.match(t, /Changing root device to ra0a/);

  const ls = outputOf(t, 'ls -l /');
  assert.match(ls, /^-rwxr-xr-x +\d+ root +407552 .* vmunix$/m, ls);
  const df = outputOf(t, 'df');
  assert.match(df, /^\/dev\/ra0a +\d+ +\d+ +\d+ +\d+% +\/$/m, df);
  assert.match(df, /^\/dev\/ra0h +\d+ +\d+ +\d+ +\d+% +\/usr$/m, df);
  assert.ok(outputOf(t, 'ps ax').trim().split('\n').length >= 4);
  assert.match(outputOf(t, 'date'), /^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \w{3} \d{4}$/m);

  // The root is partition a at block 0 on both disks: the host's reader finds /vmunix there.
  const hostSum = spawnSync(BSDFS, [image, 'sum', '/vmunix'], { encoding: 'utf8' });
  assert.equal(hostSum.status, 0, hostSum.stderr);
  assert.equal(outputOf(t, '/tmp/sum /vmunix').trim(), hostSum.stdout.trim());
  assert.equal(outputOf(t, '/tmp/arith').trim(), [
    'squares 338350 quotient -3 remainder -1',
    'string vaxlab-4.3 length 10',
    'double 57.6650 9.500000e+00 0.666667',
    'float 0.333333 int 5766',
  ].join('\n'));
});

test('multi-user from the RA81: reboot to login:, halt; the file systems check clean on the next boot', { skip }, () => {
  const disk = join(work, 'multi.dsk');
  copyFileSync(image, disk);
  const first = vax780(['--disk', `ra0=${disk}:RA81`, '--boot', 'single'], [
    'timeout 600',
    'expect \\n# ',
    'send sync', 'expect \\n# ',
    'send reboot',
    'expect login: ',
    'send root',
    'expect myname# ',
    'send sync', 'expect myname# ',
    'send /etc/halt',
    'expect halting (in tight loop)',
    'expect HALT',
    'type \\x10',
    'wait-halt',
  ].join('\n'));
  assert.equal(first.status, 0, `vax780 failed: ${first.stderr}\n${first.stdout.slice(-3000)}`);
  const second = vax780(['--disk', `ra0=${disk}:RA81`, '--boot', 'multi'], ['timeout 600', 'expect login: '].join('\n'));
  rmSync(disk);
  assert.equal(second.status, 0, `vax780 failed: ${second.stderr}\n${second.stdout.slice(-3000)}`);
  assert.match(second.stdout, /\/dev\/ra0a: \d+ files, \d+ used, \d+ free/);
  assert.match(second.stdout, /\/dev\/rra0h: \d+ files, \d+ used, \d+ free/);
  assert.doesNotMatch(second.stdout, /UNEXPECTED INCONSISTENCY|FILE SYSTEM WAS MODIFIED|unclean/);
});

test('--direct from the RA81 loads /vmunix from ra0a with R10 = ra', { skip }, () => {
  const r = vax780(['--disk', `ra0=${image}:RA81`, '--snapshot', '--direct'],
    ['timeout 120', 'expect \\n# ', 'send date', 'expect \\n# '].join('\n'));
  assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout.slice(-2000)}`);
  assert.doesNotMatch(r.stdout, /: ra\(0,0\)vmunix/);   // /boot never ran
  assert.match(r.stdout, /Changing root device to ra0a/);
});

test('RA images of the wrong size are refused with one line and status 3; shorter ones are taken with --snapshot', () => {
  const short = join(work, 'short.dsk');
  writeFileSync(short, Buffer.alloc(1 << 20));
  const r = vax780(['--disk', `ra0=${short}`]);
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^vax780: ra0: .* is 1048576 bytes; an RA81 pack is 456228864 bytes \(891072 blocks\) \(a shorter image needs --snapshot\)$/m);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const long = join(work, 'long.dsk');
  writeFileSync(long, Buffer.alloc(0));
  truncateSync(long, RA81_BYTES + 512);
  const l = vax780(['--disk', `ra0=${long}:RA81`, '--snapshot']);
  assert.equal(l.status, 3);
  assert.match(l.stderr, /^vax780: ra0: .* is 456229376 bytes; an RA81 pack is 456228864 bytes/m);
  const odd = join(work, 'odd.dsk');
  writeFileSync(odd, Buffer.alloc(1000));
  assert.equal(vax780(['--disk', `ra0=${odd}`, '--snapshot']).status, 3);
  const unknown = vax780(['--disk', `ra0=${short}:RA99`]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown drive type "RA99" \(known: RA60 RA80 RA81 RA82\)/);
  rmSync(long);
});

test('a VMB file that is missing, empty or truncated is refused with one line and status 3', () => {
  const disk = join(work, 'blank.dsk');
  writeFileSync(disk, Buffer.alloc(0));
  truncateSync(disk, RA81_BYTES);
  const missing = vax780(['--disk', `ra0=${disk}`, '--console-boot', `vmb=${join(work, 'no-such-vmb.exe')}`]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /^vax780: cannot open .*no-such-vmb\.exe: No such file or directory$/m);
  assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
  const truncated = join(work, 'vmb-short.exe');
  writeFileSync(truncated, Buffer.alloc(700));
  const t = vax780(['--disk', `ra0=${disk}`, '--console-boot', `vmb=${truncated}`]);
  assert.equal(t.status, 3);
  assert.match(t.stderr, /^vax780: .*vmb-short\.exe: 700 bytes is not a VMB image \(a whole number of 512-byte blocks\)$/m);
  const noDrive = vax780(['--disk', `ra0=${disk}`, '--console-boot', `vmb=${truncated}`, '--boot-device', 'dua2']);
  assert.equal(noDrive.status, 2);
  assert.match(noDrive.stderr, /--boot-device dua2: there is no --disk ra2/);
  rmSync(disk);
});
