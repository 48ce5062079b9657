// Chunked disk images (emu/src/storage/chunked.h, our own inflate in
// storage/inflate.c) in the WebAssembly build: what writeChunkedImage
// (chunkedImageNode.ts, node:zlib) writes, openChunked reads back byte for
// byte, whatever kinds of DEFLATE block zlib chose (fixed and dynamic
// Huffman, stored blocks where it prefers them; every strategy),
// decompressing a chunk only when it is first read.  Damage is refused when the file is opened (header, index,
// stored bytes outside the file) or reported when the chunk is read (its
// CRC-32, a broken DEFLATE stream) — as an Error with the reason, never a
// trap of the wasm module, whatever the bytes.  (The lab's 4.3BSD boots over
// a chunked image in every test that uses the lab image: testLab.ts.)

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { constants } from 'node:zlib';

import { CHUNK_BYTES, CHUNKED_HEADER_BYTES, CHUNKED_INDEX_ENTRY, writeChunkedImage } from './chunkedImageNode';
import { chunkedImageSha256 } from './sharedPack';
import { noise } from './testNoise';
import { loadVaxNode } from './vaxNode';

const api = await loadVaxNode();
const vax = api.vax780;

/** A pack whose chunks are of every kind: zeros, text-like, random (stored raw), half random (zlib mixes
 *  a stored block with Huffman ones), the same as an earlier chunk (shared), and a short last one. */
function pack(): Uint8Array {
  const text = new TextEncoder().encode('4.3 BSD UNIX #3: Tue Jul  1 06:16:10 PDT 1986 root@:/usr/src/sys/GENERIC\n');
  const kinds: Uint8Array[] = [];
  kinds.push(new Uint8Array(CHUNK_BYTES));                                      // zeros
  kinds.push(Uint8Array.from({ length: CHUNK_BYTES }, (_, i) => text[i % text.length]! ^ (i >> 12)));
  kinds.push(noise(CHUNK_BYTES, 7));                                            // incompressible: raw
  const half = new Uint8Array(CHUNK_BYTES);
  half.set(noise(CHUNK_BYTES / 2, 9), CHUNK_BYTES / 2);
  for (let i = 0; i < CHUNK_BYTES / 2; i++) half[i] = i % 7 === 0 ? 0x41 : 0x20;
  kinds.push(half);
  kinds.push(kinds[1]!.slice());                                                // shared with chunk 1
  kinds.push(Uint8Array.from({ length: CHUNK_BYTES }, (_, i) => (i * 37) & 0xff));
  const last = noise(12_345, 3);
  last.fill(0x55, 0, 6000);
  const out = new Uint8Array(kinds.length * CHUNK_BYTES + last.length);
  kinds.forEach((k, i) => out.set(k, i * CHUNK_BYTES));
  out.set(last, kinds.length * CHUNK_BYTES);
  return out;
}

const PACK = pack();
const SHA = createHash('sha256').update(PACK).digest('hex');

test('what writeChunkedImage writes reads back byte for byte, every chunk kind and every zlib strategy', () => {
  const strategies: [string, number | undefined, number][] = [
    ['default, level 9', undefined, 9], ['level 1', undefined, 1], ['fixed Huffman', constants.Z_FIXED, 6],
    ['Huffman only', constants.Z_HUFFMAN_ONLY, 6], ['run lengths', constants.Z_RLE, 6], ['filtered', constants.Z_FILTERED, 6],
  ];
  for (const [what, strategy, level] of strategies) {
    const info = writeChunkedImage(PACK, level, strategy);
    assert.equal(info.sha256, SHA);
    assert.equal(chunkedImageSha256(info.bytes), SHA);
    assert.equal(info.chunks, 7);
    assert.equal(info.zero, 1, what);
    assert.equal(info.shared, 1, what);
    const image = vax.openChunked(info.bytes);
    try {
      assert.equal(image.kind, 'chunked');
      assert.equal(image.size, PACK.length);
      assert.equal(image.sha256, SHA);
      assert.equal(image.memory().chunksDecompressed, 0, `${what}: nothing decompressed before a read`);
      // A read across a chunk boundary decompresses the two chunks it touches.
      assert.deepEqual(image.read(CHUNK_BYTES - 10, 20), PACK.subarray(CHUNK_BYTES - 10, CHUNK_BYTES + 10));
      assert.ok(image.memory().chunksDecompressed! <= 2, what);
      assert.deepEqual(image.read(0, PACK.length), PACK, what);
      assert.deepEqual(image.read(PACK.length - 1, 1), PACK.subarray(PACK.length - 1));
      assert.throws(() => image.read(PACK.length - 1, 2), RangeError);
      assert.throws(() => image.withBytes((b) => b.length), /never whole in memory/);
    } finally {
      image.dispose();
    }
  }
});

test('a system over a chunked image takes its size from the image: not an RP06 pack, refused, saying so', () => {
  const image = vax.openChunked(writeChunkedImage(PACK).bytes);
  try {
    assert.throws(() => vax.create({ memoryMB: 4, disk: image, boot: 'single' }),
      new RegExp(`vax780 create: RP06 on drive 0: the image is ${PACK.length} bytes but an RP06 pack holds 174423040 bytes`));
    assert.equal(image.users, 0, 'a refused system does not keep the image');
  } finally {
    image.dispose();
  }
});

