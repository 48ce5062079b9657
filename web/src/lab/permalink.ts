// Permalinks: a whole run (experiment, machine settings, result) in the URL's
// fragment, so a link shows the same result without running anything.
//
//   https://host/#r=1.<crc32>.<data>
//
//   1         PERMALINK_VERSION, the link format (not the result format)
//   <crc32>   8 lower-case hex digits: CRC-32 (IEEE) of the JSON's UTF-8 bytes
//   <data>    base64url, no padding, of deflate-raw(the JSON of a SharedRun)
//
// CRC-32 rather than SHA-256: crypto.subtle exists only in secure contexts
// (not on plain http from another host), CompressionStream everywhere.  The
// checksum detects damage (a cut or changed link), not forgery: whoever can
// edit the link can recompute it, so the decoder also checks every field.
//
// Size: a link is kept to MAX_LINK_CHARS.  When a result does not fit,
// encodePermalink reduces its counter series step by step until it does:
//   1. rounds them: values to COUNTER_DIGITS significant digits, t to the
//      millisecond (rates over irregular slices have 8 or more digits of
//      noise, which is most of a link's size; a chart shows 3);
//   2. thins them: every series of a row keeps the same evenly spaced samples,
//      first and last included, as many per row as fit (at least
//      MIN_COUNTER_POINTS, found by binary search);
//   3. drops them;
//   4. shortens failed rows' console transcripts to their last
//      FAILURE_OUTPUT_KEEP characters.
// What was done is recorded in the link itself (SharedRun.reduction, with a
// sentence for the page to show): nothing is dropped silently.  A result too
// large even then is refused with a PermalinkError.
//
// Browser and Node 20: CompressionStream('deflate-raw'), TextEncoder; no Node APIs.

import type { ExperimentResult, RowResult } from '../../../experiments/runner/runner';
import type { FailureKind } from '../../../experiments/runner/session';
import { TOGGLES } from '../../../experiments/runner/toggles';
import { DISK_TIMINGS, type DiskTiming } from '../../../emu/js/constants';

export const PERMALINK_VERSION = 1;
/** The fragment key: the page puts the link in location.hash as '#r=' + value. */
export const PERMALINK_KEY = 'r';
/** Largest fragment value encodePermalink makes (characters). */
export const MAX_LINK_CHARS = 32 * 1024;
/** Largest fragment value decodePermalink reads (characters). */
export const MAX_FRAGMENT_CHARS = 64 * 1024;
/** Largest JSON a link may inflate to (bytes): a guard against deflate bombs. */
export const MAX_JSON_BYTES = 2 * 1024 * 1024;
/** Counter series are thinned no further than this many points; then dropped. */
export const MIN_COUNTER_POINTS = 16;
/** How much of a failed row's console transcript a reduced link keeps (the end). */
export const FAILURE_OUTPUT_KEEP = 2000;

/** The result's format tag and version this codec reads (checked against the runner's types). */
const RESULT_FORMAT_TAG: ExperimentResult['format'] = 'vaxlab-experiment-result';
const RESULT_VERSION_READ: ExperimentResult['version'] = 2;

/** Significant digits counter values keep when a link rounds them. */
export const COUNTER_DIGITS = 4;

/** A row's counter time series: values[name][i] was sampled at t[i] (the runner's CounterSeries). */
export type RowCounters = NonNullable<RowResult['counters']>;

/** What encodePermalink did to fit a result into a link. */
export interface LinkReduction {
  /** 'thinned' series are also rounded. */
  counters: 'kept' | 'rounded' | 'thinned' | 'dropped';
  /** Sample points (entries of t) over all rows, in the run and in the link. */
  counterPoints: { before: number; after: number };
  failureOutputs: 'kept' | 'truncated';
  /** One or two sentences for the page to show next to the result. */
  note: string;
}

export interface SharedRun {
  experiment: string;
  /** disk: only when not rp06 (as in the result's machine). */
  config: {
    cpu: '750' | '780'; memoryMB: number; set: Record<string, number>; parameters: Record<string, number>; disk?: DiskTiming;
  };
  result: ExperimentResult;
  /** Present when the link holds less than the run had (see LinkReduction). */
  reduction?: LinkReduction;
}

