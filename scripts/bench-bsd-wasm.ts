// bench-bsd-wasm — a kernel-heavy workload in the WebAssembly build in Node:
// 4.3BSD booted single-user (kernel loaded directly), then the programs of
// emu/docs/speed.md's script: syscall 100000, pipeself 10000 4, forks 1000 0,
// pipeback 10000 4 (45.4 M instructions).  For timing one module against
// another as a whole process; the count and virtual time it prints must be
// the same for any build.
//
//   node --import tsx scripts/bench-bsd-wasm.ts [--wasm FILE.wasm] [--repeat N] [--chunked]
//
// --repeat N runs the four programs N times over (default 1), so that a
// comparison of two modules is less diluted by Node's start-up and the
// image's loading (about 0.8 s of CPU here, against 1.2 s for one round).
//
// --wasm runs another build's module (e.g. main's, copied aside) through
// the vax.mjs beside it if there is one, else this checkout's glue: the
// exports must be the same.  The image is the
// lab's (findLabImage: $VAXLAB_IMAGE or the installer's), which has the
// programs in /lab/bin.  The console is driven by the runner's own session
// (the CLI's expect rule), so a panic or a lost output fails the run.
//
// With a module built by `make -C emu wasm WASM_JIT=1` (emu/docs/speed.md,
// round twenty-four): --jit turns the block compiler on (--jit-hot N: its
// threshold; --jit-end-at-calls: leave compiled code at every instruction it
// does not compile) and prints its counters, and JIT_CENSUS=1 in the
// environment the opcodes it ran through the interpreter.  --digest prints
// the state and timing digests (the latter needs that module too).

import { parseArgs } from 'node:util';

import { jitStats, setJit, timingDigest } from '../emu/js/jit';
import { findLabImage, loadDiskImage, loadVaxNode, openDiskImage } from '../emu/js/vaxNode';
import { ConsoleSession } from '../experiments/runner/session';

const { values } = parseArgs({
  options: { wasm: { type: 'string' }, repeat: { type: 'string', default: '1' }, chunked: { type: 'boolean', default: false },
    jit: { type: 'boolean', default: false }, 'jit-hot': { type: 'string', default: '0' }, 'jit-end-at-calls': { type: 'boolean', default: false }, digest: { type: 'boolean', default: false } },
});
const repeat = Number(values.repeat);
if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat wants a whole number from 1 up, got ${values.repeat}`);
const imagePath = findLabImage();
if (imagePath === null) throw new Error('no lab image: run `npm run image` first (or set VAXLAB_IMAGE)');

const PROMPT = '\n# ';
const LIMIT_SECONDS = 600;   // virtual seconds for each wait

const api = await loadVaxNode(values.wasm);
// --chunked: the runner's way (openDiskImage), so that wasm memory never
// grows by the pack's 174 MB; under valgrind that growth fails, and
// emu/bench/v8-code-count.ts runs this script there.
const disk = values.chunked ? (await openDiskImage(api.vax780, imagePath)).disk : await loadDiskImage(imagePath);
const sys = api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true });
if (values.jit) setJit(api.module, sys.machinePtr, true, Number(values['jit-hot']), values['jit-end-at-calls']);
const session = new ConsoleSession(sys);
const t0 = performance.now();
await session.expect(PROMPT, LIMIT_SECONDS);
session.send('cd /lab/bin');
await session.expect(PROMPT, LIMIT_SECONDS);
for (let round = 0; round < repeat; round++) {
  for (const cmd of ['./syscall 100000', './pipeself 10000 4', './forks 1000 0', './pipeback 10000 4']) {
    session.send(cmd);
    await session.expect(PROMPT, LIMIT_SECONDS);
  }
}
const secs = (performance.now() - t0) / 1000;
console.log(`wasm: ${sys.instructionCount()} instructions, ${Number(sys.timeNs()) / 1e9} virtual s, ${secs.toFixed(3)} s`);
if (values.jit) console.log(`wasm: jit ${JSON.stringify(jitStats(api.module, sys.machinePtr))}`);
if (values.jit && process.env.JIT_CENSUS) {
  const mod = api.module as unknown as { _vaxw_jit_step_census(p: number): number; HEAPU32: Uint32Array };
  const p = mod._vaxw_jit_step_census(sys.machinePtr) >>> 2;
  const rows = Array.from(mod.HEAPU32.subarray(p, p + 256), (n, op) => [op, n]).sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log(rows.map(([op, n]) => `${op.toString(16)}:${n}`).join(' '));
}
if (values.digest) {
  const m = api.module as unknown as { _vax_state_digest(p: number): bigint };
  console.log(`wasm: digest ${BigInt.asUintN(64, m._vax_state_digest(sys.machinePtr)).toString(16)} timing ${timingDigest(api.module, sys.machinePtr).toString(16)}`);
}
sys.destroy();
