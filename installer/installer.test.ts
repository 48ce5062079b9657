// Unit tests of the installer's pieces that need no emulator: the
// distribution check, the tape assembly, script templates, the cache key.
// (The whole installation is run by emu/tests/system/install.test.ts.)
//
//   node --import tsx --test installer/installer.test.ts

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { DIST_FILES, DistError, loadDistribution, parseSums, unpack } from './lib/dist';
import type { FetchLike } from './lib/dist';
import { RP06_BYTES, RP06_PARTITIONS, RP06_SECTORS, createBlankRp06 } from './lib/disk';
import { cacheKey, gzipFile, upToDate, writeJsonAtomic } from './lib/output';
import { TAPE_LAYOUT, buildTape, readTapeLayout } from './lib/tape';
import { renderScript } from './lib/vax780';

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
