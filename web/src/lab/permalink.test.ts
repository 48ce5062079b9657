// The permalink codec (permalink.ts) in Node: round trips, every kind of
// malformed link, tampering, versions, size limits, and how long a Table 2
// link with counter series gets (printed; the page's links must stay short).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TABLE2_MACHINE, TABLE2_ROWS, rowId } from '../../../experiments/runner/experiments';
import {
  type ExperimentResult, RESULT_FORMAT, RESULT_VERSION, type RowResult,
} from '../../../experiments/runner/result';
import { COMPARE_NOTE } from '../../../experiments/runner/runner';
import {
  base64urlDecode, base64urlEncode, crc32, decodePermalink, encodePermalink, encodePermalinkDetailed,
  MAX_FRAGMENT_CHARS, MAX_JSON_BYTES, MAX_LINK_CHARS, MIN_COUNTER_POINTS, PERMALINK_VERSION, PermalinkError,
  roundSignificant, COUNTER_DIGITS, thinIndices, validateSharedRun, type RowCounters, type SharedRun,
} from './permalink';

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

// Named as experiments/runner/counters.ts names them (vmstat/iostat style).
const COUNTER_NAMES = ['hw.mips', 'vm.syscalls', 'vm.cs', 'vm.intr', 'vm.faults', 'vm.pgin', 'vm.pgout', 'io.hp0.xfers', 'io.hp0.kbps', 'vm.forks'];

/**
 * Counter series as experiments/runner/counters.ts records them: a sample
 * once at least `dt` virtual seconds have passed (a slice ends a little past
 * it; t to 6 decimals, since the timed command started), values are rates
 * per virtual second to 4 decimals, noisy around a typical rate.
 */
function fabricateCounters(elapsed: number, dt: number, seed: number): RowCounters {
  const rnd = prng(seed);
  const t: number[] = [];
  for (let now = 0; now < elapsed;) {
    now += dt + 0.2 * rnd() * Math.min(dt, 0.6667); // slices of 200,000 instructions: up to 0.67 s on a 750
    t.push(Number(Math.min(now, elapsed).toFixed(6)));
  }
  const values: Record<string, number[]> = {};
  COUNTER_NAMES.forEach((name, k) => {
    const rate = [0.3, 4300, 450, 60, 30, 2, 0.5, 12, 48, 40][k]!;
    values[name] = t.map(() => Number((rate * (0.9 + 0.2 * rnd())).toFixed(4)));
  });
  return { t, values };
}

