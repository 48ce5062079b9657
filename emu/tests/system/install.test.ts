// Installing 4.3BSD from the distribution tape on the emulated 780: the
// standalone programs of the tape's tp archive (vax780 --standalone
// tape:NAME) and the whole installer (installer/install.ts), end to end.
//
// Needs the distribution files (../shared/bsd/4.3BSD, or VAXLAB_DIST);
// without them the tests are skipped, saying why.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import { defaultDistDir, loadDistribution, unpack } from '../../../installer/lib/dist';
import { RP06_BYTES, createBlankRp06 } from '../../../installer/lib/disk';
import { buildTape } from '../../../installer/lib/tape';
import { REPO_ROOT } from '../../../web/src/emulator/vaxNode';

const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const BSDFS = join(REPO_ROOT, 'emu/build/native/bsdfs');
const DIST = defaultDistDir(REPO_ROOT);
const haveDist = existsSync(join(DIST, 'stand.gz'));
const skip = haveDist ? false : `the 4.3BSD distribution is not in ${DIST} (set VAXLAB_DIST)`;

const work = mkdtempSync(join(tmpdir(), 'vaxlab-install-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

let tapePath: string | null = null;
async function tape(): Promise<string> {
  if (tapePath) return tapePath;
  const d = await loadDistribution(DIST, { download: false, baseUrl: '', log: () => {} });
  const dir = join(work, 'dist');
  mkdirSync(dir);
  tapePath = join(work, '43bsd.tap');
  buildTape(tapePath, unpack(d, dir));
  return tapePath;
}

function vax780(args: string[], script: string): { status: number | null; stdout: string; stderr: string } {
  const path = join(work, `script-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(path, script);
  const r = spawnSync(VAX780, [...args, '--script', path], { encoding: 'latin1', timeout: 5 * 60_000, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--standalone tape:NAME runs the tape\'s copy and boot, and names what the archive has', { skip }, async () => {
  const t = await tape();
  const disk = join(work, 'standalone.dsk');
  createBlankRp06(disk);
  // A blank disk cannot be booted...
  let r = vax780(['--disk', `hp0=${disk}`], 'expect x');
  assert.equal(r.status, 3, r.stderr);
  // ...but a standalone program runs on it.
  r = vax780(['--disk', `hp0=${disk}`, '--tape', `ts0=${t}`, '--standalone', 'tape:copy'],
    ['timeout 30', 'expect From: ', 'send ts(0,1)', 'expect To: ', 'send hp(0,1)', 'timeout 600',
      'expect Copy completed: 205 records copied', 'wait-halt'].join('\n'));
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  const mini = readFileSync(join(work, 'dist/miniroot'));
  const onDisk = readFileSync(disk).subarray(38 * 418 * 512, 38 * 418 * 512 + mini.length);
  assert.ok(onDisk.equals(mini), 'hp0b holds the mini-root');
  // The tape's boot (JUSTASK) loads the mini-root's kernel; root on hp0b.
  r = vax780(['--disk', `hp0=${disk}`, '--tape', `ts0=${t}`, '--standalone', 'tape:boot'],
    ['timeout 60', 'expect Boot', 'expect : ', 'send hp(0,1)vmunix', 'timeout 300', 'expect root device? ', 'send hp0*',
      'expect \\n# ', 'send ls /etc', 'expect \\n# '].join('\n'));
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  assert.match(r.stdout, /279844\+80872\+100324 start 0x12f8/);
  assert.match(r.stdout, /restore/);
  r = vax780(['--disk', `hp0=${disk}`, '--tape', `ts0=${t}`, '--standalone', 'tape:nosuch'], 'expect x');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /no file "nosuch" \(it has: boot, copy, format\)/);
  r = vax780(['--disk', `hp0=${disk}`, '--standalone', 'tape:copy'], 'expect x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /needs --tape/);
});

test('--standalone tape runs the tape\'s own bootstrap (tsboot): copy, then boot, in one session', { skip }, async () => {
  const t = await tape();
  const disk = join(work, 'tsboot.dsk');
  createBlankRp06(disk);
  const r = vax780(['--disk', `hp0=${disk}`, '--tape', `ts0=${t}`, '--standalone', 'tape'],
    ['timeout 30', 'expect =', 'send copy', 'expect From: ', 'send ts(0,1)', 'expect To: ', 'send hp(0,1)', 'timeout 600',
      'expect Copy completed: 205 records copied', 'expect =', 'send boot', 'expect : ', 'send hp(0,1)vmunix', 'timeout 300',
      'expect root device? ', 'send hp0*', 'expect \\n# ', 'send ls /xtr /etc/restore', 'expect \\n# '].join('\n'));
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  assert.match(r.stdout, /\/etc\/restore\s+\/xtr\r?\n/);   // ls in columns: the mini-root is up
  const noTape = vax780(['--disk', `hp0=${disk}`, '--standalone', 'tape'], 'expect x');
  assert.equal(noTape.status, 2);
});

test('the installer builds a 4.3BSD RP06 that boots, and a re-run does nothing', { skip, timeout: 20 * 60_000 }, () => {
  const out = join(work, 'out');
  const env = { ...process.env, VAXLAB_WORK: work };
  const run = () => spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'installer/install.ts'), '--out', out, '--dist', DIST],
    { encoding: 'utf8', env, cwd: REPO_ROOT, timeout: 15 * 60_000, maxBuffer: 64 << 20 });
  let r = run();
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  assert.match(r.stdout, /usr\.tar .* skipped/);
  const m = JSON.parse(readFileSync(join(out, '43bsd.json'), 'utf8')) as {
    image: { sha256: string; bytes: number; uncompressedBytes: number }; disk: { model: string };
    distribution: { notInDistribution: string[] }; steps: { step: string }[];
  };
  assert.equal(m.disk.model, 'RP06');
  assert.equal(m.image.uncompressedBytes, RP06_BYTES);
  assert.deepEqual(m.distribution.notInDistribution, ['usr.tar']);
  assert.ok(m.steps.some((s) => s.step.includes('multi-user')));
  const gz = readFileSync(join(out, '43bsd.dsk.gz'));
  assert.equal(gz.length, m.image.bytes);
  const img = join(work, 'installed.dsk');
  writeFileSync(img, gunzipSync(gz));
  const bsdfs = (...a: string[]) => spawnSync(BSDFS, [img, ...a], { encoding: 'latin1' }).stdout;
  assert.equal(bsdfs('cat', '/etc/fstab'), '/dev/hp0a:/:rw:1:1\n/dev/hp0g:/usr:rw:1:2\n');
  assert.match(bsdfs('ls', '/dev'), /\trmt12\n[^]*\ttty00\n/);
  assert.match(bsdfs('stat', '/vmunix'), /size 407552/);
  assert.match(readFileSync(join(out, '43bsd.log'), 'latin1'), /login: root/);

  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /up to date/);
  assert.doesNotMatch(r.stdout, /standalone copy/);
});