/** Every failure of decodePermalink (and the rare one of encodePermalink); the message is for the user. */
export class PermalinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermalinkError';
  }
}

// ---------------------------------------------------------------------------
// Encoding

export async function encodePermalink(run: SharedRun): Promise<string> {
  return (await encodePermalinkDetailed(run)).value;
}

/** encodePermalink, also saying what was reduced to fit (undefined: nothing). */
export async function encodePermalinkDetailed(run: SharedRun): Promise<{ value: string; reduction?: LinkReduction }> {
  // The same checks as decoding: a link that could not be read back is never made.
  let clean: SharedRun;
  try {
    clean = validateSharedRun(run);
  } catch (e) {
    if (e instanceof ShapeError) throw new PermalinkError(`Cannot make a link of this run: ${e.detail}.`);
    throw e;
  }
  // (A run read from a reduced link keeps its reduction when shared again.)
  const full = await pack(clean);
  if (fits(full)) return clean.reduction ? { value: full.value, reduction: clean.reduction } : { value: full.value };

  const points = counterPoints(clean.result);
  const longest = Math.max(0, ...clean.result.rows.map((r) => countersOf(r)?.t.length ?? 0));
  let last = full;
  const attempt = async (step: Step): Promise<{ value: string; reduction: LinkReduction } | null> => {
    const reduced = reduceRun(clean, step);
    if (!reduced) return null;
    last = await pack(reduced);
    return fits(last) ? { value: last.value, reduction: reduced.reduction! } : null;
  };
  if (points > 0) {
    const rounded = await attempt({ counters: 'round', truncate: false });
    if (rounded) return rounded;
    // Thinned: the most points per row that fit (binary search; size grows with n).
    let best = longest > MIN_COUNTER_POINTS ? await attempt({ counters: MIN_COUNTER_POINTS, truncate: false }) : null;
    if (best) {
      let lo = MIN_COUNTER_POINTS;
      let hi = longest - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        const got = await attempt({ counters: mid, truncate: false });
        if (got) {
          best = got;
          lo = mid;
        } else hi = mid - 1;
      }
      return best;
    }
    const dropped = await attempt({ counters: 'drop', truncate: false });
    if (dropped) return dropped;
  }
  const truncated = await attempt({ counters: points > 0 ? 'drop' : 'keep', truncate: true });
  if (truncated) return truncated;
  throw new PermalinkError(
    `This result is too large for a link (${last.value.length.toLocaleString('en-US')} characters after ` +
      `leaving out its counters; at most ${MAX_LINK_CHARS.toLocaleString('en-US')}). Export it as JSON instead.`,
  );
}

interface Step {
  /** Keep as is, round, thin to at most this many points per row (rounded), or drop. */
  counters: 'keep' | 'round' | number | 'drop';
  truncate: boolean;
}

function fits(p: { value: string; jsonBytes: number }): boolean {
  return p.value.length <= MAX_LINK_CHARS && p.jsonBytes <= MAX_JSON_BYTES;
}

async function pack(run: SharedRun): Promise<{ value: string; jsonBytes: number }> {
  const json = new TextEncoder().encode(JSON.stringify(run));
  const data = await deflateRaw(json);
  return { value: `${PERMALINK_VERSION}.${hex32(crc32(json))}.${base64urlEncode(data)}`, jsonBytes: json.length };
}

function countersOf(row: RowResult): RowCounters | undefined {
  return row.counters;
}

function counterPoints(result: ExperimentResult): number {
  return result.rows.reduce((n, r) => n + (countersOf(r)?.t.length ?? 0), 0);
}

/** Indices of n evenly spaced points of 0..length-1, first and last included. */
export function thinIndices(length: number, n: number): number[] {
  if (length <= n) return Array.from({ length }, (_, i) => i);
  if (n <= 1) return [0];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = Math.round((i * (length - 1)) / (n - 1));
    if (out[out.length - 1] !== k) out.push(k);
  }
  return out;
}

/** x to `digits` significant digits (as a plain number). */
export function roundSignificant(x: number, digits: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(digits));
}

