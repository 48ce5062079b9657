// Node-only: loads the wasm emulator with the .wasm bytes read from disk
// (Emscripten's own Node path does not work for this ES-module build; see
// emu/Makefile).  Never import this from browser code.

import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { DiskImage } from './diskImage';
import { chunkedImageSha256, sharedChunkedPack, type SharedPack } from './sharedPack';
import type { Vax780Api } from './vax780';
import { loadVax, type VaxMachineApi } from './vaxModule';
import type { VaxLoadOptions } from './wasm';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_WASM_PATH = fileURLToPath(new URL('../build/wasm/vax.wasm', import.meta.url));
export const DEFAULT_WASM_MJS_PATH = fileURLToPath(new URL('../build/wasm/vax.mjs', import.meta.url));

/** True when `make -C emu wasm` has produced the module. */
export function wasmBuildExists(): boolean {
  return existsSync(DEFAULT_WASM_PATH) && existsSync(DEFAULT_WASM_MJS_PATH);
}

export async function loadVaxNode(
  wasmPath: string = DEFAULT_WASM_PATH,
  options: Omit<VaxLoadOptions, 'wasmBinary' | 'wasmUrl'> = {},
): Promise<VaxMachineApi> {
  for (const f of [wasmPath, DEFAULT_WASM_MJS_PATH]) {
    if (!existsSync(f)) throw new Error(`${f} not found: run "make -C emu wasm" (or npm run setup) first`);
  }
  const wasmBinary = await readFile(wasmPath);
  // A module elsewhere with its own glue beside it (main's copied aside, the
  // wasm-names build) runs with that glue: the import names of two links
  // need not agree (--profiling-funcs orders them differently).
  const glue = join(dirname(resolve(wasmPath)), 'vax.mjs');
  if (glue !== resolve(DEFAULT_WASM_MJS_PATH) && existsSync(glue)) {
    const { default: createModule } = (await import(pathToFileURL(glue).href)) as typeof import('../build/wasm/vax.mjs');
    return loadVax({ ...options, wasmBinary, createModule });
  }
  return loadVax({ ...options, wasmBinary });
}

/** The 4.3BSD image built by `npm run image` (gzip'd RP06 pack). */
export const WEB_IMAGE_GZ_PATH = fileURLToPath(new URL('../../web/public/images/43bsd.dsk.gz', import.meta.url));
/** The reference image unpacked by `make -C emu images` (from ../shared). */
export const REFERENCE_IMAGE_PATH = fileURLToPath(new URL('../build/images/43bsd-rp06.dsk', import.meta.url));

/** Which 4.3BSD image the tests use: $VAXLAB_IMAGE if set (a .dsk, or a
 *  .dsk.gz), else the one `npm run image` built, else the reference image;
 *  null when there is none. */
export function findBsdImage(): string | null {
  const env = process.env.VAXLAB_IMAGE;
  if (env) return existsSync(env) ? env : null;
  for (const f of [WEB_IMAGE_GZ_PATH, REFERENCE_IMAGE_PATH]) if (existsSync(f)) return f;
  return null;
}

/** The lab's own image, with the benchmark programs the experiments run:
 *  $VAXLAB_IMAGE, else the installer's web/public/images/43bsd.dsk.gz (never
 *  the reference image, which lacks them); null if absent. */
export function findLabImage(): string | null {
  const env = process.env.VAXLAB_IMAGE;
  if (env) return existsSync(env) ? env : null;
  return existsSync(WEB_IMAGE_GZ_PATH) ? WEB_IMAGE_GZ_PATH : null;
}

/** The bytes of a disk image (gunzipped if the name ends in .gz). */
/** The largest disk image the Node tools load: above every pack the 780
 *  here takes (an RP06 is 174 MB, an RA81 456 MB).  A gzip that would
 *  inflate beyond it is refused while it inflates, so a gzip bomb costs at
 *  most this much memory. */
export const MAX_IMAGE_BYTES = 512 * 1024 * 1024;

export async function loadDiskImage(path: string): Promise<Uint8Array> {
  const { stat } = await import('node:fs/promises');
  const size = (await stat(path)).size;
  if (!path.endsWith('.gz')) {
    if (size > MAX_IMAGE_BYTES) throw new RangeError(`${path}: ${size} bytes, more than the ${MAX_IMAGE_BYTES} a disk image may have`);
    return readFile(path);
  }
  const { gunzipSync } = await import('node:zlib');
  try {
    return gunzipSync(await readFile(path), { maxOutputLength: MAX_IMAGE_BYTES });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RangeError(`${path}: inflates to more than the ${MAX_IMAGE_BYTES} bytes a disk image may have`);
    }
    throw e;
  }
}

/** findBsdImage() and its bytes, or null with no image. */
export async function loadBsdImage(): Promise<{ path: string; bytes: Uint8Array } | null> {
  const path = findBsdImage();
  return path ? { path, bytes: await loadDiskImage(path) } : null;
}

/** The chunked image (emu/src/storage/chunked.h) the installer writes beside
 *  a .dsk.gz (43bsd.dsk.gz -> 43bsd.dskz), if it is there and the manifest
 *  beside them (43bsd.json) says it holds the same pack; else null.  The
 *  files are checked against the manifest, not only the manifest against
 *  itself: the .dsk.gz is the one it names (its SHA-256: 4.5 MB hashed, a few
 *  ms) and the chunked image's header names the same pack, so a .dsk.gz put in
 *  the place of another (or a chunked image left from another build) is read
 *  itself, never the pack of the files beside it. */
