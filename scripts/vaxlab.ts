// The experiment runner's command line (experiments/runner):
//
//   npx vaxlab list
//   npx vaxlab kernels
//   npx vaxlab fidelity [--seeds N] [--spin drifting|locked] [--json FILE] [--kernel NAME|FILE]
//   npx vaxlab run EXPERIMENT|all [--cpu 750|780] [--mem MB] [--disk rp06|eagle|ideal|rm05]
//                                 [--param NAME=VALUE ...] [--set NAME=VALUE ...] [--limit SECONDS]
//                                 [--json FILE] [--image FILE] [--kernel NAME|FILE] [--counters all] [--jobs N]
//   npx vaxlab profile EXPERIMENT [--step ID ...] [--mode kernel|user|all] [--top N]
//                                 [--format text|json|speedscope|folded] [--out FILE] [--diff A,B]
//                                 [--phase command|setup] and run's --cpu --mem --disk --spin --param --set --limit --image
//   npx vaxlab sweep EXPERIMENT --set NAME=V1,V2,... [--set NAME2=...] [run's options] [--jobs N]
//                               [--measure M] [--json FILE] [--shard I/N --jsonl FILE]
//   npx vaxlab merge SHARD.jsonl ... [--json FILE] [--measure M]
//
// `profile` runs the experiment's steps (or those of --step) with the
// emulator's profiler on (experiments/profile) and prints, for each step's
// timed command, gprof's flat profile and call graph (text), the flat
// profile as JSON (one entry per function: name, calls, self and total
// virtual ms...), a speedscope file or folded stacks.  --diff A,B compares
// two steps' profiles; namei-profile also sets namei's figures beside the
// paper's Tables 10 and 9.  A step that fails still has the profile of what
// ran (exit 1).
//
//
// run: the experiment (or `all`: table2, table7 and namecache, one after the
// other) on the WebAssembly emulator (emu/js/vaxModule.ts) with the
// lab's 4.3BSD image (findLabImage: $VAXLAB_IMAGE or
// web/public/images/43bsd.dsk.gz, made by `npm run image`), prints each
// result as a table and writes the result JSON to FILE.  --param sets a
// parameter of the experiment (see `list`); --set a kernel variable or a
// machine setting (experiments/runner/toggles.ts; --set disk=eagle is
// --disk eagle: the disk's timing, the pack staying an RP06's).  --kernel
// boots a kernel the installer built (experiments/kernels/variants.ts:
// generic, no-name-cache, ...; the file IMAGE-kernel-NAME.gz beside the
// image) or any a.out kernel FILE (.gz or not) instead of the image's
// /vmunix.  --jobs N runs the steps (with --seeds, each seed of each step) on
// N worker threads (the same JSON, byte for byte).
//
// sweep: the experiment at every point of one or two settings (a --set or
// --param with a list or range: hz=50,100,250,1000, memoryMB=1..8) on --jobs
// worker threads sharing one copy of the pack (experiments/runner/sweep.ts,
// sweepNode.ts); prints a table of the points (--measure picks its figure)
// and writes the sweep's JSON.  --shard I/N runs the I-th of N slices and
// writes it as JSON Lines; merge joins the N files into the sweep's JSON,
// byte for byte what the sweep run whole writes (sweepShard.ts).
//
// `help`, or --help (-h) anywhere, prints the usage (exit 0).  Every setting
// is checked before a machine runs.  Exit 0 when every step ran, 1 when a
// step failed or Stop (^C) ended a run or sweep (what ran is printed and
// written, the step cut short marked "stopped"; a second ^C leaves at once),
// 2 on a bad command line or setting (nothing run, nothing written), 3
// without an image or wasm build, or with an image or kernel no machine can
// be made of.

import { accessSync, constants as fsConstants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, resolve } from 'node:path';

import {
  DISTRIBUTED_KERNEL_NAME, KERNELS, effectiveKernelName, isKernelChoice, kernelByName, kernelResultName,
} from '../experiments/kernels/variants';
import {
  ALL_EXPERIMENTS, PAGING_KERNEL_VARIANT, PAPER_KERNEL_VARIANT, experimentGroups, findExperiment, type ExperimentSpec,
} from '../experiments/runner/experiments';
import { type ExperimentResult, RESULT_VERSION, resultJson } from '../experiments/runner/result';
import { formatSweep, formatTable } from '../experiments/runner/resultText';
import {
  ImageError, MAX_SPIN_SEEDS, resolveRun, runExperiment, type RunOptions, SettingsError, virtualSeconds,
} from '../experiments/runner/runner';
import {
  assembleSweep, KERNEL_SETTING, MAX_JOBS, MAX_SWEEP_AXES, MAX_SWEEP_POINTS, parseAxis, planSweep, runUnits, sweepJson, sweepSetting, unitLabel,
  type SweepAxis, type SweepBase, type SweepPlan, type SweepRequest, type UnitOutcome,
} from '../experiments/runner/sweep';
import { threadExecutors } from '../experiments/runner/sweepNode';
import {
  mergeShards, parseShardSpec, readShard, SHARD_FORMAT, SHARD_VERSION, shardJsonl, shardUnits, ShardError, type Shard, type ShardSpec,
} from '../experiments/runner/sweepShard';
import { availableMeasures, findMeasure, MEASURES, type Measure } from '../experiments/runner/sweepView';
import { TOGGLES, expectedValues, findToggle, settingValue, toggleHelp, validateSetting } from '../experiments/runner/toggles';
import {
  FREE_MEMORY_PROBE_KB, formatFidelity, freeMemoryProbeBufpages, type Table7Probes, nameCacheFidelity, table2Fidelity, table7CountedSteps, table7Fidelity, table8Fidelity,
} from '../experiments/runner/fidelity';
import { DISK_TIMINGS, SPINS, type DiskTiming, type Spin } from '../emu/js/constants';
import { findLabImage, loadSharedPack, loadVaxNode, openDiskImage, wasmBuildExists } from '../emu/js/vaxNode';
import { openSharedPack, type SharedPack } from '../emu/js/sharedPack';
import {
  buildProfile, diffProfiles, flatProfile, foldedStacks, formatCallGraph, formatDiff, formatFlat, toSpeedscopeMany,
  type Mode, type Profile,
} from '../experiments/profile/index';
import { formatNameiComparison, NAMEI_PROFILE_EXPERIMENT, nameiFigures, nameiTableFor } from '../experiments/profile/namei';
import { TABLE_4 } from '../experiments/paper/namei';
import { kernelFileBeside, readKernel } from '../experiments/kernels/kernelFiles';
import { profileExperiment, type StepProfile } from '../experiments/profile/run';

/** The usage's width, and the column its options' words start at. */
const USAGE_WIDTH = 120;
const USAGE_INDENT = 22;

/** Words for the usage (a toggle's, from toggles.ts, as the lab page shows them), folded at USAGE_WIDTH, each line
 *  after the first under the option's words; a no-break space (U+00A0) keeps two words on one line. */
