// Installing 4.3BSD from the distribution tape on the emulated 780: the
// standalone programs of the tape's tp archive (vax780 --standalone
// tape:NAME) and the whole installer (installer/install.ts), end to end,
// with the lab's additions (experiments/guest's programs compiled in the
// guest, /usr/lab/names) read back from the image's /usr on the host.
//
// Needs the distribution files (../shared/bsd/4.3BSD, or VAXLAB_DIST);
// without them the tests are skipped, saying why.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import { defaultDistDir, loadDistribution, unpack } from './lib/dist';
import { RP06_BYTES, RP06_PARTITIONS, createBlankRp06 } from './lib/disk';
import { buildTape } from './lib/tape';
import { REPO_ROOT } from '../emu/js/vaxNode';

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

test('the installer builds a 4.3BSD RP06 with the lab\'s additions that boots, and a re-run does nothing (no kernels)',
  { skip, timeout: 20 * 60_000 }, (t) => {
  const out = join(work, 'out');
  // The lab's sources as they are now, copied so that they stay the same through the test.
  const guest = join(work, 'guest');
  cpSync(join(REPO_ROOT, 'experiments/guest'), guest, { recursive: true });
  const env = { ...process.env, VAXLAB_WORK: work, VAXLAB_DIST_VERSION: '' };
  const run = (...extra: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'installer/install.ts'),
    '--out', out, '--dist', DIST, '--dist42', join(work, 'no-4.2'), '--guest', guest, '--no-kernels', ...extra],
  { encoding: 'utf8', env, cwd: REPO_ROOT, timeout: 15 * 60_000, maxBuffer: 64 << 20 });
  let r = run();
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  assert.match(r.stdout, /usr\.tar .* skipped/);
  // The kernels are built from the cached image by the default run (installer/kernels.test.ts checks them).
  assert.match(r.stdout, /4\.3BSD kernels: not built \(--no-kernels\)/);
  assert.match(r.stdout, /4\.2BSD distribution not found in .*no-4\.2 \(looked for stand\.gz, .*\): skipping 4\.2BSD, building 4\.3BSD only/);
  const m = JSON.parse(readFileSync(join(out, '43bsd.json'), 'utf8')) as {
    cacheKey: string; image: { sha256: string; bytes: number; uncompressedBytes: number; uncompressedSha256: string }; disk: { model: string };
    distribution: { notInDistribution: string[] }; steps: { step: string }[]; tape: { files: { name: string }[] };
    lab: { sources: { name: string; sha256: string }[]; programs: { name: string; bytes: number | null }[];
      names: { dir: string; files: number } };
  };
  assert.equal(m.disk.model, 'RP06');
  assert.equal(m.image.uncompressedBytes, RP06_BYTES);
  assert.deepEqual(m.distribution.notInDistribution, ['usr.tar']);
  assert.ok(m.steps.some((s) => s.step.includes('multi-user')));
  const gz = readFileSync(join(out, '43bsd.dsk.gz'));
  assert.equal(gz.length, m.image.bytes);
  const raw = gunzipSync(gz);
  const img = join(work, 'installed.dsk');
  writeFileSync(img, raw);
  const bsdfs = (image: string, ...a: string[]) => spawnSync(BSDFS, [image, ...a], { encoding: 'latin1' }).stdout;
  assert.equal(bsdfs(img, 'cat', '/etc/fstab'), '/dev/hp0a:/:rw:1:1\n/dev/hp0g:/usr:rw:1:2\n');
  assert.match(bsdfs(img, 'ls', '/dev'), /\trmt12\n[^]*\ttty00\n/);
  assert.match(bsdfs(img, 'stat', '/vmunix'), /size 407552/);
  const log = readFileSync(join(out, '43bsd.log'), 'latin1');
  assert.match(log, /login: root/);

  // /usr (hp0g) as a file of its own, for bsdfs (which reads a file system at offset 0).
  const g = RP06_PARTITIONS.find((p) => p.name === 'g')!;
  const usr = join(work, 'usr.fs');
  writeFileSync(usr, raw.subarray(g.offset * 512, (g.offset + g.sectors) * 512));
  const names = (dir: string) => bsdfs(usr, 'ls', dir).split('\n').filter(Boolean).map((l) => l.split('\t')[1]!)
    .filter((n) => n !== '.' && n !== '..').sort();
  assert.equal(names('/lab/names').length, 600);
  assert.match(bsdfs(usr, 'cat', '/lab/names/f599'), /^599\n$/);
  const sources = m.lab.sources.map((f) => f.name).sort();
  assert.deepEqual(names('/lab/src'), sources);
  for (const f of m.lab.sources) {
    const sum = createHash('sha256').update(Buffer.from(bsdfs(usr, 'cat', `/lab/src/${f.name}`), 'latin1')).digest('hex');
    assert.equal(sum, f.sha256, `/usr/lab/src/${f.name} is the source`);
  }
  assert.deepEqual(names('/lab/bin'), m.lab.programs.map((p) => p.name).sort());
  for (const p of m.lab.programs) {
    const st = bsdfs(usr, 'stat', `/lab/bin/${p.name}`);
    assert.match(st, /mode 0?100755/, `${p.name}: ${st}`);
    assert.match(st, new RegExp(`size ${p.bytes}\\b`));
  }
  if (m.lab.programs.length > 0) {
    assert.ok(m.tape.files.some((f) => f.name === 'lab.tar'));
    assert.match(log, /^check \S+: ran\r?$/m);
  }
  assert.match(log, /^names: 600\r?$/m);
  const big = m.lab.programs.find((p) => p.name === 'bigjob');
  if (big) assert.ok(big.bytes! >= 250 * 1024, `bigjob is ${big.bytes} bytes: its 250 KB array is in the a.out's data`);

  // The pack is a function of its cache key's inputs: built again here (another directory, another hour), it is the
  // lab's byte for byte when the key is the lab's. So a change to the installer's code that moves the key and nothing
  // else (a comment) costs a rebuild of the same pack, and what is recorded of it (a result's image SHA-256, the
  // shipped snapshots keyed by it) stays as it was.
  const labManifest = join(REPO_ROOT, 'web/public/images/43bsd.json');
  const lab = existsSync(labManifest) ? JSON.parse(readFileSync(labManifest, 'utf8')) as typeof m : null;
  if (lab?.cacheKey === m.cacheKey) assert.equal(m.image.uncompressedSha256, lab.image.uncompressedSha256, 'the same inputs, another pack');
  else t.diagnostic(lab ? 'the lab image was built from other inputs: not compared' : 'no lab image: not compared');

  r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /up to date/);
  assert.doesNotMatch(r.stdout, /standalone copy/);

  // A changed benchmark source makes the image out of date.
  const first = m.lab.sources.find((f) => f.name.endsWith('.c'));
  if (first) {
    writeFileSync(join(guest, first.name), readFileSync(join(guest, first.name), 'latin1') + '/* changed */\n');
    r = run('--check');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /43bsd\.dsk\.gz would be built/);
  }
});
