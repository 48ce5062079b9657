// The whole VAX-11/780 in the WebAssembly build (node --test, TypeScript via tsx).
//
// Boots 4.3BSD from the installed image through emu/js/vax780.ts
// (Vax780: emu/wasm/vax780_wasm.c) to the single-user "# ", directly and
// through /boot, and types `date`.  Then the identity check: the same boot
// and the same script run natively by emu/build/vax780 (on a private copy of
// the image) and in wasm must reach each prompt at the same instruction
// count, at the same virtual time, with the same console transcript.
//
// The stopping rule is the CLI's: run in vax_run() slices of 200,000
// instructions and, for `expect TEXT`, stop at the first slice boundary
// where the console output since the previous match contains TEXT.
//
// The image: $VAXLAB_IMAGE, else web/public/images/43bsd.dsk.gz (npm run
// image), else emu/build/images/43bsd-rp06.dsk (make -C emu images).
// Without one the tests are skipped, saying so.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import { Vax780Stop, type Vax780Options, type Vax780System } from '../js/vax780';
import type { VaxMachineApi } from '../js/vaxModule';
import { findBsdImage, findLabImage, loadDiskImage, loadVaxNode, REPO_ROOT } from '../js/vaxNode';

const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const SLICE = 200_000; // tools/vax780.c SLICE
const PROMPT = '\n# ';

const imagePath = findBsdImage();
const skip = imagePath
  ? false
  : 'no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image` ' +
    '(or unpack emu/build/images/43bsd-rp06.dsk with `make -C emu images`, or set VAXLAB_IMAGE)';
const skipNative = skip || (existsSync(VAX780) ? false : `${VAX780} not built (make -C emu native)`);

let api: VaxMachineApi;
let disk: Uint8Array;
const work = mkdtempSync(join(tmpdir(), 'vaxlab-system-'));
after(() => rmSync(work, { recursive: true, force: true }));

before(async () => {
  if (!imagePath) return;
  api = await loadVaxNode();
  disk = await loadDiskImage(imagePath);
});

// A script as the CLI takes it: expect TEXT / send TEXT (TEXT + "\r").
type Step = { expect: string } | { send: string };

interface Outcome {
  reboots?: number;
  createSeconds?: number; // host time to create and boot (copies the disk into wasm memory)
  transcript: string;
  /** Instruction count and virtual time at each expect's match. */
  marks: { instructions: bigint; timeNs: bigint }[];
  hostSeconds: number[]; // host time to each match
}

// The CLI's expect loop, on the wasm system.
function runScriptWasm(sys: Vax780System, steps: Step[], limitVirtualSeconds = 60): Outcome {
  let transcript = '';
  let mark = 0;
  const marks: Outcome['marks'] = [];
  const hostSeconds: number[] = [];
  const t0 = performance.now();
  for (const step of steps) {
    if ('send' in step) {
      sys.type(`${step.send}\r`);
      continue;
    }
    const deadline = sys.timeNs() + BigInt(limitVirtualSeconds * 1e9);
    for (;;) {
      const at = transcript.indexOf(step.expect, mark);
      if (at >= 0) {
        mark = at + step.expect.length;
        break;
      }
      assert.ok(sys.timeNs() <= deadline, `expect ${JSON.stringify(step.expect)} timed out; transcript:\n${transcript}`);
      const r = sys.run(SLICE);
      transcript += sys.readConsole();
      assert.ok(
        r === Vax780Stop.Budget || r === Vax780Stop.Rebooted,
        `stopped: ${api.vax780.stopName(r)}: ${sys.stopDetail()}\n${transcript}`,
      );
      assert.ok(!/panic:/.test(transcript), `kernel panic:\n${transcript}`);
    }
    marks.push({ instructions: sys.instructionCount(), timeNs: sys.timeNs() });
    hostSeconds.push((performance.now() - t0) / 1000);
  }
  assert.equal(sys.consoleDropped(), 0n);
  return { transcript, marks, hostSeconds };
}

// 8 MB unless the options say otherwise (then nativeBoot's args need the same --mem).
function wasmBoot(options: Omit<Vax780Options, 'disk' | 'memoryMB'> & { memoryMB?: number }, steps: Step[], limit = 60): Outcome {
  const t0 = performance.now();
  const sys = api.vax780.create({ memoryMB: 8, disk, ...options });
  const createSeconds = (performance.now() - t0) / 1000;
  try {
    return { ...runScriptWasm(sys, steps, limit), createSeconds, reboots: sys.reboots() };
  } finally {
    sys.destroy();
  }
}

