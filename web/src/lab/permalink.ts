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
// Rows' profiles (a profiled run) are first cut to LINK_PROFILE_TOP
// functions and the calling contexts with LINK_PROFILE_MIN_SHARE of a row's
// time, before the counters are touched; once the counters are dropped, cut
// further (LINK_PROFILE_SMALL_*), then dropped too, before the transcripts
// are shortened.
// What was done is recorded in the link itself (SharedRun.reduction, with a
// sentence for the page to show): nothing is dropped silently.  A result too
// large even then is refused with a PermalinkError.
//
// Browser and Node 20: CompressionStream('deflate-raw'), TextEncoder; no Node APIs.

import { DISK_TIMINGS, type DiskTiming } from '../../../emu/js/constants';
import {
  checkSeries, MEMORY_MB_SCHEMA, RESULT_FORMAT, RESULT_SCHEMA, RESULT_VERSION, type ExperimentResult, type RowResult,
} from '../../../experiments/runner/result';
import {
  check, int, isPlainObject, num, obj, oneOf, rec, SchemaError, str, type Expect, type Infer, type Paths, type Same,
} from '../../../experiments/runner/schema';
import type { ProfileSummary } from '../../../experiments/profile/summaryFormat';

/** summary.ts's shrinkSummary, loaded only when a link has profiles to cut. */
type Shrink = (s: ProfileSummary, options: { top: number; minShare: number }) => ProfileSummary;

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

/** Significant digits counter values keep when a link rounds them. */
export const COUNTER_DIGITS = 4;

/** A profile in a link that does not fit whole: its top functions, and its
 *  calling contexts with at least this share of the row's time. */
export const LINK_PROFILE_TOP = 15;
export const LINK_PROFILE_MIN_SHARE = 0.01;
/** ...and when even that does not fit (many rows). */
export const LINK_PROFILE_SMALL_TOP = 8;
export const LINK_PROFILE_SMALL_MIN_SHARE = 0.05;

/** A row's counter time series: values[name][i] was sampled at t[i] (the runner's CounterSeries). */
export type RowCounters = NonNullable<RowResult['counters']>;

