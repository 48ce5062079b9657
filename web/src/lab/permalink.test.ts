// The permalink codec (permalink.ts, with linkCodec.ts's binary form) in
// Node: round trips, comparison links, format-1 links still read, every kind
// of malformed link, tampering, versions, size limits, and how long a Table 2
// link with counter series gets (printed; it must fit in 8 KB).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TABLE2_MACHINE, TABLE2_ROWS, rowId } from '../../../experiments/runner/experiments';
import {
  type ExperimentResult, RESULT_FORMAT, RESULT_VERSION, type RowResult,
} from '../../../experiments/runner/result';
import { COMPARE_NOTE } from '../../../experiments/runner/runner';
import { decimalOf, decodeValue, encodeValue, LINK_WORDS, niceStep } from './linkCodec';
import {
  base64urlDecode, base64urlEncode, COUNTER_LEVELS, crc32, DECODE_LIMITS, decodeLink, decodePermalink, encodeComparisonLink,
  encodeLinkDetailed, encodePermalink, encodePermalinkDetailed, JSON_LINK_VERSION, MAX_FRAGMENT_CHARS, MAX_JSON_BYTES,
  MAX_LINK_CHARS, MAX_PAYLOAD_BYTES, MAX_SWEEP_LINK_CHARS, MIN_COUNTER_POINTS, PAYLOAD_KINDS, PERMALINK_VERSION, PermalinkError,
  SHOWN_TOTALS, thinIndices, TIME_STEPS, validateSharedRun, encodeSweepLink, type RowCounters, type SharedRun,
} from './permalink';
import { SWEEP_FORMAT, SWEEP_VERSION, type SweepResult } from '../../../experiments/runner/sweep';

/** CRC-32 of LINK_WORDS' first WORDS_COUNT words, one a line: the words links refer to by position. */
const WORDS_COUNT = 183;
const WORDS_CRC = '2f0b76ae';

// --- fabricated results ------------------------------------------------------

/** A small deterministic PRNG (mulberry32), so the fabricated series are the same every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The runner's chart counters for Table 2 (experiments.ts TABLE2_COUNTERS), with their typical rates.
const COUNTER_NAMES = ['faults.sy', 'faults.cs', 'cpu.sy', 'hw.mips'];
const RATES = [4100, 12, 82, 0.31];

/**
 * Counter series as experiments/runner/counters.ts records them: a sample
 * at the end of the slice that passes each `dt` virtual seconds (t to 6
 * decimals, since the timed command started); values are rates to 3 or 4
 * decimals, noisy around a typical rate.
 */
function fabricateCounters(elapsed: number, dt: number, seed: number): RowCounters {
  const rnd = prng(seed);
  const t: number[] = [];
  for (let now = 0; now < elapsed;) {
    now += dt + 0.02 * rnd() * dt;
    t.push(Number(Math.min(now, elapsed).toFixed(6)));
  }
  const values: Record<string, number[]> = {};
  COUNTER_NAMES.forEach((name, k) => {
    values[name] = t.map(() => Number((RATES[k]! * (0.97 + 0.06 * rnd())).toFixed(k === 3 ? 4 : 3)));
  });
  return { t, values };
}

/** The 49 totals a runner's row has (CounterSampler.totals), at plausible values. */
function fabricateTotals(rnd: () => number, seconds: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of LINK_WORDS.slice(82, 130)) out[k] = k.includes('Rate') || k.startsWith('cpu.') ? Number((100 * rnd()).toFixed(2)) : Math.round(rnd() * 1e4 * seconds);
  out.seconds = seconds;
  return out;
}

/** A Table 2 result (every row) like the runner's, with counters sampled every dt virtual seconds (none if dt is 0). */
function fabricateTable2(dt: number): ExperimentResult {
  const rnd = prng(42);
  const rows = TABLE2_ROWS.map((spec, i): RowResult => {
    const elapsed = spec.paper.elapsed.bsd43.value;
    const real = Number((elapsed * (0.8 + 0.4 * rnd())).toFixed(1));
    const row: RowResult = {
      test: spec.test,
      command: ['/bin/time', `./${spec.program}`, String(spec.iterations), ...spec.rest].join(' '),
      iterations: spec.iterations,
      status: 'ok',
      guest: { real, user: Number((real * 0.1).toFixed(1)), sys: Number((real * 0.85).toFixed(1)), line: `${real} real 0.3 user 2.0 sys` },
      emulator: {
        instructions: String(Math.round(real * 300_000)), virtualSeconds: real + 0.013,
        machineInstructions: String(Math.round(real * 300_000) + 4_567_890), machineVirtualSeconds: real + 14.2,
      },
      limitSeconds: Math.max(120, Math.ceil(5 * elapsed)),
      paper: {
        elapsed, user: spec.paper.user.bsd43.value, system: spec.paper.system.bsd43.value, scale: 1, iterations: spec.iterations,
        source: 'Table 2', column: '4.3BSD', scaled: true,
      },
      step: rowId(spec.test),
      kernelSettings: {},
      totals: fabricateTotals(rnd, real),
    };
    if (dt > 0) row.counters = fabricateCounters(real, dt, i + 1);
    return row;
  });
  return {
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    experiment: 'table2',
    title: 'Table 2, every row we can run (29 of 29)',
    machine: { cpu: TABLE2_MACHINE.cpu, nsPerInstruction: 3333, memoryMB: 4.5, memoryNote: TABLE2_MACHINE.memoryNote, boot: 'single', direct: true, spinSeeds: 1 },
    image: { name: '43bsd.dsk.gz', sha256: 'a'.repeat(64) },
    parameters: { divisor: 1 },
    kernelSettings: {},
    compare: COMPARE_NOTE,
    status: 'ok',
    rows,
    group: 'Micro-operations (3.2.1, Table 2)',
    paperRef: '§3.2.1 Micro-operation benchmarks, Tables 1 and 2',
    view: 'table2',
  };
}

