// Loading the 4.3BSD pack into wasm memory in the browser worker.  When the
// manifest lists a chunked image (web/public/images/43bsd.dskz: the pack
// deflated in 64 KB chunks, emu/src/storage/chunked.h), that file (about
// 5 MB) is fetched, its SHA-256 checked, and opened as it is: a chunk is
// decompressed when a machine first reads it, so the 174 MB pack is never
// whole in memory and nothing waits for it.  Otherwise: fetch the gzipped
// image the installer built (web/public/images/43bsd.dsk.gz), gunzip it with
// DecompressionStream as it arrives and write each decompressed chunk
// straight into a DiskImageWriter, so the 174 MB pack exists once, in wasm
// memory, never as a whole JavaScript copy.  fetchShippedFile fetches the
// other files a manifest lists (the machine snapshots), checked likewise.
//
// No React, no DOM: this runs in the Web Worker.  The core,
// streamDiskImage, takes any ReadableStream of gzip bytes, so Node drives it
// with a file stream (diskImageLoader.test.ts); fetchDiskImage adds fetching
// the manifest and the image over HTTP.
//
// What is checked: gzip's own CRC-32 and length trailer (DecompressionStream
// fails on a corrupt or truncated stream), the uncompressed size against the
// manifest, and, unless turned off, the uncompressed SHA-256 against the
// manifest with crypto.subtle.digest.  The SHA-256 pass costs about 0.2 s for
// the 174 MB pack in Node 20 here (2 cores with SHA extensions) and needs a
// transient second copy of the pack (WebCrypto copies its input), after
// which it is garbage; it catches a stale or mismatched image, which the
// gzip CRC cannot.

import type { DiskImage } from './diskImage';
import { sharedChunkedPack, type SharedPack } from './sharedPack';
import type { Vax780Api } from './vax780';

/** What the loader needs of the emulator. */
export type LoaderApi = Pick<Vax780Api, 'allocImage' | 'allocSharedImage' | 'openChunked' | 'openSharedChunked'>;

/** A file the manifest lists beside the image. */
export interface ShippedFile {
  file: string;
  bytes: number;
  sha256: string;
}

/** The part of the installer's manifest (installer/lib/output.ts, 43bsd.json)
 *  that loading needs. */
export interface ImageManifest {
  image: {
    /** The gzipped image's file name, next to the manifest. */
    file: string;
    /** Compressed bytes. */
    bytes: number;
    sha256?: string;
    uncompressedBytes: number;
    uncompressedSha256?: string;
  };
  /** The same pack as a chunked image (installer/lib/shipped.ts). */
  chunked?: ShippedFile & { imageSha256: string };
  /** Machine snapshots of the machines the page starts most, at their
   *  prompts (installer/lib/shipped.ts; experiments/runner/shippedBoots.ts). */
  snapshots?: {
    /** The emulator build that made them: another build refuses them. */
    emulatorBuild: string;
    boots: (ShippedFile & {
      name: string;
      options: Record<string, unknown>;
      recipe: { prompt: string; slice: number; limitSeconds: number };
      /** The kernel the machine booted instead of the image's /vmunix (a variant beside the image, by name,
       *  with the SHA-256 of its bytes); absent: /vmunix. */
      kernel?: { name: string; file: string; uncompressedSha256: string };
    })[];
  };
}

export interface ImageLoadProgress {
  /** 'download': bytes arriving and decompressing; 'verify': the SHA-256
   *  pass after the last byte (reported once at its start). */
  phase: 'download' | 'verify';
  /** Compressed bytes received so far. */
  receivedBytes: number;
  /** Compressed bytes expected (Content-Length, else the manifest), or null. */
  compressedBytes: number | null;
  /** Decompressed bytes written into the image so far. */
  writtenBytes: number;
  /** The image's size. */
  uncompressedBytes: number;
  /** The download's progress for a simple bar: receivedBytes and
   *  compressedBytes again. */
  loaded: number;
  total: number | null;
}

