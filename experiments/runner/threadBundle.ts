// Node: the sweep's worker thread (sweepThread.ts) bundled into one plain
// JavaScript file, so that a thread starts without tsx's loader: under tsx
// each thread registers the loader, which compiles every TypeScript file it
// imports on a hooks thread of its own (about 26 MB a thread, measured in
// emu/docs/speed.md).  sweepThread.ts stays the one source; the bundle
// (experiments/build/, never committed) is derived from it by esbuild, with
// a manifest of the SHA-256 of every file that went into it.  The setup
// (scripts/setup.sh, scripts/test.sh: scripts/build-thread-bundle.ts) builds
// it when those files changed; the runner (sweepNode.ts) checks it again
// before it starts a thread and rebuilds it when it is missing or stale, or
// falls back to the TypeScript entry with one line when it cannot: it never
// runs a bundle older than its sources.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bumped when what the build does changes in a way its inputs do not show. */
const BUNDLE_FORMAT = 1;

/** Where a bundle comes from and goes. */
export interface ThreadBundlePaths {
  /** The TypeScript entry (absolute path). */
  entry: string;
  /** The bundle (absolute path, .mjs). */
  out: string;
  /** The directory esbuild resolves from and the manifest names inputs relative to (absolute). */
  root: string;
  /** The tsconfig.json esbuild compiles with, as tsx does (absolute path). */
  tsconfig: string;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The sweep's worker thread: its source, and its bundle under experiments/build/. */
export const SWEEP_THREAD_BUNDLE: ThreadBundlePaths = {
  entry: fileURLToPath(new URL('./sweepThread.ts', import.meta.url)),
  out: fileURLToPath(new URL('../build/sweepThread.mjs', import.meta.url)),
  root: REPO_ROOT,
  tsconfig: join(REPO_ROOT, 'tsconfig.json'),
};

/** What the manifest beside a bundle records: each input's SHA-256, by path relative to root. */
interface BundleManifest {
  format: number;
  esbuild: string;
  inputs: Record<string, string>;
}

const manifestPath = (paths: ThreadBundlePaths) => `${paths.out}.inputs.json`;
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
/** This file builds the bundle: a change to it (the build's options) makes every bundle stale. */
const BUILDER = fileURLToPath(import.meta.url);

function esbuildVersion(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/esbuild/package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? null;
  } catch {
    return null;
  }
}

/** A bundle's state against its sources: 'fresh', or why it cannot be used as it is. */
export type BundleState =
  | { state: 'fresh' }
  | { state: 'missing' }
  | { state: 'stale'; reason: string };

/** Compares the manifest with the files as they are now (every input hashed again: a few ms). */
export function bundleState(paths: ThreadBundlePaths): BundleState {
  if (!existsSync(paths.out) || !existsSync(manifestPath(paths))) return { state: 'missing' };
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(paths), 'utf8')) as BundleManifest;
  } catch {
    return { state: 'stale', reason: 'its manifest is unreadable' };
  }
  if (manifest.format !== BUNDLE_FORMAT) return { state: 'stale', reason: `it was built by another version of ${relative(paths.root, BUILDER)}` };
  const esbuild = esbuildVersion();
  if (manifest.esbuild !== esbuild) return { state: 'stale', reason: `it was built by esbuild ${manifest.esbuild}, not ${esbuild ?? '(none installed)'}` };
  if (typeof manifest.inputs !== 'object' || manifest.inputs === null || Object.keys(manifest.inputs).length === 0) {
    return { state: 'stale', reason: 'its manifest lists no inputs' };
  }
  for (const [file, hash] of Object.entries(manifest.inputs)) {
    const abs = resolve(paths.root, file);
    if (!existsSync(abs)) return { state: 'stale', reason: `${file} is gone` };
    if (sha256(readFileSync(abs)) !== hash) return { state: 'stale', reason: `${file} changed` };
  }
  return { state: 'fresh' };
}

