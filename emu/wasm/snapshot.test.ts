// Machine snapshots in the WebAssembly build, on the lab's 4.3BSD
// (node --test, TypeScript via tsx; emu/src/snapshot/snap.h).
//
// A system restored from a snapshot must run on exactly as the one that
// saved it: booted single-user (Table 2's machine) and saved at its prompt,
// the original and a restored copy type the same commands and must print
// the same, at the same instruction count and virtual time, with the same
// counters, and end in the same state byte for byte (a second snapshot of
// each).  The native machine (emu/build/vax780, `save FILE`) saves the same
// bytes as wasm at the same point, and restores what wasm saved into the
// same run.  Refusals say why: another image, other settings, a damaged or
// foreign file.  (That the snapshots the installer ships are what a boot
// saves is experiments/runner/bootSnapshots.test.ts's.)
//
// Needs the lab image (npm run image); skipped, saying so, without it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import type { DiskImage } from '../js/diskImage';
import { readSnapshotInfo } from '../js/snapshotFile';
import { Vax780Stop, type Vax780Options, type Vax780System } from '../js/vax780';
import type { VaxMachineApi } from '../js/vaxModule';
import { findLabImage, loadDiskImage, loadVaxNode, openDiskImage, REPO_ROOT } from '../js/vaxNode';

const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const SLICE = 200_000;
const PROMPT = '\n# ';
const imagePath = findLabImage();
const skip = imagePath ? false : 'no lab image: build web/public/images/43bsd.dsk.gz with `npm run image`';

let api: VaxMachineApi;
let disk: DiskImage;
const work = mkdtempSync(join(tmpdir(), 'vaxlab-snapshot-'));
after(() => {
  disk?.dispose();
  rmSync(work, { recursive: true, force: true });
});

before(async () => {
  if (!imagePath) return;
  api = await loadVaxNode();
  disk = (await openDiskImage(api.vax780, imagePath)).disk;
});

/** Table 2's machine, as the runner creates it. */
const MACHINE: Omit<Vax780Options, 'disk'> = {
  memoryMB: 4.5, boot: 'single', direct: true, set: { sosend_cluster_min: 1024 }, cpuModel: '750', nsPerInstruction: 2000,
  diskTiming: 'rp06', diskSpinSeed: 1,
};

/** Runs slices until the output since `from` holds text; returns the output and where the match ends. */
function expect(sys: Vax780System, out: { text: string; mark: number }, text: string, limitSeconds = 120): void {
  const deadline = sys.timeNs() + BigInt(limitSeconds * 1e9);
  for (;;) {
    const at = out.text.indexOf(text, out.mark);
    if (at >= 0) {
      out.mark = at + text.length;
      return;
    }
    assert.ok(sys.timeNs() <= deadline, `no ${JSON.stringify(text)}:\n${out.text}`);
    const r = sys.run(SLICE);
    out.text += sys.readConsole();
    assert.ok(r === Vax780Stop.Budget || r === Vax780Stop.Rebooted, `${api.vax780.stopName(r)}: ${sys.stopDetail()}`);
  }
}

const COMMANDS = ['mount /dev/hp0g /usr', 'cd /lab/bin', 'ls -l /etc/passwd', './syscall 2000', 'date', 'sync'];

function typeCommands(sys: Vax780System): { text: string; marks: [bigint, bigint][]; stats: Record<string, number> } {
  const out = { text: '', mark: 0 };
  const marks: [bigint, bigint][] = [];
  for (const c of COMMANDS) {
    sys.type(`${c}\r`);
    expect(sys, out, PROMPT);
    marks.push([sys.instructionCount(), sys.timeNs()]);
  }
  return { text: out.text, marks, stats: sys.hardwareStats() };
}

test('a restored system runs on exactly as the one that saved it', { skip }, () => {
  const a = api.vax780.create({ ...MACHINE, disk });
  let b: Vax780System | null = null;
  try {
    expect(a, { text: '', mark: 0 }, PROMPT);
    const host = new TextEncoder().encode('the host\'s own');
    const snap = a.snapshot(host);
    const info = readSnapshotInfo(snap);
    assert.equal(info.buildId, api.buildId);
    assert.equal(info.diskId, disk.sha256);
    assert.deepEqual(info.sections.map((s) => s.tag),
      ['CONF', 'CPU ', 'TB  ', 'CACH', 'TIME', 'MEM ', 'SYS ', 'UBA0', 'MBA ', 'DISK', 'SESS', 'HOST']);
    b = api.vax780.create({ ...MACHINE, disk, restore: snap });
    assert.deepEqual(b.restoredHost(), host);
    assert.equal(b.instructionCount(), a.instructionCount());
    assert.equal(b.timeNs(), a.timeNs());
    const ra = typeCommands(a);
    const rb = typeCommands(b);
    assert.match(ra.text, /syscall 2000/);
    assert.equal(rb.text, ra.text);
    assert.deepEqual(rb.marks, ra.marks);
    assert.deepEqual(rb.stats, ra.stats);
    assert.deepEqual(b.snapshot(), a.snapshot(), 'the same state, byte for byte, after the commands');
  } finally {
    a.destroy();
    b?.destroy();
  }
});

