// The experiment runner's command line (experiments/runner):
//
//   npx vaxlab list
//   npx vaxlab run EXPERIMENT [--cpu 750|780] [--mem MB] [--set NAME=VALUE ...]
//                             [--limit SECONDS] [--json FILE] [--image FILE]
//
// Runs the experiment on the WebAssembly emulator (web/src/emulator/vaxModule.ts)
// with the lab's 4.3BSD image (findLabImage: $VAXLAB_IMAGE or
// web/public/images/43bsd.dsk.gz, made by `npm run image`), prints "test | ours (s) | paper 4.3BSD (s) | difference"
// and writes the result JSON to FILE.  --set NAME=VALUE sets a parameter of the
// experiment when it has one by that name (see `list`), else the kernel
// variable _NAME.  Exit 0 when every row ran, 1 when a row failed, 2 on a bad
// command line, 3 without an image or wasm build.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';

import { EXPERIMENTS, findExperiment } from '../experiments/runner/experiments';
import { formatTable, resultJson, runExperiment, type RunOptions } from '../experiments/runner/runner';
import { findLabImage, loadDiskImage, loadVaxNode, wasmBuildExists } from '../web/src/emulator/vaxNode';

const USAGE = `usage: vaxlab list
       vaxlab run EXPERIMENT [--cpu 750|780] [--mem MB] [--set NAME=VALUE ...] [--limit SECONDS]
                             [--json FILE] [--image FILE]`;

function die(message: string, code = 2): never {
  process.stderr.write(`vaxlab: ${message}\n`);
  process.exit(code);
}

function list(): void {
  for (const e of EXPERIMENTS) {
    const params = Object.entries(e.parameters).map(([k, v]) => `${k}=${v}`).join(' ');
    console.log(`${e.id.padEnd(16)} ${e.title}  [${params}; ${e.machine.cpu}, ${e.machine.memoryMB} MB]`);
  }
}

async function run(args: string[]): Promise<number> {
  const id = args.shift();
  if (!id || id.startsWith('-')) die(`run needs an experiment id\n${USAGE}`);
  const spec = findExperiment(id);
  if (!spec) die(`no experiment "${id}" (vaxlab list shows them)`);
  const options: RunOptions = {};
  const set: Record<string, number> = {};
  let jsonFile: string | null = null;
  let imageFile: string | null = null;
  while (args.length > 0) {
    const a = args.shift()!;
    const v = args.shift();
    if (v === undefined) die(`${a} needs a value\n${USAGE}`);
    if (a === '--cpu') {
      if (v !== '750' && v !== '780') die('--cpu takes 750 or 780');
      options.cpu = v;
    } else if (a === '--mem') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 64) die('--mem takes whole megabytes, 1 to 64');
      options.memoryMB = n;
    } else if (a === '--set') {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\d+)$/.exec(v);
      if (!m) die(`--set takes NAME=VALUE (a non-negative integer), got "${v}"`);
      set[m[1]!] = Number(m[2]);
    } else if (a === '--limit') {
      const n = Number(v);
      if (!(n > 0)) die('--limit takes a positive number of virtual seconds');
      options.limitSeconds = n;
    } else if (a === '--json') jsonFile = v;
    else if (a === '--image') imageFile = v;
    else die(`unknown option ${a}\n${USAGE}`);
  }
  options.set = set;

  if (!wasmBuildExists()) die('the WebAssembly emulator is not built: make -C emu wasm (or npm run setup)', 3);
  const imagePath = imageFile ?? findLabImage();
  if (!imagePath) die('no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image` (or set VAXLAB_IMAGE)', 3);
  const api = await loadVaxNode();
  const disk = await loadDiskImage(imagePath);
  options.image = { name: basename(imagePath), sha256: createHash('sha256').update(disk).digest('hex') };

  const host: number[] = [];
  let t0 = 0;
  options.onRow = ({ row, phase, result }) => {
    if (phase === 'start') {
      t0 = performance.now();
      process.stderr.write(`${row.test} ... `);
    } else {
      host.push((performance.now() - t0) / 1000);
      process.stderr.write(result?.status === 'ok'
        ? `${result.guest?.line} (${host[host.length - 1]!.toFixed(1)} s host)\n`
        : `FAILED: ${result?.failure?.message}\n`);
    }
  };
  const result = await runExperiment(api.vax780, disk, spec, options);
  console.log(formatTable(result, host));
  for (const r of result.rows) {
    if (r.failure) console.log(`\n${r.test}: ${r.failure.message}\n--- output of the failing step ---\n${r.failure.output}`);
  }
  if (jsonFile) writeFileSync(jsonFile, resultJson(result));
  return result.status === 'ok' ? 0 : 1;
}

const argv = process.argv.slice(2);
const cmd = argv.shift();
if (cmd === 'list') list();
else if (cmd === 'run') {
  try {
    process.exitCode = await run(argv);
  } catch (e) {
    die(e instanceof Error ? e.message : String(e), 2);
  }
} else die(USAGE);
