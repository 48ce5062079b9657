// One decompressed copy of a chunked image's chunks for every thread that
// reads it (Node's worker threads for `vaxlab sweep` and `run --jobs`, the
// page's pool of Web Workers): each thread has its own wasm memory, so the
// chunks cannot live there if they are to exist once; they live in a
// SharedArrayBuffer the size of the pack, at chunk i's place, and only the
// chunks someone read take memory (the pages of a new SharedArrayBuffer are
// not touched until written).  Each chunk has a state word:
//
//   EMPTY -> (one thread wins compareExchange) BUSY -> READY
//
// The winner decompresses the chunk with its own emulator
// (vax780w_chunked_inflate: the same inflate and CRC-32 check as a private
// chunked image) into its wasm memory, copies it into the shared slot, then
// stores READY and wakes the waiters (Atomics.store is sequentially
// consistent, so a thread that loads READY sees the bytes).  Only the
// winner ever writes a slot.  A thread that finds BUSY waits for it
// (Atomics.wait) where it may block; where it may not (a browser's main
// thread) or when the wait outlasts WAIT_MS (the winner's thread was ended
// mid-chunk), it decompresses the chunk into its own memory for that read
// and leaves the slot alone.  A damaged chunk goes back to EMPTY, so each
// thread that reads it finds the damage itself and reports its reason.
// A chunk of zeros is READY without a write: the slot is zeros already.

/** What threads share: post it to them with the chunked image's file (sharedPack.ts). */
export interface SharedChunkCache {
  /** Int32 per chunk (EMPTY, BUSY, READY), then the counters (COUNTERS). */
  state: SharedArrayBuffer;
  /** The decompressed chunks, chunk i at i × chunk bytes. */
  data: SharedArrayBuffer;
  chunkBytes: number;
  chunks: number;
}

export const EMPTY = 0;
export const BUSY = 1;
export const READY = 2;
/** After the chunk states: chunks made READY; chunks decompressed privately (BUSY elsewhere, could not wait). */
const COUNTERS = 2;
/** How long a reader waits for another thread's chunk before decompressing it itself. */
const WAIT_MS = 2000;

const HEADER_BYTES = 128;

/** A new, empty cache for the chunked image `file` (its header says the chunks' number and size). */
export function newSharedChunkCache(file: Uint8Array): SharedChunkCache {
  if (file.length < HEADER_BYTES) throw new Error('not a chunked disk image');
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const chunkBytes = v.getUint32(12, true);
  const size = Number(v.getBigUint64(16, true));
  const chunks = v.getUint32(24, true);
  if (chunkBytes < 512 || chunks === 0 || size > chunks * chunkBytes || size > 0xffff_ffff) {
    throw new Error(`chunked disk image damaged: ${size} bytes in ${chunks} chunks of ${chunkBytes}`);
  }
  return {
    state: new SharedArrayBuffer((chunks + COUNTERS) * 4),
    data: new SharedArrayBuffer(size),
    chunkBytes,
    chunks,
  };
}

/** Chunks in the shared copy, and chunks some thread had to decompress privately. */
export function sharedChunkStats(cache: SharedChunkCache): { shared: number; private: number } {
  const s = new Int32Array(cache.state);
  return { shared: Atomics.load(s, cache.chunks), private: Atomics.load(s, cache.chunks + 1) };
}

/** What a reader needs of its emulator: chunk i into wasm memory at out (vax780w_chunked_inflate). */
export interface ChunkInflater {
  /** 0: out holds the chunk; 1: a chunk of zeros (out not written); -1: damaged. */
  inflate(i: number, out: number): number;
  /** Wasm memory now (it may have grown since the last call). */
  heap(): Uint8Array;
  /** A buffer of chunkBytes in wasm memory, kept for the reader's life. */
  scratch: number;
}

export type ChunkOutcome =
  /** The chunk is in the shared slot. */
  | 'shared'
  /** It is in the reader's scratch buffer only (another thread holds the slot). */
  | 'private'
  | 'zeros'
  | 'damaged';

/** A thread's reader of the shared cache. */
export class SharedChunkReader {
  private readonly state: Int32Array;
  private readonly data: Uint8Array;
  /** False once Atomics.wait is refused here (a browser's main thread). */
  private canWait = true;

  constructor(private readonly cache: SharedChunkCache, private readonly size: number, private readonly inflater: ChunkInflater) {
    this.state = new Int32Array(cache.state);
    this.data = new Uint8Array(cache.data);
  }

  private chunkLength(i: number): number {
    return Math.min(this.cache.chunkBytes, this.size - i * this.cache.chunkBytes);
  }

  /** Chunk i, made available: in the shared slot, or (see ChunkOutcome) elsewhere. */
  chunk(i: number): ChunkOutcome {
    const s = this.state;
    for (;;) {
      const now = Atomics.load(s, i);
      if (now === READY) return 'shared';
      if (now === EMPTY) {
        if (Atomics.compareExchange(s, i, EMPTY, BUSY) !== EMPTY) continue;
        let r: number;
        try {
          r = this.inflater.inflate(i, this.inflater.scratch);
          if (r === 0) {
            const p = this.inflater.scratch;
            this.data.set(this.inflater.heap().subarray(p, p + this.chunkLength(i)), i * this.cache.chunkBytes);
          }
        } catch (e) {
          Atomics.store(s, i, EMPTY);
          Atomics.notify(s, i);
          throw e;
        }
        Atomics.store(s, i, r < 0 ? EMPTY : READY);
        if (r >= 0) Atomics.add(s, this.cache.chunks, 1);
        Atomics.notify(s, i);
        return r < 0 ? 'damaged' : 'shared';
      }
      // BUSY: another thread is decompressing it.
      if (this.canWait) {
        let waited: string;
        try {
          waited = Atomics.wait(s, i, BUSY, WAIT_MS);
        } catch {
          this.canWait = false; // not allowed to block here
          continue;
        }
        if (waited !== 'timed-out') continue;
      }
      const r = this.inflater.inflate(i, this.inflater.scratch);
      Atomics.add(s, this.cache.chunks + 1, 1);
      return r < 0 ? 'damaged' : r === 1 ? 'zeros' : 'private';
    }
  }

  /** Copies [offset, offset + len) of the image into wasm memory at buf: 0, or -1 (out of range, a damaged chunk). */
  readInto(offset: number, len: number, buf: number): number {
    if (offset < 0 || len < 0 || offset + len > this.size) return -1;
    const cb = this.cache.chunkBytes;
    while (len > 0) {
      const i = Math.floor(offset / cb);
      const within = offset - i * cb;
      const n = Math.min(cb - within, len);
      const got = this.chunk(i);
      if (got === 'damaged') return -1;
      const heap = this.inflater.heap();
      if (got === 'shared') heap.set(this.data.subarray(offset, offset + n), buf);
      else if (got === 'private') heap.copyWithin(buf, this.inflater.scratch + within, this.inflater.scratch + within + n);
      else heap.fill(0, buf, buf + n);
      offset += n;
      buf += n;
      len -= n;
    }
    return 0;
  }
}
