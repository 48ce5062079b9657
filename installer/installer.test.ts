// Unit tests of the installer's pieces that need no emulator: the
// distribution check, the tape assembly (4.3BSD's and 4.2BSD's orders), the
// tar writer, the lab's sources and their console script blocks, the
// versions and the "4.2BSD not found" message, script templates, the cache
// key, the kernels' sources and build script (lib/kernels.ts).  (The whole
// installation is run by installer/install.test.ts, the kernels it builds
// are checked by installer/kernels.test.ts.)
//
//   node --import tsx --test installer/installer.test.ts

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { DIST_FILES, DistError, loadDistribution, parseSums, unpack } from './lib/dist';
import type { FetchLike } from './lib/dist';
import { RP06_BYTES, RP06_PARTITIONS, RP06_SECTORS, createBlankRp06 } from './lib/disk';
import { cacheKey, gzipFile, treeDigest, upToDate, writeJsonAtomic } from './lib/output';
import {
  DEFAULT_BUILD, LAB_TOOLS, buildLines, checkLines, checkRun, commandFromTemplate, extractLines, findLabSources, namesLoop,
  parseBinListing, sourceDirective, toolLines, LAB_ROOT_BIN,
} from './lib/lab';
import { readmeBuildTemplate } from '../experiments/guest/buildLine';
import {
  BUILD_SCRIPT, KernelSourceError, buildScript, compiledFiles, findBuildFailure, findKernelSources, kernelGuestPath, kernelTarEntries,
  objectsToRebuild, parsePatch, timeOf,
} from './lib/kernels';
import { TAPE_LAYOUT, buildTape, readTapeLayout } from './lib/tape';
import { makeTar, readTar } from './lib/tar';
import { BSD42, BSD43, TAPE_LAYOUT_42, absentMessage, findDistribution, versionById, versionDistDir } from './lib/versions';
import { renderScript } from './lib/vax780';
import { KERNELS, NO_NAME_CACHE } from '../experiments/kernels/variants';

