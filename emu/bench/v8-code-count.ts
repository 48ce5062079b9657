// v8-code-count — host instructions executed in V8's generated code for the
// WebAssembly module, function by function (emu/docs/speed.md, rounds
// twenty-one and twenty-two).
//
//   node --import tsx emu/bench/v8-code-count.ts [--wasm FILE.wasm] [--instructions N] [--top N]
//        [--keep DIR] [--listing FUNCTION] [-- SCRIPT.ts ARGS...]
//   node --import tsx emu/bench/v8-code-count.ts --parse CALLGRIND.out CODE.txt [--per N] [--listing FUNCTION]
//
// It runs a Node script under valgrind's callgrind (--dump-instr=yes, every
// instruction address counted) with V8 told to compile every WebAssembly
// function with its optimising compiler only (--no-liftoff) and to print the
// x64 code of each, with addresses (--print-wasm-code).  Each address's
// count is then added to the printed function that holds it.  What is
// outside the printed code (Node's start, the compilers, the JavaScript
// glue) is reported as one line.  Counts are counts: the machine's load does
// not enter them.
//
// The module must keep its functions' names to be read by function:
// `make -C emu wasm-names` links the same objects with --profiling-funcs
// into emu/build/wasm-names/ (the default --wasm).  The glue is this
// checkout's emu/build/wasm/vax.mjs, as for bench-cpu-wasm's --wasm.
//
// Without a script after `--` it runs emu/bench/bench-cpu-wasm.ts
// --instructions N --wasm FILE and prints the counts per VAX instruction
// too.  A script given after `--` is run as it is (with its own arguments;
// give it the module yourself), and --per N divides by N if you know the
// instruction count: the kernel workload is `--per 45400000 --
// scripts/bench-bsd-wasm.ts --chunked --wasm emu/build/wasm-names/vax.wasm`
// (--chunked: its memory must not grow by the pack's 174 MB under valgrind).  --listing prints one function's code with each
// instruction's count beside it.  --keep DIR keeps callgrind's output and
// V8's listing there (callgrind.out, code.txt) for --parse later.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { REPO_ROOT } from '../js/vaxNode';

/** One instruction of V8's printed code. */
interface CodeInstruction {
  address: bigint;
  size: number;
  text: string;
}

/** One function's printed code. */
interface CodeBlock {
  name: string;
  compiler: string;
  instructions: CodeInstruction[];
  start: bigint;
  end: bigint;
}

// A line of --print-wasm-code's instructions: address, offset, bytes, text.
const INSTRUCTION_LINE = /^(0x[0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+(.*)$/;

/** The functions and their code in V8's --print-wasm-code output. */
export function parseWasmCode(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let cur: CodeBlock | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('--- WebAssembly code ---')) {
      cur = { name: '?', compiler: '?', instructions: [], start: 0n, end: 0n };
      blocks.push(cur);
      continue;
    }
    if (cur === null) continue;
    if (line.startsWith('name: ')) cur.name = line.slice(6).trim();
    else if (line.startsWith('compiler: ')) cur.compiler = line.slice(10).trim();
    else {
      const m = INSTRUCTION_LINE.exec(line);
      if (m) {
        // A jump table's entries print an 8-byte address where the bytes would be.
        const text = m[3].trimEnd();
        const size = text.startsWith('jump table entry') ? 8 : m[2].length >> 1;
        cur.instructions.push({ address: BigInt(m[1]), size, text });
      }
    }
  }
  const withCode = blocks.filter((b) => b.instructions.length > 0);
  for (const b of withCode) {
    const last = b.instructions[b.instructions.length - 1];
    b.start = b.instructions[0].address;
    b.end = last.address + BigInt(last.size);
  }
  return withCode.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/**
 * Self counts by instruction address from a callgrind output file written
 * with --dump-instr=yes (positions "instr line", events Ir).  Positions are
 * absolute (0x…), relative to the line before (+N, -N, decimal) or the same
 * (*).  The cost line after a `calls=` line is the call's inclusive cost, not
 * the address's own, and is skipped.
 */
export function parseCallgrind(text: string): { byAddress: Map<bigint, number>; total: number } {
  const byAddress = new Map<bigint, number>();
  let total = 0;
  const last = [0n, 0n];
  let skipNext = false;
  const position = (tok: string, k: number): bigint => {
    let v: bigint;
    if (tok.startsWith('0x')) v = BigInt(tok);
    else if (tok.startsWith('+')) v = last[k] + BigInt(tok.slice(1));
    else if (tok.startsWith('-')) v = last[k] - BigInt(tok.slice(1));
    else if (tok === '*') v = last[k];
    else v = BigInt(tok);
    last[k] = v;
    return v;
  };
  for (const line of text.split('\n')) {
    const c = line.charAt(0);
    if (c !== '' && '0123456789+-*'.includes(c)) {
      const parts = line.trim().split(/\s+/);
      const address = position(parts[0], 0);
      if (parts.length > 1) position(parts[1], 1);
      const n = parts.length > 2 ? Number(parts[2]) : 0;
      if (skipNext) {
        skipNext = false;
        continue;
      }
      byAddress.set(address, (byAddress.get(address) ?? 0) + n);
      total += n;
    } else if (line.startsWith('calls=')) {
      skipNext = true;
    }
  }
  return { byAddress, total };
}

/** The block holding an address (blocks sorted by start), or null. */
function findBlock(blocks: CodeBlock[], address: bigint): CodeBlock | null {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = blocks[mid];
    if (address < b.start) hi = mid - 1;
    else if (address >= b.end) lo = mid + 1;
    else return b;
  }
  return null;
}