export function chunkedSibling(path: string): string | null {
  const m = /^(.*)\.dsk\.gz$/.exec(path);
  if (!m) return null;
  const chunked = `${m[1]}.dskz`;
  const manifest = `${m[1]}.json`;
  if (!existsSync(chunked) || !existsSync(manifest)) return null;
  try {
    const mf = JSON.parse(readFileSync(manifest, 'utf8')) as {
      image?: { sha256?: string; uncompressedSha256?: string }; chunked?: { file?: string; imageSha256?: string };
    };
    if (!mf.chunked || mf.chunked.imageSha256 === undefined || mf.chunked.imageSha256 !== mf.image?.uncompressedSha256) return null;
    if (mf.image.sha256 === undefined || createHash('sha256').update(readFileSync(path)).digest('hex') !== mf.image.sha256) return null;
    const f = openSync(chunked, 'r');
    try {
      const header = new Uint8Array(128);
      if (readSync(f, header, 0, 128, 0) !== 128 || chunkedImageSha256(header) !== mf.chunked.imageSha256) return null;
    } finally {
      closeSync(f);
    }
    return chunked;
  } catch {
    return null;
  }
}

/**
 * A disk image file as a DiskImage of api, named by its pack's SHA-256
 * (DiskImage.sha256: machine snapshots need it).  A .dskz is opened as a
 * chunked image, decompressed as the machines read it; so is the .dskz the
 * installer wrote beside a .dsk.gz (chunkedSibling), so that a runner holds
 * about 5 MB of the 174 MB pack, plus the chunks it reads, and no copy of
 * it in JavaScript; anything else is read whole (gunzipped) into wasm
 * memory.  Returns the image and its SHA-256.
 */
export async function openDiskImage(api: Pick<Vax780Api, 'loadImage' | 'openChunked'>, path: string): Promise<{ disk: DiskImage; sha256: string }> {
  const chunked = path.endsWith('.dskz') ? path : chunkedSibling(path);
  if (chunked) {
    const disk = api.openChunked(await readFile(chunked));
    return { disk, sha256: disk.sha256! };
  }
  const bytes = await loadDiskImage(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { disk: api.loadImage(bytes, { sha256 }), sha256 };
}

/**
 * The bytes of a disk image in a SharedArrayBuffer, which worker threads
 * share without copying (Vax780Api.sharedImage reads it): one copy of the
 * pack for all of them.  A .gz is gunzipped as it is read, straight into
 * the buffer, its size taken from the gzip trailer (ISIZE), so the pack is
 * never held twice.  A file the trailer does not describe (several gzip
 * members, a size above MAX_IMAGE_BYTES) is read as loadDiskImage reads it,
 * with its limit, and copied.
 */
export async function loadSharedDiskImage(path: string): Promise<Uint8Array<SharedArrayBuffer>> {
  const shared = (bytes: Uint8Array) => {
    const out = new Uint8Array(new SharedArrayBuffer(bytes.length));
    out.set(bytes);
    return out;
  };
  const f = await open(path, 'r');
  let size: number;
  try {
    const { size: fileSize } = await f.stat();
    if (!path.endsWith('.gz')) {
      if (fileSize > MAX_IMAGE_BYTES) throw new RangeError(`${path}: ${fileSize} bytes, more than the ${MAX_IMAGE_BYTES} a disk image may have`);
      const bytes = new Uint8Array(new SharedArrayBuffer(fileSize));
      for (let at = 0; at < fileSize;) {
        const { bytesRead } = await f.read(bytes, at, fileSize - at, at);
        if (bytesRead === 0) throw new Error(`${path}: ended at byte ${at} of ${fileSize}`);
        at += bytesRead;
      }
      return bytes;
    }
    const trailer = new Uint8Array(4);
    if (fileSize < 18 || (await f.read(trailer, 0, 4, fileSize - 4)).bytesRead !== 4) throw new Error(`${path}: too short for a gzip file`);
    size = new DataView(trailer.buffer).getUint32(0, true); // ISIZE: the last member's size mod 2^32
  } finally {
    await f.close();
  }
  if (size === 0 || size > MAX_IMAGE_BYTES) return shared(await loadDiskImage(path));
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  let at = 0;
  const gunzip = createReadStream(path).pipe(createGunzip());
  for await (const chunk of gunzip as AsyncIterable<Buffer>) {
    if (at + chunk.length > size) {
      // More than the trailer says: several members (or a bomb), which loadDiskImage judges.
      gunzip.destroy();
      return shared(await loadDiskImage(path));
    }
    bytes.set(chunk, at);
    at += chunk.length;
  }
  if (at !== size) return shared(await loadDiskImage(path));
  return bytes;
}

/**
 * The pack that worker threads share (sharedPack.ts), read once: the chunked
 * image's file when there is one (a .dskz, or the one the installer wrote
 * beside a .dsk.gz: chunkedSibling), about 5 MB that each thread opens, with
 * a cache of its chunks that the threads share, each decompressed once, when
 * a machine first reads it (sharedChunkCache.ts); else the whole pack in shared memory
 * (loadSharedDiskImage; options.flat asks for that even beside a chunked
 * image).  Named by the pack's SHA-256 either way.
 */
export async function loadSharedPack(path: string, options: { flat?: boolean } = {}): Promise<SharedPack> {
  const chunked = path.endsWith('.dskz') ? path : options.flat ? null : chunkedSibling(path);
  if (chunked) {
    const file = await readFile(chunked);
    const pack = sharedChunkedPack(file, chunkedImageSha256(file));
    // VAXLAB_PRIVATE_CHUNKS=1: no shared cache, each thread decompresses its own chunks (the way before it: for
    // measuring what it saves, npm run bench:sweep).
    if (process.env.VAXLAB_PRIVATE_CHUNKS === '1') delete pack.cache;
    return pack;
  }
  const pack = await loadSharedDiskImage(path);
  return { format: 'flat', bytes: pack.buffer, sha256: createHash('sha256').update(pack).digest('hex') };
}