/** The file with one byte changed. */
function flipped(file: Uint8Array, at: number, mask = 0x01): Uint8Array {
  const f = file.slice();
  f[at]! ^= mask;
  return f;
}

test('damage is refused when opened (header, index, stored bytes outside the file) or when the chunk is read (CRC, DEFLATE)', () => {
  const file = writeChunkedImage(PACK).bytes;
  const index = CHUNKED_HEADER_BYTES;
  assert.throws(() => vax.openChunked(new TextEncoder().encode('not a chunked image at all')), /./);
  assert.throws(() => vax.openChunked(flipped(file, 0)), /magic|not a chunked|VAXDSKZ/i);
  assert.throws(() => vax.openChunked(flipped(file, 40)), /CRC|checksum/i, 'the header\'s checksum');
  assert.throws(() => vax.openChunked(flipped(file, index + CHUNKED_INDEX_ENTRY + 3)), /CRC|checksum|index/i, 'the index\'s checksum');
  assert.throws(() => vax.openChunked(file.subarray(0, file.length - 1)), /outside|beyond|truncat|short|end/i, 'a truncated file');

  // A deflated chunk's stored bytes damaged: the file opens; that chunk reads as an error, the others still read.
  const dv = new DataView(file.buffer, file.byteOffset);
  const chunk = 1; // text-like: deflated
  const where = Number(dv.getBigUint64(index + chunk * CHUNKED_INDEX_ENTRY, true));
  const stored = dv.getUint32(index + chunk * CHUNKED_INDEX_ENTRY + 8, true);
  assert.ok(stored > 0 && stored < CHUNK_BYTES);
  const image = vax.openChunked(flipped(file, where + (stored >> 1), 0x10));
  try {
    assert.equal(image.takeDamage(), null, 'nothing read yet');
    assert.throws(() => image.read(chunk * CHUNK_BYTES, 512), /DiskImage\.read .*: .+/);
    // The reason is kept for whoever reports a run's damage (runner.ts), once: then forgotten, so the next
    // damaged read is told apart from this one.
    assert.match(image.takeDamage() ?? '', /^chunked disk image damaged: chunk 1: /);
    assert.equal(image.takeDamage(), null);
    assert.deepEqual(image.read(0, 512), PACK.subarray(0, 512));
    assert.deepEqual(image.read(5 * CHUNK_BYTES, 512), PACK.subarray(5 * CHUNK_BYTES, 5 * CHUNK_BYTES + 512));
    assert.equal(image.takeDamage(), null, 'good chunks read: no damage');
    assert.throws(() => image.read(chunk * CHUNK_BYTES + 1024, 512), /DiskImage\.read/);
    assert.match(image.takeDamage() ?? '', /chunk 1: /, 'the same chunk read again is damage again');
  } finally {
    image.dispose();
  }
  const flat = vax.loadImage(PACK);
  assert.equal(flat.takeDamage(), null, 'a flat image is never damaged when read');
  flat.dispose();
});

test('3000 damaged files: each refused or read with an Error, never a trap, and what reads is right or said to be wrong', () => {
  const small = PACK.subarray(0, 3 * CHUNK_BYTES + 777);
  const file = writeChunkedImage(small).bytes;
  let s = 12345;
  const rnd = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
  let opened = 0, readErrors = 0;
  for (let i = 0; i < 3000; i++) {
    const f = file.slice();
    // Mostly the stored bytes (past the index), sometimes the header and index: 1 to 4 bytes each time.
    const meta = CHUNKED_HEADER_BYTES + 4 * CHUNKED_INDEX_ENTRY;
    let metaTouched = false;
    for (let k = 1 + rnd(4); k > 0; k--) {
      const at = rnd(10) === 0 ? rnd(meta) : rnd(f.length);
      if (at < meta && f[at] !== file[at]) metaTouched = true;
      f[at] = rnd(256);
      if (at < meta && f[at] !== file[at]) metaTouched = true;
    }
    let image;
    try {
      image = vax.openChunked(f);
    } catch (e) {
      assert.ok(e instanceof Error && !(e instanceof WebAssembly.RuntimeError), `file ${i}: ${String(e)}`);
      continue;
    }
    opened++;
    try {
      for (let c = 0; c * CHUNK_BYTES < image.size; c++) {
        const at = c * CHUNK_BYTES;
        const n = Math.min(CHUNK_BYTES, image.size - at);
        try {
          const got = image.read(at, n);
          // A chunk that reads was checked against its CRC-32: with the header and index as written,
          // it is the pack's chunk.
          assert.equal(got.length, n);
          if (!metaTouched) assert.ok(Buffer.from(got).equals(small.subarray(at, at + n)), `file ${i}, chunk ${c}: wrong bytes read`);
        } catch (e) {
          assert.ok(e instanceof Error && !(e instanceof WebAssembly.RuntimeError), `file ${i}, chunk ${c}: ${String(e)}`);
          readErrors++;
        }
      }
    } finally {
      image.dispose();
    }
  }
  assert.ok(opened > 100 && readErrors > 100, `opened ${opened}, read errors ${readErrors}: the damage reached both checks`);
});