export interface FunctionCount {
  name: string;
  compiler: string;
  instructions: number;
  count: number;
}

/** callgrind's counts added up by V8's printed functions. */
export function countByFunction(
  blocks: CodeBlock[],
  byAddress: Map<bigint, number>,
): { functions: FunctionCount[]; outside: number } {
  const sums = new Map<CodeBlock, number>();
  let outside = 0;
  for (const [address, n] of byAddress) {
    const b = findBlock(blocks, address);
    if (b === null) outside += n;
    else sums.set(b, (sums.get(b) ?? 0) + n);
  }
  const functions = [...sums]
    .map(([b, count]) => ({ name: b.name, compiler: b.compiler, instructions: b.instructions.length, count }))
    .sort((a, b) => b.count - a.count);
  return { functions, outside };
}

function report(cgText: string, codeText: string, per: number, top: number, listing: string | undefined): void {
  const blocks = parseWasmCode(codeText);
  const { byAddress, total } = parseCallgrind(cgText);
  const { functions, outside } = countByFunction(blocks, byAddress);
  const inCode = total - outside;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const perText = (n: number) => (per > 0 ? `  ${(n / per).toFixed(2).padStart(8)} per VAX instruction` : '');
  console.log(`all host instructions (callgrind)  ${fmt(total)}`);
  console.log(`outside V8's WebAssembly code      ${fmt(outside)}`);
  console.log(`in V8's WebAssembly code           ${fmt(inCode)}${perText(inCode)}`);
  console.log('');
  for (const f of functions.slice(0, top)) {
    const share = inCode > 0 ? ((100 * f.count) / inCode).toFixed(1) : '0';
    console.log(
      `${fmt(f.count).padStart(16)} ${share.padStart(5)}%${perText(f.count)}  ${f.name} (${f.compiler}, ${f.instructions} instructions)`,
    );
  }
  if (listing !== undefined) {
    const b = blocks.find((x) => x.name === listing);
    if (b === undefined) {
      console.error(`v8-code-count: no function named ${listing} in the printed code`);
      process.exitCode = 1;
      return;
    }
    console.log(`\n${listing}: count, offset, instruction`);
    for (const ins of b.instructions) {
      const n = byAddress.get(ins.address) ?? 0;
      console.log(`${String(n).padStart(12)} ${(ins.address - b.start).toString(16).padStart(6)}  ${ins.text}`);
    }
  }
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      wasm: { type: 'string', default: join(REPO_ROOT, 'emu/build/wasm-names/vax.wasm') },
      instructions: { type: 'string', default: '20000000' },
      per: { type: 'string' },
      top: { type: 'string', default: '25' },
      keep: { type: 'string' },
      listing: { type: 'string' },
      parse: { type: 'boolean', default: false },
    },
  });
  const top = Number(values.top);
  if (values.parse) {
    if (positionals.length !== 2) throw new Error('--parse wants CALLGRIND.out CODE.txt');
    const per = values.per !== undefined ? Number(values.per) : 0;
    report(readFileSync(positionals[0], 'utf8'), readFileSync(positionals[1], 'utf8'), per, top, values.listing);
    return;
  }
  const script =
    positionals.length > 0
      ? positionals
      : [
          join(REPO_ROOT, 'emu/bench/bench-cpu-wasm.ts'),
          '--instructions',
          values.instructions,
          '--wasm',
          values.wasm,
        ];
  const per = values.per !== undefined ? Number(values.per) : positionals.length > 0 ? 0 : Number(values.instructions);
  const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'v8-code-count-'));
  mkdirSync(dir, { recursive: true });
  const cgPath = join(dir, 'callgrind.out');
  const codePath = join(dir, 'code.txt');
  const codeFd = openSync(codePath, 'w');
  const args = [
    '--tool=callgrind',
    '--dump-instr=yes',
    `--callgrind-out-file=${cgPath}`,
    'node',
    '--single-threaded',
    '--no-liftoff',
    '--print-wasm-code',
    '--import',
    'tsx',
    ...script,
  ];
  console.error(`v8-code-count: valgrind ${args.join(' ')} > ${codePath}`);
  const r = spawnSync('valgrind', args, { stdio: ['ignore', codeFd, 'inherit'], cwd: REPO_ROOT });
  closeSync(codeFd);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`the run under valgrind failed (exit ${r.status}); see ${codePath}`);
  report(readFileSync(cgPath, 'utf8'), readFileSync(codePath, 'utf8'), per, top, values.listing);
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
}

// Run as a program, not when a test imports the parsers.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