/** What encodePermalink did to fit a result into a link. */
export interface LinkReduction {
  /** 'thinned' series are also rounded. */
  counters: 'kept' | 'rounded' | 'thinned' | 'dropped';
  /** Sample points (entries of t) over all rows, in the run and in the link. */
  counterPoints: { before: number; after: number };
  failureOutputs: 'kept' | 'truncated';
  /** Rows' profiles: cut to their top functions and biggest contexts, or left out (absent: kept). */
  profiles?: 'reduced' | 'dropped';
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
  const hasProfiles = clean.result.rows.some((r) => r.profile !== undefined);
  const shrink: Shrink | null = hasProfiles ? (await import('../../../experiments/profile/summary')).shrinkSummary : null;
  const profiles: Step['profiles'] = hasProfiles ? 'reduce' : 'keep';
  let last = full;
  const attempt = async (step: Step): Promise<{ value: string; reduction: LinkReduction } | null> => {
    const reduced = reduceRun(clean, step, shrink);
    if (!reduced) return null;
    last = await pack(reduced);
    return fits(last) ? { value: last.value, reduction: reduced.reduction! } : null;
  };
  if (hasProfiles) {
    const cut = await attempt({ counters: 'keep', truncate: false, profiles });
    if (cut) return cut;
  }
  if (points > 0) {
    const rounded = await attempt({ counters: 'round', truncate: false, profiles });
    if (rounded) return rounded;
    // Thinned: the most points per row that fit (binary search; size grows with n).
    let best = longest > MIN_COUNTER_POINTS ? await attempt({ counters: MIN_COUNTER_POINTS, truncate: false, profiles }) : null;
    if (best) {
      let lo = MIN_COUNTER_POINTS;
      let hi = longest - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        const got = await attempt({ counters: mid, truncate: false, profiles });
        if (got) {
          best = got;
          lo = mid;
        } else hi = mid - 1;
      }
      return best;
    }
    const dropped = await attempt({ counters: 'drop', truncate: false, profiles });
    if (dropped) return dropped;
  }
  if (hasProfiles) {
    const small = await attempt({ counters: points > 0 ? 'drop' : 'keep', truncate: false, profiles: 'shrink' });
    if (small) return small;
    const none = await attempt({ counters: points > 0 ? 'drop' : 'keep', truncate: false, profiles: 'drop' });
    if (none) return none;
  }
  const truncated = await attempt({ counters: points > 0 ? 'drop' : 'keep', truncate: true, profiles: hasProfiles ? 'drop' : 'keep' });
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
  /** Rows' profiles: as they are, cut (LINK_PROFILE_TOP, LINK_PROFILE_MIN_SHARE), cut more
   *  (LINK_PROFILE_SMALL_*) or left out. */
  profiles: 'keep' | 'reduce' | 'shrink' | 'drop';
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
function reduceRun(run: SharedRun, step: Step, shrinkSummary: Shrink | null): SharedRun | null {
  const prior = run.reduction;
  const before = counterPoints(run.result);
  let changedOutputs = false;
  let changedValues = false;
  let changedProfiles = false;
  const rows = run.result.rows.map((row) => {
    const out: RowResult = { ...row };
    if (row.profile && step.profiles === 'drop') {
      delete out.profile;
      changedProfiles = true;
    } else if (row.profile && (step.profiles === 'reduce' || step.profiles === 'shrink')) {
      const cut = step.profiles === 'reduce' ? { top: LINK_PROFILE_TOP, minShare: LINK_PROFILE_MIN_SHARE }
        : { top: LINK_PROFILE_SMALL_TOP, minShare: LINK_PROFILE_SMALL_MIN_SHARE };
      if (shrinkSummary && (row.profile.top.length > cut.top || row.profile.minShare < cut.minShare)) {
        out.profile = shrinkSummary(row.profile, cut);
        changedProfiles = true;
      }
    }
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
  if (after === before && !changedValues && !changedOutputs && !changedProfiles) return null;

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
  const profiles: LinkReduction['profiles'] = step.profiles === 'drop' && changedProfiles ? 'dropped'
    : (step.profiles !== 'keep' && changedProfiles) || prior?.profiles === 'reduced' ? 'reduced' : prior?.profiles;
  if (profiles === 'reduced') {
    const kept = rows.find((r) => r.profile)?.profile;
    notes.push(`The rows' profiles were cut to their top ${kept?.top.length ?? LINK_PROFILE_TOP} functions and the calling ` +
      `contexts with at least ${(100 * (kept?.minShare ?? LINK_PROFILE_MIN_SHARE)).toFixed(0)}% of each row's time ` +
      '(the rest counted in the callers).');
  } else if (profiles === 'dropped') notes.push('The rows\' profiles are not in this link: they do not fit.');
  notes.push('The JSON export of the original run has everything.');
  return {
    ...run,
    result,
    reduction: {
      counters,
      counterPoints: { before: original, after },
      failureOutputs: truncated ? 'truncated' : 'kept',
      ...(profiles ? { profiles } : {}),
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
  const current = what === 'link format' ? PERMALINK_VERSION : RESULT_VERSION;
  if (found === current) return;
  const relation = found > current ? 'a newer' : 'an older';
  const advice = found > current ? 'Open it with the vaxlab that made it, or update this one.' : 'This vaxlab no longer reads it.';
  throw new PermalinkError(
    `This result link was made by ${relation} vaxlab (${what} ${found}; this page reads ${what} ${current}). ${advice}`,
  );
}

// ---------------------------------------------------------------------------
// Shape validation: every field of a SharedRun, type-checked, unknown fields
// refused; the result is a fresh copy holding only checked fields.  The
// result's own schema sits beside its types (experiments/runner/result.ts);
// here only what a link adds around it: the run's configuration and the
// record of what was reduced.

const numbers = rec(num);

const REDUCTION = obj({
  counters: oneOf('kept', 'rounded', 'thinned', 'dropped'),
  counterPoints: obj({ before: int(), after: int() }),
  failureOutputs: oneOf('kept', 'truncated'),
  note: str(2000),
}, { profiles: oneOf('reduced', 'dropped') });

const RUN = obj({
  experiment: str(100),
  config: obj({ cpu: oneOf('750', '780'), memoryMB: MEMORY_MB_SCHEMA, set: numbers, parameters: numbers }, { disk: oneOf(...DISK_TIMINGS) }),
  result: RESULT_SCHEMA,
}, { reduction: REDUCTION });

/**
 * Compile-time checks that the schema is SharedRun, field for field (the
 * result's own: ResultSchemaChecks; exported only so that they count as used).
 */
export type PermalinkSchemaChecks = [
  Expect<Same<Infer<typeof REDUCTION>, LinkReduction>>,
  Expect<Same<Paths<Infer<typeof REDUCTION>>, Paths<LinkReduction>>>,
  Expect<Same<Omit<Infer<typeof RUN>, 'result' | 'reduction'>, Omit<SharedRun, 'result' | 'reduction'>>>,
  Expect<Same<Paths<Omit<Infer<typeof RUN>, 'result' | 'reduction'>>, Paths<Omit<SharedRun, 'result' | 'reduction'>>>>,
  Expect<Same<keyof Infer<typeof RUN>, keyof SharedRun>>,
];

/** A field of the wrong type or an unknown field; `detail` says where, without the link's wording. */
export class ShapeError extends PermalinkError {
  readonly detail: string;
  constructor(detail: string) {
    super(`This result link does not hold a result this vaxlab can show: ${detail}.`);
    this.detail = detail;
  }
}

/** Checks that v is a SharedRun this vaxlab can show; returns a clean copy or throws PermalinkError. */
export function validateSharedRun(v: unknown): SharedRun {
  // A result of another version says so, before its fields are checked.
  if (isPlainObject(v) && isPlainObject(v.result) && v.result.format === RESULT_FORMAT) {
    const version = v.result.version;
    if (typeof version === 'number' && Number.isInteger(version)) checkVersion(version, 'result format');
  }
  try {
    const run: SharedRun = check(RUN, v);
    checkSeries(run.result, 'result');
    return run;
  } catch (e) {
    if (e instanceof SchemaError) throw new ShapeError(e.detail);
    throw e;
  }
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