export interface StreamImageOptions {
  /** The size the image must decompress to (the manifest's uncompressedBytes). */
  uncompressedBytes: number;
  /** Compressed size, for progress only. */
  compressedBytes?: number | null;
  /** Expected SHA-256 of the decompressed image (hex); checked when given. */
  sha256?: string;
  /** False when the stream is already decompressed (a server that sent
   *  the .gz with Content-Encoding: gzip, which fetch undoes). Default true. */
  gzipped?: boolean;
  /** Called after each chunk is written (and once before verifying). */
  onProgress?: (progress: ImageLoadProgress) => void;
  /** The image's name in error messages. */
  name?: string;
  /** Decompress into a SharedArrayBuffer (Vax780Api.allocSharedImage) that
   *  other workers can be given, instead of into this module's wasm memory. */
  shared?: boolean;
}

/** A load that failed, with a message that says how. */
export class DiskImageLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DiskImageLoadError';
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function hex(digest: ArrayBuffer): string {
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Gunzips `gz` into a new DiskImage of options.uncompressedBytes bytes.
 *  Rejects with a DiskImageLoadError (and frees the partial image) on a
 *  failing stream, a corrupt or truncated gzip, a size or SHA-256 mismatch. */
export async function streamDiskImage(
  api: Pick<Vax780Api, 'allocImage' | 'allocSharedImage'>,
  gz: ReadableStream<Uint8Array>,
  options: StreamImageOptions,
): Promise<DiskImage> {
  const { uncompressedBytes: size, compressedBytes = null, sha256, gzipped = true, onProgress, name = 'disk image', shared = false } = options;
  if (!Number.isInteger(size) || size <= 0) throw new RangeError(`${name}: uncompressedBytes must be a positive integer, got ${size}`);
  let received = 0;
  let written = 0;
  const progress = (phase: ImageLoadProgress['phase']): void =>
    onProgress?.({
      phase,
      receivedBytes: received,
      compressedBytes,
      writtenBytes: written,
      uncompressedBytes: size,
      loaded: received,
      total: compressedBytes,
    });

  // The source is read through this wrapper to count the compressed bytes
  // and to tell its own failures (the network) from the decompressor's.
  const source = gz.getReader();
  let sourceError: { error: unknown } | null = null;
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await source.read();
      } catch (e) {
        sourceError = { error: e };
        throw e;
      }
      if (r.done) controller.close();
      else {
        received += r.value.byteLength;
        controller.enqueue(r.value);
      }
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  // (The casts: TypeScript's DOM types want BufferSource into the
  // decompressor and an ArrayBuffer-backed view into digest().)
  const decompressed: ReadableStream<Uint8Array> = gzipped
    ? (counted as ReadableStream<BufferSource>).pipeThrough(new DecompressionStream('gzip'))
    : counted;
  const reader = decompressed.getReader();

  const writer = shared ? api.allocSharedImage(size, sha256 ? { sha256 } : undefined)
    : api.allocImage(size, sha256 ? { sha256 } : undefined);
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        const se = sourceError as { error: unknown } | null;
        if (se) {
          throw new DiskImageLoadError(`${name}: the download failed after ${received} bytes: ${message(se.error)}`, { cause: se.error });
        }
        throw new DiskImageLoadError(
          `${name}: not a valid gzip stream — corrupt or truncated (${received} compressed bytes read, ` +
            `${written} of ${size} decompressed): ${message(e)}`,
          { cause: e },
        );
      }
      if (r.done) break;
      const chunk = r.value;
      if (written + chunk.byteLength > size) {
        throw new DiskImageLoadError(`${name}: size mismatch: decompresses to more than the ${size} bytes the manifest gives`);
      }
      writer.write(written, chunk);
      written += chunk.byteLength;
      progress('download');
    }
    if (written !== size) {
      throw new DiskImageLoadError(`${name}: size mismatch: decompressed to ${written} bytes, the manifest gives ${size}`);
    }
  } catch (e) {
    writer.abort();
    reader.cancel(e).catch(() => {}); // stop the download; its own error is not news
    throw e;
  }

  const image = writer.done();
  if (sha256) {
    progress('verify');
    try {
      // digest() copies the bytes before it returns, so the view may not
      // outlive withBytes (wasm memory may grow and detach it).
      // WebCrypto takes no view of a SharedArrayBuffer: a shared image is
      // copied for it (the copy digest() makes of the other anyway).
      const got = hex(await image.withBytes((bytes) => crypto.subtle.digest('SHA-256',
        (bytes.buffer instanceof SharedArrayBuffer ? bytes.slice() : bytes) as Uint8Array<ArrayBuffer>)));
      if (got !== sha256.toLowerCase()) {
        throw new DiskImageLoadError(`${name}: SHA-256 mismatch: ${got}, the manifest gives ${sha256}`);
      }
    } catch (e) {
      image.dispose();
      throw e;
    }
  }
  return image;
}