const work = mkdtempSync(join(tmpdir(), 'vaxlab-installer-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const quiet = (): void => {};

/** A fake distribution: each file gzipped, with a SHA256SUMS. */
function fakeDist(dir: string, contents: Record<string, Buffer>): void {
  let sums = '';
  for (const f of DIST_FILES) {
    const gz = gzipSync(contents[f.unpacked] ?? Buffer.from(f.unpacked));
    writeFileSync(join(dir, f.name), gz);
    sums += `${sha(gz)}  ${f.name}\n`;
  }
  writeFileSync(join(dir, 'SHA256SUMS'), sums);
}

test('SHA256SUMS lines are parsed, junk is refused', () => {
  const s = parseSums(`${'a'.repeat(64)}  stand.gz\n\n${'B'.repeat(64)} *miniroot.gz\n`);
  assert.equal(s.get('stand.gz'), 'a'.repeat(64));
  assert.equal(s.get('miniroot.gz'), 'b'.repeat(64));
  assert.throws(() => parseSums('xyz stand.gz\n'), DistError);
});

test('a missing distribution names the files and where it looked', async () => {
  const dir = join(work, 'empty');
  await assert.rejects(loadDistribution(dir, { download: false, baseUrl: 'http://127.0.0.1:9/', log: quiet }),
    (e: Error) => e instanceof DistError && e.message.includes(dir) && e.message.includes('stand.gz') &&
      e.message.includes('srcsys.tar.gz'));
});

test('an unreachable archive gives "cannot reach URL"', async () => {
  const dir = join(work, 'unreachable');
  const failing: FetchLike = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND') }));
  await assert.rejects(loadDistribution(dir, { download: true, baseUrl: 'https://archive.invalid/4.3BSD', log: quiet, fetchFn: failing }),
    (e: Error) => e instanceof DistError && /^cannot reach https:\/\/archive\.invalid\/4\.3BSD\/stand\.gz \(fetch failed: getaddrinfo ENOTFOUND\)/.test(e.message));
});

test('a download that does not match the known sum is not kept', async () => {
  const dir = join(work, 'badsum');
  const wrong: FetchLike = () => Promise.resolve({ ok: true, status: 200, statusText: 'OK',
    arrayBuffer: () => Promise.resolve(new Uint8Array([1, 2, 3]).buffer) });
  await assert.rejects(loadDistribution(dir, { download: true, baseUrl: 'https://x.invalid/', log: quiet, fetchFn: wrong }),
    /SHA-256 .* expected .*; not kept/);
});

test('the sums are checked, and a changed file is caught', async () => {
  const dir = mkdtempSync(join(work, 'dist-'));
  fakeDist(dir, {});
  const d = await loadDistribution(dir, { download: false, baseUrl: '', log: quiet });
  assert.deepEqual(d.files.map((f) => f.name), DIST_FILES.map((f) => f.name));
  assert.ok(d.notes.some((n) => n.includes('not the file this installer was tested with')));
  const files = unpack(d, mkdtempSync(join(work, 'unpacked-')));
  assert.equal(readFileSync(files.get('miniroot')!, 'latin1'), 'miniroot');
  writeFileSync(join(dir, 'rootdump.gz'), gzipSync(Buffer.from('changed')));
  await assert.rejects(loadDistribution(dir, { download: false, baseUrl: '', log: quiet }), /rootdump\.gz: SHA-256 .* does not match/);
});

test('the tape: maketape order and record sizes, usr.tar skipped, padding, two end marks', () => {
  const dir = mkdtempSync(join(work, 'tape-'));
  const src = new Map<string, string>();
  const sizes: Record<string, number> = { stand: 3 * 512, miniroot: 2 * 10240, rootdump: 10240 + 100, 'srcsys.tar': 10240 };
  for (const [name, n] of Object.entries(sizes)) {
    const p = join(dir, name);
    writeFileSync(p, Buffer.alloc(n, name.charCodeAt(0)));
    src.set(name, p);
  }
  const tapePath = join(dir, 't.tap');
  const info = buildTape(tapePath, src);
  assert.deepEqual(info.skipped, ['usr.tar']);
  assert.deepEqual(info.files.map((f) => [f.file, f.name, f.records, f.padded]),
    [[0, 'stand', 3, 0], [1, 'miniroot', 2, 0], [2, 'rootdump', 2, 10140], [3, 'srcsys.tar', 1, 0]]);
  assert.deepEqual(readTapeLayout(tapePath), [[512, 512, 512], [10240, 10240], [10240, 10240], [10240], []]);
  const bytes = readFileSync(tapePath);
  assert.equal(bytes.readUInt32LE(0), 512);
  assert.equal(bytes.readUInt32LE(4 + 512), 512);
  assert.equal(bytes.readUInt32LE(bytes.length - 4), 0);
  assert.equal(bytes.readUInt32LE(bytes.length - 8), 0);
  assert.equal(info.bytes, bytes.length);
  assert.deepEqual(TAPE_LAYOUT.map((l) => l.name), ['stand', 'miniroot', 'rootdump', 'usr.tar', 'srcsys.tar']);
  src.delete('miniroot');
  assert.throws(() => buildTape(tapePath, src), /no file for miniroot/);
});

test('the RP06: 815 x 19 x 22 sectors, partitions inside the pack', () => {
  assert.equal(RP06_SECTORS, 340670);
  assert.equal(RP06_BYTES, 174423040);
  for (const p of RP06_PARTITIONS) assert.ok(p.offset + p.sectors <= RP06_SECTORS, p.name);
  const path = join(work, 'blank.dsk');
  createBlankRp06(path);
  assert.equal(statSync(path).size, RP06_BYTES);
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 20, 1);
  for (const at of [0, RP06_BYTES / 2, RP06_BYTES - buf.length]) {
    readSync(fd, buf, 0, buf.length, at);
    assert.ok(buf.equals(Buffer.alloc(buf.length)), `zeros at ${at}`);
  }
  closeSync(fd);
});

test('script placeholders are filled, and an unknown one is an error', () => {
  assert.equal(renderScript('send ts(0,{{MINIROOT_FILE}})\n', { MINIROOT_FILE: 1 }), 'send ts(0,1)\n');
  assert.throws(() => renderScript('{{NOPE}}', {}), /\{\{NOPE\}\} has no value/);
});

test('the cache key follows the inputs and the installer; upToDate checks the image', async () => {
  const a = [{ name: 'x.gz', sha256: 'a' }, { name: 'y.gz', sha256: 'b' }];
  const k = cacheKey(a, '1', 's');
  assert.equal(cacheKey([...a].reverse(), '1', 's'), k);
  assert.notEqual(cacheKey(a, '2', 's'), k);
  assert.notEqual(cacheKey(a, '1', 't'), k);
  assert.notEqual(cacheKey([{ name: 'x.gz', sha256: 'c' }, a[1]!], '1', 's'), k);

  const raw = join(work, 'img.dsk');
  writeFileSync(raw, Buffer.alloc(100000, 7));
  const gzPath = join(work, 'img.dsk.gz');
  const gz = await gzipFile(raw, gzPath);
  assert.equal(gz.uncompressedBytes, 100000);
  assert.equal(gz.sha256, sha(readFileSync(gzPath)));
  const man = join(work, 'img.json');
  writeJsonAtomic(man, { cacheKey: k, image: { sha256: gz.sha256, bytes: gz.bytes } });
  assert.ok(await upToDate(man, gzPath, k));
  assert.equal(await upToDate(man, gzPath, 'other'), null);
  writeFileSync(gzPath, Buffer.alloc(gz.bytes, 1));
  assert.equal(await upToDate(man, gzPath, k), null);
});

test('the cache key follows the extra inputs (the lab\'s sources); none leaves the key as it was', () => {
  const a = [{ name: 'x.gz', sha256: 'a' }];
  assert.equal(cacheKey(a, '1', 's', undefined), cacheKey(a, '1', 's'));
  const k = cacheKey(a, '1', 's', { lab: [['syscall.c', 'aa']] });
  assert.notEqual(k, cacheKey(a, '1', 's'));
  assert.notEqual(k, cacheKey(a, '1', 's', { lab: [['syscall.c', 'ab']] }));
  assert.equal(k, cacheKey(a, '1', 's', { lab: [['syscall.c', 'aa']] }));
});

test('the emulator sources\' digest covers subfolders and only the named suffixes, and moves with any change', () => {
  const d = join(work, 'emu-src');
  mkdirSync(join(d, 'cpu'), { recursive: true });
  writeFileSync(join(d, 'machine.c'), 'int a;\n');
  writeFileSync(join(d, 'cpu', 'execute.c'), 'int b;\n');
  writeFileSync(join(d, 'cpu', 'cpu.h'), '#define C 1\n');
  writeFileSync(join(d, 'notes.md'), 'not a source\n');
  const k = treeDigest(d, ['.c', '.h']);
  assert.match(k, /^[0-9a-f]{64}$/);
  assert.equal(treeDigest(d, ['.h', '.c']), k);
  writeFileSync(join(d, 'notes.md'), 'changed, still not a source\n');
  assert.equal(treeDigest(d, ['.c', '.h']), k, 'a file of another suffix does not count');
  writeFileSync(join(d, 'cpu', 'execute.c'), 'int b2;\n');
  const k2 = treeDigest(d, ['.c', '.h']);
  assert.notEqual(k2, k, 'a change in a subfolder moves the digest');
  writeFileSync(join(d, 'cpu', 'extra.h'), '\n');
  assert.notEqual(treeDigest(d, ['.c', '.h']), k2, 'a new header moves the digest');
  rmSync(join(d, 'cpu', 'extra.h'));
  writeFileSync(join(d, 'execute.c'), 'int b2;\n');
  rmSync(join(d, 'cpu', 'execute.c'));
  assert.notEqual(treeDigest(d, ['.c', '.h']), k2, 'the same bytes under another path are another tree');
});

// ------------------------------------------------------------------ tar

test('tar: old V7 headers as 4.3BSD\'s tar writes them, 512-byte blocks, padded to 20-block records', () => {
  const data = Buffer.from('main() { exit(0); }\n');
  const t = makeTar([{ name: 'nulljob.c', data, mode: 0o644, mtime: 518443200 },
    { name: 'big.c', data: Buffer.alloc(1000, 0x61), mode: 0o600, mtime: 1 }]);
  assert.equal(t.length, 10240);
  const h = t.subarray(0, 512);
  assert.equal(h.subarray(0, 10).toString('latin1'), 'nulljob.c\0');
  assert.equal(h.subarray(100, 108).toString('latin1'), '000644 \0');
  assert.equal(h.subarray(108, 116).toString('latin1'), '000000 \0');
  assert.equal(h.subarray(124, 136).toString('latin1'), `${data.length.toString(8).padStart(11, '0')} `);
  assert.equal(h.subarray(136, 148).toString('latin1'), `${(518443200).toString(8).padStart(11, '0')} `);
  assert.equal(h[156], 0, 'linkflag NUL: a regular file');
  assert.equal(h.subarray(257, 263).toString('latin1'), '\0'.repeat(6), 'no ustar magic');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  assert.equal(h.subarray(148, 156).toString('latin1'), `${sum.toString(8).padStart(6, '0')}\0 `);
  assert.deepEqual(t.subarray(512, 512 + data.length), data);
  const back = readTar(t);
  assert.deepEqual(back.map((m) => [m.name, m.mode, m.mtime, m.data.length]), [['nulljob.c', 0o644, 518443200, data.length],
    ['big.c', 0o600, 1, 1000]]);
  // 3 files of 4 KB + headers + end blocks go over one record: two records.
  assert.equal(makeTar(['a', 'b', 'c'].map((n) => ({ name: n, data: Buffer.alloc(4096), mode: 0o644, mtime: 0 }))).length, 20480);
  assert.throws(() => makeTar([{ name: 'x'.repeat(100), data, mode: 0o644, mtime: 0 }]), /1 to 99 bytes/);
  assert.throws(() => makeTar([{ name: 'a b', data, mode: 0o644, mtime: 0 }]), /printable/);
  assert.throws(() => makeTar([{ name: 'a', data, mode: 0o644, mtime: 0 }, { name: 'a', data, mode: 0o644, mtime: 0 }]), /twice/);
  const bad = Buffer.from(t);
  bad[0] = 0x4d;
  assert.throws(() => readTar(bad), /checksum error/);
});

test('tar: the host\'s tar reads the archive back', { skip: spawnSync('tar', ['--version']).status === 0 ? false : 'no tar on the host' }, () => {
  const dir = mkdtempSync(join(work, 'tar-'));
  const files = { 'syscall.c': 'main() { getpid(); }\n', 'empty.h': '' };
  writeFileSync(join(dir, 'a.tar'), makeTar(Object.entries(files).map(([name, d]) => ({ name, data: Buffer.from(d), mode: 0o644, mtime: 518443200 }))));
  const out = join(dir, 'x');
  mkdirSync(out);
  const r = spawnSync('tar', ['xf', join(dir, 'a.tar'), '-C', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  for (const [name, d] of Object.entries(files)) assert.equal(readFileSync(join(out, name), 'utf8'), d);
  assert.equal(statSync(join(out, 'syscall.c')).mtimeMs, 518443200 * 1000);
});

// ------------------------------------------------------------------ the lab's sources

test('lab: every NAME.c is a program; the README\'s build line, a source\'s own, or the default', () => {
  const dir = mkdtempSync(join(work, 'guest-'));
  writeFileSync(join(dir, 'README.md'), '# x\n\nprose cc -O -o NAME NAME.c\n\n```sh\ncc  -O -I/sys/h -o NAME NAME.c\n```\n');
  writeFileSync(join(dir, 'syscall.c'), 'main() {}\n');
  writeFileSync(join(dir, 'nulljob.c'), '/*\n * nulljob\n */\n/* check: */\nmain() { exit(0); }\n');
  writeFileSync(join(dir, 'own.c'), '/* build: cc -o /usr/lab/bin/own own.c -lm */\nmain() {}\n');
  writeFileSync(join(dir, 'part.c'), '/* build: none */\nint x;\n');
  writeFileSync(join(dir, 'defs.h'), '#define N 1\n');
  writeFileSync(join(dir, 'bad name.c'), 'main() {}\n');
  writeFileSync(join(dir, 'verify.ts'), '');
  const lab = findLabSources(dir);
  assert.equal(lab.readmeBuild, 'cc -O -I/sys/h -o NAME NAME.c');
  assert.deepEqual(lab.files.map((f) => f.name), ['defs.h', 'nulljob.c', 'own.c', 'part.c', 'syscall.c']);
  assert.deepEqual(lab.programs.map((p) => [p.name, p.build, p.buildFrom, p.role]), [
    ['nulljob', 'cc -O -I/sys/h -o /usr/lab/bin/nulljob nulljob.c', 'README', 'null job'],
    ['own', 'cc -o /usr/lab/bin/own own.c -lm', 'source comment', null],
    ['syscall', 'cc -O -I/sys/h -o /usr/lab/bin/syscall syscall.c', 'README', null],
  ]);
  assert.ok(lab.notes.some((n) => n.includes('bad name.c')));
  assert.equal(lab.files[1]!.sha256, sha(readFileSync(join(dir, 'nulljob.c'))));
  // A check comment wins over the built-in preferences.
  assert.deepEqual(checkRun(lab), { program: 'nulljob', args: '' });
  assert.deepEqual(buildLines(lab), [
    'send cc -O -I/sys/h -o /usr/lab/bin/nulljob nulljob.c && echo "nulljob: built" || echo "nulljob: FAILED"', 'expect \\n# ',
    'send (cc -o /usr/lab/bin/own own.c -lm) && echo "own: built" || echo "own: FAILED"', 'expect \\n# ',
    'send cc -O -I/sys/h -o /usr/lab/bin/syscall syscall.c && echo "syscall: built" || echo "syscall: FAILED"', 'expect \\n# ',
  ]);
  assert.ok(checkLines(lab).includes('send /bin/time /usr/lab/bin/nulljob && echo "check nulljob: ran" || echo "check nulljob: FAILED"'));

  // Without a README: the default rule; syscall is the preferred check.
  rmSync(join(dir, 'README.md'));
  writeFileSync(join(dir, 'nulljob.c'), 'main() { exit(0); }\n');
  const plain = findLabSources(dir);
  assert.equal(plain.readmeBuild, null);
  assert.equal(plain.programs.find((p) => p.name === 'syscall')!.build, DEFAULT_BUILD.replace(/NAME/g, 'syscall'));
  assert.equal(DEFAULT_BUILD, 'cc -O -o /usr/lab/bin/NAME NAME.c');
  assert.deepEqual(checkRun(plain), { program: 'syscall', args: '1000' });
});

test('lab: the tools (LAB_TOOLS) are built last, in their own block that also copies them to /lab/bin', () => {
  const dir = mkdtempSync(join(work, 'guest-tools-'));
  writeFileSync(join(dir, 'README.md'), '```\ncc -O -I/sys/h -o NAME NAME.c\n```\n');
  for (const name of ['syscall', 'vmstat', 'w', 'uptime']) writeFileSync(join(dir, `${name}.c`), 'main() {}\n');
  writeFileSync(join(dir, 'kmem.h'), 'int kmem;\n');
  assert.deepEqual([...LAB_TOOLS].sort(), ['iostat', 'uptime', 'vmstat', 'w']);
  const lab = findLabSources(dir);
  assert.deepEqual(lab.programs.map((p) => [p.name, p.tool]), [['syscall', false], ['uptime', true], ['vmstat', true], ['w', true]]);
  assert.deepEqual(buildLines(lab), [
    'send cc -O -I/sys/h -o /usr/lab/bin/syscall syscall.c && echo "syscall: built" || echo "syscall: FAILED"', 'expect \\n# ',
  ]);
  assert.deepEqual(toolLines(lab), [
    'send cd /usr/lab/src', 'expect \\n# ',
    'send cc -O -I/sys/h -o /usr/lab/bin/uptime uptime.c && echo "uptime: built" || echo "uptime: FAILED"', 'expect \\n# ',
    'send cc -O -I/sys/h -o /usr/lab/bin/vmstat vmstat.c && echo "vmstat: built" || echo "vmstat: FAILED"', 'expect \\n# ',
    'send cc -O -I/sys/h -o /usr/lab/bin/w w.c && echo "w: built" || echo "w: FAILED"', 'expect \\n# ',
    'send cd /', 'expect \\n# ',
    'send cp /usr/lab/bin/uptime /usr/lab/bin/vmstat /usr/lab/bin/w /lab/bin', 'expect \\n# ',
  ]);
  rmSync(join(dir, 'vmstat.c'));
  rmSync(join(dir, 'w.c'));
  rmSync(join(dir, 'uptime.c'));
  assert.deepEqual(toolLines(findLabSources(dir)), ['# no tools to build']);
});

test('lab: an empty or missing folder installs nothing and says so', () => {
  const empty = mkdtempSync(join(work, 'guest-empty-'));
  const lab = findLabSources(empty);
  assert.equal(lab.programs.length, 0);
  assert.equal(lab.files.length, 0);
  assert.ok(lab.notes.some((n) => n.includes('no .c files')));
  assert.equal(checkRun(lab), null);
  assert.deepEqual(buildLines(lab), ['# no programs to build']);
  assert.deepEqual(extractLines(null), ['# no sources: nothing on the tape for /usr/lab/src']);
  assert.equal(checkLines(lab).filter((l) => l.startsWith('send ')).length, 2);
  assert.ok(findLabSources(join(work, 'nowhere')).notes[0]!.includes('does not exist'));
  // A build line too long for the terminal's input queue is left out, with a note.
  writeFileSync(join(empty, 'long.c'), `/* build: cc ${'-DX=1 '.repeat(40)}-o /usr/lab/bin/long long.c */\nmain() {}\n`);
  const long = findLabSources(empty);
  assert.deepEqual(long.programs, []);
  assert.deepEqual(long.files.map((f) => f.name), ['long.c']);
  assert.ok(long.notes.some((n) => n.startsWith('long.c: its build command line would be longer than 250')), long.notes.join('\n'));
});

test('lab: the README\'s line, build and check comments, the names loop, the listing', () => {
  assert.equal(readmeBuildTemplate('```\nls\ncc -O -o NAME NAME.c\n```\n'), 'cc -O -o NAME NAME.c');
  assert.equal(readmeBuildTemplate('cc -O -o NAME NAME.c\n'), null, 'outside a code block');
  assert.equal(commandFromTemplate('cc -O -I/sys/h -o NAME NAME.c', 'csw'), 'cc -O -I/sys/h -o /usr/lab/bin/csw csw.c');
  assert.equal(commandFromTemplate('cc -o /usr/lab/bin/NAME NAME.c', 'x'), 'cc -o /usr/lab/bin/x x.c');
  assert.throws(() => commandFromTemplate('cc NAME.c', 'x'), /no "-o NAME"/);
  assert.equal(sourceDirective('/* build: cc -o x x.c */\n', 'build'), 'cc -o x x.c');
  assert.equal(sourceDirective(' * build: cc\n', 'build'), null);
  assert.equal(sourceDirective(`${'\n'.repeat(25)}/* build: late */\n`, 'build'), null);
  const loop = namesLoop(600);
  assert.equal(loop, 'for a in 0 1 2 3 4 5; do for b in 0 1 2 3 4 5 6 7 8 9; do for c in 0 1 2 3 4 5 6 7 8 9; do ' +
    'echo $a$b$c > f$a$b$c; done; done; done');
  assert.ok(loop.length < 200, 'one terminal line');
  assert.throws(() => namesLoop(650), /multiple of 100/);
  assert.deepEqual(extractLines(4).filter((l) => l.startsWith('send')), ['send mt -f /dev/rmt12 rew',
    'send mt -f /dev/rmt12 fsf 4', 'send tar xpbf 20 /dev/rmt12', 'send mt -f /dev/rmt12 rew']);
  const t = '# ls -l /usr/lab/bin\r\ntotal 362\r\n-rwxr-xr-x  1 root       265216 Jul  1 05:16 bigjob\r\n' +
    '-rw-r--r--  1 root         4096 Jul  1 05:17 csw\r\n# ';
  assert.deepEqual(parseBinListing(t), [{ mode: '-rwxr-xr-x', bytes: 265216, name: 'bigjob' },
    { mode: '-rw-r--r--', bytes: 4096, name: 'csw' }]);
  // The copy on the root (where the experiments run the programs) is read from its own listing.
  const both = t + 'ls -l /lab/bin\r\ntotal 270\r\n-rwxr-xr-x  1 root       265216 Jul  1 05:18 bigjob\r\n# ';
  assert.equal(LAB_ROOT_BIN, '/lab/bin');
  assert.deepEqual(parseBinListing(both, LAB_ROOT_BIN), [{ mode: '-rwxr-xr-x', bytes: 265216, name: 'bigjob' }]);
  assert.equal(parseBinListing(both).length, 2, 'the /usr/lab/bin listing is still found');
});

test('step 4d copies the programs to the root file system and lists them there', () => {
  const script = readFileSync(new URL('./scripts/4-lab-additions.vax', import.meta.url), 'utf8');
  assert.match(script, /^send mkdir .* \/lab \{\{LAB_ROOT_BIN\}\}$/m);
  assert.match(script, /^send cp \/usr\/lab\/bin\/\* \{\{LAB_ROOT_BIN\}\}$/m);
  assert.match(script, /^send ls -l \{\{LAB_ROOT_BIN\}\}$/m);
  // Before /usr is unmounted: the copy reads /usr/lab/bin.
  assert.ok(script.indexOf('send cp /usr/lab/bin/*') < script.indexOf('send umount /dev/hp0g'));
});

// ------------------------------------------------------------------ versions: 4.2BSD

test('4.2BSD: the tape puts srcsys.tar before usr.tar; 4.3BSD the other way round', () => {
  const dir = mkdtempSync(join(work, 'tape42-'));
  const src = new Map<string, string>();
  for (const name of ['stand', 'miniroot', 'rootdump', 'srcsys.tar', 'usr.tar', 'lab.tar']) {
    const p = join(dir, name);
    writeFileSync(p, Buffer.alloc(name === 'stand' ? 512 : 10240, name.charCodeAt(0)));
    src.set(name, p);
  }
  const lab = { name: 'lab.tar', recordSize: 10240, what: 'lab' };
  const t42 = buildTape(join(dir, '42.tap'), src, [...TAPE_LAYOUT_42, lab]);
  assert.deepEqual(t42.files.map((f) => [f.file, f.name]),
    [[0, 'stand'], [1, 'miniroot'], [2, 'rootdump'], [3, 'srcsys.tar'], [4, 'usr.tar'], [5, 'lab.tar']]);
  const t43 = buildTape(join(dir, '43.tap'), src, [...TAPE_LAYOUT, lab]);
  assert.deepEqual(t43.files.map((f) => f.name), ['stand', 'miniroot', 'rootdump', 'usr.tar', 'srcsys.tar', 'lab.tar']);
  src.delete('usr.tar');
  const no = buildTape(join(dir, '42b.tap'), src, [...TAPE_LAYOUT_42, lab]);
  assert.deepEqual(no.skipped, ['usr.tar']);
  assert.deepEqual(no.files.map((f) => [f.file, f.name]).slice(3), [[3, 'srcsys.tar'], [4, 'lab.tar']]);
  assert.equal(BSD42.sysDir, '/usr/sys');
  assert.equal(BSD43.sysDir, '/usr/src/sys');
  assert.equal(versionById('4.2'), BSD42);
  assert.equal(versionById('4.3BSD'), BSD43);
  assert.throws(() => versionById('4.1'), /unknown distribution version/);
  assert.equal(versionDistDir(BSD42, '/r/main', {}), resolve('/r/shared/bsd/4.2BSD'));
  assert.equal(versionDistDir(BSD42, '/r/main', { VAXLAB_DIST42: '/x/42' }), '/x/42');
});

test('4.2BSD: its files are found and verified against a SHA256SUMS, or used unverified without one', async () => {
  const dir = mkdtempSync(join(work, 'dist42-'));
  let sums = '';
  for (const f of BSD42.files) {
    const gz = gzipSync(Buffer.from(`4.2 ${f.unpacked}`));
    writeFileSync(join(dir, f.name), gz);
    sums += `${sha(gz)}  ${f.name}\n`;
  }
  const p = findDistribution(BSD42, dir);
  assert.equal(p.complete, true);
  assert.deepEqual(p.optionalPresent, ['usr.tar.gz']);
  const opts = { download: false, baseUrl: '', log: quiet, files: BSD42.files, known: BSD42.known };
  let d = await loadDistribution(dir, opts);
  assert.deepEqual(d.files.map((f) => f.name), ['stand.gz', 'miniroot.gz', 'rootdump.gz', 'srcsys.tar.gz', 'usr.tar.gz']);
  assert.ok(d.notes.some((n) => n.startsWith('not verified: stand.gz, miniroot.gz')), d.notes.join('\n'));
  writeFileSync(join(dir, 'SHA256SUMS'), sums);
  d = await loadDistribution(dir, opts);
  assert.equal(d.sumsFrom, join(dir, 'SHA256SUMS'));
  assert.deepEqual(d.notes, []);
  writeFileSync(join(dir, 'usr.tar.gz'), gzipSync(Buffer.from('other')));
  await assert.rejects(loadDistribution(dir, opts), /usr\.tar\.gz: SHA-256 .* does not match/);
  rmSync(join(dir, 'usr.tar.gz'));
  d = await loadDistribution(dir, opts);
  assert.equal(d.files.length, 4, 'usr.tar.gz is optional');
});

test('4.2BSD absent: "not found ... skipping 4.2BSD, building 4.3BSD only"', () => {
  const dir = join(work, 'no-42');
  const p = findDistribution(BSD42, dir);
  assert.equal(p.complete, false);
  assert.equal(absentMessage(p, ['4.3BSD']), `4.2BSD distribution not found in ${dir} (looked for stand.gz, miniroot.gz, ` +
    'rootdump.gz, srcsys.tar.gz): skipping 4.2BSD, building 4.3BSD only');
  mkdirSync(dir);
  writeFileSync(join(dir, 'stand.gz'), '');
  assert.equal(absentMessage(findDistribution(BSD42, dir), ['4.3BSD']), `4.2BSD distribution incomplete in ${dir} (missing ` +
    'miniroot.gz, rootdump.gz, srcsys.tar.gz of stand.gz, miniroot.gz, rootdump.gz, srcsys.tar.gz): skipping 4.2BSD, building 4.3BSD only');
});

test('4.2BSD absent: the installer says so and goes on with 4.3BSD; asked for 4.2BSD alone, it stops', () => {
  const missing = join(work, 'no-42-cli');
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'install.ts'),
    '--check', '--dist42', missing, '--guest', join(work, 'no-guest'), ...args],
  { encoding: 'utf8', cwd: resolve(import.meta.dirname, '..'), env: { ...process.env, VAXLAB_DIST_VERSION: '' } });
  let r = run();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`4\\.2BSD distribution not found in ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ` +
    '\\(looked for stand\\.gz, miniroot\\.gz, rootdump\\.gz, srcsys\\.tar\\.gz\\): skipping 4\\.2BSD, building 4\\.3BSD only'));
  assert.match(r.stdout, /4\.3BSD: /);
  assert.doesNotMatch(r.stdout, /4\.2BSD: .* verified/);
  r = run('--dist-version', '4.2');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /ERROR: 4\.2BSD distribution not found in .* \(looked for stand\.gz, .*\)\n/);
  assert.doesNotMatch(r.stderr, /skipping/);
  r = run('--dist-version', '4.1');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--dist-version takes all, 4\.3 or 4\.2/);
});