/** Writes a file whole or not at all (another process may be reading or building the same bundle). */
function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** A path as a relative URL reference from `fromDir` ('./x' or '../x', forward slashes). */
function urlReference(fromDir: string, to: string): string {
  const rel = relative(fromDir, to).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * Builds the bundle and its manifest.  Two things differ from running the
 * sources through tsx, and both are undone here:
 * - `import.meta.url` would be the bundle's URL in every module: each
 *   module's own is put back, as the bundle's URL resolved to the source's
 *   place (so the paths they derive, the wasm module, the repository's root,
 *   are the same, wherever the checkout is);
 * - the Emscripten module (emu/build/wasm/vax.mjs, build output of its own)
 *   stays outside, imported from its place, so rebuilding the emulator never
 *   makes the bundle stale.
 * `import.meta.resolve` is left as it is: it resolves from the bundle's
 * place, so only an absolute URL keeps its meaning there.  Any other
 * `import.meta` property would need the same care as url, so it stops the
 * build.
 */
export async function buildBundle(paths: ThreadBundlePaths): Promise<{ inputs: number; bytes: number }> {
  const esbuild = await import('esbuild');
  const outDir = dirname(paths.out);
  const generated = join(paths.root, 'emu', 'build') + sep;
  const plugin: import('esbuild').Plugin = {
    name: 'vaxlab-thread-sources',
    setup(build) {
      build.onResolve({ filter: /\.mjs$/ }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (!abs.startsWith(generated)) return undefined;
        return { path: urlReference(outDir, abs), external: true };
      });
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        const other = /\bimport\.meta\.(?!url\b|resolve\b)([A-Za-z_$][\w$]*)/.exec(text);
        if (other) {
          return { errors: [{
            text: `import.meta.${other[1]} is not supported in the thread's bundle (only import.meta.url is rewritten, import.meta.resolve kept)`,
            location: { file: args.path, line: text.slice(0, other.index).split('\n').length },
          }] };
        }
        const own = JSON.stringify(urlReference(outDir, args.path));
        const contents = text.replace(/\bimport\.meta\.url\b/g, `new URL(${own}, import.meta.url).href`);
        const ext = extname(args.path);
        return { contents, loader: ext === '.ts' || ext === '.mts' || ext === '.cts' ? 'ts' : 'js' };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [paths.entry],
    absWorkingDir: paths.root,
    tsconfig: paths.tsconfig,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    write: false,
    metafile: true,
    outfile: paths.out,
    logLevel: 'silent',
    legalComments: 'none',
    banner: { js: `// Built from ${relative(paths.root, paths.entry)} by ${relative(paths.root, BUILDER)}: do not edit.` },
    plugins: [plugin],
  });
  const output = result.outputFiles.find((f) => f.path === paths.out);
  if (!output) throw new Error(`esbuild wrote no ${paths.out}`);
  const inputs: Record<string, string> = {};
  const files = [...Object.keys(result.metafile.inputs).map((f) => resolve(paths.root, f)), BUILDER, paths.tsconfig];
  for (const abs of files) inputs[relative(paths.root, abs).split(sep).join('/')] = sha256(readFileSync(abs));
  mkdirSync(outDir, { recursive: true });
  writeAtomically(paths.out, output.text);
  const manifest: BundleManifest = { format: BUNDLE_FORMAT, esbuild: esbuildVersion() ?? 'unknown', inputs };
  writeAtomically(manifestPath(paths), `${JSON.stringify(manifest, null, 1)}\n`);
  return { inputs: Object.keys(inputs).length, bytes: output.contents.byteLength };
}

/** An esbuild failure's first error, as file:line: text (esbuild's own message only says how many there were). */
function buildError(e: unknown, root: string): string {
  const first = (e as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors?.[0];
  if (first) return first.location ? `${relative(root, resolve(root, first.location.file))}:${first.location.line}: ${first.text}` : first.text;
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** What ensureBundle did. */
export type EnsureOutcome =
  | { bundle: URL; built: null }
  | { bundle: URL; built: { reason: string; inputs: number; bytes: number } }
  | { bundle: null; error: string };

/** The bundle if fresh, else built again; `bundle: null` with the reason when it could not be built. */
export async function ensureBundle(paths: ThreadBundlePaths): Promise<EnsureOutcome> {
  const state = bundleState(paths);
  if (state.state === 'fresh') return { bundle: pathToFileURL(paths.out), built: null };
  const reason = state.state === 'missing' ? 'it was missing' : `it was out of date (${state.reason})`;
  try {
    const built = await buildBundle(paths);
    return { bundle: pathToFileURL(paths.out), built: { reason, ...built } };
  } catch (e) {
    return { bundle: null, error: `${reason}, and building it failed: ${buildError(e, paths.root)}` };
  }
}