/** In nativeBoot's args (not the CLI's): hp1 over another fresh copy of the same pack. */
const SECOND_DRIVE = '--hp1-copy-of-hp0';

// The same on emu/build/vax780: one run per prefix of the script that ends
// in an expect, each on a fresh copy of the image, so that --stats gives
// the instruction count and virtual time at every match.
function nativeBoot(args: string[], steps: Step[], limit = 60): Outcome {
  const marks: Outcome['marks'] = [];
  let transcript = '';
  const copy = join(work, 'native.dsk');
  steps.forEach((step, i) => {
    if (!('expect' in step)) return;
    writeFileSync(copy, disk); // a fresh copy: the guest writes its disk
    const script = join(work, 'script.txt');
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    writeFileSync(
      script,
      [`timeout ${limit}`, ...steps
        .slice(0, i + 1)
        .map((s) => ('expect' in s ? `expect ${esc(s.expect)}` : `send ${s.send}`))].join('\n') + '\n',
    );
    const second = args.includes(SECOND_DRIVE);
    if (second) writeFileSync(`${copy}.1`, disk);
    const cli = args.filter((a) => a !== SECOND_DRIVE);
    const r = spawnSync(VAX780, ['--disk', `hp0=${copy}`, ...(second ? ['--disk', `hp1=${copy}.1`] : []), '--mem', '8', ...cli,
      '--script', script, '--stats'], {
      encoding: 'latin1',
      timeout: 120_000,
      maxBuffer: 16 << 20,
    });
    if (r.error) throw r.error;
    assert.equal(r.status, 0, `vax780 failed: ${r.stderr}\n${r.stdout}`);
    const m = /vax780: (\d+) instructions, ([\d.]+) virtual s/.exec(r.stderr);
    assert.ok(m, `no --stats line in: ${r.stderr}`);
    marks.push({ instructions: BigInt(m[1]), timeNs: BigInt(Math.round(Number(m[2]) * 1e6)) * 1000n });
    transcript = r.stdout;
  });
  return { transcript, marks, hostSeconds: [] };
}

const DATE_SCRIPT: Step[] = [{ expect: PROMPT }, { send: 'date' }, { expect: PROMPT }];

function checkDate(transcript: string): void {
  const m = /# date\r\n([^\r\n]*)\r\n# $/.exec(transcript);
  assert.ok(m, `no date output at the end of:\n${transcript.slice(-500)}`);
  assert.match(m[1], /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d [A-Z]{3} 19\d\d$/);
}

for (const direct of [true, false]) {
  const how = direct ? 'direct kernel load' : 'through /boot';
  test(`wasm: 4.3BSD boots single-user (${how}) to "# " and runs date`, { skip }, (t) => {
    const out = wasmBoot({ boot: 'single', direct }, DATE_SCRIPT);
    assert.match(out.transcript, /4\.3 BSD UNIX/);
    assert.match(out.transcript, /real mem += 8388608/);
    checkDate(out.transcript);
    t.diagnostic(
      `image ${imagePath}; "# " after ${out.marks[0].instructions} instructions, ` +
        `${Number(out.marks[0].timeNs) / 1e9} virtual s, ${out.hostSeconds[0].toFixed(3)} host s ` +
        `(+ ${out.createSeconds?.toFixed(3)} s to create: copying the ${disk.length}-byte disk into wasm memory)`,
    );
  });
}

// The CLI reboots the way the console does when the kernel asks it to
// (INIT, then a multi-user boot); Vax780 must do the same.
const REBOOT_SCRIPT: Step[] = [{ expect: PROMPT }, { send: 'reboot' }, { expect: 'login: ' }];

const BENCH_SCRIPT: Step[] = [
  { expect: PROMPT }, { send: 'mount /dev/hp0g /usr' }, { expect: PROMPT }, { send: 'cd /usr/lab/bin' }, { expect: PROMPT },
  { send: '/bin/time ./pipeback 300 512; echo exit $?' }, { expect: PROMPT },
];
const labImage = imagePath !== null && imagePath === findLabImage();
// The paper's 750 as the experiments run it (MachineSpec.drives 2): /usr
// from a second drive over the same pack, disks at seeded angles, an exec
// loop that reads from both drives.
const TWO_DRIVE_SCRIPT: Step[] = [
  { expect: PROMPT }, { send: 'mknod /dev/hp1g b 0 14' }, { expect: PROMPT }, { send: 'mount /dev/hp1g /usr' }, { expect: PROMPT },
  { send: 'cd /usr/lab/bin' }, { expect: PROMPT }, { send: '/bin/time ./execs 30 0 ./nulljob; echo exit $?' }, { expect: PROMPT },
];

