// What the installer ships beside the gzipped pack so that the page and the
// runners start at once (run after the image and its kernels):
//
//   IMAGE.dskz                  the pack as a chunked image
//                               (emu/src/storage/chunked.h): each 64 KB chunk
//                               deflated on its own, decompressed only when
//                               a machine reads it — the page and the
//                               runners hold about 5 MB instead of 174;
//   IMAGE-boot-NAME.snap.gz     machine snapshots (emu/src/snapshot/snap.h,
//                               gzipped) of the machines the page starts
//                               most (experiments/runner/shippedBoots.ts)
//                               at their prompts, booted on the WebAssembly
//                               emulator with the runner's own code, over
//                               the chunked image.
//
// Both are listed in the manifest (`chunked`, `snapshots`), cached by the
// pack's SHA-256, the emulator build (a snapshot holds one build's state:
// another build refuses it) and the machines' definitions.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

import { writeChunkedImage } from '../../emu/js/chunkedImageNode';
import { loadVaxNode, wasmBuildExists } from '../../emu/js/vaxNode';
import { bootAndSave, recipeKey } from '../../experiments/runner/bootSnapshots';
import { shippedBoots } from '../../experiments/runner/shippedBoots';
import { writeJsonAtomic } from './output';

/** The manifest's description of the chunked image. */
export interface ChunkedManifest {
  file: string;
  format: string;
  bytes: number;
  sha256: string;
  /** The pack it holds (the manifest's image.uncompressedSha256). */
  imageSha256: string;
  chunkBytes: number;
  chunks: number;
  zeroChunks: number;
  storedChunks: number;
}