function syscallRun(): SharedRun {
  const spec = TABLE2_ROWS[0]!;
  const result: ExperimentResult = {
    ...fabricateTable2(0),
    experiment: rowId(spec.test),
    title: 'Table 2, syscall: getpid (naïve “quotes” — and ünïcödé)',
    parameters: { iterations: 2000 },
    kernelSettings: { nbuf: 100 },
  };
  result.rows = [{
    ...result.rows[0]!,
    iterations: 2000,
    paper: { ...result.rows[0]!.paper!, scale: 0.02, elapsed: 0.46 },
    kernelSettings: { nbuf: 100 },
    readback: { nbuf: 100, nchsize: null },
    derived: { pfstMs: 1.5 },
  }];
  return {
    experiment: 'syscall',
    config: { cpu: '750', memoryMB: 5, set: { iterations: 2000, nbuf: 100 }, parameters: { iterations: 2000 } },
    result,
  };
}

function failedRun(): SharedRun {
  const run = syscallRun();
  run.result.status = 'failed';
  const row = run.result.rows[0]!;
  delete row.guest;
  row.status = 'failed';
  row.failure = { kind: 'time limit', message: 'no "\\n# " within 120 virtual seconds', output: 'boot...\n'.repeat(10) };
  row.paper = null; // a step the paper has no figures for
  return run;
}

/** Bytes → a link by hand (for links the encoder would never make). */
async function linkOf(bytes: Uint8Array, opts: { version?: number; crc?: string } = {}): Promise<string> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const data = new Uint8Array(await new Response(stream).arrayBuffer());
  const crc = opts.crc ?? crc32(bytes).toString(16).padStart(8, '0');
  return `${opts.version ?? PERMALINK_VERSION}.${crc}.${base64urlEncode(data)}`;
}

/** A format-1 link (the first vaxlab's: the JSON of a run, deflated), by hand. */
async function rawLink(json: string | Uint8Array, opts: { crc?: string } = {}): Promise<string> {
  return linkOf(typeof json === 'string' ? new TextEncoder().encode(json) : json, { ...opts, version: JSON_LINK_VERSION });
}

/** A format-2 link of any value (not checked first, as encodeLink would), by hand. */
async function binaryLink(value: unknown, kind: number = PAYLOAD_KINDS.run, opts: { crc?: string } = {}): Promise<string> {
  return linkOf(payloadBytes(kind, encodeValue(value)), opts);
}

function payloadBytes(kind: number, body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = kind;
  bytes.set(body, 1);
  return bytes;
}

async function rejects(value: string, pattern: RegExp): Promise<PermalinkError> {
  let caught: unknown;
  try {
    await decodePermalink(value);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof PermalinkError, `expected a PermalinkError, got ${String(caught)}`);
  assert.match(caught.message, pattern);
  return caught;
}

// --- round trips ---------------------------------------------------------------