/** A copy of run reduced as `step` says, with its reduction recorded; null if that changes nothing. */
function reduceRun(run: SharedRun, step: Step): SharedRun | null {
  const prior = run.reduction;
  const before = counterPoints(run.result);
  let changedOutputs = false;
  let changedValues = false;
  const rows = run.result.rows.map((row) => {
    const out: RowResult = { ...row };
    const c = countersOf(row);
    const how = step.counters;
    if (!c || how === 'keep') {
      // unchanged
    } else if (how === 'drop') delete out.counters;
    else {
      const keep = thinIndices(c.t.length, how === 'round' ? c.t.length : how);
      const t = keep.map((i) => Number(c.t[i]!.toFixed(3)));
      const values: Record<string, number[]> = {};
      for (const [name, series] of Object.entries(c.values)) values[name] = keep.map((i) => roundSignificant(series[i]!, COUNTER_DIGITS));
      changedValues ||= keep.some((i, k) => t[k] !== c.t[i] || Object.keys(values).some((n) => values[n]![k] !== c.values[n]![i]));
      out.counters = { t, values };
    }
    if (step.truncate && row.failure && row.failure.output.length > FAILURE_OUTPUT_KEEP) {
      out.failure = { ...row.failure, output: `[…] ${row.failure.output.slice(-FAILURE_OUTPUT_KEEP)}` };
      changedOutputs = true;
    }
    return out;
  });
  const result = { ...run.result, rows };
  const after = counterPoints(result);
  if (after === before && !changedValues && !changedOutputs) return null;

  // Counted against the original run when this one came from a reduced link.
  const original = prior ? prior.counterPoints.before : before;
  const truncated = changedOutputs || prior?.failureOutputs === 'truncated';
  const rounded = changedValues || prior?.counters === 'rounded' || prior?.counters === 'thinned';
  const counters: LinkReduction['counters'] =
    after === 0 && original > 0 ? 'dropped' : after < original ? 'thinned' : rounded ? 'rounded' : 'kept';
  const fmt = (n: number) => n.toLocaleString('en-US');
  const notes: string[] = [];
  if (counters === 'rounded') {
    notes.push(`To fit the link, the counter values were rounded to ${COUNTER_DIGITS} significant digits (times to the millisecond).`);
  } else if (counters === 'thinned') {
    notes.push(
      `To fit the link, the counter series were thinned to ${fmt(after)} of their ${fmt(original)} samples ` +
        `(evenly spaced in each row, first and last kept) and rounded to ${COUNTER_DIGITS} significant digits.`,
    );
  } else if (counters === 'dropped') {
    notes.push(`The counter series (${fmt(original)} samples) are not in this link: they do not fit.`);
  }
  if (truncated) notes.push(`Failed rows' console output was shortened to its last ${fmt(FAILURE_OUTPUT_KEEP)} characters.`);
  notes.push('The JSON export of the original run has everything.');
  return {
    ...run,
    result,
    reduction: {
      counters,
      counterPoints: { before: original, after },
      failureOutputs: truncated ? 'truncated' : 'kept',
      note: notes.join(' '),
    },
  };
}

// ---------------------------------------------------------------------------
// Decoding

/**
 * Reads a link's fragment value ('1.…'); also accepts it with '#r=' or 'r='
 * in front, or a whole URL with '#r=…'.  Throws PermalinkError saying what
 * is wrong.
 */