export interface LoadImageOptions {
  /** The decompressed size (the manifest's image.uncompressedBytes): required. */
  size?: number;
  /** The compressed size, for progress when the server sends no Content-Length. */
  compressedBytes?: number;
  /** The decompressed image's SHA-256 (the manifest's
   *  image.uncompressedSha256): checked when given, about 0.2 s for the RP06
   *  pack in Node. */
  sha256?: string;
  onProgress?: (progress: ImageLoadProgress) => void;
  /** Cancels the download. */
  signal?: AbortSignal;
  /** Into a SharedArrayBuffer (StreamImageOptions.shared). */
  shared?: boolean;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface FetchImageOptions extends Omit<LoadImageOptions, 'size' | 'compressedBytes' | 'sha256'> {
  /** The manifest's URL (e.g. new URL('images/43bsd.json', base)); the image
   *  is the manifest's image.file next to it. */
  manifestUrl: string | URL;
  /** Check the manifest's SHA-256 of the decompressed image (default true). */
  verify?: boolean;
  /** Use the chunked image when the manifest lists one (default true). */
  chunked?: boolean;
  /** Called with the manifest as soon as it is read and checked, before the image is fetched
   *  (so that the files it lists beside the image can be fetched at the same time). */
  onManifest?: (manifest: ImageManifest) => void;
}

/** Relative URLs resolve against the worker's (or page's) location. */
function absolute(url: string | URL): URL {
  return new URL(url, typeof location === 'undefined' ? undefined : location.href);
}

async function get(f: typeof fetch, url: URL, signal: AbortSignal | undefined): Promise<Response> {
  let res: Response;
  try {
    res = await f(url, { signal });
  } catch (e) {
    throw new DiskImageLoadError(`${url}: ${message(e)}`, { cause: e });
  }
  if (!res.ok) {
    const hint = res.status === 404 ? ' (the image is built by `npm run image`)' : '';
    throw new DiskImageLoadError(`${url}: HTTP ${res.status} ${res.statusText}${hint}`);
  }
  return res;
}

function checkManifest(m: unknown, url: URL): ImageManifest {
  const img = (m as { image?: Record<string, unknown> } | null)?.image;
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
  if (!img || typeof img.file !== 'string' || !positive(img.bytes) || !positive(img.uncompressedBytes)) {
    throw new DiskImageLoadError(`${url}: not an image manifest (no image.file, image.bytes, image.uncompressedBytes)`);
  }
  if (img.uncompressedBytes > MAX_IMAGE_BYTES || img.bytes > MAX_IMAGE_BYTES) {
    throw new DiskImageLoadError(`${url}: the manifest announces ${img.uncompressedBytes} bytes, more than the ` +
      `${MAX_IMAGE_BYTES} an image may have`);
  }
  return m as ImageManifest;
}

/** The largest image a manifest may announce: above every pack the lab
 *  uses (an RP06 is 174 MB, an RA81 456 MB), so a manifest cannot make the
 *  page allocate whatever it says. */
export const MAX_IMAGE_BYTES = 512 * 1024 * 1024;

/** A file a manifest names, next to the manifest: a plain file name (no
 *  scheme, no host, no path), so a manifest can never make the page fetch
 *  from another origin or another folder. */
export function sameOriginFile(file: string, manifestUrl: URL): URL {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(file) || file.includes('..')) {
    throw new DiskImageLoadError(`${manifestUrl}: image.file ${JSON.stringify(file.slice(0, 80))} is not a plain file name next to the manifest`);
  }
  const url = new URL(file, manifestUrl);
  if (url.origin !== manifestUrl.origin) throw new DiskImageLoadError(`${manifestUrl}: image.file is on another origin`);
  return url;
}

