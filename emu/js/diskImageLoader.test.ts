// diskImageLoader.ts in Node: the installer's gzipped image streamed from a
// file into a DiskImage equals what vaxNode.loadDiskImage reads; broken
// streams (truncated, corrupt, wrong size, failing source) and HTTP errors
// give clear messages; fetchDiskImage works against a local HTTP server.
// The real-image tests are skipped without web/public/images/43bsd.dsk.gz
// (npm run image).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import {
  fetchDiskImage, fetchKernel, loadDiskImage, manifestKernels, streamDiskImage, type ImageLoadProgress, type ManifestKernel,
} from './diskImageLoader';
import { loadDiskImage as readImageFile, loadVaxNode, WEB_IMAGE_GZ_PATH } from './vaxNode';

const api = await loadVaxNode();
const vax = api.vax780;
const MANIFEST_PATH = WEB_IMAGE_GZ_PATH.replace(/\.dsk\.gz$/, '.json');
const skipReal = existsSync(WEB_IMAGE_GZ_PATH) && existsSync(MANIFEST_PATH)
  ? false
  : `no ${WEB_IMAGE_GZ_PATH} with its manifest: npm run image`;

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** A web ReadableStream over bytes, in pieces of `piece` bytes. */
function streamOf(bytes: Uint8Array, piece = 65536): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) c.close();
      else {
        c.enqueue(bytes.slice(at, at + piece));
        at += piece;
      }
    },
  });
}

function fileStream(path: string): ReadableStream<Uint8Array> {
  return Readable.toWeb(createReadStream(path, { highWaterMark: 1 << 16 })) as unknown as ReadableStream<Uint8Array>;
}

// A small image of 1 MB with some structure, so gzip has work to do.
const small = new Uint8Array(1 << 20);
for (let i = 0; i < small.length; i++) small[i] = (i * 7 + (i >> 9)) & 0xff;
const smallGz = new Uint8Array(gzipSync(small)); // not a Buffer: Buffer.slice does not copy

test('the real image streams from its .gz into a DiskImage equal to loadDiskImage', { skip: skipReal }, async (t) => {
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as {
    image: { bytes: number; uncompressedBytes: number; uncompressedSha256: string };
  };
  const progress: ImageLoadProgress[] = [];
  let t0 = performance.now();
  const image = await streamDiskImage(vax, fileStream(WEB_IMAGE_GZ_PATH), {
    uncompressedBytes: manifest.image.uncompressedBytes,
    compressedBytes: manifest.image.bytes,
    onProgress: (p) => progress.push(p),
  });
  const streamSeconds = (performance.now() - t0) / 1000;
  try {
    t0 = performance.now();
    const reference = await readImageFile(WEB_IMAGE_GZ_PATH);
    const gunzipSeconds = (performance.now() - t0) / 1000;
    assert.equal(image.size, reference.length);
    assert.equal(image.withBytes(sha), sha(reference));
    assert.equal(sha(reference), manifest.image.uncompressedSha256);
    const last = progress.at(-1)!;
    assert.equal(last.writtenBytes, manifest.image.uncompressedBytes);
    assert.equal(last.receivedBytes, manifest.image.bytes);
    assert.equal(last.loaded, last.receivedBytes);
    for (let i = 1; i < progress.length; i++) {
      assert.ok(progress[i]!.writtenBytes > progress[i - 1]!.writtenBytes, 'progress goes forward');
      assert.ok(progress[i]!.receivedBytes >= progress[i - 1]!.receivedBytes, 'progress goes forward');
    }
    // The SHA-256 check alone, as the browser does it (crypto.subtle).
    t0 = performance.now();
    const digest = Buffer.from(await image.withBytes((b) => crypto.subtle.digest('SHA-256', b as Uint8Array<ArrayBuffer>)));
    const verifySeconds = (performance.now() - t0) / 1000;
    assert.equal(digest.toString('hex'), manifest.image.uncompressedSha256);
    t.diagnostic(
      `streamed and decompressed ${manifest.image.bytes} -> ${image.size} bytes into wasm memory in ` +
        `${streamSeconds.toFixed(3)} s (${progress.length} chunks); SHA-256 with crypto.subtle ` +
        `${verifySeconds.toFixed(3)} s; for comparison zlib.gunzipSync of the file ${gunzipSeconds.toFixed(3)} s`,
    );
  } finally {
    image.dispose();
  }
});