test('the installer with no distribution and no network: one clear message, non-zero exit, nothing written', () => {
  const out = join(work, 'out-absent');
  mkdirSync(out);
  const r = spawnSync(process.execPath, ['--import', 'tsx', resolve('installer/install.ts'),
    '--dist', join(work, 'no-such-dist'), '--out', out, '--dist-version', '4.3'], {
    encoding: 'utf8',
    // An address that cannot resolve: no traffic leaves the machine.
    env: { ...process.env, VAXLAB_DIST_URL: 'https://archive.invalid/4.3BSD/' },
    timeout: 120_000,
  });
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr + r.stdout, /cannot reach https:\/\/archive\.invalid\/4\.3BSD\/\S+/);
  assert.deepEqual(readdirSync(out), [], 'nothing may be left in the output directory');
});

// ------------------------------------------------------------------ kernels

const KERNEL_SOURCES = resolve(import.meta.dirname, '../experiments/kernels');

test('kernels: the build script builds GENERIC from source, then each variant from its patches, and stops at a failure', () => {
  const src = findKernelSources(KERNEL_SOURCES);
  const script = buildScript(src);
  const lines = script.split('\n');
  // GENERIC first: config, make clean (every object compiled again), make.
  const generic = lines.findIndex((l) => l.includes('config GENERIC ||'));
  assert.ok(generic > 0 && lines[generic + 2]!.includes('make clean ||') && lines[generic + 3]!.includes('make vmunix ||'));
  for (const k of src.kernels.filter((x) => x.patches.length > 0)) {
    const l = lines.find((x) => x.includes(`mkvariant.sh ${k.name} `))!;
    assert.ok(lines.indexOf(l) > generic, `${k.name} after GENERIC`);
    assert.match(l, / \|\| exit 1$/);
    for (const p of k.patches) assert.ok(l.includes(`/usr/lab/kernels/${p}`), `${k.name}: ${p}`);
  }
  assert.match(script, /^\($/m);
  assert.match(script, /^echo "kernels: finished with status \$s"$/m);
  // no-name-cache changes ufs_namei.c and conf/param.c: those objects (and the build directory's param.c) go.
  const nonc = lines.find((x) => x.includes(`mkvariant.sh ${NO_NAME_CACHE.name} `))!;
  assert.match(nonc, /"param\.c param\.o ufs_namei\.o"/);
  assert.deepEqual(objectsToRebuild(['sys/kern_exec.c']), ['kern_exec.o']);
  assert.deepEqual(objectsToRebuild(['sys/kern_exec.c', 'h/user.h']), ['*.o', 'locore.c', 'assym.s'], 'a header: everything');
  // The tape archive: the sources, every patch and the script, flat.
  const names = kernelTarEntries(src, 0).map((e) => e.name);
  assert.deepEqual(names, ['applydiff.c', 'mkvariant.sh', ...src.patches.map((p) => p.file), BUILD_SCRIPT]);
  const back = readTar(makeTar(kernelTarEntries(src, 0)));
  assert.equal(back.find((m) => m.name === BUILD_SCRIPT)!.data.toString('latin1'), script);
  assert.equal(kernelGuestPath(KERNELS[0]!), '/usr/src/sys/GENERIC/vmunix');
  assert.equal(kernelGuestPath(NO_NAME_CACHE), '/usr/src/sys-no-name-cache/GENERIC/vmunix');
});

test('kernels: a patch header that disagrees with variants.ts, a missing patch or a bad path is refused', () => {
  const dir = join(work, 'kernel-sources');
  mkdirSync(join(dir, 'patches'), { recursive: true });
  for (const f of ['applydiff.c', 'mkvariant.sh']) writeFileSync(join(dir, f), readFileSync(join(KERNEL_SOURCES, f)));
  const patchText = readFileSync(join(KERNEL_SOURCES, 'patches/no-name-cache.patch'), 'latin1');
  const generic = KERNELS.find((k) => k.name === 'generic')!;
  writeFileSync(join(dir, 'patches/no-name-cache.patch'), patchText.replace('Label: 4.3BSD without the system-wide name cache',
    'Label: 4.2BSD namei'), 'latin1');
  assert.throws(() => findKernelSources(dir, [generic, NO_NAME_CACHE]), (e: Error) => e instanceof KernelSourceError &&
    /no-name-cache\.patch: its header says variant "no-name-cache", label "4\.2BSD namei"/.test(e.message));
  assert.throws(() => findKernelSources(dir, [generic, { ...NO_NAME_CACHE, patches: ['nosuch.patch'] }]), /patch nosuch\.patch is not in/);
  assert.throws(() => findKernelSources(dir, [generic, { ...NO_NAME_CACHE, label: '4.2BSD name cache' }]), /must start "4\.3BSD without "/);
  assert.throws(() => findKernelSources(dir, [NO_NAME_CACHE]), /must include generic/);
  assert.throws(() => parsePatch('x.patch', 'Variant: x\n--- a/../h/user.h\n+++ b/../h/user.h\n'), /not a path inside/);
  assert.throws(() => parsePatch('x.patch', 'Variant: x\nno diff here\n'), /not a unified diff/);
  assert.throws(() => parsePatch('x.patch', '--- a/sys/x.c\n+++ b/sys/x.c\n'), /no "Variant:" line/);
});

test('kernels: a build transcript\'s failure names the kernel and keeps its part of the guest\'s output', () => {
  const t = ['===== kernel generic: config GENERIC; make clean; make vmunix', 'cc -c -S -I. -I../h -DKERNEL ../sys/init_main.c',
    'cc -c -O -I. -DKERNEL param.c', 'kernel generic: built',
    '===== kernel no-name-cache: /usr/lab/kernels/no-name-cache.patch',
    'applydiff: /usr/lab/kernels/no-name-cache.patch: sys/ufs_namei.c: hunk 1 (line 25 of the patch, at line 120 of the original) does not apply:',
    '    the file has no "\tregister char *cp;"', 'kernel no-name-cache: FAILED (the patches do not apply)',
    'kernels: finished with status 1'].join('\r\n');
  const f = findBuildFailure(t)!;
  assert.equal(f.kernel, 'no-name-cache');
  assert.equal(f.why, 'the patches do not apply');
  assert.match(f.output, /^===== kernel no-name-cache:[^]*hunk 1 [^]*FAILED \(the patches do not apply\)$/);
  assert.doesNotMatch(f.output, /kernel generic/);
  assert.equal(findBuildFailure(t.replace(/kernel no-name-cache: FAILED.*/, '')), null);
  assert.deepEqual(compiledFiles(t, 'generic'), ['sys/init_main.c', 'param.c']);
  assert.deepEqual(compiledFiles(t, 'no-name-cache'), []);
  const time = '# /bin/time ls -l > /dev/null\r\n        3.3 real         1.2 user         2.0 sys\r\n# ';
  assert.deepEqual(timeOf(time, 'ls -l > /dev/null'), { real: 3.3, user: 1.2, sys: 2.0 });
  assert.equal(timeOf(time, 'ls'), null);
});

test('nothing the installer writes for the page holds a path of the machine that built it', async () => {
  const { scrubHostPaths } = await import('./lib/output');
  const { tmpdir: tmp } = await import('node:os');
  const root = resolve(import.meta.dirname, '..');
  assert.equal(scrubHostPaths(`${root}/web/public/images/x`, root), 'web/public/images/x');
  assert.equal(scrubHostPaths(`${resolve(root, '..')}/shared/bsd/4.3BSD/SHA256SUMS`, root), '../shared/bsd/4.3BSD/SHA256SUMS');
  // A checkout directly in the temporary directory (e.g. a fresh clone in /tmp) names the two folders alike: the
  // repository's parent is then said first, as ../, which is as true.
  const tmpIsParent = resolve(tmp()) === resolve(root, '..');
  assert.equal(scrubHostPaths(`work ${tmp()}/vaxlab-install-x`, root),
    tmpIsParent ? 'work ../vaxlab-install-x' : 'work $TMPDIR/vaxlab-install-x');
  // The files the last `npm run image` wrote, if there are any.
  const out = join(root, 'web/public/images');
  for (const f of existsSync(out) ? readdirSync(out).filter((n) => /\.(json|log)$/.test(n)) : []) {
    const text = readFileSync(join(out, f), 'latin1');
    assert.ok(!text.includes(root), `${f} names the repository's place on this machine`);
    assert.ok(!text.includes(`${tmp()}/`), `${f} names this machine's temporary directory`);
  }
});