test('a run round-trips exactly (unicode, kernel settings, image)', async () => {
  const run = syscallRun();
  const link = await encodePermalink(run);
  assert.match(link, /^2\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(await decodePermalink(link), run);
  // With when it ran.
  const dated = { ...run, ranAt: '2026-11-21T12:34:56.789Z' };
  assert.deepEqual(await decodePermalink(await encodePermalink(dated)), dated);
});

test('a comparison link holds both runs; a run link decodes as one run', async () => {
  const a = syscallRun();
  const b = syscallRun();
  b.config.cpu = '780';
  b.result.machine.cpu = '780';
  b.result.rows[0]!.guest!.real = 0.31;
  const link = await encodeComparisonLink(a, b);
  assert.deepEqual(await decodeLink(link), { kind: 'comparison', a, b });
  // The run shown is B.
  assert.deepEqual(await decodePermalink(link), b);
  assert.deepEqual(await decodeLink(await encodePermalink(a)), { kind: 'run', run: a });
  // Two runs share the link's dictionary: much less than two links.
  assert.ok(link.length < 1.5 * (await encodePermalink(a)).length, `${link.length}`);
  // A comparison payload that is not exactly {a, b}.
  await rejects(await binaryLink({ a }, PAYLOAD_KINDS.comparison), /two runs, a and b/);
  await rejects(await binaryLink({ a, b: { ...b, config: 1 } }, PAYLOAD_KINDS.comparison), /at b\.config, expected an object/);
});

test('format-1 links (deflated JSON) still open, with the reduction they recorded', async () => {
  const run = syscallRun();
  assert.deepEqual(await decodePermalink(await rawLink(JSON.stringify(run))), run);
  const reduced = { ...run, reduction: { counters: 'rounded', counterPoints: { before: 10, after: 10 }, failureOutputs: 'kept', note: 'rounded' } };
  assert.deepEqual(await decodePermalink(`#r=${await rawLink(JSON.stringify(reduced))}`), reduced);
});

test('a failed run round-trips (failure, no guest times, null image)', async () => {
  const run = failedRun();
  run.result.image = null;
  assert.deepEqual(await decodePermalink(await encodePermalink(run)), run);
});

test('a run with another disk timing round-trips (machine.disk, config.disk)', async () => {
  const run = syscallRun();
  run.result.machine.disk = 'eagle';
  run.config.disk = 'eagle';
  assert.deepEqual(await decodePermalink(await encodePermalink(run)), run);
});

test('a run with the disks locked round-trips (machine.spin, config.spin); another rotation is refused', async () => {
  const run = syscallRun();
  run.result.machine.spin = 'locked';
  run.config.spin = 'locked';
  assert.deepEqual(await decodePermalink(await encodePermalink(run)), run);
  (run.config as { spin?: string }).spin = 'wobbling';
  await assert.rejects(async () => decodePermalink(await encodePermalink(run)), /spin/);
});

test('a run of several seeds round-trips (config.spinSeeds, machine.spinSeeds, each row\'s spread); one seed or more than the runner takes is refused', async () => {
  const run = syscallRun();
  run.result.machine.spinSeeds = 3;
  run.config.spinSeeds = 3;
  run.result.rows[0]!.spread = {
    seeds: 3, real: { min: 0.61, max: 0.66 }, user: { min: 0.01, max: 0.03 }, sys: { min: 0.5, max: 0.55 },
  };
  assert.deepEqual(await decodePermalink(await encodePermalink(run)), run);
  // A link made before the page ran several seeds has none in its settings: it reads as it did.
  const old = syscallRun();
  assert.ok(!('spinSeeds' in old.config));
  assert.deepEqual(await decodePermalink(await encodePermalink(old)), old);
  // In the settings only when more than one (absent: one), and never more than the runner takes.
  for (const bad of [1, 0, 100, 2.5]) {
    const r = JSON.parse(JSON.stringify(run));
    r.config.spinSeeds = bad;
    await rejects(await binaryLink(r), /config\.spinSeeds, expected a whole number from 2 to 99/);
  }
});

test('the same run gives the same link', async () => {
  assert.equal(await encodePermalink(syscallRun()), await encodePermalink(syscallRun()));
});

test('accepts the value with #r=, r=, or a whole URL around it, and whitespace', async () => {
  const run = syscallRun();
  const link = await encodePermalink(run);
  for (const v of [`#r=${link}`, `r=${link}`, `http://127.0.0.1:4173/#r=${link}`, `  ${link}\n`, `#x=syscall&iterations=5&r=${link}`]) {
    assert.deepEqual(await decodePermalink(v), run);
  }
});

test('base64url: every length and byte value round-trips', () => {
  for (let n = 0; n < 70; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n * 11) & 0xff);
    assert.deepEqual(base64urlDecode(base64urlEncode(bytes)), bytes);
  }
  assert.equal(base64urlEncode(new Uint8Array([0xfb, 0xff])), '-_8');
});

test('crc32 is the IEEE CRC-32', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
});

// --- malformed links -------------------------------------------------------------

test('empty and non-vaxlab input', async () => {
  await rejects('', /empty/);
  await rejects('#r=', /empty/);
  await rejects('hello', /not a vaxlab result link/);
  await rejects('x.00000000.AAAA', /not a vaxlab result link/);
});

test('version mismatch: newer and older link formats', async () => {
  const link = await encodePermalink(syscallRun());
  const body = link.slice(link.indexOf('.'));
  const newer = await rejects(`3${body}`, /newer vaxlab/);
  assert.match(newer.message, /link format 3; this page reads link format 1 and 2/);
  await rejects(`0${body}`, /older vaxlab/);
  // A payload of a kind this page does not know (a newer vaxlab's: a sweep, say), or words past its dictionary.
  await rejects(await binaryLink(syscallRun(), 4), /kind 4.*newer vaxlab/);
  const bytes = payloadBytes(PAYLOAD_KINDS.run, Uint8Array.from([7, 0xac, 0x02])); // a reference to word 300
  await rejects(await linkOf(bytes), /newer vaxlab: it uses a word this vaxlab does not know/);
  // Checked before anything else: a future format may look entirely different.
  await rejects('7.whatever-comes-next', /newer vaxlab/);
});

test('version mismatch: a newer or older result format inside', async () => {
  const newer = new RegExp(`newer vaxlab.*result format ${RESULT_VERSION + 1}; this page reads result format ${RESULT_VERSION}`);
  for (const [version, pattern] of [[RESULT_VERSION + 1, newer], [RESULT_VERSION - 1, /older vaxlab/]] as const) {
    const run = syscallRun() as unknown as { result: { version: number } };
    run.result.version = version;
    await rejects(await rawLink(JSON.stringify(run)), pattern);
    await rejects(await binaryLink(run), pattern);
  }
});

test('wrong number of parts, bad checksum field', async () => {
  const link = await encodePermalink(syscallRun());
  const [v, crc, data] = link.split('.');
  await rejects(`${v}.${data}`, /three parts/);
  await rejects(`${link}.extra`, /three parts/);
  await rejects(`${v}.${crc!.toUpperCase().replace(/[a-f]/g, 'G')}.${data}`, /checksum .* 8 hexadecimal digits/);
  await rejects(`${v}.1234.${data}`, /8 hexadecimal digits/);
});

test('bad base64: characters outside base64url, impossible length', async () => {
  const link = await encodePermalink(syscallRun());
  await rejects(`${link.slice(0, 20)}+${link.slice(21)}`, /contains "\+"/);
  await rejects(`${link}=`, /contains "="/);
  await rejects(`${link.slice(0, 30)}%20${link.slice(30)}`, /contains "%"/);
  await rejects(`${link.slice(0, 30)}é${link.slice(30)}`, /contains "é"/);
  const data = link.split('.')[2]!;
  const cut = data.length % 4 === 1 ? data : `${data}${'A'.repeat((5 - (data.length % 4)) % 4)}`;
  await rejects(`2.00000000.${cut}`, /wrong length/);
});

