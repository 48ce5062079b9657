// Node-only: writing a chunked disk image (emu/src/storage/chunked.h: the
// format) from a pack, each 64 KB chunk deflated on its own (node:zlib), so
// that a reader decompresses only the chunks it reads.  The installer writes
// the lab's pack this way for the page and the runners.  Never import this
// from browser code.

import { createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';

export const CHUNKED_MAGIC = 'VAXDSKZ\0';
export const CHUNKED_VERSION = 1;
export const CHUNKED_HEADER_BYTES = 128;
export const CHUNKED_INDEX_ENTRY = 16;
/** The overlay's chunk (emu/src/storage/overlay.h, OVERLAY_CHUNK). */
export const CHUNK_BYTES = 65536;

export interface ChunkedImageInfo {
  /** The file. */
  bytes: Uint8Array;
  /** The pack's SHA-256 (hex), as the header has it. */
  sha256: string;
  chunks: number;
  /** Chunks of zeros (nothing stored), stored as they are, deflated, and sharing another's bytes. */
  zero: number;
  raw: number;
  deflated: number;
  shared: number;
}

/** The chunked image of a pack (any size; the last chunk may be short).  level and strategy
 *  are zlib's (tests use other strategies to reach every kind of DEFLATE block). */
export function writeChunkedImage(pack: Uint8Array, level = 9, strategy?: number): ChunkedImageInfo {
  const size = pack.length;
  const n = Math.ceil(size / CHUNK_BYTES);
  const sha = createHash('sha256').update(pack).digest();
  const index = new Uint8Array(n * CHUNKED_INDEX_ENTRY);
  const iv = new DataView(index.buffer);
  const parts: Uint8Array[] = [];
  const dataFrom = CHUNKED_HEADER_BYTES + index.length;
  let at = dataFrom;
  const seen = new Map<string, { at: number; stored: number }>();
  let zero = 0, raw = 0, deflated = 0, shared = 0;
  for (let i = 0; i < n; i++) {
    const chunk = pack.subarray(i * CHUNK_BYTES, Math.min(size, (i + 1) * CHUNK_BYTES));
    const crc = crc32(chunk);
    let where = 0, stored = 0;
    if (chunk.every((b) => b === 0)) {
      zero++;
    } else {
      const digest = createHash('sha1').update(chunk).digest('hex');
      const same = seen.get(digest);
      if (same) {
        ({ at: where, stored } = same);
        shared++;
      } else {
        const d = deflateRawSync(chunk, strategy === undefined ? { level } : { level, strategy });
        const body = d.length < chunk.length ? d : chunk;
        if (body === chunk) raw++;
        else deflated++;
        where = at;
        stored = body.length;
        parts.push(body);
        at += body.length;
        seen.set(digest, { at: where, stored });
      }
    }
    iv.setBigUint64(i * CHUNKED_INDEX_ENTRY, BigInt(where), true);
    iv.setUint32(i * CHUNKED_INDEX_ENTRY + 8, stored, true);
    iv.setUint32(i * CHUNKED_INDEX_ENTRY + 12, crc, true);
  }
  const header = new Uint8Array(CHUNKED_HEADER_BYTES);
  const hv = new DataView(header.buffer);
  for (let i = 0; i < 8; i++) header[i] = CHUNKED_MAGIC.charCodeAt(i);
  hv.setUint32(8, CHUNKED_VERSION, true);
  hv.setUint32(12, CHUNK_BYTES, true);
  hv.setBigUint64(16, BigInt(size), true);
  hv.setUint32(24, n, true);
  hv.setUint32(28, crc32(index), true);
  header.set(sha, 32);
  hv.setUint32(64, crc32(header.subarray(0, 64)), true);
  const file = new Uint8Array(at);
  file.set(header, 0);
  file.set(index, CHUNKED_HEADER_BYTES);
  let p = dataFrom;
  for (const part of parts) {
    file.set(part, p);
    p += part.length;
  }
  return { bytes: file, sha256: sha.toString('hex'), chunks: n, zero, raw, deflated, shared };
}