/** Fetches a gzipped image and streams it into a new DiskImage of
 *  options.size bytes. */
export async function loadDiskImage(
  api: Pick<Vax780Api, 'allocImage' | 'allocSharedImage'>,
  url: string | URL,
  options: LoadImageOptions,
): Promise<DiskImage> {
  const imageUrl = absolute(url);
  const name = imageUrl.pathname.split('/').pop() || String(imageUrl);
  const { size } = options;
  if (size === undefined || !Number.isInteger(size) || size <= 0) {
    throw new DiskImageLoadError(`${name}: the decompressed size is unknown (the manifest's image.uncompressedBytes), got ${size}`);
  }
  const res = await get(options.fetch ?? fetch, imageUrl, options.signal);
  if (!res.body) throw new DiskImageLoadError(`${imageUrl}: empty response`);
  // A server that labels the .gz Content-Encoding: gzip has fetch gunzip it
  // already: the body is the image itself, and the bytes received are not
  // comparable to any compressed size, so progress has no compressed total.
  const encoded = /\bgzip\b/i.test(res.headers.get('Content-Encoding') ?? '');
  const length = Number(res.headers.get('Content-Length'));
  return streamDiskImage(api, res.body, {
    uncompressedBytes: size,
    compressedBytes: encoded ? null : length > 0 ? length : (options.compressedBytes ?? null),
    sha256: options.sha256,
    gzipped: !encoded,
    onProgress: options.onProgress,
    name,
    shared: options.shared,
  });
}

/** Fetches a file the manifest lists beside the image, whole, and checks
 *  its size and SHA-256; a gzipped one (its first bytes say so) is
 *  gunzipped after the check.  onBytes reports the bytes received. */
