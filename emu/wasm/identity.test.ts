// wasm-vs-native identity test (node --test, TypeScript via tsx).
//
// Runs each guest program for N instructions in the native build
// (emu/build/native/vaxrun, via child_process) and in the wasm build
// (through emu/js/vaxModule.ts), with the same vax_run() slicing,
// and requires the same stop reason, instruction count, registers, PSL and
// vax_state_digest.
//
// Programs: the generated ones below, plus every emu/tests/programs/NAME.bin
// with a sidecar NAME.json:
//   { "load": "0x200", "pc": "0x200", "steps": 1000000,
//     "psl": "0x041F0000", "mem": 8, "slice": 4000000 }   (last three optional)
// Numbers may be JSON numbers or strings in C syntax ("0x...").

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { DEFAULT_SLICE } from '../js/machine';
import { digestHex, hex32 } from '../js/wasm';
import { loadVaxNode, REPO_ROOT } from '../js/vaxNode';

interface Program {
  name: string;
  file: string; // raw bytes, loaded at `load`
  load: number;
  pc: number;
  psl?: number;
  steps: bigint;
  memMB: number;
  slice: bigint;
}

interface Outcome {
  stop: string;
  instructions: string;
  digest: string;
  regs: string[]; // R0..R15, 8 hex digits
  psl: string;
}

const VAXRUN = join(REPO_ROOT, 'emu/build/native/vaxrun');
const PROGRAM_DIR = join(REPO_ROOT, 'emu/tests/programs');

function le32(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
}

// At 0x200: MOVL #^X12345678, R0 ; HALT
const MOVL_HALT = [0xd0, 0x8f, ...le32(0x12345678), 0x50, 0x00];

// At 0x200, counts R0 up to 1,000,000 (3,000,002 instructions with HALT):
//   0200  D4 50                 CLRL  R0
//   0202  D6 50                 INCL  R0
//   0204  D1 50 8F 40 42 0F 00  CMPL  R0, #1000000
//   020B  19 F5                 BLSS  0202   ; 0x202 - 0x20D = -11
//   020D  00                    HALT
const COUNT_LOOP = [0xd4, 0x50, 0xd6, 0x50, 0xd1, 0x50, 0x8f, ...le32(1_000_000), 0x19, 0xf5, 0x00];

const tmp = mkdtempSync(join(tmpdir(), 'vaxlab-identity-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function generated(name: string, bytes: number[], steps: bigint, slice: bigint = DEFAULT_SLICE): Program {
  const file = join(tmp, `${name}.bin`);
  writeFileSync(file, Uint8Array.from(bytes));
  return { name, file, load: 0x200, pc: 0x200, steps, memMB: 8, slice };
}

function num(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-f]+|[0-9]+)$/i.test(v.trim())) return BigInt(v.trim());
  throw new Error(`${what}: expected a non-negative integer or "0x..." string, got ${JSON.stringify(v)}`);
}

function programsFromDir(): Program[] {
  if (!existsSync(PROGRAM_DIR)) return [];
  return readdirSync(PROGRAM_DIR)
    .filter((f) => f.endsWith('.bin'))
    .sort()
    .map((f) => {
      const file = join(PROGRAM_DIR, f);
      const jsonPath = file.replace(/\.bin$/, '.json');
      if (!existsSync(jsonPath)) throw new Error(`${file} has no sidecar ${jsonPath}`);
      const j = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
      return {
        name: `programs/${f}`,
        file,
        load: Number(num(j.load, `${jsonPath} load`)),
        pc: Number(num(j.pc, `${jsonPath} pc`)),
        psl: j.psl === undefined ? undefined : Number(num(j.psl, `${jsonPath} psl`)),
        steps: num(j.steps, `${jsonPath} steps`),
        memMB: j.mem === undefined ? 8 : Number(num(j.mem, `${jsonPath} mem`)),
        slice: j.slice === undefined ? DEFAULT_SLICE : num(j.slice, `${jsonPath} slice`),
      };
    });
}

function runNative(p: Program): Outcome {
  const args = ['--mem', String(p.memMB), '--load', `${p.file}@0x${p.load.toString(16)}`, '--pc', `0x${p.pc.toString(16)}`];
  if (p.psl !== undefined) args.push('--psl', p.psl.toString(16));
  args.push('--steps', p.steps.toString(), '--slice', p.slice.toString(), '--digest', '--regs');
  const r = spawnSync(VAXRUN, args, { encoding: 'utf8', timeout: 10 * 60_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`vaxrun exited with ${r.status ?? r.signal}: ${r.stderr}\n${r.stdout}`);
  }
  const out = r.stdout;
  const head = /^stop=(\S+) instructions=(\d+) digest=([0-9a-f]{16})$/m.exec(out);
  if (!head) throw new Error(`cannot parse vaxrun output:\n${out}`);
  const regs: string[] = [];
  for (let i = 0; i < 16; i++) {
    const m = new RegExp(`\\bR${i}=([0-9A-F]{8})\\b`).exec(out);
    if (!m) throw new Error(`vaxrun output lacks R${i}:\n${out}`);
    regs.push(m[1]!);
  }
  const psl = /^PSL=([0-9A-F]{8})$/m.exec(out);
  if (!psl) throw new Error(`vaxrun output lacks PSL:\n${out}`);
  return { stop: head[1]!, instructions: head[2]!, digest: head[3]!, regs, psl: psl[1]! };
}