/** A Table 2 result (every row) like the runner's, with counters sampled every dt virtual seconds (none if dt is 0). */
function fabricateTable2(dt: number): ExperimentResult {
  const rnd = prng(42);
  const rows = TABLE2_ROWS.map((spec, i): RowResult & { counters?: RowCounters } => {
    const elapsed = spec.paper.elapsed.bsd43.value;
    const real = Number((elapsed * (0.8 + 0.4 * rnd())).toFixed(1));
    const row: RowResult & { counters?: RowCounters } = {
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
      totals: { 'vm.syscalls': spec.iterations * 3, 'vm.cs': 123, 'io.hp0.xfers': 17 },
    };
    if (dt > 0) row.counters = fabricateCounters(real, dt, i + 1);
    return row;
  });
  return {
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    experiment: 'table2',
    title: 'Table 2, every row we can run (29 of 29)',
    machine: { cpu: TABLE2_MACHINE.cpu, nsPerInstruction: 3333, memoryMB: 5, memoryNote: TABLE2_MACHINE.memoryNote, boot: 'single', direct: true, spinSeeds: 1 },
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

/** JSON → a link by hand (for links the encoder would never make). */
async function rawLink(json: string | Uint8Array, opts: { version?: number; crc?: string } = {}): Promise<string> {
  const bytes = typeof json === 'string' ? new TextEncoder().encode(json) : json;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const data = new Uint8Array(await new Response(stream).arrayBuffer());
  const crc = opts.crc ?? crc32(bytes).toString(16).padStart(8, '0');
  return `${opts.version ?? PERMALINK_VERSION}.${crc}.${base64urlEncode(data)}`;
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
  assert.match(link, /^1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(await decodePermalink(link), run);
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

test('the same run gives the same link', async () => {
  assert.equal(await encodePermalink(syscallRun()), await encodePermalink(syscallRun()));
});

test('accepts the value with #r=, r=, or a whole URL around it, and whitespace', async () => {
  const run = syscallRun();
  const link = await encodePermalink(run);
  for (const v of [`#r=${link}`, `r=${link}`, `http://127.0.0.1:4173/#r=${link}`, `  ${link}\n`]) {
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
  const newer = await rejects(`2${body}`, /newer vaxlab/);
  assert.match(newer.message, /link format 2; this page reads link format 1/);
  await rejects(`0${body}`, /older vaxlab/);
  // Checked before anything else: a future format may look entirely different.
  await rejects('7.whatever-comes-next', /newer vaxlab/);
});

test('version mismatch: a newer or older result format inside', async () => {
  const newer = new RegExp(`newer vaxlab.*result format ${RESULT_VERSION + 1}; this page reads result format ${RESULT_VERSION}`);
  for (const [version, pattern] of [[RESULT_VERSION + 1, newer], [RESULT_VERSION - 1, /older vaxlab/]] as const) {
    const run = syscallRun() as unknown as { result: { version: number } };
    run.result.version = version;
    await rejects(await rawLink(JSON.stringify(run)), pattern);
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
  await rejects(`1.00000000.${cut}`, /wrong length/);
});

test('bad deflate: random bytes, and a cut stream', async () => {
  await rejects(`1.00000000.${base64urlEncode(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))}`, /does not decompress/);
  const link = await encodePermalink(syscallRun());
  const [v, crc, data] = link.split('.');
  await rejects(`${v}.${crc}.${data!.slice(0, Math.floor(data!.length / 2) & ~3)}`, /does not decompress/);
  await rejects(`${v}.${crc}.`, /data part .* is empty/);
});

test('bad UTF-8 and bad JSON, with a valid checksum', async () => {
  await rejects(await rawLink(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])), /not text/);
  await rejects(await rawLink('{"experiment": "syscall",'), /not valid JSON/);
  await rejects(await rawLink('not json at all'), /not valid JSON/);
});

test('checksum mismatch', async () => {
  const link = await encodePermalink(syscallRun());
  const [v, crc, data] = link.split('.');
  const other = (parseInt(crc!, 16) ^ 1).toString(16).padStart(8, '0');
  await rejects(`${v}.${other}.${data}`, /checksum does not match/);
  // Valid JSON, valid shape, wrong checksum.
  await rejects(await rawLink(JSON.stringify(syscallRun()), { crc: '00000000' }), /checksum does not match/);
});

test('tampering: flipping any one character of the link is detected', async () => {
  const run = syscallRun();
  const link = await encodePermalink(run);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const kinds = new Map<string, number>();
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
    // The last character's spare low bits may not matter: then the same run comes back.
    assert.deepEqual(decoded, run, `flipping character ${i} gave a different run without an error`);
    kinds.set('same run', (kinds.get('same run') ?? 0) + 1);
  }
  assert.ok((kinds.get('checksum') ?? 0) > 0);
  assert.ok((kinds.get('same run') ?? 0) <= 1, `${kinds.get('same run')} flips changed nothing`);
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
    ['proto key', (r) => { r.config.parameters = JSON.parse('{"__proto__": 1}'); }, /config\.parameters\.__proto__, expected a name/],
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
  ];
  for (const [name, mutate, pattern] of cases) {
    const run = JSON.parse(JSON.stringify(syscallRun()));
    mutate(run);
    const e = await rejects(await rawLink(JSON.stringify(run)), pattern);
    assert.match(e.message, /^This result link does not hold a result this vaxlab can show: /, name);
  }
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
  const e = await rejects(`1.00000000.${'A'.repeat(MAX_FRAGMENT_CHARS)}`, /too long/);
  assert.match(e.message, /65,536/);
});

test('size limit on the inflated output (a deflate bomb)', async () => {
  // 16 MB of spaces compress to about 16 KB: a valid link under the input limit.
  const bomb = new Uint8Array(16 * 1024 * 1024).fill(0x20);
  const link = await rawLink(bomb);
  assert.ok(link.length < MAX_FRAGMENT_CHARS, `bomb link is ${link.length} characters`);
  await rejects(link, /unpacks to more than 2 MB/);
  // Just under the limit is read (and then fails as JSON, not as a bomb).
  await rejects(await rawLink(new Uint8Array(MAX_JSON_BYTES - 1).fill(0x20)), /not valid JSON/);
});

test('roundSignificant', () => {
  assert.equal(roundSignificant(4412.3456, 4), 4412);
  assert.equal(roundSignificant(0.298765, 4), 0.2988);
  assert.equal(roundSignificant(1234567, 4), 1235000);
  assert.equal(roundSignificant(0, 4), 0);
});

test('thinIndices: evenly spaced, first and last kept', () => {
  assert.deepEqual(thinIndices(5, 10), [0, 1, 2, 3, 4]);
  assert.deepEqual(thinIndices(11, 3), [0, 5, 10]);
  assert.deepEqual(thinIndices(100, 4), [0, 33, 66, 99]);
  assert.equal(thinIndices(1001, 16).length, 16);
});

// --- link length of a Table 2 result with counters ---------------------------------

test('link length: Table 2 without counters, and with counters every 5 s, 1 s and 0.1 s', async (t) => {
  const lines: string[] = [];
  for (const dt of [0, 5, 1, 0.1]) {
    const result = fabricateTable2(dt);
    const run: SharedRun = { experiment: 'table2', config: { cpu: '750', memoryMB: 5, set: {}, parameters: { divisor: 1 } }, result };
    const json = JSON.stringify(run).length;
    const { value, reduction } = await encodePermalinkDetailed(run);
    assert.ok(value.length <= MAX_LINK_CHARS, `${value.length} > ${MAX_LINK_CHARS}`);
    const decoded = await decodePermalink(value);
    const points = result.rows.reduce((n, r) => n + ((r as { counters?: RowCounters }).counters?.t.length ?? 0), 0);
    lines.push(`table2, counters ${dt ? `every ${dt} s (${points} samples x ${COUNTER_NAMES.length} series)` : 'none'}: ` +
      `JSON ${json} B, link ${value.length} chars${reduction ? `, ${reduction.counters}: ${reduction.note}` : ''}`);
    assert.deepEqual(decoded.reduction, reduction);
    if (!reduction) {
      assert.deepEqual(decoded, run);
      continue;
    }
    // Reduced: each kept sample is one of the original's, in order, rounded; first and last kept.
    assert.equal(reduction.counterPoints.before, points);
    assert.match(reduction.note, /rounded|thinned|not in this link/);
    decoded.result.rows.forEach((row, i) => {
      const orig = (result.rows[i] as { counters?: RowCounters }).counters!;
      const got = (row as { counters?: RowCounters }).counters;
      if (reduction.counters === 'dropped') return assert.equal(got, undefined);
      assert.ok(got && got.t.length >= Math.min(MIN_COUNTER_POINTS, orig.t.length));
      if (reduction.counters === 'rounded') assert.equal(got.t.length, orig.t.length);
      const rt = orig.t.map((x) => Number(x.toFixed(3)));
      assert.equal(got.t[0], rt[0]);
      assert.equal(got.t.at(-1), rt.at(-1));
      let j = 0;
      for (const [k, tk] of got.t.entries()) {
        while (j < rt.length && rt[j] !== tk) j++;
        assert.ok(j < rt.length, `row ${i}: t=${tk} is not one of the original's`);
        for (const name of COUNTER_NAMES) assert.equal(got.values[name]![k], roundSignificant(orig.values[name]![j]!, COUNTER_DIGITS));
      }
      const { counters: _c, ...rest } = row as RowResult & { counters?: RowCounters };
      const { counters: _o, ...origRest } = result.rows[i] as RowResult & { counters?: RowCounters };
      assert.deepEqual(rest, origRest);
    });
    // Sharing the decoded run again keeps saying what the original had.
    const again = await encodePermalinkDetailed(decoded);
    assert.equal(again.reduction?.counterPoints.before, points);
  }
  for (const l of lines) t.diagnostic(l);
});

test('counters too dense even at the minimum are dropped; long failure output is shortened; then refusal', async () => {
  // 40 series of random numbers: even 16 points per row do not fit.
  const result = fabricateTable2(0);
  const rnd = prng(7);
  for (const row of result.rows as (RowResult & { counters?: RowCounters })[]) {
    const t = Array.from({ length: 100 }, (_, i) => i / 10);
    const values: Record<string, number[]> = {};
    for (let k = 0; k < 40; k++) values[`c${k}`] = t.map(() => rnd());
    row.counters = { t, values };
  }
  const run: SharedRun = { experiment: 'table2', config: { cpu: '750', memoryMB: 5, set: {}, parameters: { divisor: 1 } }, result };
  const dropped = await encodePermalinkDetailed(run);
  assert.equal(dropped.reduction?.counters, 'dropped');
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
  huge.result.rows = Array.from({ length: 900 }, () => ({ ...huge.result.rows[0]!, test: noise(), command: noise() }));
  await assert.rejects(encodePermalink(huge), (e: unknown) => e instanceof PermalinkError && /too large for a link.*Export it as JSON/.test(e.message));
});