/** The manifest's list of shipped machine snapshots. */
export interface SnapshotsManifest {
  format: string;
  /** The emulator build that made them (the SHA-256 of emu/src); another refuses them. */
  emulatorBuild: string;
  cacheKey: string;
  boots: {
    name: string;
    what: string;
    file: string;
    bytes: number;
    sha256: string;
    uncompressedBytes: number;
    /** How the machine is created (Vax780Options but for the disk and the kernel) and booted. */
    options: Record<string, unknown>;
    /** The kernel booted instead of the image's /vmunix (ShippedBoot.kernel): the variant's name, its file beside
     *  the image and the SHA-256 of its bytes (the runner's boot key names a kernel by it); absent: /vmunix. */
    kernel?: { name: string; file: string; uncompressedSha256: string };
    recipe: { prompt: string; slice: number; limitSeconds: number; key: string };
    instructions: number;
    virtualSeconds: number;
  }[];
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

function writeAtomic(path: string, bytes: Uint8Array): void {
  writeFileSync(`${path}.partial`, bytes);
  renameSync(`${path}.partial`, path);
}

function intact(out: string, file: { file: string; sha256: string; bytes: number }): boolean {
  const p = join(out, file.file);
  if (!existsSync(p)) return false;
  const b = readFileSync(p);
  return b.length === file.bytes && sha256(b) === file.sha256;
}

/**
 * Writes the chunked image and the snapshots for the image described by
 * manifestPath (IMAGE.json in out), unless the manifest lists them already
 * for the same pack, emulator build and machines.  Needs the WebAssembly
 * build; without it, says so and ships neither (the page then boots).
 */
export async function buildShipped(out: string, manifestPath: string, say: (s: string) => void): Promise<'built' | 'up to date' | 'skipped'> {
  if (!wasmBuildExists()) {
    say('no WebAssembly build (make -C emu wasm): the chunked image and the machine snapshots are not made');
    return 'skipped';
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & {
    name: string;
    image: { file: string; uncompressedSha256: string; uncompressedBytes: number };
    chunked?: ChunkedManifest;
    snapshots?: SnapshotsManifest;
    kernels?: { kernels?: { name: string; file: string; uncompressedSha256: string }[] };
  };
  const api = await loadVaxNode();
  const listed = new Set((manifest.kernels?.kernels ?? []).map((k) => k.name));
  const boots = shippedBoots().filter((b) => {
    if (b.kernel === undefined || listed.has(b.kernel)) return true;
    say(`  no snapshot of ${b.name}'s machine: it boots kernel ${b.kernel}, which was not built (the page boots it instead)`);
    return false;
  });
  // The kernels the machines boot (Table 2's: the paper's; the paging tables': like-4.2), as the image's kernels part lists them: built before.
  const kernelOf = (b: (typeof boots)[number]): NonNullable<SnapshotsManifest['boots'][number]['kernel']> | undefined => {
    if (b.kernel === undefined) return undefined;
    const k = manifest.kernels?.kernels?.find((x) => x.name === b.kernel);
    if (!k) throw new Error(`machine ${b.name} boots kernel ${b.kernel}, which the manifest does not list`);
    return { name: k.name, file: k.file, uncompressedSha256: k.uncompressedSha256 };
  };
  const key = createHash('sha256').update(JSON.stringify({
    format: 1, image: manifest.image.uncompressedSha256, emulatorBuild: api.buildId,
    boots: boots.map((b) => ({ name: b.name, options: b.options, recipe: recipeKey(b.recipe), kernel: kernelOf(b)?.uncompressedSha256 ?? null })),
  })).digest('hex');
  if (manifest.chunked?.imageSha256 === manifest.image.uncompressedSha256 && intact(out, manifest.chunked) &&
    manifest.snapshots?.cacheKey === key && manifest.snapshots.boots.every((b) => intact(out, b))) {
    say(`the chunked image and ${manifest.snapshots.boots.length} machine snapshots are up to date; nothing to do`);
    return 'up to date';
  }

  const t0 = Date.now();
  const pack = gunzipSync(readFileSync(join(out, manifest.image.file)), { maxOutputLength: 512 * 1024 * 1024 });
  if (sha256(pack) !== manifest.image.uncompressedSha256) {
    throw new Error(`${manifest.image.file} does not hold the pack its manifest describes`);
  }
  const c = writeChunkedImage(pack);
  const chunkedFile = `${manifest.name}.dskz`;
  writeAtomic(join(out, chunkedFile), c.bytes);
  const chunked: ChunkedManifest = {
    file: chunkedFile, format: 'vaxlab chunked disk image 1 (emu/src/storage/chunked.h): 64 KB chunks, each raw DEFLATE',
    bytes: c.bytes.length, sha256: sha256(c.bytes), imageSha256: c.sha256, chunkBytes: 65536, chunks: c.chunks,
    zeroChunks: c.zero, storedChunks: c.raw + c.deflated,
  };
  say(`  ${chunkedFile}: ${c.bytes.length.toLocaleString('en-US')} bytes, ${c.chunks} chunks (${c.zero} of zeros, ` +
    `${c.deflated} deflated, ${c.raw} stored, ${c.shared} sharing another's bytes), in ${((Date.now() - t0) / 1000).toFixed(2)} s`);

  const disk = api.vax780.openChunked(c.bytes);
  const list: SnapshotsManifest['boots'] = [];
  try {
    for (const b of boots) {
      const t1 = Date.now();
      const k = kernelOf(b);
      let kernelBytes: Uint8Array | undefined;
      if (k) {
        kernelBytes = gunzipSync(readFileSync(join(out, k.file)));
        if (sha256(kernelBytes) !== k.uncompressedSha256) throw new Error(`${k.file} does not hold the kernel its manifest describes`);
      }
      const options = { ...b.options, disk, ...(kernelBytes ? { kernel: kernelBytes } : {}) };
      const snap = await bootAndSave(api.vax780, options, b.recipe);
      // Where the machine is: read from a restored copy.
      const sys = api.vax780.create({ ...options, restore: snap.bytes });
      const instructions = Number(sys.instructionCount());
      const virtualSeconds = Number(sys.timeNs()) / 1e9;
      sys.destroy();
      const gz = gzipSync(snap.bytes, { level: 9 });
      const file = `${manifest.name}-boot-${b.name}.snap.gz`;
      writeAtomic(join(out, file), gz);
      list.push({
        name: b.name, what: b.what, file, bytes: gz.length, sha256: sha256(gz), uncompressedBytes: snap.bytes.length,
        options: b.options as Record<string, unknown>, ...(k ? { kernel: k } : {}),
        recipe: { ...b.recipe, key: recipeKey(b.recipe) }, instructions, virtualSeconds: Number(virtualSeconds.toFixed(6)),
      });
      say(`  ${file}: ${b.what}${k ? ` (kernel ${k.file})` : ''}; ${instructions.toLocaleString('en-US')} instructions, ${virtualSeconds.toFixed(1)} virtual s; ` +
        `${snap.bytes.length.toLocaleString('en-US')} bytes, ${gz.length.toLocaleString('en-US')} gzipped, in ` +
        `${((Date.now() - t1) / 1000).toFixed(2)} s`);
    }
  } finally {
    disk.dispose();
  }
  manifest.chunked = chunked;
  manifest.snapshots = {
    format: 'vaxlab machine snapshot 1 (emu/src/snapshot/snap.h), gzipped', emulatorBuild: api.buildId, cacheKey: key, boots: list,
  };
  writeJsonAtomic(manifestPath, manifest);
  return 'built';
}