export async function decodePermalink(fragment: string): Promise<SharedRun> {
  if (typeof fragment !== 'string') throw new PermalinkError('There is no result link to read.');
  let value = fragment.trim();
  const marker = value.indexOf(`#${PERMALINK_KEY}=`);
  if (marker >= 0) value = value.slice(marker + 2 + PERMALINK_KEY.length);
  else if (value.startsWith(`${PERMALINK_KEY}=`)) value = value.slice(PERMALINK_KEY.length + 1);
  if (value === '') throw new PermalinkError('The link holds no result: the part after "#r=" is empty.');
  if (value.length > MAX_FRAGMENT_CHARS) {
    throw new PermalinkError(
      `This result link is too long (${value.length.toLocaleString('en-US')} characters; vaxlab's are at most ` +
        `${MAX_FRAGMENT_CHARS.toLocaleString('en-US')}): it is damaged or was not made by vaxlab.`,
    );
  }

  const parts = value.split('.');
  const versionText = parts[0]!;
  if (!/^\d{1,9}$/.test(versionText)) {
    throw new PermalinkError('This is not a vaxlab result link: it should begin with a format number, as in "#r=1.".');
  }
  checkVersion(Number(versionText), 'link format');
  if (parts.length !== 3) {
    throw new PermalinkError(
      'This result link is damaged: it should have three parts separated by dots (format, checksum, data). ' +
        'It may have been cut when it was copied.',
    );
  }
  const [, checksum, data] = parts as [string, string, string];
  if (!/^[0-9a-f]{8}$/.test(checksum)) {
    throw new PermalinkError('This result link is damaged: its checksum (the part after "1.") should be 8 hexadecimal digits.');
  }

  if (data === '') throw new PermalinkError('This result link is damaged: its data part (after the checksum) is empty.');
  const compressed = base64urlDecode(data);
  const json = await inflateRaw(compressed, MAX_JSON_BYTES);
  if (hex32(crc32(json)) !== checksum) {
    throw new PermalinkError(
      'This result link is damaged: its checksum does not match its contents, so it was changed or cut after it was made.',
    );
  }

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(json);
  } catch {
    throw new PermalinkError('This result link is damaged: its contents are not text (invalid UTF-8).');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new PermalinkError(`This result link is damaged: its contents are not valid JSON (${(e as Error).message}).`);
  }
  return validateSharedRun(parsed);
}

function checkVersion(found: number, what: string): void {
  const current = what === 'link format' ? PERMALINK_VERSION : RESULT_VERSION_READ;
  if (found === current) return;
  const relation = found > current ? 'a newer' : 'an older';
  const advice = found > current ? 'Open it with the vaxlab that made it, or update this one.' : 'This vaxlab no longer reads it.';
  throw new PermalinkError(
    `This result link was made by ${relation} vaxlab (${what} ${found}; this page reads ${what} ${current}). ${advice}`,
  );
}

// ---------------------------------------------------------------------------
// Shape validation: every field of a SharedRun, type-checked, unknown fields
// refused, against the schema below; the result is a fresh copy holding only
// checked fields.
//
// The schema is checked against the runner's types at compile time
// (PermalinkSchemaChecks): when ExperimentResult or RowResult changes, `tsc`
// fails here until the schema says the same (add the field below, and bump
// RESULT_VERSION_READ with the runner's RESULT_VERSION).

type Schema =
  | { k: 'string'; max: number; pattern?: RegExp; help?: string }
  | { k: 'number' }
  | { k: 'int'; min: number; max: number; step?: number }
  | { k: 'enum'; values: readonly (string | number | boolean)[] }
  | { k: 'object'; fields: Record<string, Schema>; optional: Record<string, Schema> }
  | { k: 'array'; of: Schema; max: number }
  | { k: 'record'; of: Schema; max: number }
  | { k: 'nullable'; of: Schema };

interface StrS { k: 'string'; max: number; pattern?: RegExp; help?: string }
interface NumS { k: 'number' }
/** A number from min to max that is a multiple of step (1 without it: a whole number). */
interface IntS { k: 'int'; min: number; max: number; step?: number }
interface EnumS<V extends readonly (string | number | boolean)[]> { k: 'enum'; values: V }
interface ObjS<F extends Record<string, Schema>, O extends Record<string, Schema>> { k: 'object'; fields: F; optional: O }
interface ArrS<T extends Schema> { k: 'array'; of: T; max: number }
interface RecS<T extends Schema> { k: 'record'; of: T; max: number }
interface NulS<T extends Schema> { k: 'nullable'; of: T }

