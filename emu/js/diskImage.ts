// Disk images: the pristine pack that any number of Vax780 systems share
// (vax780.ts).  In wasm memory, loaded at once or written piece by piece (a
// download decompressing straight into wasm memory: diskImageLoader.ts); or
// kept compressed in chunks that are decompressed as the systems read them
// (openChunked: emu/src/storage/chunked.h), so the pack is never whole in
// memory; or left in JavaScript memory (sharedImage: a SharedArrayBuffer
// that several workers, each with its own wasm memory, read as one copy); or
// kept compressed with its decompressed chunks in memory that several
// workers share (openSharedChunked: sharedChunkCache.ts), each chunk
// decompressed once for all of them.

import { SharedChunkReader, sharedChunkStats, type SharedChunkCache } from './sharedChunkCache';
import type { VaxWasmModule } from './wasm';

export type DiskImageKind = 'flat' | 'chunked' | 'js' | 'shared-chunked';

/** A disk image, in wasm memory or in JavaScript's (sharedImage): the pristine pack that any number of Vax780
 *  systems share.  The systems never write it (each keeps its writes in its
 *  own overlay), so one image serves every machine of an experiment. */
export interface DiskImage {
  /** Bytes. */
  readonly size: number;
  /** Systems created over it and not yet destroyed. */
  readonly users: number;
  /** True once dispose() was called. */
  readonly disposed: boolean;
  /** The pack's SHA-256 (lowercase hex) when whoever loaded it knew it
   *  (loadImage's and allocImage's `sha256`: a manifest, a file's digest),
   *  else null.  Machine snapshots name their image by it (Vax780System.snapshot):
   *  a snapshot of an image without one can be restored only over that same
   *  DiskImage object. */
  readonly sha256: string | null;
  /** A copy of bytes [offset, offset + length) (checks and digests). */
  read(offset: number, length: number): Uint8Array;
  /** Calls f with a view of the whole image and returns its
   *  result.  The view is valid only during the call (wasm memory may grow
   *  later and detach it) and must not be written.  For consumers that take
   *  the bytes synchronously, such as crypto.subtle.digest (which copies its
   *  input before returning its promise).  A chunked image is never whole in
   *  memory: this throws for one (read its parts). */
  withBytes<T>(f: (bytes: Uint8Array) => T): T;
  /** 'flat': all its bytes in wasm memory; 'chunked': compressed, each 64 KB
   *  chunk decompressed the first time a system reads it; 'js': its bytes in
   *  JavaScript memory (sharedImage); 'shared-chunked': compressed, each chunk
   *  decompressed the first time any worker sharing it reads it, into shared
   *  memory (openSharedChunked). */
  readonly kind: DiskImageKind;
  /** What the image holds now: for a chunked one the compressed file and the
   *  chunks decompressed so far (wasm memory); for a 'js' one its bytes
   *  (JavaScript memory, shared with other workers when it is a
   *  SharedArrayBuffer). */
  memory(): { bytes: number; chunks?: number; chunksDecompressed?: number };
  /** Why a read of the image failed since the last call (a chunk of a chunked image that does not decompress
   *  to its checksum: the disk controller reported an I/O error to the guest), or null; forgets it, so each
   *  caller's step is told of its own.  Null for an image whose bytes are all in memory. */
  takeDamage(): string | null;
  /** Frees the image's wasm memory.  Deferred, not refused, while systems
   *  use it: the memory goes when the last of them is destroyed.  Either way
   *  no new system may be created over it.  A second call does nothing. */
  dispose(): void;
}

/** Fills a new DiskImage piece by piece (a download decompressing straight
 *  into wasm memory, without a whole copy in JavaScript). */
export interface DiskImageWriter {
  /** The image's size, fixed by allocImage. */
  readonly size: number;
  /** Copies chunk into the image at offset; throws RangeError past the end. */
  write(offset: number, chunk: Uint8Array): void;
  /** The finished image.  Throws if some byte was never written (the
   *  writer then stays open: write the rest, or abort). */
  done(): DiskImage;
  /** Frees the buffer (after an error); done() is no longer possible.  A
   *  call after done() does nothing. */
  abort(): void;
}

/** What a system holds while it uses an image: where the bytes are, and
 *  release(), called once when the system is destroyed (the image's memory
 *  goes then if it was disposed meanwhile). */
