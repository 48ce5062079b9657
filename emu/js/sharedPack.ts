// The pack as workers share it (Node's worker threads, the page's pool of
// Web Workers): one copy in a SharedArrayBuffer, posted to every worker
// without copying.  Either the chunked image's file ('chunked': about 5 MB;
// each worker opens it in its own wasm memory, and the 64 KB chunks its
// machines read are decompressed once, by whichever worker reads one
// first, into a cache all of them share: sharedChunkCache.ts;
// emu/src/storage/chunked.h) or, when there is no chunked image, the whole
// pack ('flat': 174 MB that every worker reads through sharedImage, with no
// copy in its wasm memory).

import type { DiskImage } from './diskImage';
import { newSharedChunkCache, type SharedChunkCache } from './sharedChunkCache';
import type { Vax780Api } from './vax780';

export interface SharedPack {
  format: 'flat' | 'chunked';
  /** The pack ('flat') or its chunked image's file ('chunked'). */
  bytes: SharedArrayBuffer;
  /** The pack's SHA-256 (hex): what results and machine snapshots name it by. */
  sha256: string;
  /** 'chunked': the decompressed chunks, shared (without one, each worker keeps its own). */
  cache?: SharedChunkCache;
}

/** The chunked image's file as a SharedPack: the file in shared memory, with a new, empty chunk cache. */
export function sharedChunkedPack(file: Uint8Array, sha256: string): SharedPack {
  const bytes = inSharedMemory(file);
  return { format: 'chunked', bytes: bytes.buffer, sha256: sha256.toLowerCase(), cache: newSharedChunkCache(bytes) };
}

const MAGIC = 'VAXDSKZ\0';

/** The pack's SHA-256 as a chunked image's header gives it (emu/src/storage/chunked.h); throws for anything else. */
export function chunkedImageSha256(file: Uint8Array): string {
  if (file.length < 128 || String.fromCharCode(...file.subarray(0, 8)) !== MAGIC) {
    throw new Error('not a chunked disk image (no VAXDSKZ header)');
  }
  return Array.from(file.subarray(32, 64), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A copy of bytes in a new SharedArrayBuffer (none when they already fill one). */
export function inSharedMemory(bytes: Uint8Array): Uint8Array<SharedArrayBuffer> {
  if (bytes.buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
    return bytes as Uint8Array<SharedArrayBuffer>;
  }
  const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

/** The shared pack as a DiskImage of this worker's emulator, named by its SHA-256. */
export function openSharedPack(api: Pick<Vax780Api, 'openChunked' | 'openSharedChunked' | 'sharedImage'>, pack: SharedPack): DiskImage {
  if (pack.format === 'flat') return api.sharedImage(new Uint8Array(pack.bytes), { sha256: pack.sha256 });
  const file = new Uint8Array(pack.bytes);
  const image = pack.cache ? api.openSharedChunked(file, pack.cache) : api.openChunked(file);
  if (image.sha256 !== pack.sha256.toLowerCase()) {
    image.dispose();
    throw new Error(`the shared chunked image holds another pack (${image.sha256}) than ${pack.sha256}`);
  }
  return image;
}