const MAX_STRING = 1_000_000;
const str = (max = MAX_STRING, pattern?: RegExp, help?: string): StrS => ({ k: 'string', max, pattern, help });
const num: NumS = { k: 'number' };
const int = (min = 0, max = Number.MAX_SAFE_INTEGER): IntS => ({ k: 'int', min, max });
/** Memory in MB: the memoryMB toggle's range in its steps of 0.25 (256 KB). */
const MEMORY_TOGGLE = TOGGLES.find((t) => t.name === 'memoryMB')!;
const memoryMBSchema: IntS = { k: 'int', min: MEMORY_TOGGLE.min, max: MEMORY_TOGGLE.max, step: MEMORY_TOGGLE.step };
const oneOf = <const V extends readonly (string | number | boolean)[]>(...values: V): EnumS<V> => ({ k: 'enum', values });
function obj<F extends Record<string, Schema>>(fields: F): ObjS<F, {}>;
function obj<F extends Record<string, Schema>, O extends Record<string, Schema>>(fields: F, optional: O): ObjS<F, O>;
function obj(fields: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { k: 'object', fields, optional };
}
const arr = <T extends Schema>(of: T, max = 1_000_000): ArrS<T> => ({ k: 'array', of, max });
const rec = <T extends Schema>(of: T, max = 1000): RecS<T> => ({ k: 'record', of, max });
const nul = <T extends Schema>(of: T): NulS<T> => ({ k: 'nullable', of });
/** Every member of a string union, with tsc checking the list is complete. */
const members = <T extends string>(all: Record<T, true>) => Object.keys(all) as T[];

/** The TypeScript type a schema describes. */
type Infer<S> = S extends { k: 'string' } ? string
  : S extends { k: 'number' | 'int' } ? number
  : S extends { k: 'enum'; values: readonly (infer V)[] } ? V
  : S extends { k: 'array'; of: infer T } ? Infer<T>[]
  : S extends { k: 'record'; of: infer T } ? Record<string, Infer<T>>
  : S extends { k: 'nullable'; of: infer T } ? Infer<T> | null
  : S extends { k: 'object'; fields: infer F; optional: infer O }
    ? Flat<{ [K in keyof F]: Infer<F[K]> } & { [K in keyof O]?: Infer<O[K]> }>
  : never;
type Flat<T> = { [K in keyof T]: T[K] };

const name = str(100, /^[A-Za-z0-9_.-]+$/, 'a name of letters, digits, _ . and -');
const numbers = rec(num);

const FAILURE_KINDS = members<FailureKind>({
  'time limit': true, panic: true, stopped: true, 'parse failure': true, 'program error': true, 'console overflow': true,
});
const VIEWS = members<ExperimentResult['view']>({ table2: true, paging: true, namecache: true });

const ROW = obj({
  test: str(200),
  command: str(2000),
  iterations: int(),
  status: oneOf('ok', 'failed'),
  limitSeconds: num,
  paper: nul(obj(
    { scale: num, iterations: int(), source: str(1000), column: str(1000), scaled: oneOf(true, false) },
    { elapsed: num, user: num, system: num, pageFaults: num, pfst: num },
  )),
  step: str(200),
  kernelSettings: numbers,
}, {
  failure: obj({ kind: { k: 'enum', values: FAILURE_KINDS } as EnumS<FailureKind[]>, message: str(10_000), output: str() }),
  guest: obj({ real: num, user: num, sys: num, line: str(1000) }),
  emulator: obj({
    instructions: str(30, /^\d+$/, 'a whole number in a string'),
    virtualSeconds: num,
    machineInstructions: str(30, /^\d+$/, 'a whole number in a string'),
    machineVirtualSeconds: num,
  }),
  counters: obj({ t: arr(num), values: rec(arr(num), 256) }),
  readback: rec(nul(num)),
  totals: numbers,
  derived: obj({}, { pageFaults: num, pfstMs: num, paperPfstMs: num }),
});

const RESULT = obj({
  format: oneOf(RESULT_FORMAT_TAG),
  version: oneOf(RESULT_VERSION_READ),
  experiment: str(100),
  title: str(1000),
  machine: obj({
    cpu: str(20), nsPerInstruction: num, memoryMB: memoryMBSchema, memoryNote: str(1000), boot: str(100), direct: oneOf(true),
  }, { disk: oneOf(...DISK_TIMINGS) }),
  image: nul(obj({ name: str(1000) }, { sha256: str(200) })),
  parameters: numbers,
  kernelSettings: numbers,
  compare: str(5000),
  status: oneOf('ok', 'failed'),
  rows: arr(ROW, 1000),
  group: str(200),
  paperRef: str(1000),
  view: { k: 'enum', values: VIEWS } as EnumS<ExperimentResult['view'][]>,
});

const REDUCTION = obj({
  counters: oneOf('kept', 'rounded', 'thinned', 'dropped'),
  counterPoints: obj({ before: int(), after: int() }),
  failureOutputs: oneOf('kept', 'truncated'),
  note: str(2000),
});

