// bench-cpu-wasm — raw CPU speed of the WebAssembly build in Node, through
// the same typed interface the browser uses (emu/js/vaxModule.ts).
//
//   node --import tsx emu/bench/bench-cpu-wasm.ts [--instructions N] [--slice N] [--workload FILE.bin] [--mem MB]
//                                                 [--wasm FILE.wasm]
//
// --wasm runs another build's module (e.g. main's, copied aside, against a
// branch's) through the vax.mjs beside it if there is one (emu/js/vaxNode.ts),
// else through this checkout's glue: the exports must be the same.
//
// --jit (--jit-hot N, --jit-end-at-calls): the block compiler on, with a module
// built by `make -C emu wasm WASM_JIT=1` (emu/docs/speed.md, round
// twenty-four), and its counters printed; --digest prints the state digest.
//
// Same workload, defaults and output format as emu/bench/bench_cpu.c:
//   wasm: <rate> VAX instructions/s
//   wasm: <n> instructions in <s> s

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { StopReason } from '../js/constants';
import { jitStats, setJit } from '../js/jit';
import { DEFAULT_SLICE } from '../js/machine';
import { loadVaxNode, REPO_ROOT } from '../js/vaxNode';

function u(v: unknown, what: string): number {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^(0x[0-9a-f]+|[0-9]+)$/i.test(s)) throw new Error(`bad ${what}: ${JSON.stringify(v)}`);
  return Number(BigInt(s));
}

const { values } = parseArgs({
  options: {
    instructions: { type: 'string', default: '200000000' },
    slice: { type: 'string', default: DEFAULT_SLICE.toString() },
    workload: { type: 'string' },
    mem: { type: 'string' },
    wasm: { type: 'string' },
    jit: { type: 'boolean', default: false }, 'jit-hot': { type: 'string', default: '0' }, 'jit-end-at-calls': { type: 'boolean', default: false },
    digest: { type: 'boolean', default: false },
  },
});
const total = BigInt(values.instructions);
const slice = BigInt(values.slice);

let image: Uint8Array;
let load: number;
let pc: number;
let psl: number | undefined;
let memMB = 0;

const workload = values.workload ?? join(REPO_ROOT, 'emu/build/workload.bin');
if (existsSync(workload)) {
  const jsonPath = workload.replace(/\.bin$/, '') + '.json';
  const j = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  image = new Uint8Array(readFileSync(workload));
  load = u(j.load, 'load');
  pc = u(j.pc, 'pc');
  if (j.psl !== undefined) psl = u(j.psl, 'psl');
  if (j.mem !== undefined) memMB = u(j.mem, 'mem');
} else {
  throw new Error(`cannot read ${workload}: run \`make -C emu native\` first`);
}
if (values.mem) memMB = u(values.mem, '--mem');
if (memMB === 0) memMB = 8;

const api = await loadVaxNode(values.wasm);
const m = api.create({ memoryBytes: memMB * 1024 * 1024 });
m.physWrite(load, image);
m.setReg(15, pc);
if (psl !== undefined) m.setPsl(psl);

if (values.jit) setJit(api.module, m.handle, true, Number(values['jit-hot']), values['jit-end-at-calls']);

const t0 = performance.now();
const { reason, executed } = m.runSliced(total, slice);
const secs = (performance.now() - t0) / 1000;

if (reason !== StopReason.Budget) {
  console.error(
    `bench-cpu-wasm: warning: stopped early (${api.stopReasonName(reason)}: ${m.stopDetail()}) after ${executed} instructions`,
  );
}
const rate = secs > 0 ? Number(executed) / secs : 0;
console.log(`wasm: ${rate.toFixed(0)} VAX instructions/s`);
console.log(`wasm: ${executed} instructions in ${secs.toFixed(3)} s`);
if (values.jit) console.log(`wasm: jit ${JSON.stringify(jitStats(api.module, m.handle))}`);
if (values.digest) console.log(`wasm: digest ${m.stateDigest().toString(16)} cost-time ${m.instructionCount()}`);
m.destroy();
process.exitCode = reason === StopReason.Budget ? 0 : 1;
