// The chunk cache that workers share (sharedChunkCache.ts): a chunk is
// decompressed once, by the first reader, into shared memory, and every
// other reader copies it from there (each worker keeps only the file's index
// in its wasm memory, and copies a chunk's stored bytes in to decompress it); two emulators (two wasm memories) in
// one thread and then three worker threads reading every chunk at once in
// different orders read the pack byte for byte, and each chunk is
// decompressed exactly once (the winners' count is the number of chunks).
// A chunk whose decompressor vanished (BUSY for good) is decompressed
// privately by a reader after its wait, without writing the slot; a damaged
// chunk reads as an Error with the reason in every reader, the slot left
// empty.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { CHUNK_BYTES, CHUNKED_HEADER_BYTES, writeChunkedImage } from './chunkedImageNode';
import { BUSY, EMPTY, newSharedChunkCache, READY, sharedChunkStats } from './sharedChunkCache';
import { inSharedMemory } from './sharedPack';
import { noise } from './testNoise';
import { loadVaxNode } from './vaxNode';

/** 24 chunks of every kind (zeros, text-like, incompressible, patterned) and a short last one. */
function pack(): Uint8Array {
  const text = new TextEncoder().encode('4.3 BSD UNIX #3: Tue Jul  1 06:16:10 PDT 1986\n');
  const out = new Uint8Array(24 * CHUNK_BYTES + 5000);
  for (let c = 0; c < 24; c++) {
    const at = c * CHUNK_BYTES;
    if (c % 4 === 1) for (let i = 0; i < CHUNK_BYTES; i++) out[at + i] = text[(i + c) % text.length]! ^ (i >> 13);
    else if (c % 4 === 2) out.set(noise(CHUNK_BYTES, c), at);
    else if (c % 4 === 3) for (let i = 0; i < CHUNK_BYTES; i++) out[at + i] = (i * (c + 3)) & 0xff;
  }
  out.set(noise(5000, 99), 24 * CHUNK_BYTES);
  return out;
}

const PACK = pack();
const SHA = createHash('sha256').update(PACK).digest('hex');
const CHUNKS = Math.ceil(PACK.length / CHUNK_BYTES);
const chunkOf = (i: number) => PACK.subarray(i * CHUNK_BYTES, Math.min(PACK.length, (i + 1) * CHUNK_BYTES));

test('two emulators share the decompressed chunks: each chunk decompressed once, by the first reader', async () => {
  const a = await loadVaxNode();
  const b = await loadVaxNode();
  const file = inSharedMemory(writeChunkedImage(PACK).bytes);
  const cache = newSharedChunkCache(file);
  const ia = a.vax780.openSharedChunked(file, cache);
  const ib = b.vax780.openSharedChunked(file, cache);
  try {
    assert.equal(ia.kind, 'shared-chunked');
    assert.equal(ia.sha256, SHA);
    const state = new Int32Array(cache.state);
    assert.deepEqual(Buffer.from(ia.read(5 * CHUNK_BYTES + 100, 70_000)), Buffer.from(PACK.subarray(5 * CHUNK_BYTES + 100, 5 * CHUNK_BYTES + 70_100)));
    assert.deepEqual([state[5], state[6], state[7]], [READY, READY, EMPTY]);
    assert.equal(sharedChunkStats(cache).shared, 2);
    // The other emulator reads them from the shared copy: nothing more is decompressed.
    assert.ok(Buffer.from(ib.read(5 * CHUNK_BYTES, 2 * CHUNK_BYTES)).equals(PACK.subarray(5 * CHUNK_BYTES, 7 * CHUNK_BYTES)));
    assert.equal(sharedChunkStats(cache).shared, 2);
    assert.ok(Buffer.from(ib.read(0, PACK.length)).equals(PACK));
    assert.ok(Buffer.from(ia.read(0, PACK.length)).equals(PACK));
    assert.deepEqual(sharedChunkStats(cache), { shared: CHUNKS, private: 0 });
    assert.deepEqual(ia.memory(), { bytes: file.length + CHUNKS * CHUNK_BYTES, chunks: CHUNKS, chunksDecompressed: CHUNKS });
    // A damaged or cut file is refused when opened, with the reason (only its index is read then).
    const cut = inSharedMemory(file.slice(0, 200));
    assert.throws(() => a.vax780.openSharedChunked(cut, newSharedChunkCache(cut)), /cut off|outside|damaged/);
    // A cache for another image is refused.
    const other = inSharedMemory(writeChunkedImage(PACK.subarray(0, 3 * CHUNK_BYTES)).bytes);
    assert.throws(() => a.vax780.openSharedChunked(other, cache), /another chunked image/);
  } finally {
    ia.dispose();
    ib.dispose();
  }
});