const RUN = obj({
  experiment: str(100),
  config: obj({ cpu: oneOf('750', '780'), memoryMB: memoryMBSchema, set: numbers, parameters: numbers }, { disk: oneOf(...DISK_TIMINGS) }),
  result: RESULT,
}, { reduction: REDUCTION });

/** Each assignable to the other (a field's type or optionality differs: false). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every field path of T ('.machine.cpu', '.rows[].paper.scale', ...): a field one side lacks: false. */
type Paths<T, P extends string = ''> = T extends readonly (infer E)[] ? Paths<E, `${P}[]`>
  : T extends object ? { [K in keyof T & string]-?: `${P}.${K}` | Paths<NonNullable<T[K]>, `${P}.${K}`> }[keyof T & string]
  : never;
type Expect<T extends true> = T;
type Row = ExperimentResult['rows'][number];
/**
 * Compile-time checks that the schema is the runner's types, field for field
 * (exported only so that they count as used).  An error here ("Type 'false'
 * does not satisfy the constraint 'true'"): the result's types changed; make
 * the schema above say the same.
 */
export type PermalinkSchemaChecks = [
  Expect<Same<Infer<typeof ROW>, Row>>,
  Expect<Same<Paths<Infer<typeof ROW>>, Paths<Row>>>,
  Expect<Same<Omit<Infer<typeof RESULT>, 'rows'>, Omit<ExperimentResult, 'rows'>>>,
  Expect<Same<Paths<Omit<Infer<typeof RESULT>, 'rows'>>, Paths<Omit<ExperimentResult, 'rows'>>>>,
  Expect<Same<Infer<typeof REDUCTION>, LinkReduction>>,
  Expect<Same<Paths<Infer<typeof REDUCTION>>, Paths<LinkReduction>>>,
  Expect<Same<Omit<Infer<typeof RUN>, 'result' | 'reduction'>, Omit<SharedRun, 'result' | 'reduction'>>>,
  Expect<Same<Paths<Omit<Infer<typeof RUN>, 'result' | 'reduction'>>, Paths<Omit<SharedRun, 'result' | 'reduction'>>>>,
  Expect<Same<keyof Infer<typeof RUN>, keyof SharedRun>>,
];