export interface ImageLease {
  /** A flat image's bytes or a chunked one's handle (vax780w_chunked_open); 0 for an image in JavaScript memory. */
  readonly ptr: number;
  /** In JavaScript memory: the number vax780w_create_js takes for it (0 otherwise). */
  readonly source: number;
  readonly kind: DiskImageKind;
  readonly size: number;
  /** The 32 bytes a machine snapshot names the image by: its SHA-256, or for
   *  an image without one, random bytes of its own. */
  readonly identity: Uint8Array;
  release(): void;
}

/** What the loader of an image knows of it. */
export interface ImageOptions {
  /** The pack's SHA-256 as 64 hex digits (not checked here: the loader checks it). */
  sha256?: string;
}

/** 64 hex digits as 32 bytes; RangeError otherwise. */
export function sha256Bytes(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError(`a SHA-256 is 64 hex digits, not ${JSON.stringify(hex)}`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The disk images of one module instance. */
export interface DiskImages {
  /** Copies bytes into wasm memory once, as a shared DiskImage. */
  loadImage(bytes: Uint8Array, options?: ImageOptions): DiskImage;
  /** An empty image of size bytes, to be written in pieces. */
  allocImage(size: number, options?: ImageOptions): DiskImageWriter;
  /** A chunked image (emu/src/storage/chunked.h) over a copy of file in wasm
   *  memory; its sha256 is the one its header gives.  Throws with the
   *  reason when the bytes are not a chunked image. */
  openChunked(file: Uint8Array): DiskImage;
  /** The same, its decompressed chunks kept in `cache`, which other workers
   *  (each with its own wasm memory) share: a chunk is decompressed once, by
   *  whichever of them reads it first (sharedChunkCache.ts).  Only the file's
   *  header and index are copied into wasm memory: file (shared too) must
   *  not change while the image is in use; cache must be for it. */
  openSharedChunked(file: Uint8Array, cache: SharedChunkCache): DiskImage;
  /** An image over bytes that stay where they are, in JavaScript memory —
   *  typically a view of a SharedArrayBuffer that several workers (each with
   *  its own wasm memory) share, so the pack exists once for all of them.
   *  Nothing is copied: the systems read the sectors they need through an
   *  import (vax780w_js_image_read).  The bytes must not change while the
   *  image is in use. */
  sharedImage(bytes: Uint8Array, options?: ImageOptions): DiskImage;
  /** allocImage's writer over a new SharedArrayBuffer: done() gives sharedImage of it. */
  allocSharedImage(size: number, options?: ImageOptions): DiskImageWriter;
  /** True when image is one of this module's (not of another instance, whose memory is another). */
  owns(image: DiskImage): boolean;
  /** Counts a user of the image until release(); throws if it is not this module's or was disposed. */
  lease(image: DiskImage): ImageLease;
}

export function diskImages(mod: VaxWasmModule): DiskImages {
  // What create() needs to know about an image, kept out of the DiskImage
  // object so that callers cannot alter it and an image of another module
  // instance (another wasm memory) is recognised and refused.
  interface ImageState {
    ptr: number; // 0 once freed (and for an image in JavaScript memory)
    kind: DiskImageKind;
    fileBytes: number; // a chunked image's compressed file
    /** An image read through JavaScript (vaxImageRead): its number in `sources` (0 otherwise). */
    source: number;
    size: number;
    users: number;
    disposed: boolean;
    identity: Uint8Array;
    /** A shared chunked image's buffer in wasm memory for one chunk (0 otherwise). */
    scratch: number;
  }
  const imageStates = new WeakMap<DiskImage, ImageState>();

  function freeIfUnused(st: ImageState): void {
    if (st.disposed && st.users === 0 && st.ptr !== 0) {
      if (st.kind === 'chunked' || st.kind === 'shared-chunked') mod._vax780w_chunked_close(st.ptr);
      else mod._vax780w_image_free(st.ptr);
      st.ptr = 0;
      if (st.scratch) mod._free(st.scratch);
      st.scratch = 0;
    }
    if (st.disposed && st.users === 0 && st.source !== 0) {
      sources.delete(st.source);
      st.source = 0;
    }
  }

  // Images read through JavaScript, by the number the C side passes back to
  // vax780w_js_image_read (emu/wasm/vax780_wasm.c), which calls this: each
  // copies [offset, offset + len) into wasm memory at buf (0), or says -1.
  type JsRead = (offset: number, len: number, buf: number) => number;
  const sources = new Map<number, JsRead>();
  let nextSource = 1;
  mod.vaxImageRead = (source, offset, buf, len) => {
    const read = sources.get(source);
    return read ? read(offset, len, buf) : -1;
  };
  /** A reader of bytes in JavaScript memory. */
  const bytesReader = (bytes: Uint8Array): JsRead => (offset, len, buf) => {
    if (offset < 0 || len < 0 || offset + len > bytes.length) return -1;
    // HEAPU8 read now: wasm memory may have grown since the last call.
    mod.HEAPU8.set(bytes.subarray(offset, offset + len), buf);
    return 0;
  };

  function allocImageBuffer(size: number): number {
    if (!Number.isInteger(size) || size <= 0 || size > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${size}`);
    }
    const ptr = mod._vax780w_image_alloc(size);
    if (ptr === 0) throw new Error(`cannot allocate ${size} bytes of wasm memory for the disk image`);
    return ptr;
  }

  function identityOf(options: ImageOptions | undefined): { sha256: string | null; identity: Uint8Array } {
    if (options?.sha256 !== undefined) return { sha256: options.sha256.toLowerCase(), identity: sha256Bytes(options.sha256) };
    const identity = new Uint8Array(32);
    crypto.getRandomValues(identity);
    return { sha256: null, identity };
  }

  /** An image whose systems read it through JavaScript: its bytes (all of them in JavaScript memory), or a
   *  shared chunk cache's reader (with the chunked image it decompresses from at ptr). */
  type JsImage = { bytes: Uint8Array } | { chunks: SharedChunkReader; cache: SharedChunkCache; scratch: number };

  function makeImage(ptr: number, size: number, options?: ImageOptions, kind: 'flat' | 'chunked' = 'flat', fileBytes = 0,
    jsImage?: JsImage): DiskImage {
    const { sha256, identity } = identityOf(options);
    const source = jsImage ? nextSource++ : 0;
    const js = jsImage && 'bytes' in jsImage ? jsImage.bytes : undefined;
    const shared = jsImage && 'chunks' in jsImage ? jsImage : undefined;
    if (jsImage) sources.set(source, js ? bytesReader(js) : (o, l, b) => shared!.chunks.readInto(o, l, b));
    const st: ImageState = {
      ptr, kind: js ? 'js' : shared ? 'shared-chunked' : kind, fileBytes, source, size, users: 0, disposed: false, identity,
      scratch: shared?.scratch ?? 0,
    };
    const at = (): number => {
      if (st.disposed) throw new Error('DiskImage used after dispose()');
      return st.ptr;
    };
    // The image's bytes now (wasm memory may have grown since the last look).
    const view = (): Uint8Array => {
      const p = at();
      return js ?? mod.HEAPU8.subarray(p, p + size);
    };
    const image: DiskImage = {
      size,
      sha256,
      kind: st.kind,
      get users() {
        return st.users;
      },
      get disposed() {
        return st.disposed;
      },
      read(offset, length) {
        const p = at();
        if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > size) {
          throw new RangeError(`DiskImage.read ${offset}+${length} outside the ${size}-byte image`);
        }
        if (st.kind !== 'chunked' && st.kind !== 'shared-chunked') return view().slice(offset, offset + length);
        if (length === 0) return new Uint8Array(0);
        const buf = mod._malloc(length);
        if (buf === 0) throw new Error('DiskImage.read: malloc failed');
        try {
          const r = shared ? shared.chunks.readInto(offset, length, buf) : mod._vax780w_chunked_read(p, offset, buf, length);
          if (r !== 0) {
            throw new Error(`DiskImage.read ${offset}+${length}: ${mod.UTF8ToString(mod._vax780w_chunked_error(p)) || 'cannot read'}`);
          }
          return mod.HEAPU8.slice(buf, buf + length);
        } finally {
          mod._free(buf);
        }
      },
      takeDamage() {
        if ((st.kind !== 'chunked' && st.kind !== 'shared-chunked') || st.ptr === 0) return null;
        const why = mod.UTF8ToString(mod._vax780w_chunked_error(st.ptr));
        mod._vax780w_chunked_clear_error(st.ptr);
        return why === '' ? null : why;
      },
      withBytes(f) {
        if (st.kind === 'chunked' || st.kind === 'shared-chunked') {
          at();
          throw new Error('a chunked image is never whole in memory: read() its parts');
        }
        return f(view());
      },
      memory() {
        const p = at();
        if (shared) {
          // The compressed file in this worker's wasm memory, and every chunk in the shared copy (once for all).
          const { shared: chunksDecompressed } = sharedChunkStats(shared.cache);
          return { bytes: fileBytes + chunksDecompressed * shared.cache.chunkBytes, chunks: shared.cache.chunks, chunksDecompressed };
        }
        if (st.kind !== 'chunked') return { bytes: size };
        const out = mod._malloc(32);
        if (out === 0) throw new Error('DiskImage.memory: malloc failed');
        try {
          mod._vax780w_chunked_stats(p, out);
          const v = new DataView(mod.HEAPU8.buffer, out, 32);
          const chunks = Number(v.getBigUint64(0, true));
          const chunksDecompressed = Number(v.getBigUint64(8, true));
          return { bytes: Number(v.getBigUint64(24, true)) + Number(v.getBigUint64(16, true)), chunks, chunksDecompressed };
        } finally {
          mod._free(out);
        }
      },
      dispose() {
        if (st.disposed) return;
        st.disposed = true;
        freeIfUnused(st);
      },
    };
    imageStates.set(image, st);
    return image;
  }

  function loadImage(bytes: Uint8Array, options?: ImageOptions): DiskImage {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('loadImage takes a Uint8Array');
    if (options?.sha256 !== undefined) sha256Bytes(options.sha256); // a bad one is refused before the copy
    const ptr = allocImageBuffer(bytes.length);
    mod.HEAPU8.set(bytes, ptr); // HEAPU8 read after the allocation: memory may have grown
    return makeImage(ptr, bytes.length, options);
  }

  function allocImage(size: number, options?: ImageOptions): DiskImageWriter {
    if (options?.sha256 !== undefined) sha256Bytes(options.sha256);
    const ptr = allocImageBuffer(size);
    return writer(size, (offset, chunk) => mod.HEAPU8.set(chunk, ptr + offset), () => makeImage(ptr, size, options),
      () => mod._vax780w_image_free(ptr));
  }

  /** A writer of `size` bytes: `put` copies a chunk in, `finish` makes the
   *  image once every byte was written, `free` gives the buffer back. */
  function writer(size: number, put: (offset: number, chunk: Uint8Array) => void, finish: () => DiskImage, free: () => void): DiskImageWriter {
    // The written ranges [start, end).  A stream writes in order, so each
    // write extends the last range and the list stays one entry long.
    let ranges: [number, number][] = [];
    let state: 'open' | 'done' | 'aborted' = 'open';
    return {
      size,
      write(offset, chunk) {
        if (state !== 'open') throw new Error(`DiskImageWriter.write after ${state === 'done' ? 'done()' : 'abort()'}`);
        if (!(chunk instanceof Uint8Array)) throw new TypeError('DiskImageWriter.write takes a Uint8Array');
        if (!Number.isInteger(offset) || offset < 0 || offset + chunk.length > size) {
          throw new RangeError(`DiskImageWriter.write ${offset}+${chunk.length} outside the ${size}-byte image`);
        }
        if (chunk.length === 0) return;
        put(offset, chunk);
        const last = ranges[ranges.length - 1];
        if (last && offset >= last[0] && offset <= last[1]) last[1] = Math.max(last[1], offset + chunk.length);
        else ranges.push([offset, offset + chunk.length]);
      },
      done() {
        if (state !== 'open') throw new Error(`DiskImageWriter.done after ${state === 'done' ? 'done()' : 'abort()'}`);
        ranges.sort((a, b) => a[0] - b[0]);
        const merged: [number, number][] = [];
        for (const r of ranges) {
          const last = merged[merged.length - 1];
          if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
          else merged.push([r[0], r[1]]);
        }
        ranges = merged;
        const covered = merged.length > 0 && merged[0]![0] === 0 ? merged[0]![1] : 0;
        if (covered < size) {
          throw new Error(`disk image incomplete: byte ${covered} of ${size} (and maybe more) never written`);
        }
        state = 'done';
        return finish();
      },
      abort() {
        if (state !== 'open') return;
        state = 'aborted';
        free();
      },
    };
  }

  function openChunked(file: Uint8Array, cache?: SharedChunkCache): DiskImage {
    if (!(file instanceof Uint8Array)) throw new TypeError('openChunked takes a Uint8Array');
    // Shared (cache): only the header and index go into wasm memory; each chunk's stored bytes are copied in
    // from the shared file when this worker is the one to decompress it.  Otherwise the whole file.
    const HEADER = 128;
    const count = file.length >= HEADER ? new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(24, true) : 0;
    const headLen = cache ? Math.min(file.length - 1, HEADER + count * 16) : file.length;
    if (cache && headLen < HEADER) throw new Error('not a chunked disk image');
    const buf = allocImageBuffer(headLen);
    mod.HEAPU8.set(file.subarray(0, headLen), buf);
    const ERR = 256;
    const err = mod._malloc(ERR);
    if (err === 0) {
      mod._vax780w_image_free(buf);
      throw new Error('malloc failed');
    }
    try {
      const ci = cache ? mod._vax780w_chunked_open_index(buf, headLen, file.length, err, ERR) : mod._vax780w_chunked_open(buf, file.length, err, ERR);
      if (ci === 0) {
        mod._vax780w_image_free(buf);
        throw new Error(mod.UTF8ToString(err));
      }
      const size = Number(mod._vax780w_chunked_size(ci));
      const sha = mod._vax780w_chunked_sha256(ci);
      const sha256 = Array.from(mod.HEAPU8.subarray(sha, sha + 32), (b) => b.toString(16).padStart(2, '0')).join('');
      if (!cache) return makeImage(ci, size, { sha256 }, 'chunked', file.length);
      const chunkBytes = mod._vax780w_chunked_chunk_bytes(ci);
      if (cache.chunkBytes !== chunkBytes || cache.chunks !== Math.ceil(size / chunkBytes) || cache.data.byteLength !== size) {
        mod._vax780w_chunked_close(ci);
        throw new Error('the shared chunk cache is for another chunked image');
      }
      // One chunk decompressed (scratch), and one chunk's stored bytes (at most a chunk: checked when opened).
      const scratch = mod._malloc(2 * chunkBytes);
      if (scratch === 0) {
        mod._vax780w_chunked_close(ci);
        throw new Error('malloc failed');
      }
      const input = scratch + chunkBytes;
      const index = new DataView(file.buffer, file.byteOffset + HEADER, count * 16);
      const chunks = new SharedChunkReader(cache, size, {
        inflate: (i, out) => {
          const at = Number(index.getBigUint64(i * 16, true));
          const stored = index.getUint32(i * 16 + 8, true);
          if (stored > chunkBytes || at + stored > file.length) return -1; // refused when opened: not reached
          mod.HEAPU8.set(file.subarray(at, at + stored), input);
          return mod._vax780w_chunked_inflate_stored(ci, i, input, stored, out);
        },
        heap: () => mod.HEAPU8, scratch,
      });
      return makeImage(ci, size, { sha256 }, 'chunked', file.length, { chunks, cache, scratch });
    } finally {
      mod._free(err);
    }
  }

  function allocSharedImage(size: number, options?: ImageOptions): DiskImageWriter {
    if (!Number.isInteger(size) || size <= 0 || size > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${size}`);
    }
    if (options?.sha256 !== undefined) sha256Bytes(options.sha256);
    let bytes: Uint8Array | null = new Uint8Array(new SharedArrayBuffer(size));
    return writer(size, (offset, chunk) => bytes!.set(chunk, offset), () => sharedImage(bytes!, options), () => {
      bytes = null;
    });
  }

  function sharedImage(bytes: Uint8Array, options?: ImageOptions): DiskImage {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('sharedImage takes a Uint8Array');
    if (bytes.length === 0 || bytes.length > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${bytes.length}`);
    }
    return makeImage(0, bytes.length, options, 'flat', 0, { bytes });
  }

  function lease(image: DiskImage): ImageLease {
    const st = imageStates.get(image);
    if (!st) throw new TypeError('not a DiskImage of this module');
    if (st.disposed) throw new Error('the DiskImage was disposed');
    st.users++;
    let held = true;
    return {
      ptr: st.ptr,
      source: st.source,
      kind: st.kind,
      size: st.size,
      identity: st.identity,
      release() {
        if (!held) return;
        held = false;
        st.users--;
        freeIfUnused(st);
      },
    };
  }

  return {
    loadImage, allocImage, openChunked: (file) => openChunked(file), openSharedChunked: (file, cache) => openChunked(file, cache),
    allocSharedImage, sharedImage, owns: (image) => imageStates.has(image), lease,
  };
}
