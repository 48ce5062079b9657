// Booting against restoring, native and WebAssembly side by side in one run
// (npm run bench:boot prints this after its boot figures):
//
//   node --import tsx scripts/bench-restore.ts IMAGE
//
// (and, native, a restore that hashes the whole pack to check the
// snapshot's disk identity, as every restore did before the identity was
// kept beside the image)
// For single-user "#" and multi-user "login:" (the RP06 image through the
// real /boot, 8 MB, a 780): the host milliseconds from nothing to a machine
// at that prompt, best of 3 — booting it, and restoring the snapshot a boot
// saved there (src/snapshot/snap.h).  Native: the whole `vax780` process
// (start, opening the image, boot or --restore, exit), so both include the
// same process costs; the pack's identity is kept beside the image after the
// first save (storage/image_id.h), so a restore does not hash it.  WebAssembly
// (Node, the module loaded once): Vax780Api.create and the slices to the
// prompt, or create with `restore`.  The instructions and virtual seconds at
// the prompt are printed too: a restored machine is where the booted one was.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT, loadVaxNode } from '../emu/js/vaxNode';
import { Vax780Stop, type Vax780Options, type Vax780System } from '../emu/js/vax780';

const image = process.argv[2];
if (!image) {
  console.error('usage: bench-restore.ts IMAGE (an RP06 pack with 4.3BSD)');
  process.exit(2);
}
const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const work = mkdtempSync(join(tmpdir(), 'vaxlab-bench-restore-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const pack = join(work, 'pack.dsk');
copyFileSync(image, pack);
// A file changed within the last 2 s does not get its identity kept (image_id.h): let the copy settle.
await new Promise((r) => setTimeout(r, 2200));

const BOOTS = [
  { name: 'single-user "#"', boot: 'single' as const, prompt: '\n# ', script: 'expect \\n# ' },
  { name: 'multi-user "login:"', boot: 'multi' as const, prompt: 'login: ', script: 'expect login: ' },
];
const best = (xs: number[]) => Math.min(...xs);
const ms = (x: number) => x.toFixed(x < 10 ? 1 : 0);

/** Runs the native machine; the host milliseconds of the whole process and its --stats line. */
function native(args: string[]): { ms: number; stats: string } {
  const t0 = performance.now();
  const r = spawnSync(VAX780, [...args, '--quiet', '--stats'], { encoding: 'utf8' });
  const t = performance.now() - t0;
  if (r.status !== 0) throw new Error(`vax780 ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { ms: t, stats: r.stderr.trim().split('\n').at(-1) ?? '' };
}

const api = await loadVaxNode();
const disk = api.vax780.loadImage(new Uint8Array(readFileSync(pack)));

function wasmToPrompt(options: Vax780Options, prompt: string): Vax780System {
  const sys = api.vax780.create(options);
  let out = '';
  while (!out.includes(prompt)) {
    const r = sys.run(200_000); // the native machine's slice between its expect's looks
    out += sys.readConsole();
    if (r !== Vax780Stop.Budget && r !== Vax780Stop.Rebooted) throw new Error(`${api.vax780.stopName(r)} before ${JSON.stringify(prompt)}`);
    if (sys.timeNs() > 600e9) throw new Error(`no ${JSON.stringify(prompt)} within 600 virtual s`);
  }
  return sys;
}
const at = (sys: Vax780System) => `${(Number(sys.instructionCount()) / 1e6).toFixed(1)} M instructions, ${(Number(sys.timeNs()) / 1e9).toFixed(1)} virtual s`;

console.log(`boot vs restore (${new Date().toISOString().slice(0, 16)}Z, load ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ')}), host ms, best of 3:`);
for (const b of BOOTS) {
  const args = ['--disk', `hp0=${pack}`, '--snapshot', '--mem', '8', '--boot', b.boot];
  const snap = join(work, `${b.boot}.snap`);
  const saveScript = join(work, `save-${b.boot}.txt`);
  writeFileSync(saveScript, `timeout 600\n${b.script}\nsave ${snap}\n`);
  native([...args, '--script', saveScript]); // saves the snapshot (and keeps the pack's identity beside it)
  const bootScript = join(work, `boot-${b.boot}.txt`);
  writeFileSync(bootScript, `timeout 600\n${b.script}\n`);
  const empty = join(work, 'empty.txt');
  writeFileSync(empty, '# nothing: the restore is the test\n');
  const nb: number[] = [], nr: number[] = [], nh: number[] = [];
  let nbStats = '', nrStats = '';
  for (let i = 0; i < 3; i++) {
    const x = native([...args, '--script', bootScript]);
    nb.push(x.ms);
    nbStats = x.stats;
    const y = native([...args, '--restore', snap, '--script', empty]);
    nr.push(y.ms);
    nrStats = y.stats;
    // As before the identity was kept: the pack hashed whole by the restore.
    rmSync(`${pack}.vaxlab-id`);
    nh.push(native([...args, '--restore', snap, '--script', empty]).ms);
  }
  const options: Vax780Options = { memoryMB: 8, disk, boot: b.boot };
  const wb: number[] = [], wr: number[] = [];
  let where = '', restoredWhere = '';
  for (let i = 0; i < 3; i++) {
    let t0 = performance.now();
    const sys = wasmToPrompt(options, b.prompt);
    wb.push(performance.now() - t0);
    where = at(sys);
    const bytes = sys.snapshot();
    sys.destroy();
    t0 = performance.now();
    const restored = api.vax780.create({ ...options, restore: bytes });
    wr.push(performance.now() - t0);
    restoredWhere = at(restored);
    restored.destroy();
  }
  const stat = (s: string) => s.replace(/^vax780: /, '').replace(/, [0-9.]+ host s.*$/, '');
  console.log(`  ${b.name}: native boot ${ms(best(nb))} / restore ${ms(best(nr))} ms (hashing the pack: ${ms(best(nh))} ms) ` +
    `(${stat(nbStats)} / restored at ${stat(nrStats)}); ` +
    `wasm boot ${ms(best(wb))} / restore ${ms(best(wr))} ms (${where} / restored at ${restoredWhere})`);
}
disk.dispose();