test('two drives (the paper\'s 750, /usr on hp1): saved after writing on hp1, restored, it runs on alike', { skip }, () => {
  const TWO: Omit<Vax780Options, 'disk'> = { ...MACHINE, secondDrive: true };
  const a = api.vax780.create({ ...TWO, disk });
  const restored: Vax780System[] = [];
  try {
    const out = { text: '', mark: 0 };
    expect(a, out, PROMPT);
    // /usr from hp1, a file written there: the snapshot must hold hp1's overlay and its drive.
    for (const c of ['mknod /dev/hp1g b 0 14', 'mount /dev/hp1g /usr', 'echo on-hp1 > /usr/x', 'sync']) {
      a.type(`${c}\r`);
      expect(a, out, PROMPT);
    }
    const snap = a.snapshot();
    assert.throws(() => api.vax780.create({ ...MACHINE, disk, restore: snap }), /hp1|disk/, 'not into a one-drive machine');
    const b = api.vax780.create({ ...TWO, disk, restore: snap });
    restored.push(b);
    const more = (sys: Vax780System) => {
      const o = { text: '', mark: 0 };
      for (const c of ['cat /usr/x', 'cd /usr/lab/bin', 'ls -l /usr/x', './syscall 1000', 'sync']) {
        sys.type(`${c}\r`);
        expect(sys, o, PROMPT);
      }
      return { text: o.text, at: [sys.instructionCount(), sys.timeNs()], stats: sys.hardwareStats() };
    };
    const ra = more(a);
    const rb = more(b);
    assert.match(ra.text, /on-hp1/);
    assert.equal(rb.text, ra.text);
    assert.deepEqual(rb.at, ra.at);
    assert.deepEqual(rb.stats, ra.stats);
    assert.deepEqual(b.snapshot(), a.snapshot());
  } finally {
    a.destroy();
    restored.forEach((r) => r.destroy());
  }
});