for (const [name, options, args, steps] of [
  ['direct', { boot: 'single', direct: true }, ['--boot', 'single', '--direct'], DATE_SCRIPT],
  ['through /boot', { boot: 'single', direct: false }, ['--boot', 'single'], DATE_SCRIPT],
  // nbuf=100 shows in the transcript ("using 100 buffers"), so the setting is seen to take.
  ['direct with set nbuf=100', { boot: 'single', direct: true, set: { nbuf: 100 } },
    ['--boot', 'single', '--direct', '--set', 'nbuf=100'], DATE_SCRIPT],
  // The paper's 750 had 4.5 MB: memory comes in steps of 256 KB, and the kernel's probe finds all of it.
  ['4.5 MB, the paper\'s 750 (direct)', { boot: 'single', direct: true, memoryMB: 4.5 },
    ['--boot', 'single', '--direct', '--mem', '4.5'], DATE_SCRIPT],
  ['through /boot, then reboot to multi-user', { boot: 'single', direct: false }, ['--boot', 'single'], REBOOT_SCRIPT],
  // A benchmark of the lab (pipes, context switches, the disk) timed by the
  // guest's /bin/time: experiment results are the same in both builds.
  ['a lab benchmark under /bin/time', { boot: 'single', direct: true }, ['--boot', 'single', '--direct'], BENCH_SCRIPT],
  // The same with the disk timed as a Fujitsu Eagle (--disk-timing / diskTiming).
  ['a lab benchmark, eagle disk timing', { boot: 'single', direct: true, diskTiming: 'eagle' },
    ['--boot', 'single', '--direct', '--disk-timing', 'eagle'], BENCH_SCRIPT],
  ['two drives (/usr from hp1), spin seed 2, execs', { boot: 'single', direct: true, secondDrive: true, diskSpinSeed: 2 },
    ['--boot', 'single', '--direct', '--disk-spin', '2', SECOND_DRIVE], TWO_DRIVE_SCRIPT],
] as const) {
  const skipThis = skipNative || ((steps === BENCH_SCRIPT || steps === TWO_DRIVE_SCRIPT) && !labImage
    ? 'the lab image (npm run image) has the benchmark programs; this is another image' : false);
  test(`identity: native vax780 and wasm alike: ${name}`, { skip: skipThis }, (t) => {
    const wasm = wasmBoot(options, [...steps], 300);
    const native = nativeBoot([...args], [...steps], 300);
    // --stats prints virtual seconds to the millisecond: compare at that.
    const at = (o: Outcome) => o.marks.map((m) => [m.instructions, (Number(m.timeNs) / 1e9).toFixed(3)]);
    assert.deepEqual(at(wasm), at(native), 'instruction count and virtual time at each match');
    assert.equal(wasm.transcript, native.transcript, 'console transcript');
    if (steps === DATE_SCRIPT) checkDate(wasm.transcript);
    else if (steps === BENCH_SCRIPT || steps === TWO_DRIVE_SCRIPT) {
      // 4.3BSD's /bin/time ends its line with blanks after "sys".
      assert.match(wasm.transcript, /\r\n +[0-9.]+ real +[0-9.]+ user +[0-9.]+ sys *\r\nexit 0\r\n# $/);
    } else {
      assert.equal(wasm.reboots, 1);
      assert.match(wasm.transcript, /Automatic reboot in progress[^]*\n4\.3 BSD UNIX \(.*\) \(console\)[\r\n]+login: $/);
    }
    if ('set' in options) assert.match(wasm.transcript, /using 100 buffers/);
    assert.match(wasm.transcript, 'memoryMB' in options ? /real mem {2}= 4718592\n/ : /real mem {2}= 8388608\n/);
    t.diagnostic(
      `matches at ${wasm.marks.map((m) => m.instructions).join(', ')} instructions in both; ` +
        `wasm ${wasm.hostSeconds.at(-1)?.toFixed(3)} host s to the last`,
    );
  });
}

// A kernel from the host (the installer's kernel variants: Vax780Options.kernel,
// the CLI's --kernel-file), with a setting patched by its own symbol table.
const VARIANT_GZ = join(REPO_ROOT, 'web/public/images/43bsd-kernel-no-name-cache.gz');
test('identity: native vax780 and wasm alike: a kernel from the host (a variant), with set nbuf=100',
  { skip: skipNative || (labImage && existsSync(VARIANT_GZ) ? false : `no ${VARIANT_GZ} for the lab image (npm run image)`) }, () => {
  const kernel = gunzipSync(readFileSync(VARIANT_GZ));
  const file = join(work, 'variant.vmunix');
  writeFileSync(file, kernel);
  const wasm = wasmBoot({ boot: 'single', direct: true, kernel, set: { nbuf: 100 } }, DATE_SCRIPT, 300);
  const native = nativeBoot(['--boot', 'single', '--kernel-file', file, '--set', 'nbuf=100'], DATE_SCRIPT, 300);
  const at = (o: Outcome) => o.marks.map((m) => [m.instructions, (Number(m.timeNs) / 1e9).toFixed(3)]);
  assert.deepEqual(at(wasm), at(native), 'instruction count and virtual time at each match');
  assert.equal(wasm.transcript, native.transcript, 'console transcript');
  assert.match(wasm.transcript, /root@:\/usr\/src\/sys-no-name-cache\/GENERIC/);
  assert.match(wasm.transcript, /using 100 buffers/);
  checkDate(wasm.transcript);
  const sys = api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true, kernel });
  try {
    // Its own symbol table: this kernel has no name cache (nchsize 0 in its data).
    const syms = sys.kernelSymbols(['_nchsize', '_nchstats']);
    assert.ok(syms._nchsize !== null && syms._nchstats !== null);
    assert.equal(new DataView(sys.readKernel(syms._nchsize!, 4).buffer).getUint32(0, true), 0);
  } finally {
    sys.destroy();
  }
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk, boot: 'single', kernel }), /kernel: .*with direct/);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true, kernel: new Uint8Array(64) }),
    /boot: kernel: not a VAX a\.out file/);
});

