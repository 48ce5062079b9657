// The block compiler's exactness (emu/src/jit, docs/speed.md round
// twenty-four): the same work run with the compiler and without, in the
// module built with `make -C emu wasm WASM_JIT=1`, must leave the same state
// digest (registers, PSL, memory, instruction count), the same timing digest
// (the cost, the cache model's tags and misses, the TB, the instruction
// buffer's block, the statistics, the undo log, the condition codes as
// stored) and the same console transcript, instruction counts and virtual
// times at every prompt.  With the default module (no compiler) every test
// is skipped, saying so.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { jitBuilt, jitStats, setJit, timingDigest } from '../js/jit';
import type { VaxMachineApi } from '../js/vaxModule';
import { findLabImage, loadDiskImage, loadVaxNode, REPO_ROOT, wasmBuildExists } from '../js/vaxNode';

const api: VaxMachineApi | undefined = wasmBuildExists() ? await loadVaxNode() : undefined;

function skipUnlessJit(): string | false {
  if (!api) return 'no WebAssembly module: make -C emu wasm WASM_JIT=1';
  if (!jitBuilt(api.module)) return 'the module has no block compiler: build it with `make -C emu wasm WASM_JIT=1`';
  return false;
}

interface BareOutcome {
  digest: string;
  timing: string;
  count: bigint;
  regs: number[];
}

/** Loads `image` at `load`, starts at `pc` (PSL `psl`), runs `total`
 *  instructions in slices of `slice`, with the compiler (hot: its threshold)
 *  or without. */
function runBare(
  image: Uint8Array, load: number, pc: number, psl: number | undefined, total: bigint, slice: bigint,
  jitHot: number, setup?: (m: ReturnType<VaxMachineApi['create']>) => void, endAtCalls = false,
): BareOutcome & { compiled: number; instructionsCompiled: number; stale: number } {
  const a = api!;
  const m = a.create({ memoryBytes: 8 * 1024 * 1024 });
  try {
    m.physWrite(load, image);
    m.setReg(15, pc);
    if (psl !== undefined) m.setPsl(psl);
    setup?.(m);
    if (jitHot > 0) setJit(a.module, m.handle, true, jitHot, endAtCalls);
    m.runSliced(total, slice);
    const stats = jitHot > 0 ? jitStats(a.module, m.handle) : undefined;
    return {
      digest: m.stateDigest().toString(16),
      timing: timingDigest(a.module, m.handle).toString(16),
      count: m.instructionCount(),
      regs: Array.from({ length: 16 }, (_, i) => m.getReg(i)),
      compiled: stats?.compiles ?? 0,
      instructionsCompiled: stats?.instructions ?? 0,
      stale: stats?.stale ?? 0,
    };
  } finally {
    m.destroy();
  }
}

function workload(): { image: Uint8Array; load: number; pc: number; psl?: number } | null {
  const bin = join(REPO_ROOT, 'emu/build/workload.bin');
  if (!existsSync(bin)) return null;
  const j = JSON.parse(readFileSync(bin.replace(/\.bin$/, '.json'), 'utf8')) as Record<string, string>;
  return { image: new Uint8Array(readFileSync(bin)), load: Number(j.load), pc: Number(j.pc), psl: j.psl ? Number(j.psl) : undefined };
}

test('jit: bench_cpu workload, in the benchmark slices and in odd ones, exact', { skip: skipUnlessJit() }, (t) => {
  const w = workload();
  if (!w) {
    t.skip('emu/build/workload.bin not built (make -C emu native)');
    return;
  }
  for (const slice of [4_000_000n, 99_991n, 7_919n]) {
    const total = 6_000_000n;
    const off = runBare(w.image, w.load, w.pc, w.psl, total, slice, 0);
    const on = runBare(w.image, w.load, w.pc, w.psl, total, slice, 16);
    assert.equal(on.count, off.count, `slice ${slice}: instruction count`);
    assert.deepEqual(on.regs, off.regs, `slice ${slice}: registers`);
    assert.equal(on.digest, off.digest, `slice ${slice}: state digest`);
    assert.equal(on.timing, off.timing, `slice ${slice}: timing digest`);
    assert.ok(on.compiled > 0, `slice ${slice}: something was compiled`);
    assert.ok(on.instructionsCompiled > Number(total) / 2, `slice ${slice}: most instructions ran compiled (${on.instructionsCompiled})`);
    // Leaving compiled code at every instruction it does not compile, instead
    // of calling the interpreter for it: the same.
    const ends = runBare(w.image, w.load, w.pc, w.psl, total, slice, 2, undefined, true);
    assert.deepEqual([ends.count, ends.digest, ends.timing], [off.count, off.digest, off.timing], `slice ${slice}: ending at calls`);
  }
});

