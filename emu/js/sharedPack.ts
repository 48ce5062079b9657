// The pack as workers share it (Node's worker threads, the page's pool of
// Web Workers): one copy in a SharedArrayBuffer, posted to every worker
// without copying.  Either the chunked image's file ('chunked': about 5 MB;
// each worker opens it in its own wasm memory and decompresses only the
// 64 KB chunks its machines read, emu/src/storage/chunked.h) or, when there
// is no chunked image, the whole pack ('flat': 174 MB that every worker
// reads through sharedImage, with no copy in its wasm memory).

import type { DiskImage } from './diskImage';
import type { Vax780Api } from './vax780';

export interface SharedPack {
  format: 'flat' | 'chunked';
  /** The pack ('flat') or its chunked image's file ('chunked'). */
  bytes: SharedArrayBuffer;
  /** The pack's SHA-256 (hex): what results and machine snapshots name it by. */
  sha256: string;
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
export function openSharedPack(api: Pick<Vax780Api, 'openChunked' | 'sharedImage'>, pack: SharedPack): DiskImage {
  if (pack.format === 'flat') return api.sharedImage(new Uint8Array(pack.bytes), { sha256: pack.sha256 });
  const image = api.openChunked(new Uint8Array(pack.bytes));
  if (image.sha256 !== pack.sha256.toLowerCase()) {
    image.dispose();
    throw new Error(`the shared chunked image holds another pack (${image.sha256}) than ${pack.sha256}`);
  }
  return image;
}