export async function fetchShippedFile(
  file: ShippedFile, manifestUrl: string | URL,
  options: { fetch?: typeof fetch; signal?: AbortSignal; onBytes?: (received: number) => void } = {},
): Promise<Uint8Array> {
  const base = absolute(manifestUrl);
  const url = sameOriginFile(file.file, base);
  const res = await get(options.fetch ?? fetch, url, options.signal);
  if (!res.body) throw new DiskImageLoadError(`${url}: empty response`);
  // A server that labels a .gz Content-Encoding: gzip (vite preview does)
  // has fetch gunzip it: what arrives is then not what the manifest
  // describes, and only its size is bounded (by MAX_IMAGE_BYTES).
  const encoded = /\bgzip\b/i.test(res.headers.get('Content-Encoding') ?? '');
  const most = encoded ? MAX_IMAGE_BYTES : file.bytes;
  const parts: Uint8Array[] = [];
  let received = 0;
  const reader = res.body.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    received += r.value.byteLength;
    if (received > most) {
      reader.cancel().catch(() => {});
      throw new DiskImageLoadError(`${file.file}: more than the ${most} bytes the manifest gives`);
    }
    parts.push(r.value);
    options.onBytes?.(received);
  }
  let bytes = new Uint8Array(received);
  for (let at = 0, i = 0; i < parts.length; at += parts[i]!.byteLength, i++) bytes.set(parts[i]!, at);
  if (!encoded) {
    if (received !== file.bytes) throw new DiskImageLoadError(`${file.file}: ${received} bytes, the manifest gives ${file.bytes}`);
    const got = hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
    if (got !== file.sha256.toLowerCase()) throw new DiskImageLoadError(`${file.file}: SHA-256 mismatch: ${got}, the manifest gives ${file.sha256}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      const out = new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip')));
      bytes = new Uint8Array(await out.arrayBuffer());
    } catch (e) {
      throw new DiskImageLoadError(`${file.file}: not a valid gzip stream: ${message(e)}`, { cause: e });
    }
  }
  return bytes;
}

/** The manifest's chunked image as a DiskImage: the file fetched and checked
 *  (fetchShippedFile), opened in wasm memory, its pack's SHA-256 (its
 *  header's) the one the manifest gives. */
async function fetchChunkedImage(
  api: Pick<Vax780Api, 'openChunked' | 'openSharedChunked'> | Promise<Pick<Vax780Api, 'openChunked' | 'openSharedChunked'>>,
  manifest: ImageManifest, manifestUrl: URL, options: FetchImageOptions,
): Promise<{ image: DiskImage; pack?: SharedPack }> {
  const c = manifest.chunked!;
  const size = manifest.image.uncompressedBytes;
  const progress = (phase: ImageLoadProgress['phase'], received: number): void =>
    options.onProgress?.({
      phase, receivedBytes: received, compressedBytes: c.bytes, writtenBytes: Math.round((received / c.bytes) * size),
      uncompressedBytes: size, loaded: received, total: c.bytes,
    });
  const bytes = await fetchShippedFile(c, manifestUrl, { fetch: options.fetch, signal: options.signal, onBytes: (n) => progress('download', n) });
  let image: DiskImage;
  let pack: SharedPack | undefined;
  const vax = await api;
  try {
    // Shared: the compressed file is what the other workers open, and its chunks, decompressed, are
    // kept where they all read them (this worker too): sharedPack.ts.
    pack = options.shared ? sharedChunkedPack(bytes, c.imageSha256) : undefined;
    image = pack?.cache ? vax.openSharedChunked(new Uint8Array(pack.bytes), pack.cache) : vax.openChunked(bytes);
  } catch (e) {
    throw new DiskImageLoadError(`${c.file}: ${message(e)}`, { cause: e });
  }
  if (image.size !== size || image.sha256 !== c.imageSha256.toLowerCase()) {
    image.dispose();
    throw new DiskImageLoadError(`${c.file}: holds another pack than the manifest's image (${image.sha256}, ${image.size} bytes)`);
  }
  return { image, ...(pack ? { pack } : {}) };
}

/** Fetches the manifest, then its image: the chunked one when it lists one
 *  (opened as it is), else the gzipped one streamed into a new DiskImage.
 *  The emulator may still be loading (api a promise): the downloads start
 *  at once and wait for it only to hand it the bytes. */
export async function fetchDiskImage(
  api: LoaderApi | Promise<LoaderApi>,
  options: FetchImageOptions,
): Promise<{ image: DiskImage; manifest: ImageManifest; pack?: SharedPack }> {
  const f = options.fetch ?? fetch;
  const manifestUrl = absolute(options.manifestUrl);
  const mres = await get(f, manifestUrl, options.signal);
  let json: unknown;
  try {
    json = await mres.json();
  } catch (e) {
    throw new DiskImageLoadError(`${manifestUrl}: not JSON: ${message(e)}`, { cause: e });
  }
  const manifest = checkManifest(json, manifestUrl);
  options.onManifest?.(manifest);
  const c = manifest.chunked;
  if (options.chunked !== false && c && typeof c.file === 'string' && Number.isInteger(c.bytes) && c.bytes > 0 &&
    c.bytes <= MAX_IMAGE_BYTES && typeof c.sha256 === 'string' && c.imageSha256 === manifest.image.uncompressedSha256) {
    const { image, pack } = await fetchChunkedImage(api, manifest, manifestUrl, options);
    return { image, manifest, ...(pack ? { pack } : {}) };
  }
  const image = await loadDiskImage(await api, sameOriginFile(manifest.image.file, manifestUrl), {
    ...options,
    size: manifest.image.uncompressedBytes,
    compressedBytes: manifest.image.bytes,
    sha256: options.verify === false ? undefined : manifest.image.uncompressedSha256,
  });
  // Shared: the pack itself, in the SharedArrayBuffer it was decompressed into.
  const bytes = options.shared ? image.withBytes((b) => b.buffer) : null;
  const sha256 = manifest.image.uncompressedSha256?.toLowerCase();
  const pack: SharedPack | undefined = bytes instanceof SharedArrayBuffer && sha256 ? { format: 'flat', bytes, sha256 } : undefined;
  return { image, manifest, ...(pack ? { pack } : {}) };
}