// Self-modifying code, physical addresses, two pages:
//   0400  D4 50                 CLRL   R0
//   0402  D4 51                 CLRL   R1
//   0404  16 9F 00 06 00 00     JSB    @#0x600        ; rewrites the literal at 040B
//   040A  C0 01 50              ADDL2  S^#1, R0
//   040D  8C 03 AF 01           XORB2  S^#3, B^1(PC)   ; rewrites the literal at 0412, in line
//   0411  C0 01 52              ADDL2  S^#1, R2
//   0414  D6 51                 INCL   R1
//   0416  D1 51 8F 88 13 00 00  CMPL   R1, #5000
//   041D  19 E5                 BLSS   0404
//   041F  00                    HALT
//   0600  8C 03 9F 0B 04 00 00  XORB2  S^#3, @#0x40B
//   0607  05                    RSB
// Each literal goes 1 -> 2 -> 1 ... before its ADDL2 runs, so R0 and R2 end
// at 5000 * 1.5 = 7500: the rewritten instruction is never run stale.
const SMC = new Uint8Array(0x208);
SMC.set([0xd4, 0x50, 0xd4, 0x51, 0x16, 0x9f, 0x00, 0x06, 0x00, 0x00, 0xc0, 0x01, 0x50, 0x8c, 0x03, 0xaf, 0x01,
  0xc0, 0x01, 0x52, 0xd6, 0x51, 0xd1, 0x51, 0x8f, 0x88, 0x13, 0x00, 0x00, 0x19, 0xe5, 0x00], 0);
SMC.set([0x8c, 0x03, 0x9f, 0x0b, 0x04, 0x00, 0x00, 0x05], 0x200);

test('jit: self-modifying code (rewritten from another page and in line) is never run stale', { skip: skipUnlessJit() }, () => {
  const setup = (m: ReturnType<VaxMachineApi['create']>): void => m.setReg(14, 0x8000);
  const off = runBare(SMC, 0x400, 0x400, 0x041f0000, 200_000n, 4_000_000n, 0, setup);
  const on = runBare(SMC, 0x400, 0x400, 0x041f0000, 200_000n, 4_000_000n, 2, setup);
  assert.equal(off.regs[0], 7500);
  assert.equal(off.regs[2], 7500);
  assert.deepEqual(on.regs, off.regs);
  assert.equal(on.count, off.count);
  assert.equal(on.digest, off.digest);
  assert.equal(on.timing, off.timing);
  assert.ok(on.compiled > 0, 'something was compiled');
  assert.ok(on.stale > 0, 'a compiled page was seen rewritten');
});

const PROMPT = '\n# ';

test('jit: 4.3BSD booted single-user, a short benchmark script: the same transcript, times and digests', { skip: skipUnlessJit() || (findLabImage() ? false : 'no lab image: npm run image') }, async () => {
  const disk = await loadDiskImage(findLabImage()!);
  const script = ['cd /lab/bin', './syscall 20000', './pipeself 2000 4', './forks 200 0', './pipeback 2000 4'];
  const run = (jitHot: number, endAtCalls = false) => {
    const a = api!;
    const sys = a.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true });
    try {
      if (jitHot > 0) setJit(a.module, sys.machinePtr, true, jitHot, endAtCalls);
      const marks: string[] = [];
      let out = '';
      const expect = (): void => {
        for (let n = 0; n < 20_000; n++) {
          sys.run(200_000);
          out += sys.readConsole();
          const at = out.lastIndexOf(PROMPT);
          if (at >= 0 && at + PROMPT.length === out.length) {
            marks.push(`${sys.instructionCount()} ${sys.timeNs()}`);
            return;
          }
        }
        throw new Error(`no prompt; output so far:\n${out.slice(-2000)}`);
      };
      expect();
      for (const line of script) {
        sys.type(`${line}\n`);
        expect();
      }
      const mod = a.module as unknown as { _vax_state_digest(p: number): bigint };
      return {
        out, marks,
        digest: BigInt.asUintN(64, mod._vax_state_digest(sys.machinePtr)).toString(16),
        timing: timingDigest(a.module, sys.machinePtr).toString(16),
        stats: JSON.stringify(sys.hardwareStats()),
        jit: jitHot > 0 ? jitStats(a.module, sys.machinePtr) : undefined,
      };
    } finally {
      sys.destroy();
    }
  };
  const off = run(0);
  const on = run(64);
  assert.equal(on.out, off.out, 'transcript');
  assert.deepEqual(on.marks, off.marks, 'instruction counts and virtual times at each prompt');
  assert.equal(on.digest, off.digest, 'state digest');
  assert.equal(on.timing, off.timing, 'timing digest');
  assert.equal(on.stats, off.stats, "the 780 model's hardware counters");
  assert.ok(on.jit && on.jit.instructions > 0, 'instructions ran compiled');
  // Every page compiled at its second entry, leaving compiled code at each
  // instruction it does not compile: the same again.
  const ends = run(2, true);
  assert.equal(ends.out, off.out, 'transcript (ending at calls)');
  assert.deepEqual(ends.marks, off.marks, 'marks (ending at calls)');
  assert.deepEqual([ends.digest, ends.timing, ends.stats], [off.digest, off.timing, off.stats], 'digests and counters (ending at calls)');
});
