// bench-bsd-wasm — a kernel-heavy workload in the WebAssembly build in Node:
// 4.3BSD booted single-user (kernel loaded directly), then the programs of
// emu/docs/speed.md's script: syscall 100000, pipeself 10000 4, forks 1000 0,
// pipeback 10000 4 (45.6 M instructions).  For timing one module against
// another as a whole process; the count and virtual time it prints must be
// the same for any build.
//
//   node --import tsx emu/bench/bench-bsd-wasm.ts [--wasm FILE.wasm]
//
// --wasm runs another build's module (e.g. main's, copied aside) through
// this checkout's glue: the exports must be the same.  The image is the
// lab's (findLabImage: $VAXLAB_IMAGE or the installer's), which has the
// programs in /lab/bin.

import { parseArgs } from 'node:util';

import { findLabImage, loadDiskImage, loadVaxNode } from '../js/vaxNode';

const { values } = parseArgs({ options: { wasm: { type: 'string' } } });
const imagePath = findLabImage();
if (imagePath === null) throw new Error('no lab image: run `npm run image` first (or set VAXLAB_IMAGE)');

type Step = { expect: string } | { send: string };
const PROMPT = '\n# ';
const steps: Step[] = [{ expect: PROMPT }, { send: 'cd /lab/bin' }, { expect: PROMPT }];
for (const cmd of ['./syscall 100000', './pipeself 10000 4', './forks 1000 0', './pipeback 10000 4'])
  steps.push({ send: cmd }, { expect: PROMPT });

const api = await loadVaxNode(values.wasm);
const disk = await loadDiskImage(imagePath);
const sys = api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true });
const t0 = performance.now();
let transcript = '';
let mark = 0;
for (const step of steps) {
  if ('send' in step) {
    sys.type(`${step.send}\r`);
    continue;
  }
  // The CLI's rule: 200,000-instruction slices, stop at the first slice
  // boundary where the output since the previous match holds the text.
  const deadline = sys.timeNs() + 600_000_000_000n;
  for (;;) {
    const at = transcript.indexOf(step.expect, mark);
    if (at >= 0) {
      mark = at + step.expect.length;
      break;
    }
    if (sys.timeNs() > deadline) throw new Error(`expect ${JSON.stringify(step.expect)} timed out:\n${transcript}`);
    sys.run(200_000);
    transcript += sys.readConsole();
    if (/panic:/.test(transcript)) throw new Error(`kernel panic:\n${transcript}`);
  }
}
const secs = (performance.now() - t0) / 1000;
console.log(`wasm: ${sys.instructionCount()} instructions, ${Number(sys.timeNs()) / 1e9} virtual s, ${secs.toFixed(3)} s`);
sys.destroy();