test('a snapshot is refused, with the reason, for another image, other settings, or damage', { skip }, () => {
  const a = api.vax780.create({ ...MACHINE, disk });
  const snap = (() => {
    try {
      expect(a, { text: '', mark: 0 }, PROMPT);
      return a.snapshot();
    } finally {
      a.destroy();
    }
  })();
  const refused = (options: Vax780Options, why: RegExp): void => {
    assert.throws(() => api.vax780.create(options).destroy(), why);
  };
  refused({ ...MACHINE, disk, memoryMB: 8, restore: snap }, /memory bytes: the snapshot's is 4718592, this system's 8388608/);
  refused({ ...MACHINE, disk, set: {}, restore: snap }, /number of kernel variables set/);
  refused({ ...MACHINE, disk, set: { sosend_cluster_min: 512 }, restore: snap }, /kernel variable _sosend_cluster_min/);
  refused({ ...MACHINE, disk, cpuModel: '780', restore: snap }, /processor model: the snapshot's is 750, this system's 780/);
  refused({ ...MACHINE, disk, diskSpinSeed: 2, restore: snap }, /disk spin seed/);
  refused({ ...MACHINE, disk, boot: 'multi', restore: snap }, /boot flags/);
  refused({ ...MACHINE, disk, direct: false, set: undefined, restore: snap }, /how the system was booted/);
  refused({ ...MACHINE, disk, restore: snap.subarray(0, snap.length - 10) }, /damaged/);
  const bad = snap.slice();
  bad[bad.length >> 1] ^= 1;
  refused({ ...MACHINE, disk, restore: bad }, /checksum/);
  refused({ ...MACHINE, disk, restore: new TextEncoder().encode('not one at all, no') }, /not a vaxlab machine snapshot/);
  const foreign = snap.slice();
  foreign[16] ^= 0xff;   // the build's identity (the header's checksum then fails first: mend it)
  refused({ ...MACHINE, disk, restore: foreign }, /header's checksum|another emulator build/);
  assert.throws(() => api.vax780.create({ ...MACHINE, disk, restore: new Uint8Array(0) }), /restore: the bytes of a machine snapshot/);
});

test('the same pack under another name is another image to a snapshot', { skip }, async () => {
  const a = api.vax780.create({ ...MACHINE, disk });
  let snap: Uint8Array;
  try {
    expect(a, { text: '', mark: 0 }, PROMPT);
    snap = a.snapshot();
  } finally {
    a.destroy();
  }
  const pack = await loadDiskImage(imagePath!);
  const other = api.vax780.loadImage(pack, { sha256: 'ab'.repeat(32) });
  try {
    assert.throws(() => api.vax780.create({ ...MACHINE, disk: other, restore: snap }), /snapshot of another disk image/);
  } finally {
    other.dispose();
  }
});

const skipNative = skip || (existsSync(VAX780) ? false : `${VAX780} not built (make -C emu native)`);
/** What the native test below saved: the pack (a copy of the lab's), the snapshot, the machine's arguments. */
let nativeSaved: { pack: string; snap: string; args: string[]; written: number } | null = null;

test('native and wasm save the same bytes at the same point, and each restores the other\'s', { skip: skipNative }, async () => {
  const pack = join(work, 'pack.dsk');
  writeFileSync(pack, await loadDiskImage(imagePath!));
  const script = join(work, 'save.txt');
  const nativeSnap = join(work, 'native.snap');
  writeFileSync(script, `timeout 300\nexpect \\n# \nsave ${nativeSnap}\n`);
  const args = ['--disk', `hp0=${pack}`, '--snapshot', '--direct', '--mem', '4.5', '--cpu', '750', '--disk-spin', '1',
    '--disk-timing', 'rp06', '--set', 'sosend_cluster_min=1024', '--quiet'];
  const r = spawnSync(VAX780, [...args, '--script', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  nativeSaved = { pack, snap: nativeSnap, args, written: Date.now() };
  const a = api.vax780.create({ ...MACHINE, disk });
  try {
    const out = { text: '', mark: 0 };
    expect(a, out, PROMPT);
    // The native machine's host part is the output no expect has matched yet: none, at the prompt.
    assert.equal(out.text.slice(out.mark), '');
    const wasmSnap = a.snapshot();
    assert.deepEqual(new Uint8Array(readFileSync(nativeSnap)), wasmSnap, 'native and wasm snapshots differ');

    // Each side restores what the other saved, and runs the same commands alike.
    const fromWasm = join(work, 'wasm.snap');
    writeFileSync(fromWasm, wasmSnap);
    const rest = join(work, 'rest.txt');
    writeFileSync(rest, `timeout 300\n${COMMANDS.map((c) => `send ${c}\nexpect \\n# \n`).join('')}`);
    const n = spawnSync(VAX780, [...args.filter((x) => x !== '--quiet'), '--restore', fromWasm, '--script', rest, '--stats'],
      { encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    const b = api.vax780.create({ ...MACHINE, disk, restore: new Uint8Array(readFileSync(nativeSnap)) });
    try {
      const ra = typeCommands(b);
      // The native transcript is what the commands printed (echo included), as wasm's.
      assert.equal(n.stdout.replace(/\r/g, ''), ra.text.replace(/\r/g, ''));
      const line = /vax780: (\d+) instructions, ([0-9.]+) virtual s/.exec(n.stderr);
      assert.ok(line, n.stderr);
      assert.equal(BigInt(line[1]!), ra.marks.at(-1)![0]);
    } finally {
      b.destroy();
    }
  } finally {
    a.destroy();
  }
});

test('native --restore: the pack\'s hash is kept beside it while the file is unchanged, and a snapshot refuses another pack',
  { skip: skipNative }, async () => {
    assert.ok(nativeSaved, 'the test before saved a native snapshot');
    const { pack, snap, args } = nativeSaved;
    const record = `${pack}.vaxlab-id`;
    const diskId = readSnapshotInfo(new Uint8Array(readFileSync(snap))).diskId;
    const empty = join(work, 'empty.txt');
    writeFileSync(empty, '# nothing: the restore itself is the test\n');
    const restore = (image: string) =>
      spawnSync(VAX780, [...args.map((a) => (a === `hp0=${pack}` ? `hp0=${image}` : a)), '--restore', snap, '--script', empty],
        { encoding: 'utf8' });
    // A pack changed within the last 2 s is hashed and its hash not kept (image_id.h); then it is.
    const quiet = nativeSaved.written + 2200 - Date.now();
    if (quiet > 0) await new Promise((r) => setTimeout(r, quiet));
    rmSync(record, { force: true });
    let r = restore(pack);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(record), 'the pack\'s hash is kept beside it');
    assert.match(readFileSync(record, 'utf8'), new RegExp(`^vaxlab image identity 1\nsha256 ${diskId}\n`));
    r = restore(pack);
    assert.equal(r.status, 0, r.stderr);

    // Another pack (one byte of its last block changed) with the first one's record copied beside it: refused.
    const bytes = readFileSync(pack);
    bytes[bytes.length - 100] ^= 0xff;
    const other = join(work, 'other.dsk');
    writeFileSync(other, bytes);
    writeFileSync(`${other}.vaxlab-id`, readFileSync(record));
    r = restore(other);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /another disk image/);
    // The pack itself changed in place, the same size: refused, though its record was kept before.
    writeFileSync(pack, bytes);
    r = restore(pack);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /another disk image/);
  });