test('wasm: a kernel setting that names no variable is refused', { skip }, () => {
  assert.throws(
    () => api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true, set: { no_such_variable: 1 } }),
    /no symbol _no_such_variable/,
  );
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk, boot: 'single', set: { nbuf: 100 } }), /set needs direct/);
  assert.throws(() => api.vax780.create({ memoryMB: 65, disk, boot: 'single' }), RangeError);
  assert.throws(() => api.vax780.create({ memoryMB: 4.3, disk, boot: 'single' }),
    /^RangeError: memoryMB must be a multiple of 0\.25 \(256 KB\) from 0\.25 to 64, got 4\.3$/);
  assert.throws(() => api.vax780.create({ memoryMB: 0, disk, boot: 'single' }), RangeError);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk, boot: 'single', diskTiming: 'ssd' as never }),
    /diskTiming must be one of rp06, eagle, ideal, rm05, got ssd/);
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk: new Uint8Array(4096), boot: 'single' }), /vax780 create/);
});

test('wasm: a kernel setting may be negative, written as its 32-bit two\'s complement (maxtextcache=-1)', { skip }, () => {
  const sys = api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true, set: { maxtextcache: -1, nbuf: 100 } });
  try {
    const syms = sys.kernelSymbols(['_maxtextcache', '_nbuf']);
    assert.ok(syms._maxtextcache !== null && syms._nbuf !== null);
    assert.equal(new DataView(sys.readKernel(syms._maxtextcache!, 4).buffer).getInt32(0, true), -1);
    assert.equal(new DataView(sys.readKernel(syms._nbuf!, 4).buffer).getInt32(0, true), 100);
  } finally {
    sys.destroy();
  }
  assert.throws(() => api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true, set: { maxtextcache: -(2 ** 31) - 1 } }),
    /set maxtextcache: value must be an integer from -2147483648 to 4294967295/);
});