const api = await loadVaxNode();

function runWasm(p: Program): Outcome & { detail: string } {
  const m = api.create({ memoryBytes: p.memMB * 1024 * 1024 });
  try {
    m.physWrite(p.load, new Uint8Array(readFileSync(p.file)));
    m.setReg(15, p.pc);
    if (p.psl !== undefined) m.setPsl(p.psl);
    const { reason } = m.runSliced(p.steps, p.slice);
    return {
      stop: api.stopReasonName(reason),
      instructions: m.instructionCount().toString(),
      digest: digestHex(m.stateDigest()),
      regs: Array.from({ length: 16 }, (_, i) => hex32(m.getReg(i))),
      psl: hex32(m.getPsl()),
      detail: m.stopDetail(),
    };
  } finally {
    m.destroy();
  }
}

// The CPU benchmark's workload (paged user mode, calls, strings, floating
// point, CHMK/REI), assembled by make into emu/build/workload.bin.
function workload(): Program[] {
  const file = join(REPO_ROOT, 'emu/build/workload.bin');
  const jsonPath = join(REPO_ROOT, 'emu/build/workload.json');
  if (!existsSync(file) || !existsSync(jsonPath)) throw new Error(`${file} missing: run "make -C emu native"`);
  const j = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  return [{
    name: 'workload', file,
    load: Number(num(j.load, 'load')), pc: Number(num(j.pc, 'pc')), psl: Number(num(j.psl, 'psl')),
    steps: 20_000_000n, memMB: 8, slice: 999_983n,
  }];
}

// Random memory images: whatever the bytes decode to (reserved opcodes,
// faults through random SCB vectors, double faults...), both builds must
// end in the same state.  A fixed xorshift generator keeps them stable.
function randomPrograms(count: number): Program[] {
  let x = 0x9e3779b9;
  const next = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
  const out: Program[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = Array.from({ length: 65536 }, () => next() & 0xff);
    // SCB: every vector to a longword in the image, on the kernel or the
    // interrupt stack, so exceptions run on into more random code.
    for (let v = 0; v < 0x200; v += 4) bytes.splice(v, 4, ...le32((next() & 0xfffc) | (next() & 1)));
    // Prologue at 0x200: valid stacks, then jump into the random bytes.
    const target = 0x400 + (next() & 0xf000);
    const prologue = [
      0xda, 0x8f, ...le32(0xf000), 0x04, // MTPR #^XF000, #ISP
      0xda, 0x8f, ...le32(0xe000), 0x00, // MTPR #^XE000, #KSP
      0xda, 0x8f, ...le32(0xd000), 0x03, // MTPR #^XD000, #USP
      0x17, 0x9f, ...le32(target), //       JMP @#target
    ];
    bytes.splice(0x200, prologue.length, ...prologue);
    const prog = generated(`random-${i}`, bytes, 200_000n, 7_919n);
    out.push({ ...prog, load: 0, pc: 0x200, memMB: 1 });
  }
  return out;
}

const programs: Program[] = [
  generated('movl-halt', MOVL_HALT, 1000n),
  generated('count-loop', COUNT_LOOP, 10_000_000n),
  // Stops on the budget in mid-loop, with an odd slice: state must still agree.
  generated('count-loop-budget', COUNT_LOOP, 1_234_567n, 100_003n),
  ...workload(),
  ...randomPrograms(24),
  ...programsFromDir(),
];

test('native vaxrun is built', () => {
  assert.ok(existsSync(VAXRUN), `${VAXRUN} missing: run "make -C emu native"`);
});

for (const p of programs) {
  test(`wasm == native: ${p.name} (${p.steps} steps)`, (t) => {
    const native = runNative(p);
    const { detail, ...wasm } = runWasm(p);
    t.diagnostic(`native stop=${native.stop} instructions=${native.instructions} digest=${native.digest}`);
    t.diagnostic(`wasm   stop=${wasm.stop} instructions=${wasm.instructions} digest=${wasm.digest} (${detail})`);
    assert.deepEqual(wasm, native);
  });
}