test('the real image, verified against its manifest SHA-256', { skip: skipReal }, async (t) => {
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as {
    image: { uncompressedBytes: number; uncompressedSha256: string };
  };
  const phases = new Set<string>();
  const t0 = performance.now();
  const image = await streamDiskImage(vax, fileStream(WEB_IMAGE_GZ_PATH), {
    uncompressedBytes: manifest.image.uncompressedBytes,
    sha256: manifest.image.uncompressedSha256,
    onProgress: (p) => phases.add(p.phase),
  });
  t.diagnostic(`stream, decompress and verify: ${((performance.now() - t0) / 1000).toFixed(3)} s`);
  image.dispose();
  assert.deepEqual([...phases], ['download', 'verify']);
});

test('a truncated .gz of the real image: a clear error', { skip: skipReal }, async () => {
  const gz = readFileSync(WEB_IMAGE_GZ_PATH);
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as { image: { uncompressedBytes: number } };
  await assert.rejects(
    streamDiskImage(vax, streamOf(gz.subarray(0, 1 << 20)), { uncompressedBytes: manifest.image.uncompressedBytes, name: '43bsd.dsk.gz' }),
    /43bsd\.dsk\.gz: not a valid gzip stream — corrupt or truncated \(1048576 compressed bytes read/,
  );
});

test('truncated, corrupt, wrong size, failing source: each says what went wrong', async () => {
  const size = small.length;
  // Whole: fine.
  const ok = await streamDiskImage(vax, streamOf(smallGz, 1000), { uncompressedBytes: size, sha256: sha(small) });
  assert.deepEqual(ok.read(0, size), small);
  ok.dispose();
  // Cut short, in the data and in the trailer.
  for (const cut of [smallGz.length >> 1, smallGz.length - 4]) {
    await assert.rejects(streamDiskImage(vax, streamOf(smallGz.subarray(0, cut)), { uncompressedBytes: size }), /corrupt or truncated/);
  }
  // A flipped byte in the data (the CRC-32 or the inflater notices).
  const bad = smallGz.slice();
  bad[bad.length >> 1]! ^= 0x55;
  await assert.rejects(streamDiskImage(vax, streamOf(bad), { uncompressedBytes: size }), /corrupt or truncated/);
  // Not gzip at all.
  await assert.rejects(streamDiskImage(vax, streamOf(small), { uncompressedBytes: size }), /not a valid gzip stream/);
  // The manifest's size wrong either way.
  await assert.rejects(streamDiskImage(vax, streamOf(smallGz), { uncompressedBytes: size + 1 }), /size mismatch: decompressed to 1048576 bytes, the manifest gives 1048577/);
  await assert.rejects(streamDiskImage(vax, streamOf(smallGz), { uncompressedBytes: size - 1 }), /size mismatch: decompresses to more than the 1048575 bytes/);
  // A wrong SHA-256.
  await assert.rejects(streamDiskImage(vax, streamOf(smallGz), { uncompressedBytes: size, sha256: '0'.repeat(64) }), /SHA-256 mismatch/);
  // The source fails (a dropped connection).
  let n = 0;
  const failing = new ReadableStream<Uint8Array>({
    pull(c) {
      if (n++ < 3) c.enqueue(smallGz.slice((n - 1) * 1000, n * 1000));
      else c.error(new Error('connection reset'));
    },
  });
  await assert.rejects(streamDiskImage(vax, failing, { uncompressedBytes: size }), /the download failed after 3000 bytes: connection reset/);
});

test('failed loads free their partial image (the heap does not grow on repeats)', async () => {
  const half = smallGz.subarray(0, smallGz.length >> 1);
  const big = 48 << 20; // the allocation dominates: a leak would show
  await assert.rejects(streamDiskImage(vax, streamOf(half), { uncompressedBytes: big }));
  const heap = api.module.HEAPU8.length;
  for (let i = 0; i < 4; i++) await assert.rejects(streamDiskImage(vax, streamOf(half), { uncompressedBytes: big }));
  assert.equal(api.module.HEAPU8.length, heap);
});

// A small "kernel" (any bytes: the loader checks sizes and the SHA-256, not what it is).
const smallKernel = small.subarray(0, 50_000);
const smallKernelGz = new Uint8Array(gzipSync(smallKernel));

// ------------------------------------------------------------- over HTTP
let server: Server;
let base = '';
const files = new Map<string, Uint8Array | string>();

before(async () => {
  files.set('/images/small.dsk.gz', smallGz);
  files.set('/images/small.json', JSON.stringify({ image: { file: 'small.dsk.gz', bytes: smallGz.length, uncompressedBytes: small.length, uncompressedSha256: sha(small) } }));
  files.set('/images/badsha.json', JSON.stringify({ image: { file: 'small.dsk.gz', bytes: smallGz.length, uncompressedBytes: small.length, uncompressedSha256: 'f'.repeat(64) } }));
  files.set('/images/missing.json', JSON.stringify({ image: { file: 'missing.dsk.gz', bytes: 10, uncompressedBytes: 10 } }));
  files.set('/images/nonsense.json', JSON.stringify({ hello: 1 }));
  // Manifests that try to send the page elsewhere, or to allocate too much.
  const elsewhere = (file: string): string =>
    JSON.stringify({ image: { file, bytes: smallGz.length, uncompressedBytes: small.length } });
  files.set('/images/other-origin.json', elsewhere('https://evil.example/x.dsk.gz'));
  files.set('/images/protocol-relative.json', elsewhere('//evil.example/x.dsk.gz'));
  files.set('/images/up.json', elsewhere('../secret.dsk.gz'));
  files.set('/images/path.json', elsewhere('sub/dir.dsk.gz'));
  files.set('/images/huge.json', JSON.stringify({ image: { file: 'small.dsk.gz', bytes: 10, uncompressedBytes: 4 * 1024 ** 3 } }));
  files.set('/images/small-kernel.gz', smallKernelGz);
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server?.close());

test('fetchDiskImage: manifest, then the image, with progress from Content-Length', async () => {
  let last: ImageLoadProgress | undefined;
  // onManifest: the manifest, once, before any of the image has arrived (the worker fetches snapshots beside it).
  const seen: { file: string; progressBefore: boolean }[] = [];
  const { image, manifest } = await fetchDiskImage(vax, {
    manifestUrl: `${base}/images/small.json`, onProgress: (p) => (last = p),
    onManifest: (m) => seen.push({ file: m.image.file, progressBefore: last !== undefined }),
  });
  try {
    assert.deepEqual(seen, [{ file: 'small.dsk.gz', progressBefore: false }]);
    assert.equal(manifest.image.file, 'small.dsk.gz');
    assert.deepEqual(image.read(0, small.length), small);
    assert.equal(last?.phase, 'verify');
    assert.deepEqual([last?.receivedBytes, last?.compressedBytes, last?.writtenBytes, last?.uncompressedBytes],
      [smallGz.length, smallGz.length, small.length, small.length]);
  } finally {
    image.dispose();
  }
  const direct = await loadDiskImage(vax, `${base}/images/small.dsk.gz`, { size: small.length });
  assert.deepEqual(direct.read(0, 64), small.subarray(0, 64));
  direct.dispose();
});

test('fetchDiskImage: 404s, a bad manifest and a SHA-256 mismatch are clear errors', async () => {
  await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/nothere.json` }), /nothere\.json: HTTP 404 Not Found \(the image is built by `npm run image`\)/);
  await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/missing.json` }), /missing\.dsk\.gz: HTTP 404/);
  await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/nonsense.json` }), /not an image manifest/);
  for (const m of ['other-origin', 'protocol-relative', 'up', 'path']) {
    await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/${m}.json` }),
      /is not a plain file name next to the manifest/, m);
  }
  await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/huge.json` }), /more than the \d+ an image may have/);
  await assert.rejects(fetchDiskImage(vax, { manifestUrl: `${base}/images/badsha.json` }), /SHA-256 mismatch/);
  const unchecked = await fetchDiskImage(vax, { manifestUrl: `${base}/images/badsha.json`, verify: false });
  unchecked.image.dispose();
  await assert.rejects(loadDiskImage(vax, `${base}/images/small.dsk.gz`, {}), /decompressed size is unknown/);
  await assert.rejects(loadDiskImage(vax, 'http://127.0.0.1:1/x.dsk.gz', { size: 10 }), /x\.dsk\.gz: fetch failed/);
});

test('shared: the image is gunzipped into a SharedArrayBuffer (for other workers), checked against its SHA-256 all the same', async () => {
  const heap = api.module.HEAPU8.length;
  const image = await streamDiskImage(vax, streamOf(smallGz), { uncompressedBytes: small.length, sha256: sha(small), shared: true });
  try {
    assert.ok(image.withBytes((b) => b.buffer instanceof SharedArrayBuffer), 'not in a SharedArrayBuffer');
    assert.equal(image.withBytes(sha), sha(small));
    assert.equal(api.module.HEAPU8.length, heap, 'wasm memory grew: the image went into it');
  } finally {
    image.dispose();
  }
  await assert.rejects(
    streamDiskImage(vax, streamOf(smallGz), { uncompressedBytes: small.length, sha256: '00'.repeat(32), shared: true }),
    /SHA-256 mismatch/,
  );
});

test('fetchKernel: a kernel the manifest lists, next to it, gunzipped and checked against its SHA-256', async () => {
  const entry: ManifestKernel = {
    name: 'small', file: 'small-kernel.gz', bytes: smallKernelGz.length, uncompressedBytes: smallKernel.length,
    uncompressedSha256: sha(smallKernel),
  };
  assert.deepEqual(await fetchKernel(`${base}/images/43bsd.json`, entry), smallKernel);
  await assert.rejects(fetchKernel(`${base}/images/43bsd.json`, { ...entry, uncompressedSha256: 'f'.repeat(64) }), /kernel small .*SHA-256 mismatch/);
  await assert.rejects(fetchKernel(`${base}/images/43bsd.json`, { ...entry, uncompressedBytes: 1000 }), /decompresses to more than the 1000 bytes/);
  await assert.rejects(fetchKernel(`${base}/images/43bsd.json`, { ...entry, uncompressedBytes: entry.uncompressedBytes + 1 }), /decompressed to 50000 bytes/);
  await assert.rejects(fetchKernel(`${base}/images/43bsd.json`, { ...entry, file: 'https://evil.example/k.gz' }), /not a plain file name next to the manifest/);
  await assert.rejects(fetchKernel(`${base}/images/43bsd.json`, { ...entry, file: 'nothere.gz' }), /HTTP 404/);
  // A manifest's list: malformed entries (no SHA-256, too large, not a name) are left out.
  const listed = manifestKernels({ kernels: { kernels: [entry, { ...entry, name: 'nosha', uncompressedSha256: undefined },
    { ...entry, name: 'huge', uncompressedBytes: 1e12 }, { ...entry, name: 5 }] } });
  assert.deepEqual(listed.map((k) => k.name), ['small']);
  assert.deepEqual(manifestKernels({ image: {} }), []);
  assert.deepEqual(manifestKernels(null), []);
});

test('the real kernels: each one the manifest lists loads and matches its file', { skip: skipReal }, async () => {
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as unknown;
  const kernels = manifestKernels(manifest);
  assert.ok(kernels.length >= 2, 'the manifest lists the kernels the installer built');
  const imagesDir = MANIFEST_PATH.replace(/[^/]+$/, '');
  for (const k of kernels.slice(0, 2)) files.set(`/images/${k.file}`, new Uint8Array(readFileSync(`${imagesDir}${k.file}`)));
  for (const k of kernels.slice(0, 2)) {
    const bytes = await fetchKernel(`${base}/images/43bsd.json`, k);
    assert.equal(bytes.length, k.uncompressedBytes);
    assert.equal(sha(bytes), k.uncompressedSha256);
  }
});