// One DiskImage, many machines: each writes its own copy-on-write overlay
// and the image (the pristine pack) never changes.  The first machine
// writes a file and syncs; the image's digest is unchanged and the second
// machine, booted from the same image, does not see the file.
test('wasm: machines share one DiskImage and never write it', { skip }, (t) => {
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  let t0 = performance.now();
  const image = api.vax780.loadImage(disk);
  const loadSeconds = (performance.now() - t0) / 1000;
  const imageDigest = () => image.withBytes(sha);
  const pristine = sha(disk);
  assert.equal(imageDigest(), pristine);
  const options = { memoryMB: 8, disk: image, boot: 'single', direct: true } as const;
  const FILE = '/tmp/vaxlab-overlay';

  t0 = performance.now();
  const first = api.vax780.create(options);
  const createSeconds = (performance.now() - t0) / 1000;
  let dirty = 0;
  try {
    assert.equal(image.users, 1);
    const out = runScriptWasm(first, [
      { expect: PROMPT },
      { send: `date > ${FILE}; sync; ls ${FILE}` },
      { expect: PROMPT },
    ]);
    assert.match(out.transcript, new RegExp(`\r\n${FILE}\r\n# $`), 'the first machine wrote the file');
    dirty = first.dirtyBytes();
    assert.ok(dirty > 0, 'dirtyBytes after a write and sync');
  } finally {
    first.destroy();
  }
  assert.equal(image.users, 0);
  assert.equal(imageDigest(), pristine, 'the image changed under a machine that wrote its disk');

  const second = api.vax780.create(options);
  try {
    assert.equal(second.dirtyBytes(), 0, 'a fresh machine starts with no private chunks');
    // Disposing while a machine uses the image defers the free: the machine
    // keeps reading it, and no new machine may use it.
    image.dispose();
    assert.equal(image.disposed, true);
    assert.throws(() => api.vax780.create(options), /disposed/);
    const out = runScriptWasm(second, [{ expect: PROMPT }, { send: `ls ${FILE}` }, { expect: PROMPT }]);
    assert.match(out.transcript, new RegExp(`${FILE} not found`), 'the second machine saw the first one\'s file');
  } finally {
    second.destroy();
  }
  assert.equal(image.users, 0);
  assert.throws(() => image.read(0, 1), /after dispose/);
  t.diagnostic(
    `loadImage ${loadSeconds.toFixed(3)} s (one copy of ${disk.length} bytes); create over it ` +
      `${createSeconds.toFixed(3)} s; the first machine dirtied ${dirty} bytes`,
  );
});

// The pack in a SharedArrayBuffer (what the workers of a sweep share): the
// machine reads it through the vaxImageRead import instead of from wasm
// memory.  Same boot, same instruction counts, same transcript as over an
// image in wasm memory, and the wasm heap holds no copy of the pack.
test('wasm: a machine over an image in a SharedArrayBuffer runs as one over an image in wasm memory', { skip }, async () => {
  const script = [{ expect: PROMPT }, { send: 'ls -l /etc/passwd; sync' }, { expect: PROMPT }];
  const inWasm = api.vax780.loadImage(disk);
  const a = api.vax780.create({ memoryMB: 8, disk: inWasm, boot: 'single', direct: true });
  let first: ReturnType<typeof runScriptWasm>;
  try {
    first = runScriptWasm(a, script);
  } finally {
    a.destroy();
    inWasm.dispose();
  }
  const fresh = await loadVaxNode();
  const shared = new Uint8Array(new SharedArrayBuffer(disk.length));
  shared.set(disk);
  const image = fresh.vax780.sharedImage(shared);
  const b = fresh.vax780.create({ memoryMB: 8, disk: image, boot: 'single', direct: true });
  try {
    const second = runScriptWasm(b, script);
    assert.equal(second.transcript, first.transcript);
    assert.deepEqual(second.marks, first.marks);
    assert.ok(fresh.module.HEAPU8.length < disk.length,
      `wasm memory is ${fresh.module.HEAPU8.length} bytes, the pack ${disk.length}: it was copied`);
  } finally {
    b.destroy();
    image.dispose();
  }
});

test('wasm: hardwareStatsOf reads the named counters as hardwareStats has them, and leaves out names the model lacks', { skip }, () => {
  const sys = api.vax780.create({ memoryMB: 8, disk, boot: 'single', direct: true });
  try {
    runScriptWasm(sys, [{ expect: PROMPT }]);
    const all = sys.hardwareStats();
    const names = ['instr.kernel', 'disk.hp0.xfers', 'ns.idle', 'no.such.counter', 'chmk.total'];
    const picked = sys.hardwareStatsOf(names);
    // The boot did work that these count: the comparison is not of zeros.
    assert.ok(all['instr.kernel']! > 0 && all['disk.hp0.xfers']! > 0 && all['chmk.total']! > 0);
    assert.deepEqual(picked, {
      'instr.kernel': all['instr.kernel'],
      'disk.hp0.xfers': all['disk.hp0.xfers'],
      'ns.idle': all['ns.idle'],
      'chmk.total': all['chmk.total'],
    });
    assert.deepEqual(sys.hardwareStatsOf([]), {});
  } finally {
    sys.destroy();
  }
});