test('bad deflate: random bytes, and a cut stream', async () => {
  await rejects(`2.00000000.${base64urlEncode(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))}`, /does not decompress/);
  const link = await encodePermalink(syscallRun());
  const [v, crc, data] = link.split('.');
  await rejects(`${v}.${crc}.${data!.slice(0, Math.floor(data!.length / 2) & ~3)}`, /does not decompress/);
  await rejects(`${v}.${crc}.`, /data part .* is empty/);
});

test('bad UTF-8 and bad JSON in a format-1 link, with a valid checksum', async () => {
  await rejects(await rawLink(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])), /not text/);
  await rejects(await rawLink('{"experiment": "syscall",'), /not valid JSON/);
  await rejects(await rawLink('not json at all'), /not valid JSON/);
});

test('a binary payload that is not one this codec wrote, with a valid checksum: each its own message', async () => {
  const body = encodeValue(syscallRun());
  const run = (b: number[] | Uint8Array) => linkOf(payloadBytes(PAYLOAD_KINDS.run, Uint8Array.from(b)));
  await rejects(await linkOf(new Uint8Array(0)), /holds nothing/);
  await rejects(await run(body.slice(0, body.length - 1)), /cannot be read: its data ends too early/);
  await rejects(await run([...body, 0]), /cannot be read: 1 bytes follow its end/);
  await rejects(await run([13]), /a value of a kind this vaxlab does not know \(13\)/);
  await rejects(await run([6, 2, 0xc3, 0x28]), /its text is not valid UTF-8/);
  await rejects(await run([8, 200, 1]), /a length in it is longer than the data/);
  await rejects(await run([3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), /a number in it is too long/);
  await rejects(await run([5, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f]), /a number JSON cannot/);
  // An object with __proto__, or a key twice.
  const proto = new TextEncoder().encode('__proto__');
  await rejects(await run([9, 1, 6, proto.length, ...proto, 0x21]), /a field named "__proto__"/);
  await rejects(await run([9, 2, 0x80, 0x21, 0x80, 0x22]), /the field "experiment" twice/);
  // A reference to a string the payload never gave (past its own, within the dictionary's numbering).
  await rejects(await run([8, 2, 6, 1, 0x41, 7, 0xb9, 0x01]), /refers to text #185, which it never gave/);
  // Nesting too deep.
  await rejects(await run([...Array(40).fill([8, 1]).flat(), 0]), /nest more than 32 deep/);
});

test('checksum mismatch', async () => {
  const link = await encodePermalink(syscallRun());
  const [v, crc, data] = link.split('.');
  const other = ((parseInt(crc!, 16) ^ 1) >>> 0).toString(16).padStart(8, '0');
  await rejects(`${v}.${other}.${data}`, /checksum does not match/);
  // Valid contents, valid shape, wrong checksum.
  await rejects(await rawLink(JSON.stringify(syscallRun()), { crc: '00000000' }), /checksum does not match/);
  await rejects(await binaryLink(syscallRun(), PAYLOAD_KINDS.run, { crc: '00000000' }), /checksum does not match/);
});

test('tampering: flipping any one character of the link is detected', async () => {
  const run = syscallRun();
  const link = await encodePermalink(run);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const kinds = new Map<string, number>();
  const unchanged: number[] = [];
  // Every position past the version: the checksum's digits and the data's characters.
  for (let i = 2; i < link.length; i++) {
    if (link[i] === '.') continue;
    const pool = i < 10 ? '0123456789abcdef' : alphabet;
    const c = pool[(pool.indexOf(link[i]!) + 1 + (i % (pool.length - 1))) % pool.length]!;
    const tampered = link.slice(0, i) + c + link.slice(i + 1);
    let decoded: SharedRun | null = null;
    try {
      decoded = await decodePermalink(tampered);
    } catch (e) {
      assert.ok(e instanceof PermalinkError, String(e));
      const kind = /checksum does not match/.test(e.message) ? 'checksum' : /decompress/.test(e.message) ? 'deflate' : e.message;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      continue;
    }
    // The last characters' spare bits (base64's, and deflate's after its final block) may not matter: then the
    // same run comes back.
    assert.deepEqual(decoded, run, `flipping character ${i} gave a different run without an error`);
    unchanged.push(i);
  }
  assert.ok((kinds.get('checksum') ?? 0) > 0);
  assert.ok(unchanged.every((i) => i >= link.length - 2), `flips that changed nothing: at ${unchanged.join(', ')} of ${link.length}`);
});

test('wrong shape: each field checked, unknown fields refused', async () => {
  type Mutate = (r: Record<string, any>) => void;
  const cases: [string, Mutate, RegExp][] = [
    ['not an object', (r) => { r.config = [1]; }, /at config, expected an object, found a list/],
    ['cpu', (r) => { r.config.cpu = '730'; }, /config\.cpu, expected "750" or "780", found the string "730"/],
    ['memory', (r) => { r.config.memoryMB = 65; }, /config\.memoryMB, expected a multiple of 0\.25 from 0\.75 to 64/],
    ['memory step', (r) => { r.config.memoryMB = 4.3; }, /config\.memoryMB, expected a multiple of 0\.25 from 0\.75 to 64, found the number 4\.3/],
    ['memory type', (r) => { r.config.memoryMB = '5'; }, /config\.memoryMB/],
    ['set values', (r) => { r.config.set.nbuf = 'many'; }, /config\.set\.nbuf, expected a number/],
    ['set names', (r) => { r.config.set['a b'] = 1; }, /config\.set\["a b"\]/],
    ['constructor key', (r) => { r.config.parameters = { constructor: 1 }; }, /config\.parameters\.constructor, expected a name|a field named "constructor"/],
    ['missing experiment', (r) => { delete r.experiment; }, /at experiment, expected a value/],
    ['unknown top field', (r) => { r.extra = 1; }, /at extra, expected no such field/],
    ['format', (r) => { r.result.format = 'something'; }, /result\.format/],
    ['status', (r) => { r.result.status = 'great'; }, /result\.status, expected "ok" or "failed"/],
    ['machine.direct', (r) => { r.result.machine.direct = false; }, /result\.machine\.direct, expected true/],
    ['machine.disk', (r) => { r.result.machine.disk = 'ssd'; }, /result\.machine\.disk, expected "rp06" or "eagle" or "ideal"/],
    ['config.disk', (r) => { r.config.disk = 1; }, /config\.disk, expected "rp06" or "eagle" or "ideal" or "rm05", found the number 1/],
    ['image', (r) => { r.result.image = 'disk'; }, /result\.image, expected an object/],
    ['rows', (r) => { r.result.rows = {}; }, /result\.rows, expected a list/],
    ['row field', (r) => { r.result.rows[0].guest.real = null; }, /result\.rows\[0\]\.guest\.real, expected a number, found null/],
    ['row unknown', (r) => { r.result.rows[0].colour = 'red'; }, /result\.rows\[0\]\.colour, expected no such field/],
    ['instructions', (r) => { r.result.rows[0].emulator.instructions = '12e5'; }, /emulator\.instructions, expected a whole number in a string/],
    ['failure kind', (r) => { r.result.rows[0].failure = { kind: 'boom', message: '', output: '' }; }, /failure\.kind/],
    ['paper', (r) => { delete r.result.rows[0].paper.scale; }, /paper\.scale, expected a value/],
    ['counters length', (r) => { r.result.rows[0].counters = { t: [0, 1], values: { syscalls: [1] } }; }, /counters\.values\.syscalls, expected 2 samples/],
    ['counters type', (r) => { r.result.rows[0].counters = { t: [0, '1'], values: {} }; }, /counters\.t\[1\], expected a number/],
    ['view', (r) => { r.result.view = 'pie'; }, /result\.view, expected "table2" or /],
    ['group', (r) => { delete r.result.group; }, /result\.group, expected a value, found nothing/],
    ['paper field', (r) => { r.result.rows[0].paper.scaled = 'yes'; }, /paper\.scaled, expected true or false/],
    ['readback', (r) => { r.result.rows[0].readback.nbuf = '100'; }, /readback\.nbuf, expected a number/],
    ['totals names', (r) => { r.result.rows[0].totals = { 'bad name': 1 }; }, /totals\["bad name"\], expected a name/],
    ['reduction', (r) => { r.reduction = { counters: 'thinned', counterPoints: { before: 1, after: 2 }, failureOutputs: 'kept', note: 5 }; }, /reduction\.note, expected a string/],
    ['reduction totals', (r) => { r.reduction = { counters: 'kept', counterPoints: { before: 1, after: 1 }, totals: 'some', failureOutputs: 'kept', note: '' }; }, /reduction\.totals, expected "kept" or "trimmed"/],
  ];
  for (const [name, mutate, pattern] of cases) {
    const run = JSON.parse(JSON.stringify(syscallRun()));
    mutate(run);
    // Both formats are checked by the same schema.
    for (const link of [await binaryLink(run), await rawLink(JSON.stringify(run))]) {
      const e = await rejects(link, pattern);
      assert.match(e.message, /^This result link (does not hold a result this vaxlab can show|cannot be read): /, name);
    }
  }
  await rejects(await binaryLink({ ...syscallRun(), ranAt: 'yesterday' }), /at ranAt, expected a date and time/);
});

test('nonsensical numbers are refused with the number named: negative times and ns per instruction, NaN, absurd sizes', async () => {
  type Mutate = (r: Record<string, any>) => void;
  const cases: [string, Mutate, RegExp][] = [
    ['negative real', (r) => { r.result.rows[0].guest.real = -5; }, /at result\.rows\[0\]\.guest\.real, expected a time in seconds \(from 0 to 1000000\), found the number -5/],
    ['negative sys', (r) => { r.result.rows[0].guest.sys = -0.1; }, /guest\.sys, expected a time in seconds/],
    ['negative ns per instruction', (r) => { r.result.machine.nsPerInstruction = -3333; }, /machine\.nsPerInstruction, expected nanoseconds per instruction \(above 0, up to 1000000\), found the number -3333/],
    ['zero ns per instruction', (r) => { r.result.machine.nsPerInstruction = 0; }, /machine\.nsPerInstruction/],
    ['absurd time', (r) => { r.result.rows[0].guest.real = 1e300; }, /guest\.real, expected a time in seconds \(from 0 to 1000000\), found the number 1e\+300/],
    ['negative paper figure', (r) => { r.result.rows[0].paper.elapsed = -28; }, /paper\.elapsed, expected a time/],
    ['zero scale', (r) => { r.result.rows[0].paper.scale = 0; }, /paper\.scale, expected a scale/],
    ['negative sample time', (r) => { r.result.rows[0].counters = { t: [0, -1], values: {} }; }, /counters\.t\[1\], expected a time/],
    ['absurd counter', (r) => { r.result.rows[0].counters = { t: [0, 1], values: { 'faults.sy': [1e20, 0] } }; }, /counters\.values\["faults\.sy"\]\[0\], expected a count/],
    ['negative parameter', (r) => { r.result.parameters.iterations = -2000; }, /result\.parameters\.iterations, expected a parameter \(above 0/],
    ['negative limit', (r) => { r.result.rows[0].limitSeconds = -1; }, /limitSeconds, expected a time/],
  ];
  for (const [name, mutate, pattern] of cases) {
    const run = JSON.parse(JSON.stringify(syscallRun()));
    mutate(run);
    for (const link of [await binaryLink(run), await rawLink(JSON.stringify(run))]) {
      const e = await rejects(link, pattern);
      assert.match(e.message, /^This result link does not hold a result this vaxlab can show: /, name);
    }
  }
  // NaN and infinities: the encoder never writes them, but a crafted payload can spell one as a float64
  // (here put where 1/3 was written): refused before anything is drawn.
  const third = JSON.parse(JSON.stringify(syscallRun()));
  third.result.rows[0].guest.real = 1 / 3;
  const body = encodeValue(third);
  const f = new Uint8Array(new Float64Array([1 / 3]).buffer);
  const at = body.findIndex((_, i) => f.every((b, j) => body[i + j] === b));
  assert.ok(at >= 0, '1/3 is written as a float64');
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
    const crafted = body.slice();
    crafted.set(new Uint8Array(new Float64Array([bad]).buffer), at);
    await rejects(await linkOf(payloadBytes(PAYLOAD_KINDS.run, crafted)), /cannot be read: it holds a number JSON cannot \(infinite or NaN\)/);
  }
  // The real run's numbers are all in range.
  assert.ok(await decodePermalink(await encodePermalink(syscallRun())));
});

test('the encoder refuses what the decoder would (with its own wording)', async () => {
  const run = syscallRun() as unknown as { config: { cpu: string } };
  run.config.cpu = 'PDP-11';
  await assert.rejects(encodePermalink(run as unknown as SharedRun), (e: unknown) =>
    e instanceof PermalinkError && /^Cannot make a link of this run: at config\.cpu/.test(e.message));
});

test('the decoded run is a clean copy: no prototype tricks', async () => {
  const decoded = validateSharedRun(JSON.parse(JSON.stringify(syscallRun())));
  assert.equal(Object.getPrototypeOf(decoded.config.set), Object.prototype);
});

// --- size limits ------------------------------------------------------------------

test('size limit on the input', async () => {
  const e = await rejects(`2.00000000.${'A'.repeat(MAX_FRAGMENT_CHARS)}`, /too long/);
  assert.match(e.message, /65,536/);
});

test('size limit on the inflated output (a deflate bomb), and on what a payload spells out', async () => {
  // 16 MB of spaces compress to about 16 KB: a valid link under the input limit.
  const bomb = new Uint8Array(16 * 1024 * 1024).fill(0x20);
  const link = await rawLink(bomb);
  assert.ok(link.length < MAX_FRAGMENT_CHARS, `bomb link is ${link.length} characters`);
  await rejects(link, /unpacks to more than 2 MB/);
  await rejects(await linkOf(bomb), /unpacks to more than 1 MB/);
  // Just under the limit is read (and then fails as JSON, not as a bomb).
  await rejects(await rawLink(new Uint8Array(MAX_JSON_BYTES - 1).fill(0x20)), /not valid JSON/);
  const under = new Uint8Array(MAX_PAYLOAD_BYTES - 1).fill(0x20);
  under[0] = PAYLOAD_KINDS.run;
  await rejects(await linkOf(under), /cannot be read: \d+ bytes follow its end/);
  // A long string referred to over and over: small to send, huge to spell out.
  const long = 'x'.repeat(10_000);
  const refs = Array.from({ length: 600 }, () => long);
  await rejects(await binaryLink(refs), /more than 4,000,000 characters of text/);
  assert.equal(DECODE_LIMITS.maxStringChars, 4_000_000);
});

test('the link\'s dictionary is append-only: its words keep their places', () => {
  // Links refer to LINK_WORDS by position: these must never change (add new words at the end).
  const first = LINK_WORDS.slice(0, WORDS_COUNT).join('\n');
  assert.equal(crc32(new TextEncoder().encode(first)).toString(16), WORDS_CRC);
  assert.equal(new Set(LINK_WORDS).size, LINK_WORDS.length, 'no word twice');
});

test('numbers: small, negative, decimal and float ones round-trip exactly; series exactly or to a step', () => {
  const values = [0, 1, 95, 96, -1, -96, 2 ** 53 - 1, -(2 ** 53 - 1), 0.1, 0.3551, 25.232885, -4.5, 1e-9, 98.91304347826087, 1e300,
    Number.MIN_VALUE, 123456.789012, '0', '7800000', '007', '12e5', '', 'ünïcödé', true, false, null];
  const back = decodeValue(encodeValue(values), DECODE_LIMITS);
  assert.deepEqual(back, values);
  assert.deepEqual(decimalOf(0.3551), { k: 3551, places: 4 });
  assert.equal(decimalOf(Math.PI), null);
  assert.equal(niceStep(4123 / 63), 66);
  assert.equal(niceStep(0.31 / 63), 0.005);
  assert.equal(niceStep(25.2 / 1000), 0.026);
  const series = { t: [0.422461, 0.83015, 1.236677], v: [527.859, 4123.249, -3.5] };
  const exact = encodeValue(series, { series: () => ({ kind: 'exact' }) });
  assert.deepEqual(decodeValue(exact, DECODE_LIMITS), series);
  const quantised = decodeValue(encodeValue(series, { series: () => ({ kind: 'quantised', step: 0.5 }) }), DECODE_LIMITS);
  assert.deepEqual(quantised, { t: [0.5, 1, 1], v: [528, 4123, -3.5] });
  // A step too fine for a decimal: stored exactly instead.
  assert.deepEqual(decodeValue(encodeValue([1e-20, 2e-20], { series: () => ({ kind: 'quantised', step: 1e-22 }) }), DECODE_LIMITS), [1e-20, 2e-20]);
});

test('thinIndices: evenly spaced, first and last kept', () => {
  assert.deepEqual(thinIndices(5, 10), [0, 1, 2, 3, 4]);
  assert.deepEqual(thinIndices(11, 3), [0, 5, 10]);
  assert.deepEqual(thinIndices(100, 4), [0, 33, 66, 99]);
  assert.equal(thinIndices(1001, 16).length, 16);
});

// --- link length of a Table 2 result with counters ---------------------------------

test('link length: Table 2 without counters, and with counters every 5 s, 1 s, 0.4 s (the runner\'s) and 0.1 s', async (t) => {
  const lines: string[] = [];
  for (const dt of [0, 5, 1, 0.4, 0.1]) {
    const result = fabricateTable2(dt);
    const run: SharedRun = { experiment: 'table2', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { divisor: 1 } }, result };
    const json = JSON.stringify(run).length;
    const { value, reduction } = await encodePermalinkDetailed(run);
    assert.ok(value.length <= MAX_LINK_CHARS, `${value.length} > ${MAX_LINK_CHARS}`);
    const decoded = await decodePermalink(value);
    const points = result.rows.reduce((n, r) => n + (r.counters?.t.length ?? 0), 0);
    lines.push(`table2, counters ${dt ? `every ${dt} s (${points} samples x ${COUNTER_NAMES.length} series)` : 'none'}: ` +
      `JSON ${json} B, link ${value.length} chars${reduction ? `, ${reduction.counters}${reduction.totals === 'trimmed' ? ', totals trimmed' : ''}: ${reduction.note}` : ''}`);
    assert.deepEqual(decoded.reduction, reduction);
    if (!reduction) {
      assert.deepEqual(decoded, run);
      continue;
    }
    assert.equal(reduction.counterPoints.before, points);
    // The runner's sampling (every 0.4 s or so) keeps its counters, thinned at most.
    if (dt >= 0.4) assert.notEqual(reduction.counters, 'dropped');
    decoded.result.rows.forEach((row, i) => {
      const orig = result.rows[i]!;
      // Every figure the tables show is exact.
      assert.deepEqual(row.guest, orig.guest);
      assert.deepEqual(row.paper, orig.paper);
      assert.deepEqual(row.emulator, orig.emulator);
      for (const [k, v] of Object.entries(orig.totals!)) if (SHOWN_TOTALS.test(k) || reduction.totals !== 'trimmed') assert.equal(row.totals![k], v, k);
      if (reduction.totals === 'trimmed') assert.ok(Object.keys(row.totals!).every((k) => SHOWN_TOTALS.test(k)));
      const got = row.counters;
      if (reduction.counters === 'dropped' || !orig.counters) return assert.equal(got, undefined);
      const o = orig.counters;
      assert.ok(got && got.t.length >= Math.min(MIN_COUNTER_POINTS, o.t.length), `row ${i}: ${got?.t.length} samples`);
      if (reduction.counters !== 'thinned') assert.equal(got.t.length, o.t.length);
      // Each kept sample is one of the original's, in order (first and last kept): its time within a step of
      // 1/TIME_STEPS of the row's duration, its values within 1/COUNTER_LEVELS of the series' largest (plus 10%).
      const keep = thinIndices(o.t.length, got.t.length);
      const tStep = (Math.max(...o.t) / TIME_STEPS) * 1.1;
      const steps = Object.fromEntries(COUNTER_NAMES.map((name) => [name, (Math.max(...o.values[name]!) / COUNTER_LEVELS) * 1.1]));
      keep.forEach((j, k) => {
        assert.ok(Math.abs(got.t[k]! - o.t[j]!) <= tStep / 2 + 1e-9, `row ${i}: t ${got.t[k]} for ${o.t[j]}`);
        for (const name of COUNTER_NAMES) {
          assert.ok(Math.abs(got.values[name]![k]! - o.values[name]![j]!) <= steps[name]! / 2 + 1e-9, `row ${i} ${name}`);
        }
      });
    });
    // Sharing the decoded run again keeps saying what the original had.
    const again = await encodePermalinkDetailed(decoded);
    assert.equal(again.reduction?.counterPoints.before, points);
  }
  for (const l of lines) t.diagnostic(l);
});

test('a comparison link of two full Table 2 runs fits in twice a run\'s link', async () => {
  const a: SharedRun = { experiment: 'table2', config: { cpu: '750', memoryMB: 4.5, set: {}, parameters: { divisor: 1 } }, result: fabricateTable2(0.4) };
  const b: SharedRun = { ...a, config: { ...a.config, cpu: '780' }, result: { ...fabricateTable2(0.4), machine: { ...a.result.machine, cpu: '780' } } };
  const { value, runs } = await encodeLinkDetailed({ kind: 'comparison', a, b });
  assert.ok(value.length <= 2 * MAX_LINK_CHARS, `${value.length}`);
  const back = await decodeLink(value);
  assert.equal(back.kind, 'comparison');
  if (back.kind === 'comparison') {
    assert.deepEqual([back.a, back.b], runs);
    assert.deepEqual(back.b.result.rows.map((r) => r.guest), b.result.rows.map((r) => r.guest));
  }
});

test('counters too dense even at the minimum are dropped; long failure output is shortened; then refusal', async () => {
  // 40 series of random numbers: even 16 points per row do not fit.
  const result = fabricateTable2(0);
  const rnd = prng(7);
  for (const row of result.rows) {
    const t = Array.from({ length: 100 }, (_, i) => i / 10);
    const values: Record<string, number[]> = {};
    for (let k = 0; k < 40; k++) values[`c${k}`] = t.map(() => rnd());
    row.counters = { t, values };
  }
  const run: SharedRun = { experiment: 'table2', config: { cpu: '750', memoryMB: 5, set: {}, parameters: { divisor: 1 } }, result };
  const dropped = await encodePermalinkDetailed(run);
  assert.equal(dropped.reduction?.counters, 'dropped');
  assert.equal(dropped.reduction?.totals, 'trimmed');
  assert.match(dropped.reduction!.note, /not in this link/);
  assert.ok((await decodePermalink(dropped.value)).result.rows.every((r) => !('counters' in r)));

  // A failed row whose console transcript is huge and random: shortened to its end.
  const failed = failedRun();
  failed.result.rows[0]!.failure!.output = Array.from({ length: 60_000 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789 \n'[Math.floor(rnd() * 38)]).join('') + '\npanic: the end';
  const short = await encodePermalinkDetailed(failed);
  assert.equal(short.reduction?.failureOutputs, 'truncated');
  const back = await decodePermalink(short.value);
  assert.ok(back.result.rows[0]!.failure!.output.endsWith('panic: the end'));
  assert.ok(back.result.rows[0]!.failure!.output.length < 2100);

  // Too large whatever is done: a clear refusal.
  const huge = syscallRun();
  const noise = () => Array.from({ length: 6 }, () => rnd().toString(36).slice(2)).join(' ');
  huge.result.rows = Array.from({ length: 300 }, () => ({ ...huge.result.rows[0]!, test: noise(), command: noise() }));
  await assert.rejects(encodePermalink(huge), (e: unknown) => e instanceof PermalinkError && /too large for a link.*Export it as JSON/.test(e.message));
});

// --- sweeps ------------------------------------------------------------------

/** A sweep of syscall over hz (its points' rows with counter series and a failed point's long transcript). */
function sweepOf(points: number[]): SweepResult {
  const at = (hz: number, i: number): ExperimentResult => {
    const r = (i === 1 ? failedRun() : syscallRun()).result;
    const row = r.rows[0]!;
    if (row.guest) row.guest = { ...row.guest, sys: 0.1 * (i + 1) };
    row.counters = fabricateCounters(60, 0.4, hz);
    if (row.failure) row.failure = { ...row.failure, output: 'x'.repeat(10_000) };
    return r;
  };
  return {
    format: SWEEP_FORMAT, version: SWEEP_VERSION, experiment: 'syscall', title: 'Table 2, syscall', view: 'table2',
    axes: [{ setting: 'hz', values: points, labels: points.map(String), paperAt: 100 }],
    base: { parameters: { iterations: 2000 }, set: {} },
    status: 'failed',
    points: points.map((hz, i) => ({ values: { hz }, result: at(hz, i) })),
  };
}

test('a sweep link holds every point\'s figures, says what it leaves out, and opens as a sweep', async () => {
  const sweep = sweepOf([50, 100, 250]);
  const { value, omitted } = await encodeSweepLink(sweep);
  assert.deepEqual(omitted, ['the counters’ time series', 'all but the end of failed rows’ console output']);
  const payload = await decodeLink(value);
  assert.equal(payload.kind, 'sweep');
  if (payload.kind !== 'sweep') return;
  assert.deepEqual(payload.omitted, omitted);
  assert.deepEqual(payload.sweep.axes, sweep.axes);
  payload.sweep.points.forEach((p, i) => {
    const before = sweep.points[i]!.result!.rows[0]!;
    const after = p.result!.rows[0]!;
    assert.equal(after.counters, undefined);
    assert.deepEqual(after.guest, before.guest);
    assert.deepEqual(after.totals, before.totals);
    if (before.failure) assert.equal(after.failure!.output.length, 2000);
  });
  // Not a run: the run reader says where to open it.
  await assert.rejects(decodePermalink(value), /holds a sweep, not a run/);
});

test('a sweep link: a damaged sweep inside is refused; a sweep too large for a link is refused, saying so', async () => {
  const bad = { sweep: { ...sweepOf([50]), status: 'done' }, omitted: [] };
  await assert.rejects(decodeLink(await binaryLink(bad, PAYLOAD_KINDS.sweep)), /does not hold a sweep's result.*status/);
  await assert.rejects(decodeLink(await binaryLink({ sweep: sweepOf([50]) }, PAYLOAD_KINDS.sweep)), /a sweep and what it left out/);
  await assert.rejects(encodeSweepLink({ ...sweepOf([50]), axes: [] as never, status: 'nope' as never }), /Cannot make a link of this sweep/);
  // 200 points with every total of a Table 2 row, and unique figures: more than a link takes.
  const big = sweepOf(Array.from({ length: 200 }, (_, i) => 10 + i));
  big.points.forEach((p, i) => {
    for (const row of p.result!.rows) row.totals = Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`disk.hp${k}.xfers`, i * 1000 + k * 7.13]));
  });
  await assert.rejects(encodeSweepLink(big), new RegExp(`too large for a link .* at most ${MAX_SWEEP_LINK_CHARS.toLocaleString('en-US')}`));
});