// ------------------------------------------------------------ kernels beside the image

/** A kernel the installer built, as the image's manifest lists it (43bsd.json's
 *  kernels.kernels[]: installer/lib/kernels.ts): the gzipped a.out next to the
 *  manifest, its sizes and the SHA-256 of the a.out. */
export interface ManifestKernel {
  name: string;
  file: string;
  bytes: number;
  uncompressedBytes: number;
  uncompressedSha256: string;
}

/** The largest kernel a manifest may announce (4.3BSD's GENERIC is about 400 KB). */
export const MAX_KERNEL_BYTES = 8 * 1024 * 1024;

/** The kernels a manifest lists, each checked (a malformed entry is left out: it cannot be loaded). */
export function manifestKernels(manifest: unknown): ManifestKernel[] {
  const list = (manifest as { kernels?: { kernels?: unknown } } | null)?.kernels?.kernels;
  if (!Array.isArray(list)) return [];
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= MAX_KERNEL_BYTES;
  const out: ManifestKernel[] = [];
  for (const k of list as unknown[]) {
    const e = k as Record<string, unknown> | null;
    if (!e || typeof e.name !== 'string' || typeof e.file !== 'string' || !positive(e.bytes) || !positive(e.uncompressedBytes) ||
      typeof e.uncompressedSha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(e.uncompressedSha256)) continue;
    out.push({ name: e.name, file: e.file, bytes: e.bytes, uncompressedBytes: e.uncompressedBytes, uncompressedSha256: e.uncompressedSha256 });
  }
  return out;
}

/**
 * Fetches a kernel the manifest lists (same origin, next to the manifest, as
 * the image), gunzips it and checks its size and SHA-256 against the
 * manifest: the a.out's bytes, for Vax780Options.kernel.  A kernel is small
 * (hundreds of KB), so it is gathered in memory, never more than the
 * manifest's size.
 */
export async function fetchKernel(
  manifestUrl: string | URL, kernel: ManifestKernel, options: { fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<Uint8Array> {
  const base = absolute(manifestUrl);
  const url = sameOriginFile(kernel.file, base);
  const name = `kernel ${kernel.name} (${kernel.file})`;
  const res = await get(options.fetch ?? fetch, url, options.signal);
  if (!res.body) throw new DiskImageLoadError(`${url}: empty response`);
  const encoded = /\bgzip\b/i.test(res.headers.get('Content-Encoding') ?? '');
  const body = res.body as ReadableStream<BufferSource>;
  const reader = (encoded ? body as ReadableStream<Uint8Array> : body.pipeThrough(new DecompressionStream('gzip'))).getReader();
  const size = kernel.uncompressedBytes;
  const out = new Uint8Array(size);
  let at = 0;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        throw new DiskImageLoadError(`${name}: not a valid gzip stream, or the download failed: ${message(e)}`, { cause: e });
      }
      if (r.done) break;
      if (at + r.value.byteLength > size) {
        throw new DiskImageLoadError(`${name}: size mismatch: decompresses to more than the ${size} bytes the manifest gives`);
      }
      out.set(r.value, at);
      at += r.value.byteLength;
    }
  } catch (e) {
    reader.cancel(e).catch(() => {});
    throw e;
  }
  if (at !== size) throw new DiskImageLoadError(`${name}: size mismatch: decompressed to ${at} bytes, the manifest gives ${size}`);
  const got = hex(await crypto.subtle.digest('SHA-256', out));
  if (got !== kernel.uncompressedSha256.toLowerCase()) {
    throw new DiskImageLoadError(`${name}: SHA-256 mismatch: ${got}, the manifest gives ${kernel.uncompressedSha256}`);
  }
  return out;
}
