// Loading the 4.3BSD pack into wasm memory in the browser worker: fetch the
// gzipped image the installer built (web/public/images/43bsd.dsk.gz), gunzip
// it with DecompressionStream as it arrives and write each decompressed
// chunk straight into a DiskImageWriter, so the 174 MB pack exists once, in
// wasm memory, never as a whole JavaScript copy.
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
import type { Vax780Api } from './vax780';

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

  const writer = shared ? api.allocSharedImage(size) : api.allocImage(size);
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

/** Fetches the manifest, then streams its image into a new DiskImage. */
export async function fetchDiskImage(
  api: Pick<Vax780Api, 'allocImage' | 'allocSharedImage'>,
  options: FetchImageOptions,
): Promise<{ image: DiskImage; manifest: ImageManifest }> {
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
  const image = await loadDiskImage(api, sameOriginFile(manifest.image.file, manifestUrl), {
    ...options,
    size: manifest.image.uncompressedBytes,
    compressedBytes: manifest.image.bytes,
    sha256: options.verify === false ? undefined : manifest.image.uncompressedSha256,
  });
  return { image, manifest };
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
