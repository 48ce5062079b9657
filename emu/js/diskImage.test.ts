// DiskImage and DiskImageWriter (diskImage.ts): the bookkeeping around the
// shared disk image, without booting anything (emu/wasm/system.test.ts boots
// machines from one image and shows the image stays pristine).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadVaxNode } from './vaxNode';

const api = await loadVaxNode();
const vax = api.vax780;

function pattern(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    b[i] = s >>> 16;
  }
  return b;
}

test('loadImage copies the bytes; read gives them back; the caller may change its array afterwards', () => {
  const bytes = pattern(100_000, 1);
  const image = vax.loadImage(bytes);
  try {
    assert.equal(image.size, bytes.length);
    assert.deepEqual(image.read(0, bytes.length), bytes);
    const copy = bytes.slice();
    bytes.fill(0);
    assert.deepEqual(image.read(0, copy.length), copy);
    assert.deepEqual(image.read(99_990, 10), copy.subarray(99_990));
    assert.equal(image.withBytes((b) => b.length), copy.length);
    assert.throws(() => image.read(99_990, 11), RangeError);
    assert.throws(() => image.read(-1, 1), RangeError);
    assert.throws(() => vax.loadImage(new Uint8Array(0)), RangeError);
  } finally {
    image.dispose();
  }
  assert.equal(image.disposed, true);
  assert.throws(() => image.read(0, 1), /after dispose/);
  image.dispose(); // a second dispose does nothing
});

test('allocImage: pieces in any order make the image; done() refuses a gap', () => {
  const bytes = pattern(300_001, 2);
  const w = vax.allocImage(bytes.length);
  assert.equal(w.size, bytes.length);
  w.write(200_000, bytes.subarray(200_000));
  w.write(0, bytes.subarray(0, 70_000));
  w.write(65_536, bytes.subarray(65_536, 150_000)); // overlaps the previous piece
  assert.throws(() => w.done(), /byte 150000 of 300001/);
  assert.throws(() => w.write(300_000, bytes.subarray(0, 2)), RangeError);
  assert.throws(() => w.write(1.5, bytes.subarray(0, 1)), RangeError);
  w.write(150_000, bytes.subarray(150_000, 200_000));
  const image = w.done();
  try {
    assert.deepEqual(image.read(0, bytes.length), bytes);
    assert.throws(() => w.write(0, bytes.subarray(0, 1)), /after done/);
    assert.throws(() => w.done(), /after done/);
    w.abort(); // after done(): does nothing, the image stays
    assert.deepEqual(image.read(0, 16), bytes.subarray(0, 16));
  } finally {
    image.dispose();
  }
  const aborted = vax.allocImage(10);
  aborted.abort();
  assert.throws(() => aborted.write(0, new Uint8Array(1)), /after abort/);
  assert.throws(() => vax.allocImage(0), RangeError);
});

test('a freed image gives its memory back (the heap does not grow when the next one comes)', () => {
  const size = 64 << 20;
  vax.loadImage(new Uint8Array(size)).dispose(); // let the heap grow once
  const heap = api.module.HEAPU8.length;
  for (let i = 0; i < 4; i++) {
    const w = vax.allocImage(size);
    w.write(0, new Uint8Array(size));
    w.done().dispose();
    vax.allocImage(size).abort();
    vax.loadImage(new Uint8Array(size)).dispose();
  }
  assert.equal(api.module.HEAPU8.length, heap, 'wasm memory grew: an image was not freed');
});

test('create refuses foreign and disposed images; a failed create releases the image', async () => {
  // Not a bootable pack: vax780w_create fails reading the root file system.
  const junk = vax.loadImage(pattern(1 << 20, 3));
  try {
    assert.throws(() => vax.create({ memoryMB: 8, disk: junk, boot: 'single' }), /vax780 create/);
    assert.equal(junk.users, 0, 'a failed create kept a use of the image');
    const forged = {
      size: junk.size, users: 0, disposed: false, sha256: null, kind: 'flat' as const, read: junk.read, withBytes: junk.withBytes,
      memory: junk.memory, takeDamage: junk.takeDamage, dispose() {},
    };
    assert.throws(() => vax.create({ memoryMB: 8, disk: forged, boot: 'single' }), /DiskImage of this module/);
    const other = await loadVaxNode();
    const foreign = other.vax780.loadImage(new Uint8Array(4096));
    assert.throws(() => vax.create({ memoryMB: 8, disk: foreign, boot: 'single' }), /DiskImage of this module/);
    foreign.dispose();
  } finally {
    junk.dispose();
  }
  assert.throws(() => vax.create({ memoryMB: 8, disk: junk, boot: 'single' }), /disposed/);
  // A Uint8Array still works as before (a private copy, freed with the
  // system, here with the failed create): the heap does not grow on repeats.
  const bytes = new Uint8Array(32 << 20);
  assert.throws(() => vax.create({ memoryMB: 8, disk: bytes, boot: 'single' }), /vax780 create/);
  const heap = api.module.HEAPU8.length;
  for (let i = 0; i < 3; i++) assert.throws(() => vax.create({ memoryMB: 8, disk: bytes, boot: 'single' }), /vax780 create/);
  assert.equal(api.module.HEAPU8.length, heap, 'the private image of a failed create was not freed');
});

test('sharedImage: the bytes stay in JavaScript memory (a SharedArrayBuffer), read, counted and released like any image', () => {
  const bytes = pattern(200_000, 4);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  const heap = api.module.HEAPU8.length;
  const image = vax.sharedImage(shared);
  try {
    assert.equal(image.size, bytes.length);
    assert.deepEqual(image.read(150_000, 100), bytes.subarray(150_000, 150_100));
    assert.equal(image.withBytes((b) => b.buffer), shared.buffer, 'withBytes shows the caller\'s bytes, not a copy');
    assert.throws(() => image.read(199_990, 11), RangeError);
    assert.equal(api.module.HEAPU8.length, heap, 'wasm memory grew: the image was copied into it');
    // Not a bootable pack: create reads it (through the import) and refuses it, releasing the image.
    assert.throws(() => vax.create({ memoryMB: 8, disk: image, boot: 'single' }), /vax780 create/);
    assert.equal(image.users, 0);
    assert.throws(() => vax.sharedImage(new Uint8Array(0)), RangeError);
  } finally {
    image.dispose();
  }
  assert.throws(() => image.read(0, 1), /after dispose/);
  assert.throws(() => vax.create({ memoryMB: 8, disk: image, boot: 'single' }), /disposed/);
});
