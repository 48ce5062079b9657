// The lab's Web Worker (a module worker): loads the WebAssembly emulator and
// the disk image (the chunked one when the manifest lists it, decompressed
// as machines read it; else streamed, gunzipped straight into wasm memory,
// with progress), keeps that pristine image, and serves the page's messages
// (protocol.ts): experiment runs through the experiment runner, and the
// Terminal tab's multi-user machine.  Both can run at once: each yields to
// the event loop between emulator slices, so they interleave and a stop or a
// keystroke gets through within a slice.
//
// Machines start from snapshots at their prompts when there are some
// (experiments/runner/bootSnapshots.ts): the ones the image builder ships
// (fetched as soon as the image is in, the default experiment's and the
// terminal's first), and the ones this worker saves when it boots a machine
// configured otherwise — so only the first run of each configuration boots.
//
// The same script is each worker of the page's pool (web/src/lab/pool.ts):
// the first worker, in a cross-origin isolated page, posts the pack in
// shared memory (pack: the chunked image's compressed file, or the whole
// pack when there is none; emu/js/sharedPack.ts) and the image's manifest; a
// pool worker starts from that (init-shared), offers the manifest's shipped
// snapshots exactly as the first worker does, and runs a sweep's units, one
// at a time, sending each unit's counter samples as they come (counter-samples,
// in batches as a run's are: the page draws them live) and saying how its
// machine started (units-done starts).

import { findExperiment } from '../../../experiments/runner/experiments';
import { runExperiment } from '../../../experiments/runner/runner';
import { BootSnapshots, bootKey, bootSnapshotFromFile, startsSince } from '../../../experiments/runner/bootSnapshots';
import { SweepUnitRunner, type SweepRequest } from '../../../experiments/runner/sweep';
import { effectiveKernelName, kernelByName } from '../../../experiments/kernels/variants';
import type { RunOptions } from '../../../experiments/runner/runner';
import {
  fetchDiskImage, fetchKernel, fetchShippedFile, manifestKernels, type ImageManifest, type ManifestKernel,
} from '../../../emu/js/diskImageLoader';
import { openSharedPack, type SharedPack } from '../../../emu/js/sharedPack';
import type { Vax780Options } from '../../../emu/js/vax780';
import { CPU_NS_PER_INSTRUCTION } from '../../../emu/js/constants';
import type { DiskImage } from '../../../emu/js/diskImage';
import { loadVax, type VaxMachineApi } from '../../../emu/js/vaxModule';
import {
  errorMessage, type FromWorker, type ImageRef, type KernelName, type PackImage, type RunConfig, type ToWorker,
} from './protocol';
import { SampleBatches } from './sampleBatches';
import { TerminalSession } from './terminal';

const ctx = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
};

function post(message: FromWorker): void {
  ctx.postMessage(message);
}

/** Yields to the event loop (a macrotask, so queued messages are handled;
 *  a MessageChannel is not clamped to 4 ms as nested setTimeouts are). */
