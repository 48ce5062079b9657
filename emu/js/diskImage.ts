// Disk images: the pristine pack that any number of Vax780 systems share
// (vax780.ts), in wasm memory — loaded at once or written piece by piece (a
// download decompressing straight into wasm memory: diskImageLoader.ts) — or
// left in JavaScript memory (sharedImage: a SharedArrayBuffer that several
// workers, each with its own wasm memory, read as one copy of the pack).

import type { VaxWasmModule } from './wasm';

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
  /** A copy of bytes [offset, offset + length) (checks and digests). */
  read(offset: number, length: number): Uint8Array;
  /** Calls f with a view of the whole image and returns its
   *  result.  The view is valid only during the call (wasm memory may grow
   *  later and detach it) and must not be written.  For consumers that take
   *  the bytes synchronously, such as crypto.subtle.digest (which copies its
   *  input before returning its promise). */
  withBytes<T>(f: (bytes: Uint8Array) => T): T;
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
  /** In wasm memory: the bytes' address (0 for an image in JavaScript memory). */
  readonly ptr: number;
  /** In JavaScript memory: the number vax780w_create_js takes for it (0 for one in wasm memory). */
  readonly source: number;
  readonly size: number;
  release(): void;
}

/** The disk images of one module instance. */
export interface DiskImages {
  /** Copies bytes into wasm memory once, as a shared DiskImage. */
  loadImage(bytes: Uint8Array): DiskImage;
  /** An empty image of size bytes, to be written in pieces. */
  allocImage(size: number): DiskImageWriter;
  /** An image over bytes that stay where they are, in JavaScript memory —
   *  typically a view of a SharedArrayBuffer that several workers (each with
   *  its own wasm memory) share, so the pack exists once for all of them.
   *  Nothing is copied: the systems read the sectors they need through an
   *  import (vax780w_js_image_read).  The bytes must not change while the
   *  image is in use. */
  sharedImage(bytes: Uint8Array): DiskImage;
  /** allocImage's writer over a new SharedArrayBuffer: done() gives sharedImage of it. */
  allocSharedImage(size: number): DiskImageWriter;
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
    /** An image in JavaScript memory: its number in `sources` (0 for one in wasm memory). */
    source: number;
    size: number;
    users: number;
    disposed: boolean;
  }
  const imageStates = new WeakMap<DiskImage, ImageState>();

  function freeIfUnused(st: ImageState): void {
    if (st.disposed && st.users === 0 && st.ptr !== 0) {
      mod._vax780w_image_free(st.ptr);
      st.ptr = 0;
    }
    if (st.disposed && st.users === 0 && st.source !== 0) {
      sources.delete(st.source);
      st.source = 0;
    }
  }

  // Images in JavaScript memory, by the number the C side passes back to
  // vax780w_js_image_read (emu/wasm/vax780_wasm.c), which calls this.
  const sources = new Map<number, Uint8Array>();
  let nextSource = 1;
  mod.vaxImageRead = (source, offset, buf, len) => {
    const bytes = sources.get(source);
    if (!bytes || offset < 0 || len < 0 || offset + len > bytes.length) return -1;
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

  function makeImage(ptr: number, size: number, js?: Uint8Array): DiskImage {
    const source = js ? nextSource++ : 0;
    if (js) sources.set(source, js);
    const st: ImageState = { ptr, source, size, users: 0, disposed: false };
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
      get users() {
        return st.users;
      },
      get disposed() {
        return st.disposed;
      },
      read(offset, length) {
        const bytes = view();
        if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > size) {
          throw new RangeError(`DiskImage.read ${offset}+${length} outside the ${size}-byte image`);
        }
        return bytes.slice(offset, offset + length);
      },
      withBytes(f) {
        return f(view());
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

  function loadImage(bytes: Uint8Array): DiskImage {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('loadImage takes a Uint8Array');
    const ptr = allocImageBuffer(bytes.length);
    mod.HEAPU8.set(bytes, ptr); // HEAPU8 read after the allocation: memory may have grown
    return makeImage(ptr, bytes.length);
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

  function allocImage(size: number): DiskImageWriter {
    const ptr = allocImageBuffer(size);
    return writer(size, (offset, chunk) => mod.HEAPU8.set(chunk, ptr + offset), () => makeImage(ptr, size),
      () => mod._vax780w_image_free(ptr));
  }

  function allocSharedImage(size: number): DiskImageWriter {
    if (!Number.isInteger(size) || size <= 0 || size > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${size}`);
    }
    let bytes: Uint8Array | null = new Uint8Array(new SharedArrayBuffer(size));
    return writer(size, (offset, chunk) => bytes!.set(chunk, offset), () => sharedImage(bytes!), () => {
      bytes = null;
    });
  }

  function sharedImage(bytes: Uint8Array): DiskImage {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('sharedImage takes a Uint8Array');
    if (bytes.length === 0 || bytes.length > 0xffff_ffff) {
      throw new RangeError(`disk image size must be a positive integer under 4 GB, got ${bytes.length}`);
    }
    return makeImage(0, bytes.length, bytes);
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
      size: st.size,
      release() {
        if (!held) return;
        held = false;
        st.users--;
        freeIfUnused(st);
      },
    };
  }

  return { loadImage, allocImage, allocSharedImage, sharedImage, owns: (image) => imageStates.has(image), lease };
}