/** A field of the wrong type or an unknown field; `detail` says where, without the link's wording. */
export class ShapeError extends PermalinkError {
  readonly detail: string;
  constructor(path: string, expected: string, found: unknown) {
    const detail = `at ${path}, expected ${expected}, found ${describe(found)}`;
    super(`This result link does not hold a result this vaxlab can show: ${detail}.`);
    this.detail = detail;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.length > 40 ? 'a long string' : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const ROOT = 'the top level';
const at = (path: string, k: string) => (path === ROOT ? k : /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks v against schema s; returns a clean copy or throws ShapeError naming the path. */
function check(s: Schema, v: unknown, path: string): unknown {
  switch (s.k) {
    case 'string':
      if (typeof v !== 'string' || v.length > s.max || (s.pattern && !s.pattern.test(v))) {
        const what = s.help ?? (s.max < MAX_STRING ? `a string of at most ${s.max} characters` : 'a string');
        throw new ShapeError(path, what, v);
      }
      return v;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShapeError(path, 'a number', v);
      return v;
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v / (s.step ?? 1)) || v < s.min || v > s.max) {
        const what = s.step !== undefined ? `a multiple of ${s.step}` : 'a whole number';
        throw new ShapeError(path, s.max === Number.MAX_SAFE_INTEGER ? `${what}, ${s.min} or more` : `${what} from ${s.min} to ${s.max}`, v);
      }
      return v;
    case 'enum':
      if (!s.values.includes(v as string)) throw new ShapeError(path, s.values.map((x) => JSON.stringify(x)).join(' or '), v);
      return v;
    case 'nullable':
      return v === null ? null : check(s.of, v, path);
    case 'array': {
      if (!Array.isArray(v)) throw new ShapeError(path, 'a list', v);
      if (v.length > s.max) throw new ShapeError(path, `a list of at most ${s.max}`, `${v.length} items`);
      return v.map((x, i) => check(s.of, x, `${path}[${i}]`));
    }
    case 'record': {
      if (!isPlainObject(v)) throw new ShapeError(path, 'an object', v);
      const entries = Object.entries(v);
      if (entries.length > s.max) throw new ShapeError(path, `at most ${s.max} entries`, `${entries.length}`);
      const out: Record<string, unknown> = {};
      for (const [k, x] of entries) {
        if (FORBIDDEN_KEYS.has(k) || !name.pattern!.test(k) || k.length > name.max) throw new ShapeError(at(path, k), name.help!, k);
        out[k] = check(s.of, x, at(path, k));
      }
      return out;
    }
    case 'object': {
      if (!isPlainObject(v)) throw new ShapeError(path, 'an object', v);
      for (const k of Object.keys(v)) {
        if (!Object.hasOwn(s.fields, k) && !Object.hasOwn(s.optional, k)) throw new ShapeError(at(path, k), 'no such field', v[k]);
      }
      const out: Record<string, unknown> = {};
      for (const [k, fs] of Object.entries(s.fields)) {
        if (!Object.hasOwn(v, k)) throw new ShapeError(at(path, k), 'a value', undefined);
        out[k] = check(fs, v[k], at(path, k));
      }
      for (const [k, fs] of Object.entries(s.optional)) {
        if (Object.hasOwn(v, k) && v[k] !== undefined) out[k] = check(fs, v[k], at(path, k));
      }
      return out;
    }
  }
}

/** Checks that v is a SharedRun this vaxlab can show; returns a clean copy or throws PermalinkError. */
export function validateSharedRun(v: unknown): SharedRun {
  // A result of another version says so, before its fields are checked.
  if (isPlainObject(v) && isPlainObject(v.result) && v.result.format === RESULT_FORMAT_TAG) {
    const version = v.result.version;
    if (typeof version === 'number' && Number.isInteger(version)) checkVersion(version, 'result format');
  }
  const run = check(RUN, v, ROOT) as SharedRun;
  // Every counter series of a row has a value per sample time.
  run.result.rows.forEach((row, i) => {
    const c = countersOf(row);
    if (!c) return;
    for (const [k, series] of Object.entries(c.values)) {
      if (series.length !== c.t.length) {
        throw new ShapeError(at(`result.rows[${i}].counters.values`, k), `${c.t.length} samples (as many as t)`, `${series.length} samples`);
      }
    }
  });
  return run;
}

// ---------------------------------------------------------------------------
// Bytes: CRC-32, base64url, deflate-raw

let crcTable: Uint32Array | null = null;

export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function hex32(x: number): string {
  return x.toString(16).padStart(8, '0');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INDEX[B64.charCodeAt(i)] = i;

export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64[n >>> 18]! + B64[(n >>> 12) & 63]! + B64[(n >>> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64[n >>> 18]! + B64[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64[n >>> 18]! + B64[(n >>> 12) & 63]! + B64[(n >>> 6) & 63]!;
  }
  return out;
}

/** Strict base64url without padding; throws PermalinkError on anything else. */
export function base64urlDecode(text: string): Uint8Array {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || B64_INDEX[c]! < 0) {
      throw new PermalinkError(
        `This result link is damaged: it contains ${JSON.stringify(text[i])} (at character ${i + 1} of its data), ` +
          'which a vaxlab link never has. It may have been changed when it was copied.',
      );
    }
  }
  if (text.length % 4 === 1) {
    throw new PermalinkError('This result link is damaged: its data has the wrong length, so it was probably cut when it was copied.');
  }
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    acc = (acc << 6) | B64_INDEX[text.charCodeAt(i)]!;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Inflates deflate-raw data, refusing more than `limit` bytes of output. */
async function inflateRaw(bytes: Uint8Array, limit: number): Promise<Uint8Array> {
  const ds = new DecompressionStream('deflate-raw');
  const writer = ds.writable.getWriter();
  // Not awaited: the reader below drains the output as the input goes in.
  writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = ds.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      throw new PermalinkError(
        'This result link is damaged: its data does not decompress (it was changed or cut after it was made).',
      );
    }
    if (step.done) break;
    total += step.value.length;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new PermalinkError(
        `This result link unpacks to more than ${(limit / 1024 / 1024).toFixed(0)} MB, far more than any vaxlab result: refusing it.`,
      );
    }
    chunks.push(step.value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