const channel = new MessageChannel();
const waiting: (() => void)[] = [];
channel.port1.onmessage = () => waiting.shift()?.();
function yieldNow(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

// ------------------------------------------------------------ loading

interface LoadedImage {
  disk: DiskImage;
  name: string;
  sha256?: string;
}

/** A kernel variant as the runner takes it (RunOptions.kernel). */
type VariantKernel = NonNullable<RunOptions['kernel']>;

let api: VaxMachineApi | null = null;
let emulator: Promise<VaxMachineApi> | null = null;
let images: ImageRef[] = [];
const loaded = new Map<KernelName, Promise<LoadedImage>>();
/** Machines at their prompts, for runs and the terminal (shipped and saved here). */
const bootSnapshots = new BootSnapshots();

/** The shipped snapshots fetched at once (the default experiment's machine and the terminal's). */
const PREFETCH = ['table2', 'terminal'];

/** Starts fetching the manifest's snapshots named in PREFETCH (beside the image's own download). */
function prefetchShippedSnapshots(manifest: ImageManifest, manifestUrl: string): Map<string, Promise<Uint8Array>> {
  const early = new Map<string, Promise<Uint8Array>>();
  const boots = manifest.snapshots?.boots;
  if (!Array.isArray(boots)) return early; // refused, saying why, by offerShippedSnapshots
  for (const boot of boots) {
    if (!PREFETCH.includes(boot.name)) continue;
    const bytes = fetchShippedFile(boot, manifestUrl);
    bytes.catch(() => {}); // a failure is the source's, when it is taken
    early.set(boot.name, bytes);
  }
  return early;
}

/** The manifest's machine snapshots, made by this emulator build, as sources
 *  of the store; those already being fetched (`early`) are taken at once. */
function offerShippedSnapshots(vax: VaxMachineApi, disk: DiskImage, manifest: ImageManifest, manifestUrl: string,
  early: Map<string, Promise<Uint8Array>>): void {
  const s = manifest.snapshots;
  if (!s || !Array.isArray(s.boots)) return;
  if (s.emulatorBuild !== vax.buildId) {
    console.info(`vaxlab: the image's machine snapshots are of another emulator build (${String(s.emulatorBuild).slice(0, 12)}…): ` +
      'machines boot instead (npm run image makes them again)');
    return;
  }
  for (const boot of s.boots) {
    // A machine booted on a kernel variant (Table 2's on the paper's kernel, the paging tables' on like-4.2) is
    // named by the kernel's SHA-256, as the runner names the variant it boots: the key matches before the kernel
    // itself is fetched.
    const key = bootKey(disk, { ...(boot.options as Omit<Vax780Options, 'disk'>), disk }, boot.recipe, boot.kernel?.uncompressedSha256);
    const bytes = early.get(boot.name);
    bootSnapshots.addSource(key, async () => bootSnapshotFromFile(await (bytes ?? fetchShippedFile(boot, manifestUrl))));
    if (bytes) void bootSnapshots.take(key);
  }
}

async function loadImage(kernel: KernelName): Promise<LoadedImage> {
  const ref = images.find((i) => i.kernel === kernel);
  if (!ref) throw new Error(`no ${kernel} image is configured`);
  if (!emulator) throw new Error('the emulator is not loaded');
  const t0 = performance.now();
  // Shared memory when the page may have it: the pool's workers then start from this one copy.
  const shared = typeof SharedArrayBuffer === 'function' && self.crossOriginIsolated === true;
  // The image (and the snapshots fetched at once) download while the emulator compiles.
  let early = new Map<string, Promise<Uint8Array>>();
  const { image: disk, manifest, pack } = await fetchDiskImage(emulator.then((a) => a.vax780), {
    manifestUrl: ref.manifestUrl,
    shared,
    onManifest: (m) => {
      early = prefetchShippedSnapshots(m, ref.manifestUrl);
    },
    // Decompressed bytes against the image's size: known whether or not the
    // server sent the .gz with Content-Encoding (then fetch gunzips it and
    // there is no compressed total).
    onProgress: (p) =>
      post({
        type: 'loading', phase: p.phase === 'verify' ? 'verify' : 'image', kernel,
        loaded: p.writtenBytes, total: p.uncompressedBytes,
      }),
  });
  const name = manifest.image.file;
  const sha256 = manifest.image.uncompressedSha256;
  const chunked = disk.kind === 'chunked' || disk.kind === 'shared-chunked';
  offerShippedSnapshots(await emulator, disk, manifest, ref.manifestUrl, early);
  manifests.set(kernel, Promise.resolve(manifestKernels(manifest)));
  post({
    type: 'ready',
    kernel,
    // What was downloaded: the chunked image when the manifest has one (opened as it is), else the gzipped pack.
    image: chunked
      ? { name, sha256, bytes: disk.size, compressedBytes: manifest.chunked?.bytes ?? 0, chunked }
      : { name, sha256, bytes: disk.size, compressedBytes: manifest.image.bytes, chunked },
    variants: manifestKernels(manifest).map((k) => k.name),
    wasmMs,
    imageMs: performance.now() - t0,
  });
  if (pack) post({ type: 'pack', kernel, pack, image: { name, sha256 }, images, manifest });
  return { disk, name, sha256 };
}

function image(kernel: KernelName): Promise<LoadedImage> {
  let p = loaded.get(kernel);
  if (!p) {
    p = loadImage(kernel);
    loaded.set(kernel, p);
    p.catch(() => loaded.delete(kernel));
  }
  return p;
}

let wasmMs = 0;

// ------------------------------------------------------------ kernel variants

/** The kernels each image's manifest lists (the first worker has it from loading the image; a pool's worker
 *  fetches the manifest when a run first asks for a variant). */
const manifests = new Map<KernelName, Promise<ManifestKernel[]>>();
/** Variants fetched, by image and name: each is fetched once, when first asked for. */
const variants = new Map<string, Promise<VariantKernel>>();
/** Those that have arrived, for the sweep's resolver (which is synchronous). */
const variantsLoaded = new Map<string, VariantKernel>();

function manifestUrl(kernel: KernelName): string {
  const ref = images.find((i) => i.kernel === kernel);
  if (!ref) throw new Error(`no ${kernel} image is configured`);
  return ref.manifestUrl;
}

async function listedKernels(kernel: KernelName): Promise<ManifestKernel[]> {
  let p = manifests.get(kernel);
  if (!p) {
    p = (async () => {
      const res = await fetch(manifestUrl(kernel));
      if (!res.ok) throw new Error(`${manifestUrl(kernel)}: HTTP ${res.status}`);
      return manifestKernels(await res.json());
    })();
    manifests.set(kernel, p);
    p.catch(() => manifests.delete(kernel));
  }
  return p;
}

/** The variant `name` of the image's kernels: fetched (same origin, SHA-256 checked) the first time, which the page is
 *  told of (with the run's id when a run asked: only that run's console says so). */
function variantKernel(kernel: KernelName, name: string, runId?: number): Promise<VariantKernel> {
  const key = `${kernel} ${name}`;
  let p = variants.get(key);
  if (!p) {
    p = (async () => {
      const variant = kernelByName(name);
      if (!variant) throw new Error(`kernel ${name}: this lab has no such kernel variant`);
      const entry = (await listedKernels(kernel)).find((k) => k.name === name);
      if (!entry) throw new Error(`kernel ${name}: the image's manifest does not list it (npm run image builds the kernels)`);
      post({ type: 'kernel-loading', variant: name, ...(runId !== undefined ? { runId } : {}) });
      const bytes = await fetchKernel(manifestUrl(kernel), entry);
      // Named as the command line names it (vaxlab run --kernel NAME), so results agree.
      const loadedKernel: VariantKernel = { name: `${variant.name}: ${variant.label}`, bytes, sha256: entry.uncompressedSha256 };
      variantsLoaded.set(key, loadedKernel);
      return loadedKernel;
    })();
    variants.set(key, p);
    p.catch(() => variants.delete(key));
  }
  return p;
}

async function init(refs: ImageRef[]): Promise<void> {
  images = refs;
  post({ type: 'loading', phase: 'emulator', kernel: refs[0]?.kernel ?? '4.3BSD', loaded: 0, total: null });
  const t0 = performance.now();
  emulator = loadVax();
  // The first image's download starts now, beside the emulator's compile.
  const first = refs[0];
  const firstImage = first ? image(first.kernel) : null;
  firstImage?.catch(() => {}); // reported below, once the emulator is known to be there
  try {
    api = await emulator;
  } catch (e) {
    post({ type: 'fatal', message: `The emulator (vax.wasm) did not load: ${errorMessage(e)}` });
    return;
  }
  wasmMs = performance.now() - t0;
  if (!first) return;
  try {
    await firstImage;
  } catch (e) {
    post({ type: 'fatal', message: `The ${first.kernel} disk image did not load: ${errorMessage(e)}` });
  }
}

/** A worker of the pool: the emulator, and the pack another worker loaded (no download, no copy). */
async function initShared(kernel: KernelName, pack: SharedPack, packImage: PackImage, refs: ImageRef[],
  manifest: ImageManifest | null): Promise<void> {
  const t0 = performance.now();
  try {
    emulator = loadVax();
    api = await emulator;
  } catch (e) {
    post({ type: 'fatal', message: `The emulator (vax.wasm) did not load: ${errorMessage(e)}` });
    return;
  }
  wasmMs = performance.now() - t0;
  let disk: DiskImage;
  try {
    disk = openSharedPack(api.vax780, pack);
  } catch (e) {
    post({ type: 'fatal', message: `The shared ${kernel} disk image did not open: ${errorMessage(e)}` });
    return;
  }
  loaded.set(kernel, Promise.resolve({ disk, name: packImage.name, sha256: packImage.sha256 }));
  images = refs;
  // The image's shipped machine snapshots, as the first worker has them: the same files, fetched (from the
  // HTTP cache, as a rule) when a unit first wants one, with the same checks (SHA-256, emulator build, disk).
  const ref = refs.find((i) => i.kernel === kernel);
  if (manifest && ref) {
    offerShippedSnapshots(api, disk, manifest, ref.manifestUrl, new Map());
    manifests.set(kernel, Promise.resolve(manifestKernels(manifest)));
  }
  post({
    type: 'ready', kernel, image: { name: packImage.name, sha256: packImage.sha256, bytes: disk.size, compressedBytes: 0 }, variants: [],
    wasmMs, imageMs: 0,
  });
}

// ------------------------------------------------------------ speed meter

let executedSinceTick = 0;
let lastTick = performance.now();
let runActive = false;
let speedTimer: ReturnType<typeof setInterval> | null = null;

function countExecuted(n: number): void {
  if (n > 0) executedSinceTick += n;
}

function updateSpeedTimer(): void {
  const busy = runActive || terminal !== null;
  if (busy && speedTimer === null) {
    executedSinceTick = 0;
    lastTick = performance.now();
    speedTimer = setInterval(() => {
      const now = performance.now();
      const ips = (executedSinceTick * 1000) / Math.max(1, now - lastTick);
      executedSinceTick = 0;
      lastTick = now;
      post({ type: 'speed', instructionsPerSecond: Math.round(ips), running: { run: runActive, terminal: terminal !== null } });
    }, 1000);
  } else if (!busy && speedTimer !== null) {
    clearInterval(speedTimer);
    speedTimer = null;
    post({ type: 'speed', instructionsPerSecond: 0, running: { run: false, terminal: false } });
  }
}

// ------------------------------------------------------------ experiment runs

let currentRun: { runId: number; abort: AbortController } | null = null;
/** A run's console text and progress go out at most this often (ms); its counter samples have their own pace
 *  (sampleBatches.ts). */
const FLUSH_MS = 100;

async function run(runId: number, experiment: string, config: RunConfig): Promise<void> {
  if (currentRun) {
    post({ type: 'run-error', runId, message: 'another experiment is running; stop it first' });
    return;
  }
  const spec = findExperiment(experiment);
  if (!spec) {
    post({ type: 'run-error', runId, message: `no experiment "${experiment}"` });
    return;
  }
  const abort = new AbortController();
  currentRun = { runId, abort };
  runActive = true;
  updateSpeedTimer();
  const t0 = performance.now();
  const hostSeconds = () => (performance.now() - t0) / 1000;
  // The runner calls back often (console per slice, a sample per virtual
  // second); the messages go out in batches, at each pause and at the end.
  let consoleBuffer = '';
  const samples = new SampleBatches({ kind: 'run', runId }, post);
  const queued: FromWorker[] = [];
  let lastInstructions = 0;
  let lastFlush = 0;
  const flush = () => {
    lastFlush = performance.now();
    if (consoleBuffer) post({ type: 'run-console', runId, text: consoleBuffer });
    consoleBuffer = '';
    for (const m of queued.splice(0)) post(m);
  };
  try {
    const img = await image(config.kernel);
    // The kernel asked for (vmunix: the image's own), else the experiment's (Table 2: the paper's kernel; Tables 7
    // and 8: like-4.2).
    const variantName = effectiveKernelName(spec.kernel, config.variant);
    const variant = variantName !== null ? await variantKernel(config.kernel, variantName, runId) : undefined;
    post({ type: 'run-started', runId });
    const result = await runExperiment(api!.vax780, img.disk, spec, {
      ...(variant ? { kernel: variant } : {}),
      cpu: config.cpu,
      memoryMB: config.memoryMB,
      set: config.set,
      parameters: config.parameters,
      disk: config.disk,
      ...(config.spin ? { spin: config.spin } : {}),
      ...(config.spinSeeds !== undefined ? { spinSeeds: config.spinSeeds } : {}),
      limitSeconds: config.limitSeconds,
      profile: config.profile === true,
      image: { name: img.name, sha256: img.sha256 },
      bootSnapshots,
      signal: abort.signal,
      pause: async () => {
        if (performance.now() - lastFlush >= FLUSH_MS) flush();
        samples.sendIfDue();
        await yieldNow();
      },
      onConsole: (text) => {
        consoleBuffer += text;
      },
      onSample: (sample) => samples.add(sample),
      onPartial: (partial) => {
        // After what came before it (the step's console, progress and samples).
        flush();
        samples.sendThen({ type: 'run-partial', runId, result: partial });
      },
      onProgress: (progress) => {
        const delta = progress.instructions - lastInstructions;
        countExecuted(delta >= 0 ? delta : progress.instructions);
        lastInstructions = progress.instructions;
        // Only the latest progress of a batch matters.
        const i = queued.findIndex((m) => m.type === 'run-progress');
        if (i >= 0) queued.splice(i, 1);
        queued.push({ type: 'run-progress', runId, progress: { ...progress }, hostSeconds: hostSeconds() });
      },
    });
    flush();
    samples.sendThen({ type: 'run-done', runId, result, hostSeconds: hostSeconds() });
  } catch (e) {
    flush();
    samples.sendThen({ type: 'run-error', runId, message: errorMessage(e) });
  } finally {
    currentRun = null;
    runActive = false;
    updateSpeedTimer();
  }
}

// ------------------------------------------------------------ units of a sweep

/** The plan of the last request (the same for every unit of a sweep). */
let units: { key: string; runner: SweepUnitRunner } | null = null;
let unitAbort: AbortController | null = null;

async function unitRunner(kernel: KernelName, request: SweepRequest): Promise<SweepUnitRunner> {
  const img = await image(kernel);
  const key = `${kernel} ${JSON.stringify(request)}`;
  if (units?.key !== key) {
    const runner = new SweepUnitRunner(api!.vax780, img.disk, request, (name) => variantsLoaded.get(`${kernel} ${name}`),
      bootSnapshots);
    // The variants the sweep boots, fetched before any unit runs (the resolver is synchronous).
    const names = new Set(runner.plan.points.map((p) => p.kernel).filter((n): n is string => n !== null));
    for (const name of names) await variantKernel(kernel, name);
    units = { key, runner };
  }
  return units.runner;
}

async function checkUnits(id: number, kernel: KernelName, request: SweepRequest): Promise<void> {
  try {
    post({ type: 'units-checked', id, ...(await unitRunner(kernel, request)).check() });
  } catch (e) {
    post({ type: 'units-failed', id, message: errorMessage(e) });
  }
}

async function runUnit(id: number, kernel: KernelName, request: SweepRequest, unit: number): Promise<void> {
  const abort = new AbortController();
  unitAbort = abort;
  runActive = true;
  updateSpeedTimer();
  let lastInstructions = 0;
  let lastPost = 0;
  const samples = new SampleBatches({ kind: 'unit', id }, post);
  const startsBefore = { ...bootSnapshots.starts };
  try {
    const img = await image(kernel);
    const result = await (await unitRunner(kernel, request)).run(unit, {
      signal: abort.signal,
      image: { name: img.name, sha256: img.sha256 },
      pause: () => {
        samples.sendIfDue();
        return yieldNow();
      },
      onSample: (sample) => samples.add(sample),
      onProgress: (progress) => {
        const delta = progress.instructions - lastInstructions;
        countExecuted(delta >= 0 ? delta : progress.instructions);
        lastInstructions = progress.instructions;
        if (performance.now() - lastPost < FLUSH_MS) return;
        lastPost = performance.now();
        post({ type: 'units-progress', id, progress: { ...progress } });
      },
    });
    samples.sendThen({ type: 'units-done', id, result, starts: startsSince(startsBefore, bootSnapshots.starts) });
  } catch (e) {
    samples.sendThen({ type: 'units-failed', id, message: errorMessage(e) });
  } finally {
    if (unitAbort === abort) unitAbort = null;
    runActive = currentRun !== null;
    updateSpeedTimer();
  }
}

// ------------------------------------------------------------ terminal

let terminal: TerminalSession | null = null;
/** The page's terminal size, for a machine booted after it was said. */
let terminalSize: { cols: number; rows: number } | null = null;

async function startTerminal(cpu: '750' | '780', memoryMB: number, realtime: boolean): Promise<void> {
  if (terminal) {
    const old = terminal;
    terminal = null;
    old.stop();
  }
  let img: LoadedImage;
  try {
    img = await image('4.3BSD');
  } catch (e) {
    post({ type: 'terminal-status', phase: 'error', message: errorMessage(e), virtualSeconds: 0, realtime });
    return;
  }
  const session: TerminalSession = new TerminalSession(
    api!.vax780,
    img.disk,
    { memoryMB, cpuModel: cpu, nsPerInstruction: CPU_NS_PER_INSTRUCTION[cpu], realtime },
    {
      output: (text) => {
        if (terminal === session) post({ type: 'terminal-output', text });
      },
      status: (phase, virtualSeconds, message) => {
        if (terminal === session || phase === 'error') {
          post({ type: 'terminal-status', phase, virtualSeconds, message, realtime: session.isRealtime });
        }
      },
      executed: countExecuted,
    },
    yieldNow,
    bootSnapshots,
  );
  terminal = session;
  if (terminalSize) session.setSize(terminalSize.cols, terminalSize.rows);
  updateSpeedTimer();
  await session.run();
  if (terminal === session) {
    terminal = null;
    updateSpeedTimer();
  }
}

// ------------------------------------------------------------ messages

ctx.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  switch (m.type) {
    case 'init':
      void init(m.images);
      break;
    case 'run':
      void run(m.runId, m.experiment, m.config);
      break;
    case 'stop':
      if (currentRun && currentRun.runId === m.runId) currentRun.abort.abort();
      break;
    case 'terminal-start':
      void startTerminal(m.cpu, m.memoryMB, m.realtime);
      break;
    case 'terminal-input':
      terminal?.input(m.text);
      break;
    case 'terminal-size':
      terminalSize = { cols: m.cols, rows: m.rows };
      terminal?.setSize(m.cols, m.rows);
      break;
    case 'terminal-speed':
      if (terminal) {
        terminal.setRealtime(m.realtime);
        post({ type: 'terminal-status', phase: terminal.phase, virtualSeconds: terminal.virtualSeconds(), realtime: m.realtime });
      }
      break;
    case 'init-shared':
      void initShared(m.kernel, m.pack, m.image, m.images, m.manifest);
      break;
    case 'units-check':
      void checkUnits(m.id, m.kernel, m.request);
      break;
    case 'units-run':
      void runUnit(m.id, m.kernel, m.request, m.unit);
      break;
    case 'units-stop':
      unitAbort?.abort();
      break;
    case 'terminal-stop':
      if (terminal) {
        const t = terminal;
        terminal = null;
        // Its speed setting as it was (the page's "Follow wall-clock time" box, for the next boot), not false.
        post(t.powerOff());
        updateSpeedTimer();
      }
      break;
  }
};