function usageWords(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/[ \n]+/).map((w) => w.replace(/\u00a0/g, ' '))) {
    if (line !== '' && USAGE_INDENT + line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(USAGE_INDENT)}`);
}

const USAGE = `usage: vaxlab list
       vaxlab kernels
       vaxlab fidelity [--seeds N] [--spin drifting|locked] [--json FILE] [--kernel NAME|FILE]   (Tables 2, 7, 8 and the name cache against the paper, each row the median of N seeds (default 3) with its range; held-out rows summed up; Table 7's counted rows also with ${FREE_MEMORY_PROBE_KB} KB less and more free memory)
       vaxlab run EXPERIMENT|all [--cpu 750|780] [--mem MB] [--disk ${DISK_TIMINGS.join('|')}] [--param NAME=VALUE ...]
                                 [--set NAME=VALUE ...] [--limit SECONDS] [--seeds N] [--spin drifting|locked]
                                 [--json FILE] [--image FILE] [--kernel NAME|FILE] [--counters all] [--jobs N]
       vaxlab sweep EXPERIMENT --set NAME=V1,V2,... [--set NAME2=V1,V2,...] [run's options] [--jobs N]
                               [--measure M] [--json FILE] [--shard I/N --jsonl FILE]
       vaxlab merge SHARD.jsonl ... [--json FILE] [--measure M]
       vaxlab profile EXPERIMENT [--step ID ...] [--mode kernel|user|all] [--top N] [--format text|json|speedscope|folded]
                                 [--out FILE] [--diff A,B] [--phase command|setup] [and run's machine settings, --image and --kernel; not --seeds]
  --mode              kernel (system time), user or all (default) for the flat profile, call graph and stacks
  --top N             the first N functions (default 30 in text, all in json)
  --format            text (gprof's flat profile and call graph), json (the flat profile), speedscope, folded
  --diff A,B          also compare the profiles of steps A and B (e.g. ls.nch0,ls.nch154)
  --phase             the timed command (default) or what ran before it (the boot and the set-up)
  namei-profile       profiles a name-heavy mix with both caches and the per-process cache alone (Tables 10, 9);
                      with --kernel no-offset-cache, the name cache alone and neither cache (Table 4)
  --seeds N           run each step N times, seeds 1..N (each disk command finds the platter at a pseudo-random angle,
                      each clock tick comes a pseudo-random delay after its overflow, and the command's pages fall
                      on other physical frames); the row is the median run, with the range
                      over the N (default 1)
  --spin ROTATION     ${usageWords(`${toggleHelp(findToggle('spin')!)} Same as --set\u00a0spin=ROTATION.`)}
  --disk TIMING       ${usageWords(`${toggleHelp(findToggle('disk')!)} Same as --set\u00a0disk=TIMING.`)}
  --param NAME=VALUE  a parameter of the experiment (vaxlab list shows them: iterations, divisor)
  --set NAME=VALUE    a kernel variable or machine setting: ${TOGGLES.map((t) => t.name).join(', ')}
  --limit SECONDS     virtual-second limit of each timed command (default: 5 x the paper's time, at least 120)
  --kernel NAME|FILE  boot this kernel instead of the experiment's: one the installer built beside the image
                      (${KERNELS.map((k) => k.name).join(', ')}), ${DISTRIBUTED_KERNEL_NAME} (the image's own /vmunix,
                      as distributed) or an a.out FILE.  Each table boots by default the lab's closest kernel to
                      the paper's column it is compared with: Table 2 and its rows the paper's kernel,
                      ${PAPER_KERNEL_VARIANT} (${kernelByName(PAPER_KERNEL_VARIANT)!.label});
                      Tables 7 and 8 and the paging rows (against the paper's 4.2BSD column) ${PAGING_KERNEL_VARIANT}
                      (${kernelByName(PAGING_KERNEL_VARIANT)!.label});
                      the other experiments the image's /vmunix
  --jobs N            worker threads, 1 to ${MAX_JOBS} (sweep's default: the cores less one), each running a step
                      (with --seeds, a seed of a step) at a time; the results are the same bytes for any N
  all                 runs ${ALL_EXPERIMENTS.join(', ')}
sweep: a --set or --param with a list (hz=50,100,250,1000) or a range (memoryMB=1..8, 1..8:0.5) is swept; one or
  two of them, at most ${MAX_SWEEP_POINTS} points in all.  --measure ${MEASURES.map((m) => m.id).join('|')}
  --shard I/N         run only the I-th (from 0) of N slices, written to --jsonl FILE; merge joins the N files`;

/** The longest --limit: a virtual week, far beyond any experiment. */
const MAX_LIMIT_SECONDS = 7 * 24 * 3600;

/** --limit SECONDS: a positive, finite number of virtual seconds up to MAX_LIMIT_SECONDS, or exit 2 saying so. */
function parseLimit(v: string): number {
  const n = /^\d*\.?\d+(e\d+)?$/i.test(v.trim()) ? Number(v) : NaN;
  if (!(Number.isFinite(n) && n > 0 && n <= MAX_LIMIT_SECONDS)) {
    die(`--limit takes a positive number of virtual seconds up to ${MAX_LIMIT_SECONDS}, got "${v}"`);
  }
  return n;
}

/** --json FILE (and --jsonl, profile's --out): refused before anything runs if it cannot be written. */
function checkJsonTarget(file: string, flag = '--json'): string {
  const path = resolve(file);
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) die(`${flag} ${file}: the directory ${dir} does not exist`);
  if (existsSync(path) && statSync(path).isDirectory()) die(`${flag} ${file}: is a directory`);
  try {
    accessSync(existsSync(path) ? path : dir, fsConstants.W_OK);
  } catch {
    die(`${flag} ${file}: cannot be written (permission denied)`);
  }
  return file;
}

/** Each command's options, all of which take a value.  An option not among them is refused as unknown before its
 *  value is looked for: a misspelt option, or a word such as iterations=10 without --param, last on the line was
 *  said to "need a value", as if it were an option. */
const RUN_OPTIONS = ['--cpu', '--disk', '--mem', '--set', '--param', '--limit', '--seeds', '--spin', '--counters', '--jobs',
  '--json', '--image', '--kernel'] as const;
const SWEEP_OPTIONS = [...RUN_OPTIONS, '--jsonl', '--shard', '--measure'] as const;
const FIDELITY_OPTIONS = ['--seeds', '--spin', '--json', '--kernel'] as const;
const PROFILE_OPTIONS = ['--mode', '--format', '--top', '--step', '--out', '--diff', '--phase', '--cpu', '--disk', '--mem',
  '--set', '--param', '--spin', '--limit', '--image', '--kernel'] as const;

/** The value of the option `flag` (taken from `args`), or exit 2: an unknown option, or one without its value. */
function optionValue(flag: string, args: string[], known: readonly string[]): string {
  if (!known.includes(flag)) die(`unknown option ${flag}\n${USAGE}`);
  return args.shift() ?? die(`${flag} needs a value\n${USAGE}`);
}

function die(message: string, code = 2): never {
  process.stderr.write(`vaxlab: ${message}\n`);
  process.exit(code);
}

/** An experiment by id: the runner's, or the profiler's own namei-profile. */
function experimentById(id: string): ExperimentSpec | undefined {
  return findExperiment(id) ?? (id === NAMEI_PROFILE_EXPERIMENT.id ? NAMEI_PROFILE_EXPERIMENT : undefined);
}

function list(): void {
  for (const { group, experiments } of experimentGroups()) {
    console.log(`${group}`);
    for (const e of experiments) {
      const params = Object.entries(e.parameters).map(([k, v]) => `${k}=${v}`).join(' ');
      const steps = e.steps.length === 1 ? '' : `${e.steps.length} steps; `;
      console.log(`  ${e.id.padEnd(16)} ${e.title}  [${steps}${params ? `${params}; ` : ''}${e.machine.cpu}, ${e.machine.memoryMB} MB]`);
    }
    console.log('');
  }
  console.log(`all: ${ALL_EXPERIMENTS.join(', ')} (${ALL_EXPERIMENTS.map((id) => findExperiment(id)!.steps.length)
    .reduce((a, b) => a + b, 0)} steps)`);
  // A knob with a few values (cpu, sosend_cluster_min) lists them: 750..780 read as a range that 751 was in.
  console.log(`--set takes: ${TOGGLES.map((t) => `${t.name} (${(t.choices ?? t.values)?.join('|') ?? `${t.min}..${t.max}`})`).join(', ')}`);
  console.log(`profile also takes ${NAMEI_PROFILE_EXPERIMENT.id}: ${NAMEI_PROFILE_EXPERIMENT.title}`);
}

function pair(flag: string, v: string): [string, number] {
  // A minus sign is read, so that --set maxtextcache=-1 (in its range) is taken and --set nbuf=-5 is refused as out of range.
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(-?\d+)$/.exec(v);
  if (m) return [m[1]!, Number(m[2])];
  // A knob with named values (disk=eagle) takes the name; one with a step (memoryMB=4.5) a decimal.
  const named = /^([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9_.]+)$/.exec(v);
  const t = named ? findToggle(named[1]!) : undefined;
  if (flag === '--set' && named && (t?.choices || t?.step !== undefined)) {
    const n = settingValue(named[1]!, named[2]!);
    if (n === null) die(`refused, nothing was run:\n  --set: ${named[1]}: ${expectedValues(named[1]!)}, got "${named[2]}"`);
    return [named[1]!, n];
  }
  die(`${flag} takes NAME=VALUE (a whole number${flag === '--set' ? ', a name for disk, or megabytes such as 4.5 for memoryMB' : ''}), got "${v}"`);
}

/** What run and sweep are told. */
interface Args {
  options: RunOptions;
  set: Record<string, number>;
  params: Record<string, number>;
  /** Sweep only: --set/--param NAME=LIST (a comma or a range), in the order given. */
  axes: { flag: string; name: string; raw: string }[];
  jsonFile: string | null;
  jsonlFile: string | null;
  imageFile: string | null;
  kernelArg: string | null;
  jobs: number | null;
  shard: ShardSpec | null;
  measure: Measure | null;
}

/** --jobs N: 1 to MAX_JOBS, or why not. */
function parseJobs(v: string): number {
  const cores = availableParallelism();
  if (!/^\d+$/.test(v)) die(`--jobs takes a whole number of worker threads, 1 to ${MAX_JOBS}, got "${v}"`);
  const n = Number(v);
  if (n < 1) die(`--jobs ${v}: at least 1 worker thread`);
  if (n > MAX_JOBS) die(`--jobs ${v}: at most ${MAX_JOBS} worker threads (this machine has ${cores} cores)`);
  if (n > cores) process.stderr.write(`vaxlab: --jobs ${n} on ${cores} cores: the workers share them\n`);
  return n;
}

function parseArgs(args: string[], command: 'run' | 'sweep'): Args {
  // Null-prototype maps: a name such as __proto__ or constructor is just an
  // unknown name, refused like any other.
  const a: Args = {
    options: {}, set: Object.create(null) as Record<string, number>, params: Object.create(null) as Record<string, number>, axes: [],
    jsonFile: null, jsonlFile: null, imageFile: null, kernelArg: null, jobs: null, shard: null, measure: null,
  };
  while (args.length > 0) {
    const flag = args.shift()!;
    const v = optionValue(flag, args, command === 'sweep' ? SWEEP_OPTIONS : RUN_OPTIONS);
    // A list or range is swept; so is the kernel, even alone (a fixed one is --kernel).
    const swept = command === 'sweep' && (flag === '--set' || flag === '--param') &&
      (/^[A-Za-z_][A-Za-z0-9_]*=(.*(,|\.\.)|\s*$)/.test(v) || v.startsWith(`${KERNEL_SETTING}=`));
    if (swept) {
      const eq = v.indexOf('=');
      a.axes.push({ flag, name: v.slice(0, eq), raw: v.slice(eq + 1) });
    } else if (flag === '--cpu') {
      if (v !== '750' && v !== '780') die('--cpu takes 750 or 780');
      a.options.cpu = v;
    } else if (flag === '--disk') {
      if (!(DISK_TIMINGS as readonly string[]).includes(v)) die(`--disk takes ${DISK_TIMINGS.join(', ')}, got "${v}"`);
      a.options.disk = v as DiskTiming;
    } else if (flag === '--mem') {
      const n = /^\d*\.?\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (validateSetting('memoryMB', n) !== null) die(`--mem takes megabytes in steps of 0.25 from 0.75 to 64 (e.g. 4.5), got "${v}"`);
      a.options.memoryMB = n;
    } else if (flag === '--set') {
      const [k, n] = pair(flag, v);
      a.set[k] = n;
    } else if (flag === '--param') {
      const [k, n] = pair(flag, v);
      a.params[k] = n;
    } else if (flag === '--limit') {
      a.options.limitSeconds = parseLimit(v);
    } else if (flag === '--seeds') {
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_SPIN_SEEDS) die(`--seeds takes a whole number of runs per step, 1 to ${MAX_SPIN_SEEDS}`);
      a.options.spinSeeds = n;
    } else if (flag === '--spin') {
      a.options.spin = parseSpin(v);
    } else if (flag === '--counters') {
      if (v !== 'all' && v !== 'experiment') die('--counters takes all or experiment');
      a.options.counters = v;
    } else if (flag === '--jobs') a.jobs = parseJobs(v);
    else if (flag === '--json') a.jsonFile = checkJsonTarget(v);
    else if (flag === '--image') a.imageFile = v;
    else if (flag === '--kernel') a.kernelArg = v;
    else if (command === 'sweep' && flag === '--jsonl') a.jsonlFile = checkJsonTarget(v, '--jsonl');
    else if (command === 'sweep' && flag === '--shard') {
      const sh = parseShardSpec(v);
      if (typeof sh === 'string') die(sh);
      a.shard = sh;
    } else if (command === 'sweep' && flag === '--measure') {
      a.measure = findMeasure(v) ?? die(`--measure takes ${MEASURES.map((m) => m.id).join(', ')}, got "${v}"`);
    } else die(`unknown option ${flag}\n${USAGE}`);
  }
  return a;
}

/** The settings every point of a sweep (or every unit of run --jobs) shares. */
function sweepBase(a: Args, parameters: Record<string, number>): SweepBase {
  const base: SweepBase = { parameters, set: { ...a.set } };
  if (a.options.cpu !== undefined) base.cpu = a.options.cpu;
  if (a.options.memoryMB !== undefined) base.memoryMB = a.options.memoryMB;
  if (a.options.disk !== undefined) base.disk = a.options.disk;
  if (a.options.limitSeconds !== undefined) base.limitSeconds = a.options.limitSeconds;
  if (a.options.counters !== undefined) base.counters = a.options.counters;
  if (a.options.spinSeeds !== undefined) base.spinSeeds = a.options.spinSeeds;
  if (a.options.spin !== undefined) base.spin = a.options.spin;
  if (a.kernelArg !== null) base.kernel = a.kernelArg;
  return base;
}

interface LoadedPack {
  pack: SharedPack;
  image: { name: string; sha256: string };
  path: string;
}

/** The image to run (--image, else the lab's), with the emulator built; exit 3 when either is missing. */
function labImagePath(imageFile: string | null): string {
  if (!wasmBuildExists()) die('the WebAssembly emulator is not built: make -C emu wasm (or npm run setup)', 3);
  const imagePath = imageFile ?? findLabImage();
  if (!imagePath) die('no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image` (or set VAXLAB_IMAGE)', 3);
  return imagePath;
}

/** The emulator, and the image opened in it (its chunked image when the installer wrote one); any problem is exit 3. */
async function openLabImage(imageFile: string | null) {
  const imagePath = labImagePath(imageFile);
  const api = await loadVaxNode();
  try {
    const { disk, sha256 } = await openDiskImage(api.vax780, imagePath);
    return { api, disk, sha256, imagePath };
  } catch (e) {
    die(`${imagePath}: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
}

/** The emulator's build and the image, checked; the pack read once into shared memory (loadSharedPack: its
 *  chunked image when the installer wrote one, else the whole pack), named by the pack's SHA-256. */
async function loadPack(imageFile: string | null): Promise<LoadedPack> {
  const imagePath = labImagePath(imageFile);
  let pack: SharedPack;
  try {
    pack = await loadSharedPack(imagePath);
  } catch (e) {
    die(`${imagePath}: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
  return { pack, image: { name: basename(imagePath), sha256: pack.sha256 }, path: imagePath };
}

/** The loaded pack as a DiskImage of this thread's emulator (any problem with it is exit 3, as documented). */
function openPack(api: Parameters<typeof openSharedPack>[0], loaded: LoadedPack) {
  try {
    return openSharedPack(api, loaded.pack);
  } catch (e) {
    die(`${loaded.path}: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
}

/** --kernel NAME|FILE: a variant the installer built beside the image, or an a.out file (exit 3 if there is none). */
async function loadKernel(arg: string, imagePath: string): Promise<NonNullable<RunOptions['kernel']>> {
  const variant = kernelByName(arg);
  const file = variant ? kernelFileBeside(imagePath, variant.name) : arg;
  if (!existsSync(file)) {
    die(variant ? `no kernel ${variant.name} beside the image (${file}): npm run image builds it beside the lab's image; ` +
      `with an image of your own, --kernel vmunix boots its /vmunix`
      : `--kernel ${arg}: no such kernel (${KERNELS.map((k) => k.name).join(', ')}) or file`, 3);
  }
  let kernel: NonNullable<RunOptions['kernel']>;
  try {
    kernel = await readKernel(file, variant ? kernelResultName(variant.name) : basename(file));
  } catch (e) {
    // A directory, a truncated .gz: said with the file's name (it was "unexpected end of file", exit 2).
    die(`--kernel ${arg}: ${file}: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
  if (kernel.bytes.length === 0) die(`--kernel ${arg}: ${file} is empty`, 3);
  process.stderr.write(`vaxlab: kernel ${kernel.name} (${file})\n`);
  return kernel;
}

/** The kernel an experiment boots (its bytes; undefined: the image's /vmunix): --kernel's (vmunix: the image's
 *  own), else the experiment's default (ExperimentSpec.kernel: Table 2's is the paper's, paper-1985;
 *  Tables 7 and 8's like-4.2).
 *  Each file is loaded once per command (`cache`). */
async function kernelFor(spec: ExperimentSpec, arg: string | null, imagePath: string,
  cache: Map<string, NonNullable<RunOptions['kernel']>> = new Map()): Promise<RunOptions['kernel']> {
  const name = effectiveKernelName(spec.kernel, arg);
  if (name === null) {
    if (spec.kernel !== undefined) process.stderr.write(`vaxlab: ${spec.id}: kernel ${kernelResultName(null)}\n`);
    return undefined;
  }
  let k = cache.get(name);
  if (!k) {
    k = await loadKernel(name, imagePath);
    cache.set(name, k);
  }
  return k;
}

/** ^C stops the run (the running steps end 'stopped', the rest are not run; what ran is printed and written,
 *  marked as stopped); a second ^C leaves at once, writing nothing. */
function stopOnInterrupt(abort: AbortController, what = 'every worker'): () => void {
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write(`\nvaxlab: stopping ${what} (^C again to leave at once)\n`);
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  return () => process.off('SIGINT', onSigint);
}

/** A machine run in this thread awaits this between slices: the event loop then takes a ^C (every few tens of ms;
 *  the guest never sees it), which would otherwise come only after the run.  RunOptions.pause. */
const betweenSlices = (): Promise<void> => new Promise((resume) => setImmediate(resume));

/** "ID i/N LABEL ... " on stderr as a step starts, the line's end written when it ends; returns the host seconds
 *  since, for that end. */
function stepStarted(id: string, index: number, steps: number, label: string): () => number {
  const t0 = performance.now();
  process.stderr.write(`${id} ${index + 1}/${steps} ${label} ... `);
  return () => (performance.now() - t0) / 1000;
}

const seconds = (s: number) => (s >= 100 ? s.toFixed(0) : s.toFixed(1));

/** How many worker threads run `units` units with `jobs` asked for. */
const threadCount = (jobs: number, units: number) => Math.max(1, Math.min(jobs, units));

/** "2 worker threads": as many as run `units` units with `jobs` asked for. */
const threads = (jobs: number, units: number) => {
  const n = threadCount(jobs, units);
  return `${n} worker thread${n === 1 ? '' : 's'}`;
};

/** Runs units of a plan on `jobs` worker threads, saying on stderr what ends where. */
async function runPlan(plan: SweepPlan, units: number[], jobs: number, loaded: LoadedPack, what: string,
  kernels: Record<string, NonNullable<RunOptions['kernel']>> = {}, stop?: AbortController) {
  const workers = threadCount(jobs, units.length);
  const pool = threadExecutors(plan.request, workers, loaded.pack, loaded.image, kernels);
  // The caller's ^C (run: one for all its experiments), else one for this plan.
  const abort = stop ?? new AbortController();
  const release = stop ? () => {} : stopOnInterrupt(abort);
  const host = new Map<number, number>();
  let remaining: number | null = null;
  process.stderr.write(`${what}: ${units.length} unit${units.length === 1 ? '' : 's'} on ${threads(jobs, units.length)}\n`);
  let done = 0;
  try {
    return {
      host,
      ...await runUnits(plan, units, pool.executors, {
        signal: abort.signal,
        onProgress: (p) => {
          remaining = p.remainingSeconds;
        },
        onUnit: (unit, outcome, info) => {
          done++;
          host.set(unit, info.hostSeconds);
          const row = 'result' in outcome ? outcome.result.rows[0] : undefined;
          const said = !row ? `COULD NOT RUN: ${'error' in outcome ? outcome.error : '?'}`
            : row.status === 'ok' ? `${row.guest?.line} (${row.emulator?.virtualSeconds.toFixed(1)} s virtual)`
              : `FAILED: ${row.failure?.message}`;
          const left = remaining !== null && done < units.length ? `, ~${seconds(remaining)} s left` : '';
          process.stderr.write(`[${done}/${units.length}] ${unitLabel(plan, unit)} ... ${said} ` +
            `(worker ${info.worker + 1}, ${info.hostSeconds.toFixed(1)} s host${left})\n`);
        },
      }),
    };
  } finally {
    release();
    await pool.close();
  }
}

/** An image or kernel the emulator cannot make a machine of (ImageError): exit 3 naming both, as for a missing image. */
function unusable(e: unknown, imagePath: string, kernel: RunOptions['kernel']): void {
  if (e instanceof ImageError) die(`${imagePath}${kernel ? ` with the kernel ${kernel.name}` : ''}: ${e.problems.join('; ')}`, 3);
}

function refused(problems: string[]): never {
  die(`refused, nothing was run:\n  ${[...new Set(problems)].join('\n  ')}`);
}

async function run(args: string[]): Promise<number> {
  const id = args.shift();
  if (!id || id.startsWith('-')) die(`run needs an experiment id\n${USAGE}`);
  const specs: ExperimentSpec[] = id === 'all'
    ? ALL_EXPERIMENTS.map((e) => findExperiment(e)!)
    : [findExperiment(id) ?? die(`no experiment "${id}" (vaxlab list shows them)`)];
  const a = parseArgs(args, 'run');
  const { options, set, params } = a;

  // Every setting is checked before anything is loaded or run.
  const perSpec = new Map<ExperimentSpec, RunOptions>();
  const problems: string[] = [];
  for (const name of Object.keys(params)) {
    if (!specs.some((s) => Object.hasOwn(s.parameters, name))) {
      problems.push(`--param ${name}: ${specs.length === 1 ? `${specs[0]!.id} has ${Object.keys(specs[0]!.parameters).join(', ') || 'no parameters'}`
        : `none of ${specs.map((s) => s.id).join(', ')} has it`}`);
    }
  }
  for (const spec of specs) {
    const own = Object.fromEntries(Object.entries(params).filter(([k]) => Object.hasOwn(spec.parameters, k)));
    const o: RunOptions = { ...options, set: { ...set }, parameters: own };
    perSpec.set(spec, o);
    try {
      const r = resolveRun(spec, o);
      for (const n of r.notes) process.stderr.write(`vaxlab: ${spec.id}: ${n}\n`);
    } catch (e) {
      if (!(e instanceof SettingsError)) throw e;
      problems.push(...e.problems.map((p) => (specs.length > 1 ? `${spec.id}: ${p}` : p)));
    }
  }
  if (problems.length > 0) refused(problems);

  // The workers boot kernel variants by name (a request is data; the bytes are loaded here).
  if (a.jobs !== null && a.kernelArg !== null && !isKernelChoice(a.kernelArg)) {
    die(`--jobs with --kernel ${a.kernelArg}: the worker threads boot the kernel variants by name (${KERNELS.map((k) => k.name).join(', ')})`);
  }
  const loaded = await loadPack(a.imageFile);
  const kernelCache = new Map<string, NonNullable<RunOptions['kernel']>>();
  const api = a.jobs === null ? await loadVaxNode() : null;
  // In this thread: the pack held once, as the threads would hold it (the
  // chunked image, decompressed as it is read; or the pack where it was read).
  const disk = api ? openPack(api.vax780, loaded) : undefined;

  const results: ExperimentResult[] = [];
  const summaries: string[] = [];
  // ^C stops the step running (on every thread) and the experiments after it; what ran is printed and written.
  const abort = new AbortController();
  const release = stopOnInterrupt(abort, a.jobs === null ? 'the run' : 'every worker');
  for (const spec of specs) {
    if (abort.signal.aborted) break;
    const o = perSpec.get(spec)!;
    o.signal = abort.signal;
    o.pause = betweenSlices;
    o.image = loaded.image;
    // --kernel's, else the experiment's own (Table 2: the paper's kernel; the paging tables: like-4.2).
    const kernel = await kernelFor(spec, a.kernelArg, loaded.path, kernelCache);
    if (kernel) o.kernel = kernel;
    const start = performance.now();
    let result: ExperimentResult;
    let host: number[];
    if (api && disk) {
      host = [];
      let took = () => 0;
      o.onStep = ({ step, index, phase, result: row }) => {
        if (phase === 'start') {
          took = stepStarted(spec.id, index, spec.steps.length, step.label);
        } else {
          host.push(took());
          const times = `${host[host.length - 1]!.toFixed(1)} s host, ${row?.emulator?.virtualSeconds.toFixed(1) ?? '?'} s virtual`;
          process.stderr.write(row?.status === 'ok' ? `${row.guest?.line} (${times})\n` : `FAILED: ${row?.failure?.message}\n`);
        }
      };
      try {
        result = await runExperiment(api.vax780, disk, spec, o);
      } catch (e) {
        unusable(e, loaded.path, kernel);
        if (e instanceof SettingsError) die(`${spec.id}: refused, nothing was run:\n  ${e.problems.join('\n  ')}`);
        throw e;
      }
    } else {
      // --jobs: the steps (with several seeds, each seed of each step) are units of a sweep without settings (one
      // point), run on worker threads.
      const request: SweepRequest = { experiment: spec.id, axes: [], base: sweepBase(a, o.parameters ?? {}) };
      const plan = planSweep(request);
      let ran;
      try {
        // The threads boot the point's kernel by name: the sweep plan resolves it as kernelFor does.
        const name = effectiveKernelName(spec.kernel, a.kernelArg);
        ran = await runPlan(plan, plan.units.map((u) => u.index), a.jobs!, loaded, spec.id, kernel && name !== null ? { [name]: kernel } : {}, abort);
      } catch (e) {
        // The threads' checks come back as an ImageError too: the same line and exit 3 as on one thread.
        unusable(e, loaded.path, kernel);
        if (e instanceof SettingsError) die(`${spec.id}: refused, nothing was run:\n  ${e.problems.join('\n  ')}`);
        throw e;
      }
      const point = assembleSweep(plan, ran.outcomes, ran.stopped).points[0]!;
      if (!point.result && abort.signal.aborted) break;
      if (!point.result) die(`${spec.id}: no step ran${point.errors ? `: ${point.errors.map((e) => e.message).join('; ')}` : ''}`, 1);
      result = point.result;
      for (const e of point.errors ?? []) process.stderr.write(`vaxlab: ${spec.id}: step ${e.step} could not run: ${e.message}\n`);
      // A host time per row: its step's units' (its seeds' together, as one thread would have taken them in turn).
      host = result.rows.map((r) => plan.units.filter((u) => u.step === r.step).reduce((t, u) => t + (ran.host.get(u.index) ?? 0), 0));
    }
    const hostTotal = (performance.now() - start) / 1000;
    results.push(result);
    console.log(formatTable(result, host));
    for (const r of result.rows) {
      if (r.failure) console.log(`\n${r.test}: ${r.failure.message}\n--- output of the failing step ---\n${r.failure.output}`);
    }
    const v = virtualSeconds(result);
    const ok = result.rows.filter((r) => r.status === 'ok').length;
    const summary = `${spec.id}: ${ok} of ${spec.steps.length} steps ok; ${v.commands.toFixed(1)} virtual s in the timed ` +
      `commands, ${v.machines.toFixed(1)} virtual s of machine time (boot and set-up included)` +
      // A failed step has no emulator figures: without this a run whose only step failed said "0.0 virtual s".
      `${ok < result.rows.length ? ', the failed steps\' not counted' : ''}; ${hostTotal.toFixed(1)} s of host time` +
      (a.jobs !== null ? ` on ${threads(a.jobs, spec.steps.length * (o.spinSeeds ?? 1))}` : '');
    summaries.push(summary);
    console.log(`\n${summary}\n`);
  }
  if (specs.length > 1) console.log(summaries.join('\n'));
  if (abort.signal.aborted) {
    process.stderr.write(`vaxlab: stopped (^C): ${results.length} of ${specs.length} experiment${specs.length === 1 ? '' : 's'} above` +
      `${a.jsonFile && results.length > 0 ? ` and in ${a.jsonFile}` : ''}, a step cut short marked "stopped"\n`);
  }
  disk?.dispose();
  if (a.jsonFile && results.length > 0) {
    writeFileSync(a.jsonFile, specs.length === 1 ? resultJson(results[0]!)
      : `${JSON.stringify({ format: 'vaxlab-experiment-results', version: RESULT_VERSION, results }, null, 2)}\n`);
  }
  // Only now: a ^C while the JSON was written waits for the write (the default would cut the file short).
  release();
  return results.length === specs.length && results.every((r) => r.status === 'ok') ? 0 : 1;
}

async function sweep(args: string[]): Promise<number> {
  const id = args.shift();
  if (!id || id.startsWith('-')) die(`sweep needs an experiment id\n${USAGE}`);
  if (id === 'all') die('sweep takes one experiment (all is three)');
  const spec = findExperiment(id) ?? die(`no experiment "${id}" (vaxlab list shows them)`);
  const a = parseArgs(args, 'sweep');
  if (a.axes.length === 0) {
    die(`sweep needs a setting to sweep: --set NAME=V1,V2,... or a range NAME=FROM..TO (e.g. --set hz=50,100,250,1000); ` +
      `for one point, vaxlab run`);
  }
  if (a.shard && !a.jsonlFile) die('--shard writes its units as JSON Lines: give --jsonl FILE');
  if (a.jsonlFile && !a.shard) die('--jsonl is the output of --shard I/N (for the whole sweep, --json FILE)');
  if (a.shard && a.jsonFile) die('--shard writes JSON Lines (--jsonl FILE); merge writes the sweep\'s JSON from the shards');

  // The axes and every point's settings, all checked before anything runs.
  const problems: string[] = [];
  const axes: SweepAxis[] = [];
  if (a.axes.length > MAX_SWEEP_AXES) problems.push(`${a.axes.length} settings swept (${a.axes.map((x) => x.name).join(', ')}); a sweep turns one or two`);
  for (const x of a.axes) {
    const s = sweepSetting(spec, x.name);
    if (typeof s === 'string') {
      problems.push(s);
      continue;
    }
    if ((x.flag === '--param') !== (s.kind === 'parameter')) {
      problems.push(`${x.flag} ${x.name}: ${s.kind === 'parameter' ? `a parameter of ${spec.id}: --param` : 'a setting: --set'} ${x.name}=...`);
      continue;
    }
    const { axis, problems: p } = parseAxis(s, x.raw);
    problems.push(...p);
    if (axis) axes.push(axis);
  }
  for (const name of Object.keys(a.params)) {
    if (!(name in spec.parameters)) problems.push(`--param ${name}: ${spec.id} has ${Object.keys(spec.parameters).join(', ') || 'no parameters'}`);
  }
  if (problems.length > 0) refused(problems);
  const request: SweepRequest = { experiment: spec.id, axes, base: sweepBase(a, a.params) };
  let plan: SweepPlan;
  try {
    plan = planSweep(request);
  } catch (e) {
    if (e instanceof SettingsError) refused(e.problems);
    throw e;
  }
  const units = a.shard ? shardUnits(plan, a.shard) : plan.units.map((u) => u.index);
  const measure = a.measure;

  const loaded = await loadPack(a.imageFile);
  // The kernel variants the points boot, loaded once here and handed to every thread.
  const kernelNames = new Set(plan.points.flatMap((p) => (p.kernel === null ? [] : [p.kernel])));
  const kernels: Record<string, NonNullable<RunOptions['kernel']>> = {};
  for (const name of kernelNames) kernels[name] = await loadKernel(name, loaded.path);
  const jobs = a.jobs ?? Math.max(1, availableParallelism() - 1);
  const what = `${spec.id} sweep ${axes.map((x) => `${x.setting}=${x.values.length} values`).join(' × ')}` +
    (a.shard ? `, shard ${a.shard.index}/${a.shard.count}` : '');
  const start = performance.now();
  let ran: Awaited<ReturnType<typeof runPlan>>;
  try {
    ran = await runPlan(plan, units, jobs, loaded, what, kernels);
  } catch (e) {
    unusable(e, loaded.path, undefined);
    if (e instanceof SettingsError) refused(e.problems);
    throw e;
  }
  const hostTotal = (performance.now() - start) / 1000;
  if (a.shard) {
    const outcomes = new Map<number, UnitOutcome>(ran.outcomes);
    writeFileSync(a.jsonlFile!, shardJsonl({
      format: SHARD_FORMAT, version: SHARD_VERSION, shard: a.shard, request, units: plan.units.length, image: loaded.image,
    }, outcomes));
    const good = [...outcomes.values()].filter((o) => 'result' in o && o.result.status === 'ok').length;
    console.log(`${what}: ${outcomes.size} of its ${units.length} units ran (${good} ok) in ${hostTotal.toFixed(1)} s of host time; ` +
      `wrote ${a.jsonlFile}${ran.stopped ? ' (stopped: merge will refuse it until the shard is run whole)' : ''}`);
    return ran.stopped || good < units.length ? 1 : 0;
  }
  const result = assembleSweep(plan, ran.outcomes, ran.stopped);
  console.log(formatSweep(result, measure ?? undefined));
  console.log(`${hostTotal.toFixed(1)} s of host time on ${Math.min(jobs, units.length)} worker thread${Math.min(jobs, units.length) === 1 ? '' : 's'}`);
  if (measure && !availableMeasures(result).includes(measure)) console.log(`(no row has ${measure.label})`);
  if (a.jsonFile) writeFileSync(a.jsonFile, sweepJson(result));
  return result.status === 'ok' ? 0 : 1;
}

function merge(args: string[]): number {
  const files: string[] = [];
  let jsonFile: string | null = null;
  let measure: Measure | null = null;
  while (args.length > 0) {
    const a = args.shift()!;
    if (a === '--json' || a === '--measure') {
      const v = args.shift() ?? die(`${a} needs a value`);
      if (a === '--json') jsonFile = checkJsonTarget(v);
      else measure = findMeasure(v) ?? die(`--measure takes ${MEASURES.map((m) => m.id).join(', ')}, got "${v}"`);
    } else if (a.startsWith('-')) die(`unknown option ${a}\n${USAGE}`);
    else files.push(a);
  }
  if (files.length === 0) die(`merge needs the shards' files (vaxlab sweep ... --shard I/N --jsonl FILE)\n${USAGE}`);
  const shards: Shard[] = [];
  const problems: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch (e) {
      problems.push(`${f}: cannot be read (${e instanceof Error && 'code' in e ? String(e.code) : String(e)})`);
      continue;
    }
    try {
      shards.push(readShard(f, text));
    } catch (e) {
      if (!(e instanceof ShardError)) throw e;
      problems.push(...e.problems);
    }
  }
  if (problems.length > 0) die(`refused, nothing was written:\n  ${problems.join('\n  ')}`);
  let merged;
  try {
    merged = mergeShards(shards);
  } catch (e) {
    if (!(e instanceof ShardError)) throw e;
    die(`refused, nothing was written:\n  ${e.problems.join('\n  ')}`);
  }
  console.log(formatSweep(merged.result, measure ?? undefined));
  if (jsonFile) writeFileSync(jsonFile, sweepJson(merged.result));
  return merged.result.status === 'ok' ? 0 : 1;
}

/** The kernels the installer builds (experiments/kernels): name, what it
 *  reverts, the paper's section, and whether it is built beside the image. */
function kernels(): void {
  const imagePath = findLabImage();
  for (const k of KERNELS) {
    const file = imagePath ? kernelFileBeside(imagePath, k.name) : null;
    const built = file && existsSync(file) ? 'built' : 'not built (npm run image builds it)';
    console.log(`${k.name.padEnd(22)} ${k.label}`);
    console.log(`${''.padEnd(22)} paper: ${k.paper}; ${built}`);
  }
  console.log('\nRun an experiment on one: npx vaxlab run EXPERIMENT --kernel NAME.  None of them is 4.2BSD: each is 4.3BSD ' +
    'with the named improvements reverted by our own patches (experiments/kernels/patches).');
}

/** The experiments `vaxlab fidelity` runs, every step with --seeds spin seeds (the median run, with the ranges):
 *  Table 2, Table 7 (and 8 from its rows), the name cache's ls -l. */
const FIDELITY_EXPERIMENTS = ['table2', 'table7', 'namecache-ls'] as const;

/** --spin's value, or exit 2 saying what it takes. */
function parseSpin(v: string): Spin {
  if (!(SPINS as readonly string[]).includes(v)) die(`--spin takes ${SPINS.join(' or ')}, got "${v}"`);
  return v as Spin;
}

async function fidelity(args: string[]): Promise<number> {
  let seeds = 3;
  let spin: Spin | undefined;
  let jsonFile: string | null = null;
  let kernelArg: string | null = null;
  while (args.length > 0) {
    const a = args.shift()!;
    const v = optionValue(a, args, FIDELITY_OPTIONS);
    if (a === '--seeds') {
      seeds = Number(v);
      if (!Number.isSafeInteger(seeds) || seeds < 1 || seeds > MAX_SPIN_SEEDS) die(`--seeds takes a whole number of runs per step, 1 to ${MAX_SPIN_SEEDS}`);
    } else if (a === '--spin') spin = parseSpin(v);
    else if (a === '--json') jsonFile = checkJsonTarget(v);
    else if (a === '--kernel') kernelArg = v;
    else die(`unknown option ${a}\n${USAGE}`);
  }
  const { api, disk, sha256, imagePath } = await openLabImage(null);
  const image = { name: basename(imagePath), sha256 };
  // ^C stops the step running and runs nothing more; the tables of the experiments that ran whole are printed and
  // written (it used to kill the process: every table that had run was lost, and nothing said so).
  const abort = new AbortController();
  const release = stopOnInterrupt(abort, 'fidelity');
  const stopping = (id: string, steps: number): Pick<RunOptions, 'signal' | 'pause' | 'onStep'> => {
    let took = () => 0;
    return {
      signal: abort.signal,
      pause: betweenSlices,
      onStep: ({ step, index, phase, result: row }) => {
        if (phase === 'start') {
          took = stepStarted(id, index, steps, step.label);
        } else {
          const host = `${took().toFixed(1)} s host`;
          process.stderr.write(row?.status === 'ok' ? `${row.guest?.line} (${host})\n` : `FAILED: ${row?.failure?.message} (${host})\n`);
        }
      },
    };
  };
  // Each table on its own kernel (Table 2 on the paper's, paper-1985; Tables 7 and 8 on like-4.2; the name
  // cache on /vmunix), or another
  // for every table (--kernel NAME; vmunix: the distributed kernel); the results name it, as run's do.
  const kernelCache = new Map<string, NonNullable<RunOptions['kernel']>>();
  const results: Record<string, ExperimentResult> = {};
  for (const id of FIDELITY_EXPERIMENTS) {
    if (abort.signal.aborted) break;
    const spec = findExperiment(id)!;
    const kernel = await kernelFor(spec, kernelArg, imagePath, kernelCache);
    // Every table seeded alike: the paging rows hinge on disk phase and page placement as much as Table 2's.
    const spinSeeds = seeds;
    process.stderr.write(`${id}: ${spec.steps.length} steps${spinSeeds > 1 ? `, ${spinSeeds} seeds each (disk phase, clock phase and page placement)` : ''}` +
      `, kernel ${kernel ? kernel.name : kernelResultName(null)} ...\n`);
    try {
      results[id] = await runExperiment(api.vax780, disk, spec,
        { image, spinSeeds, ...(spin ? { spin } : {}), ...(kernel ? { kernel } : {}), ...stopping(id, spec.steps.length) });
    } catch (e) {
      // A kernel or image no machine can be made of: exit 3 naming both, as run says it (it named neither).
      unusable(e, imagePath, kernel);
      throw e;
    }
  }
  // An experiment that ran every step (a step may have failed), not one a ^C cut short.
  const whole = (id: (typeof FIDELITY_EXPERIMENTS)[number]): ExperimentResult | undefined => {
    const r = results[id];
    return r && r.rows.length === findExperiment(id)!.steps.length && !r.rows.some((row) => row.failure?.kind === 'stopped') ? r : undefined;
  };
  // Table 7's free-memory probes: its counted rows again with the buffer cache FREE_MEMORY_PROBE_KB larger and
  // smaller than startup()'s own, the same seeds and kernel.
  const table7 = findExperiment('table7')!;
  const table7Kernel = await kernelFor(table7, kernelArg, imagePath, kernelCache);
  const bufpages = freeMemoryProbeBufpages(table7.machine.memoryMB);
  const probe = async (probed: number) => {
    const probeSteps = table7CountedSteps(results.table7!);
    process.stderr.write(`table7: ${probeSteps.length} steps with bufpages=${probed} (the kernel's own: ${bufpages.own}) ...\n`);
    return runExperiment(api.vax780, disk, table7, {
      image, spinSeeds: seeds, steps: probeSteps, set: { bufpages: probed }, ...(spin ? { spin } : {}), ...(table7Kernel ? { kernel: table7Kernel } : {}),
      ...stopping(`table7 bufpages=${probed}`, probeSteps.length),
    });
  };
  let probes: Table7Probes | undefined;
  if (!abort.signal.aborted && whole('table7')) {
    const lessFree = await probe(bufpages.lessFree);
    const moreFree = abort.signal.aborted ? undefined : await probe(bufpages.moreFree);
    // Both or neither: a probe cut short is left out.
    if (moreFree && !abort.signal.aborted) probes = { lessFree, moreFree };
  }
  disk.dispose();
  const t2 = whole('table2'), t7 = whole('table7'), nc = whole('namecache-ls');
  const tables = [
    ...(t2 ? [table2Fidelity(t2)] : []), ...(t7 ? [table7Fidelity(t7, probes), table8Fidelity(t7)] : []),
    ...(nc ? [nameCacheFidelity(nc)] : []),
  ];
  if (tables.length > 0) console.log(tables.map(formatFidelity).join('\n\n'));
  const stopped = abort.signal.aborted;
  if (jsonFile && (!stopped || tables.length > 0)) {
    writeFileSync(jsonFile, `${JSON.stringify({ format: 'vaxlab-fidelity', version: 1, ...(stopped ? { stopped: true } : {}), tables,
      results: Object.values(results), ...(probes ? { freeMemoryProbes: probes } : {}) }, null, 2)}\n`);
  }
  if (stopped) {
    const said = FIDELITY_EXPERIMENTS.map((id) => `${id} ${whole(id) ? 'compared' : results[id] ? 'cut short (not compared)' : 'not run'}`);
    process.stderr.write(`vaxlab: stopped (^C): ${said.join(', ')}${t7 && !probes ? '; Table 7 without its free-memory probes' : ''}` +
      `${tables.length === 0 ? '; nothing printed or written' : `; ${tables.length === 1 ? 'its table' : 'their tables'} above` +
        `${jsonFile ? ` and in ${jsonFile}` : ''}`}\n`);
  }
  // Only now: a ^C while the JSON was written waits for the write (the default would cut the file short).
  release();
  return !stopped && [...Object.values(results), probes!.lessFree, probes!.moreFree].every((r) => r.status === 'ok') ? 0 : 1;
}

const FORMATS = ['text', 'json', 'speedscope', 'folded'] as const;
type Format = (typeof FORMATS)[number];

async function profile(args: string[]): Promise<number> {
  const id = args.shift();
  if (!id || id.startsWith('-')) die(`profile needs an experiment id\n${USAGE}`);
  const spec = experimentById(id) ?? die(`no experiment "${id}" (vaxlab list shows them)`);
  const options: Parameters<typeof profileExperiment>[3] = {};
  const set: Record<string, number> = {};
  const params: Record<string, number> = {};
  const steps: string[] = [];
  let mode: Mode = 'all', format: Format = 'text', top: number | undefined, out: string | null = null;
  let diff: [string, string] | null = null, phase: 'command' | 'setup' = 'command', imageFile: string | null = null;
  let kernelArg: string | null = null;
  while (args.length > 0) {
    const a = args.shift()!;
    const v = optionValue(a, args, PROFILE_OPTIONS);
    if (a === '--mode') {
      if (v !== 'kernel' && v !== 'user' && v !== 'all') die(`--mode takes kernel, user or all, got "${v}"`);
      mode = v;
    } else if (a === '--format') {
      if (!(FORMATS as readonly string[]).includes(v)) die(`--format takes ${FORMATS.join(', ')}, got "${v}"`);
      format = v as Format;
    } else if (a === '--top') {
      if (!/^\d+$/.test(v) || Number(v) < 1) die(`--top takes a whole number, 1 or more, got "${v}"`);
      top = Number(v);
    } else if (a === '--step') steps.push(v);
    else if (a === '--out') out = checkJsonTarget(v, '--out');
    else if (a === '--diff') {
      const m = /^([^,]+),([^,]+)$/.exec(v);
      if (!m) die(`--diff takes two step ids, A,B, got "${v}"`);
      diff = [m[1]!, m[2]!];
    } else if (a === '--phase') {
      if (v !== 'command' && v !== 'setup') die(`--phase takes command or setup, got "${v}"`);
      phase = v;
    } else if (a === '--cpu') {
      if (v !== '750' && v !== '780') die('--cpu takes 750 or 780');
      options.cpu = v;
    } else if (a === '--disk') {
      if (!(DISK_TIMINGS as readonly string[]).includes(v)) die(`--disk takes ${DISK_TIMINGS.join(', ')}, got "${v}"`);
      options.disk = v as DiskTiming;
    } else if (a === '--mem') {
      const n = /^\d*\.?\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (validateSetting('memoryMB', n) !== null) die(`--mem takes megabytes in steps of 0.25 from 0.75 to 64 (e.g. 4.5), got "${v}"`);
      options.memoryMB = n;
    } else if (a === '--set') {
      const [k, n] = pair(a, v);
      set[k] = n;
    } else if (a === '--param') {
      const [k, n] = pair(a, v);
      params[k] = n;
    } else if (a === '--spin') {
      options.spin = parseSpin(v);
    } else if (a === '--limit') {
      options.limitSeconds = parseLimit(v);
    } else if (a === '--image') imageFile = v;
    else if (a === '--kernel') kernelArg = v;
    else die(`unknown option ${a}\n${USAGE}`);
  }
  const ids = spec.steps.map((s) => s.id);
  const unknown = [...steps, ...(diff ?? [])].filter((s) => !ids.includes(s));
  if (unknown.length > 0) die(`${spec.id} has no step ${unknown.join(', ')} (it has ${ids.join(', ')})`);
  if (diff && steps.length > 0) for (const d of diff) if (!steps.includes(d)) steps.push(d);
  options.set = set;
  options.parameters = params;
  if (steps.length > 0) options.steps = steps;
  try {
    const { steps: _only, onStep: _progress, ...settings } = options;
    const r = resolveRun(spec, settings);
    for (const n of r.notes) process.stderr.write(`vaxlab: ${spec.id}: ${n}\n`);
  } catch (e) {
    if (e instanceof SettingsError) die(`refused, nothing was run:\n  ${e.problems.join('\n  ')}`);
    throw e;
  }
  const { api, disk, imagePath } = await openLabImage(imageFile);
  const kernel = await kernelFor(spec, kernelArg, imagePath);
  if (kernel) options.kernel = kernel;
  const variant = kernelArg !== null ? kernelByName(kernelArg)?.name : undefined;
  let took = () => 0;
  options.onStep = ({ step, index, phase: p, result }) => {
    if (p === 'start') {
      took = stepStarted(spec.id, index, spec.steps.length, spec.steps.find((s) => s.id === step)!.label);
    } else {
      const host = `${took().toFixed(1)} s host`;
      process.stderr.write(result?.status === 'ok' ? `ok (${host})\n` : `FAILED: ${result?.failure?.message} (${host})\n`);
    }
  };
  // ^C stops the step running (its profile is of what ran) and runs no more; what ran is printed or written.
  const abort = new AbortController();
  const release = stopOnInterrupt(abort, 'the profile');
  options.signal = abort.signal;
  options.pause = betweenSlices;
  let results: StepProfile[];
  try {
    results = await profileExperiment(api.vax780, disk, spec, options);
  } catch (e) {
    unusable(e, imagePath, kernel);
    throw e;
  } finally {
    disk.dispose();
  }
  const profiles: { step: StepProfile; profile: Profile | null }[] = results.map((step) => {
    const raw = phase === 'setup' ? step.setup : step.run;
    return { step, profile: raw ? buildProfile(raw) : null };
  });
  const title = (s: StepProfile): string => `${spec.id}: ${s.label} — \`${s.command}\`` +
    `${s.guest ? ` (${s.guest.real} real, ${s.guest.user} user, ${s.guest.sys} sys)` : ''}` +
    `${s.status === 'failed' ? ` FAILED: ${s.failure?.message}; the profile is of what ran until then` : ''}` +
    `${phase === 'setup' ? ' — the boot and set-up before it' : ''}`;
  let text: string;
  if (format === 'json') {
    text = `${JSON.stringify({
      format: 'vaxlab-profile', version: 1, experiment: spec.id, phase, mode,
      steps: profiles.map(({ step, profile: p }) => ({
        step: step.step, label: step.label, command: step.command, status: step.status, failure: step.failure ?? null,
        guest: step.guest ?? null, profile: p ? flatProfile(p, { mode, top }) : null,
      })),
    }, null, 2)}\n`;
  } else if (format === 'speedscope') {
    text = `${JSON.stringify(toSpeedscopeMany(profiles.filter((p) => p.profile)
      .map(({ step, profile: p }) => ({ name: `${spec.id} ${step.step}: ${step.command}`, profile: p! })), { mode, name: spec.id }))}\n`;
  } else if (format === 'folded') {
    text = profiles.filter((p) => p.profile)
      .map(({ step, profile: p }) => foldedStacks(p!, mode, profiles.length > 1 ? step.step : undefined)).join('');
  } else {
    const parts: string[] = [];
    for (const { step, profile: p } of profiles) {
      parts.push(title(step), '');
      if (!p) {
        parts.push('(no profile)', '');
        continue;
      }
      parts.push(formatFlat(flatProfile(p, { mode, top: top ?? 30 })), '', formatCallGraph(p, { mode, top: Math.min(top ?? 10, 10) }), '');
      if (spec.id === NAMEI_PROFILE_EXPERIMENT.id) {
        const t = nameiTableFor(step.step, kernelArg === null || kernelArg === DISTRIBUTED_KERNEL_NAME ? null : variant ?? 'other');
        parts.push(t.table ? formatNameiComparison(nameiFigures(p), t.table, `${step.label}${t.note ? `, ${t.note}` : ''}`)
          : `${step.label}: ${t.note}`, '');
      }
    }
    if (spec.id === NAMEI_PROFILE_EXPERIMENT.id && kernelArg === null) {
      parts.push(`${TABLE_4.ref.caption}: run namei-profile --kernel no-offset-cache (its nchsize=0 step has neither cache)`, '');
    }
    text = `${parts.join('\n')}\n`;
  }
  if (diff) {
    const a = profiles.find((p) => p.step.step === diff![0])?.profile, b = profiles.find((p) => p.step.step === diff![1])?.profile;
    const d = a && b ? formatDiff(diffProfiles(a, b, { mode, top: top ?? 30 }), { a: diff[0], b: diff[1] })
      : `no diff: ${!a ? diff[0] : diff[1]} has no profile`;
    if (format === 'text') text += `${d}\n`;
    else process.stderr.write(`${d}\n`);
  }
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  if (abort.signal.aborted) {
    const wanted = steps.length > 0 ? steps.length : spec.steps.length;
    const cut = results.some((r) => r.failure?.kind === 'stopped');
    process.stderr.write(`vaxlab: stopped (^C): ${results.length} of ${wanted} step${wanted === 1 ? '' : 's'} ran, ${out ? `in ${out}` : 'above'}` +
      `${cut ? '; the one cut short says "FAILED: stopped", its profile of what ran until then' : ''}\n`);
  }
  // Only now: a ^C while the file was written waits for the write.
  release();
  return !abort.signal.aborted && results.every((r) => r.status === 'ok') ? 0 : 1;
}

// Output into a closed pipe (`vaxlab list | head`) ends quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const argv = process.argv.slice(2);
const cmd = argv.shift();
const commands: Record<string, (args: string[]) => Promise<number> | number> = { run, sweep, merge, fidelity, profile };
// Asked for (vaxlab help, vaxlab --help, vaxlab run --help): the usage on stdout, exit 0, nothing run.
const HELP_WORDS = ['--help', '-h', 'help'];
if (cmd !== undefined && (HELP_WORDS.includes(cmd) || argv.some((a) => a === '--help' || a === '-h'))) {
  process.stdout.write(`${USAGE}\n`);
} else if (cmd === 'list') list();
else if (cmd === 'kernels') kernels();
else if (cmd && Object.hasOwn(commands, cmd)) {
  try {
    process.exitCode = await commands[cmd]!(argv);
  } catch (e) {
    // fidelity's tables (run's and profile's say which image and kernel first).
    die(e instanceof Error ? e.message : String(e), e instanceof ImageError ? 3 : 2);
  }
} else die(cmd === undefined ? USAGE : `no command "${cmd}" (list, kernels, run, sweep, merge, fidelity, profile)\n${USAGE}`);