test('a chunk left BUSY by a vanished thread is decompressed privately after the wait; a damaged chunk is an Error in every reader', async () => {
  const a = await loadVaxNode();
  const b = await loadVaxNode();
  const written = writeChunkedImage(PACK).bytes;
  // Chunk 9 (text-like: deflated) damaged in its stored bytes.
  const v = new DataView(written.buffer, written.byteOffset);
  const at9 = Number(v.getBigUint64(CHUNKED_HEADER_BYTES + 9 * 16, true));
  written[at9 + 10] ^= 0x55;
  const file = inSharedMemory(written);
  const cache = newSharedChunkCache(file);
  const state = new Int32Array(cache.state);
  const ia = a.vax780.openSharedChunked(file, cache);
  const ib = b.vax780.openSharedChunked(file, cache);
  try {
    Atomics.store(state, 4, BUSY);
    const t0 = performance.now();
    assert.ok(Buffer.from(ia.read(4 * CHUNK_BYTES, CHUNK_BYTES)).equals(chunkOf(4)));
    assert.ok(performance.now() - t0 >= 1900, 'it waited for the other thread first');
    assert.equal(Atomics.load(state, 4), BUSY, 'the slot is not written by a reader that did not claim it');
    assert.deepEqual(sharedChunkStats(cache), { shared: 0, private: 1 });
    for (const img of [ia, ib]) assert.throws(() => img.read(9 * CHUNK_BYTES, 10), /chunk 9/);
    assert.equal(Atomics.load(state, 9), EMPTY);
    assert.ok(Buffer.from(ib.read(10 * CHUNK_BYTES, CHUNK_BYTES)).equals(chunkOf(10)), 'the other chunks still read');
  } finally {
    ia.dispose();
    ib.dispose();
  }
});

test('three worker threads reading every chunk at once, in different orders: the pack byte for byte, each chunk decompressed once', async () => {
  const file = inSharedMemory(writeChunkedImage(PACK).bytes);
  const cache = newSharedChunkCache(file);
  const orders = [
    Array.from({ length: CHUNKS }, (_, i) => i),
    Array.from({ length: CHUNKS }, (_, i) => CHUNKS - 1 - i),
    Array.from({ length: CHUNKS }, (_, i) => (i * 7) % CHUNKS),
  ];
  const workers = orders.map((order) => new Worker(new URL('./sharedChunkCacheThread.mjs', import.meta.url),
    { workerData: { file: file.buffer, cache, order, chunkBytes: CHUNK_BYTES } }));
  try {
    const next = (w: Worker) => new Promise<string>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await Promise.all(workers.map(next)); // each 'ready'
    const hashes = workers.map(next);
    for (const w of workers) w.postMessage('go');
    assert.deepEqual(await Promise.all(hashes), [SHA, SHA, SHA]);
    const stats = sharedChunkStats(cache);
    assert.equal(stats.shared, CHUNKS, 'every chunk decompressed into its slot exactly once');
    assert.equal(stats.private, 0);
    assert.ok(new Int32Array(cache.state).subarray(0, CHUNKS).every((s) => s === READY));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
});
