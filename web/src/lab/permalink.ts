// Permalinks: a whole run (experiment, machine settings, result), or two
// runs compared, in the URL's fragment, so a link shows the same result
// without running anything.
//
//   https://host/#r=2.<crc32>.<data>
//
//   2         PERMALINK_VERSION, the link format (not the result format)
//   <crc32>   8 lower-case hex digits: CRC-32 (IEEE) of the payload's bytes
//   <data>    base64url, no padding, of deflate-raw(the payload)
//
// The payload is a kind byte (PAYLOAD_KINDS: 1 a run, 2 two runs compared,
// 3 a sweep; a kind this page does not know is from a newer vaxlab) and then the value
// in linkCodec.ts's binary form of JSON (varints, a dictionary of names,
// counter series as deltas).  What it decodes to is checked field by field
// by the result's schema (experiments/runner/result.ts, RESULT_SCHEMA) and
// the few fields a link adds around it (below), exactly as the first links
// were; those (format 1: the JSON of a run, deflated) are still read.
//
// CRC-32 rather than SHA-256: crypto.subtle exists only in secure contexts
// (not on plain http from another host), CompressionStream everywhere.  The
// checksum detects damage (a cut or changed link), not forgery: whoever can
// edit the link can recompute it, so the decoder also checks every field.
//
// Size: a run's link is kept to MAX_LINK_CHARS (a full Table 2 with its
// counters fits), two runs' to twice that.  When the run is larger,
// encodeLinkDetailed reduces it step by step until it fits:
//   1. quantises its counter series: each value to 1/COUNTER_LEVELS of its
//      series' largest, each sample time to 1/TIME_STEPS of the row's
//      duration (a chart shows no more);
//   2. leaves out the counter totals the tables do not show (SHOWN_TOTALS
//      are kept);
//   3. thins the series: every series of a row keeps the same evenly spaced
//      samples, first and last included, as many per row as fit (at least
//      MIN_COUNTER_POINTS, found by binary search);
//   4. drops them;
//   5. shortens failed rows' console transcripts to their last
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
  checkRanges, checkSeries, MEMORY_MB_SCHEMA, RESULT_FORMAT, RESULT_SCHEMA, RESULT_VERSION, type ExperimentResult, type RowResult,
} from '../../../experiments/runner/result';
import {
  check, int, isPlainObject, num, obj, oneOf, rec, SchemaError, str, type Expect, type Infer, type Paths, type Same,
} from '../../../experiments/runner/schema';
import type { ProfileSummary } from '../../../experiments/profile/summaryFormat';
import { MAX_SPIN_SEEDS } from '../../../experiments/runner/runner';
import { validateSweep, type SweepResult } from '../../../experiments/runner/sweep';
import { CodecError, decodeValue, encodeValue, niceStep, type SeriesPolicy } from './linkCodec';

/** summary.ts's shrinkSummary, loaded only when a link has profiles to cut. */
type Shrink = (s: ProfileSummary, options: { top: number; minShare: number }) => ProfileSummary;

/** The link format made now: binary (linkCodec.ts). */
export const PERMALINK_VERSION = 2;
/** The first link format, the deflated JSON of a run: still read. */
export const JSON_LINK_VERSION = 1;
/** The fragment key: the page puts the link in location.hash as '#r=' + value. */
export const PERMALINK_KEY = 'r';
/** Largest fragment value encodeLink makes for one run (characters); two runs compared get twice this. */
export const MAX_LINK_CHARS = 8 * 1024;
/** Largest fragment value decodeLink reads (characters). */
export const MAX_FRAGMENT_CHARS = 64 * 1024;
/** Largest JSON a format-1 link may inflate to (bytes): a guard against deflate bombs. */
export const MAX_JSON_BYTES = 2 * 1024 * 1024;
/** Largest payload a format-2 link may inflate to (bytes). */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** What a payload may decode to (linkCodec.ts DecodeLimits): far more than any result, far less than a bomb. */
export const DECODE_LIMITS = { maxItems: 2_000_000, maxStringChars: 4_000_000 };
/** A quantised counter value is a multiple of about 1/COUNTER_LEVELS of its series' largest value. */
export const COUNTER_LEVELS = 63;
/** A quantised sample time is a multiple of about 1/TIME_STEPS of its row's duration. */
export const TIME_STEPS = 1000;
/** Counter series are thinned no further than this many points; then dropped. */
export const MIN_COUNTER_POINTS = 16;
/** How much of a failed row's console transcript a reduced link keeps (the end). */
export const FAILURE_OUTPUT_KEEP = 2000;
/** The counter totals a link keeps when it leaves the others out: the ones the tables show (resultView.ts FIGURES). */
export const SHOWN_TOTALS = /^(cs|faults|pgin|namei\.(hits|misses|hitRate|pass2)|disk\.[^.]+\.xfers)$/;

/** A profile in a link that does not fit whole: its top functions, and its
 *  calling contexts with at least this share of the row's time. */
export const LINK_PROFILE_TOP = 15;
export const LINK_PROFILE_MIN_SHARE = 0.01;
/** ...and when even that does not fit (many rows). */
export const LINK_PROFILE_SMALL_TOP = 8;
export const LINK_PROFILE_SMALL_MIN_SHARE = 0.05;

/** The payload's first byte: what the link holds. */
export const PAYLOAD_KINDS = { run: 1, comparison: 2, sweep: 3 } as const;
/** Largest fragment value encodeSweepLink makes (characters): a sweep is many runs' figures. */
export const MAX_SWEEP_LINK_CHARS = 4 * MAX_LINK_CHARS;

/** A row's counter time series: values[name][i] was sampled at t[i] (the runner's CounterSeries). */
export type RowCounters = NonNullable<RowResult['counters']>;

/** What encodeLink did to fit a run into a link. */
export interface LinkReduction {
  /** rounded: by a format-1 link (to 4 significant digits); 'thinned' series are also quantised (or rounded). */
  counters: 'kept' | 'rounded' | 'quantised' | 'thinned' | 'dropped';
  /** Sample points (entries of t) over all rows, in the run and in the link. */
  counterPoints: { before: number; after: number };
  /** trimmed: only the totals the tables show (SHOWN_TOTALS) are kept.  Absent in format-1 links: kept. */
  totals?: 'kept' | 'trimmed';
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
    /** Only when the disks turned locked to virtual time (as in the result's machine). */
    spin?: 'locked';
    /** The kernel asked for by name (a variant of experiments/kernels/variants.ts, or 'vmunix': the image's /vmunix), only when one was; absent: the experiment's own. */
    kernel?: string;
    /** Each step run with seeds 1..spinSeeds, only when more than 1 (as the result's machine.spinSeeds says too); absent in
     *  links made before the page ran several. */
    spinSeeds?: number;
  };
  result: ExperimentResult;
  /** Present when the link holds less than the run had (see LinkReduction). */
  reduction?: LinkReduction;
  /** When the run finished (ISO 8601), when known: said in exports' captions. */
  ranAt?: string;
}

/** What a link holds: one run, or two compared (B the one shown, A the one it is compared with). */
export type RunsPayload = { kind: 'run'; run: SharedRun } | { kind: 'comparison'; a: SharedRun; b: SharedRun };
/** ...or a sweep (its points' figures: the chart and the table; what it leaves out, `omitted` says). */
export type LinkPayload = RunsPayload | { kind: 'sweep'; sweep: SweepResult; omitted: string[] };

/** Every failure of decodeLink (and the rare one of encodeLink); the message is for the user. */
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
  const { value, runs } = await encodeLinkDetailed({ kind: 'run', run });
  return runs[0]!.reduction ? { value, reduction: runs[0]!.reduction } : { value };
}

/** A link of two runs compared (B shown, compared with A). */
export async function encodeComparisonLink(a: SharedRun, b: SharedRun): Promise<string> {
  return (await encodeLinkDetailed({ kind: 'comparison', a, b })).value;
}

/**
 * The link of a payload, reduced as the top of this file says until it
 * fits, and the runs as the link holds them (with what was reduced, if
 * anything).
 */
export async function encodeLinkDetailed(payload: RunsPayload): Promise<{ value: string; runs: SharedRun[] }> {
  // The same checks as decoding: a link that could not be read back is never made.
  let runs: SharedRun[];
  try {
    runs = (payload.kind === 'run' ? [payload.run] : [payload.a, payload.b]).map((r) => validateSharedRun(r));
  } catch (e) {
    if (e instanceof ShapeError) throw new PermalinkError(`Cannot make a link of this run: ${e.detail}.`);
    throw e;
  }
  const kind = payload.kind;
  const limit = MAX_LINK_CHARS * runs.length;
  const hasProfiles = runs.some((r) => r.result.rows.some((row) => row.profile !== undefined));
  const shrink: Shrink | null = hasProfiles ? (await import('../../../experiments/profile/summary')).shrinkSummary : null;
  const profiles: Step['profiles'] = hasProfiles ? 'reduce' : 'keep';
  let last = '';
  const attempt = async (step: Step | null): Promise<{ value: string; runs: SharedRun[] } | null> => {
    const reduced = step ? runs.map((r) => reduceRun(r, step, shrink)) : runs;
    if (step && reduced.every((r, i) => r === runs[i])) return null;
    const packed = await pack(kind, reduced, step?.counters === 'keep' || !step ? 'exact' : 'quantised');
    last = packed.value;
    if (last.length > limit) return null;
    // The runs as the link holds them (quantised series and all): what a page that opens it shows.
    const held = readPayload(packed.bytes);
    if (held.kind === 'sweep') throw new Error('a run link read back as a sweep');
    return { value: last, runs: held.kind === 'run' ? [held.run] : [held.a, held.b] };
  };

  const exact = await attempt(null);
  if (exact) return exact;
  const points = Math.max(...runs.map((r) => counterPoints(r.result)));
  const longest = Math.max(0, ...runs.flatMap((r) => r.result.rows.map((row) => row.counters?.t.length ?? 0)));
  if (hasProfiles) {
    const cut = await attempt({ counters: 'keep', totals: false, truncate: false, profiles });
    if (cut) return cut;
  }
  if (points > 0) {
    const quantised = await attempt({ counters: 'quantise', totals: false, truncate: false, profiles });
    if (quantised) return quantised;
  }
  const trimmed = await attempt({ counters: points > 0 ? 'quantise' : 'keep', totals: true, truncate: false, profiles });
  if (trimmed) return trimmed;
  if (points > 0) {
    // Thinned: the most points per row that fit (binary search; size grows with n).
    const thin = (n: number): Step => ({ counters: n, totals: true, truncate: false, profiles });
    let best = longest > MIN_COUNTER_POINTS ? await attempt(thin(MIN_COUNTER_POINTS)) : null;
    if (best) {
      let lo = MIN_COUNTER_POINTS;
      let hi = longest - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        const got = await attempt(thin(mid));
        if (got) {
          best = got;
          lo = mid;
        } else hi = mid - 1;
      }
      return best;
    }
    const dropped = await attempt({ counters: 'drop', totals: true, truncate: false, profiles });
    if (dropped) return dropped;
  }
  const counters = points > 0 ? 'drop' : 'keep';
  if (hasProfiles) {
    const small = await attempt({ counters, totals: true, truncate: false, profiles: 'shrink' });
    if (small) return small;
    const none = await attempt({ counters, totals: true, truncate: false, profiles: 'drop' });
    if (none) return none;
  }
  const truncated = await attempt({ counters, totals: true, truncate: true, profiles: hasProfiles ? 'drop' : 'keep' });
  if (truncated) return truncated;
  throw new PermalinkError(
    `This result is too large for a link (${last.length.toLocaleString('en-US')} characters after ` +
      `leaving out its counters; at most ${limit.toLocaleString('en-US')}). Export it as JSON instead.`,
  );
}

interface Step {
  /** Keep as is, quantise, thin to at most this many points per row (quantised), or drop. */
  counters: 'keep' | 'quantise' | number | 'drop';
  /** Leave out the totals the tables do not show. */
  totals: boolean;
  truncate: boolean;
  /** Rows' profiles: as they are, cut (LINK_PROFILE_TOP, LINK_PROFILE_MIN_SHARE), cut more
   *  (LINK_PROFILE_SMALL_*) or left out. */
  profiles: 'keep' | 'reduce' | 'shrink' | 'drop';
}

/** Where a run's counter series are in the payload: …rows[i].counters.t and …rows[i].counters.values[name]. */
function seriesPolicy(mode: 'exact' | 'quantised') {
  return (path: readonly (string | number)[], values: readonly number[]): SeriesPolicy | null => {
    const time = path.at(-1) === 't' && path.at(-2) === 'counters';
    const value = path.at(-2) === 'values' && path.at(-3) === 'counters';
    if (!time && !value) return null;
    if (mode === 'exact') return { kind: 'exact' };
    const largest = Math.max(...values.map((v) => Math.abs(v)));
    return { kind: 'quantised', step: largest > 0 ? niceStep(largest / (time ? TIME_STEPS : COUNTER_LEVELS)) : 1 };
  };
}

/** The link's value (version, checksum, data) and the payload's bytes. */
async function pack(kind: RunsPayload['kind'], runs: SharedRun[], mode: 'exact' | 'quantised'): Promise<{ value: string; bytes: Uint8Array }> {
  // A reduction's note is not sent: the page that opens the link writes it from the reduction (withNote).
  const sent = runs.map((r) => (r.reduction ? { ...r, reduction: { ...r.reduction, note: '' } } : r));
  const value = kind === 'run' ? sent[0] : { a: sent[0], b: sent[1] };
  return packValue(kind, value, seriesPolicy(mode), 'run');
}

/** A payload of `kind` holding `value`, as a link's value (version, checksum, data), and its bytes. */
async function packValue(
  kind: LinkPayload['kind'], value: unknown, series: ReturnType<typeof seriesPolicy>, what: string,
): Promise<{ value: string; bytes: Uint8Array }> {
  let body: Uint8Array;
  try {
    body = encodeValue(value, { series });
  } catch (e) {
    if (e instanceof CodecError) throw new PermalinkError(`Cannot make a link of this ${what}: ${e.message}.`);
    throw e;
  }
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = PAYLOAD_KINDS[kind];
  bytes.set(body, 1);
  const data = await deflateRaw(bytes);
  return { value: `${PERMALINK_VERSION}.${hex32(crc32(bytes))}.${base64urlEncode(data)}`, bytes };
}

/**
 * A sweep's link: its points' figures — what the chart and the table show —
 * without the rows' counter time series and profiles (a sweep shows neither;
 * the JSON export has them), failed rows' transcripts cut to their end.
 * Refused, saying so, when even that is longer than MAX_SWEEP_LINK_CHARS.
 */
export async function encodeSweepLink(sweep: SweepResult): Promise<{ value: string; omitted: string[] }> {
  try {
    validateSweep(sweep, 'sweep');
  } catch (e) {
    throw new PermalinkError(`Cannot make a link of this sweep: ${e instanceof Error ? e.message : String(e)}.`);
  }
  const omitted = new Set<string>();
  const points = sweep.points.map((p) => {
    if (!p.result) return p;
    const rows = p.result.rows.map((row) => {
      const { counters, profile, ...kept } = row;
      if (counters) omitted.add('the counters’ time series');
      if (profile) omitted.add('the profiles');
      if (kept.failure && kept.failure.output.length > FAILURE_OUTPUT_KEEP) {
        omitted.add('all but the end of failed rows’ console output');
        return { ...kept, failure: { ...kept.failure, output: kept.failure.output.slice(-FAILURE_OUTPUT_KEEP) } };
      }
      return kept;
    });
    return { ...p, result: { ...p.result, rows } };
  });
  const list = [...omitted];
  const { value } = await packValue('sweep', { sweep: { ...sweep, points }, omitted: list }, () => null, 'sweep');
  if (value.length > MAX_SWEEP_LINK_CHARS) {
    throw new PermalinkError(
      `This sweep is too large for a link (${value.length.toLocaleString('en-US')} characters; at most ` +
        `${MAX_SWEEP_LINK_CHARS.toLocaleString('en-US')}): share its JSON export instead.`,
    );
  }
  return { value, omitted: list };
}

function counterPoints(result: ExperimentResult): number {
  return result.rows.reduce((n, r) => n + (r.counters?.t.length ?? 0), 0);
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

const COUNTER_ORDER: LinkReduction['counters'][] = ['kept', 'rounded', 'quantised', 'thinned', 'dropped'];

/** A copy of run reduced as `step` says, with its reduction recorded; the run itself if that changes nothing. */
function reduceRun(run: SharedRun, step: Step, shrinkSummary: Shrink | null): SharedRun {
  const prior = run.reduction;
  const before = counterPoints(run.result);
  let truncatedNow = false;
  let trimmedNow = false;
  let profilesNow = false;
  const rows = run.result.rows.map((row) => {
    const out: RowResult = { ...row };
    if (row.profile && step.profiles === 'drop') {
      delete out.profile;
      profilesNow = true;
    } else if (row.profile && (step.profiles === 'reduce' || step.profiles === 'shrink')) {
      const cut = step.profiles === 'reduce' ? { top: LINK_PROFILE_TOP, minShare: LINK_PROFILE_MIN_SHARE }
        : { top: LINK_PROFILE_SMALL_TOP, minShare: LINK_PROFILE_SMALL_MIN_SHARE };
      if (shrinkSummary && (row.profile.top.length > cut.top || row.profile.minShare < cut.minShare)) {
        out.profile = shrinkSummary(row.profile, cut);
        profilesNow = true;
      }
    }
    const c = row.counters;
    const how = step.counters;
    if (c && how === 'drop') delete out.counters;
    else if (c && typeof how === 'number') {
      const keep = thinIndices(c.t.length, how);
      const values: Record<string, number[]> = {};
      for (const [name, series] of Object.entries(c.values)) values[name] = keep.map((i) => series[i]!);
      out.counters = { t: keep.map((i) => c.t[i]!), values };
    }
    if (step.totals && row.totals) {
      const kept = Object.fromEntries(Object.entries(row.totals).filter(([k]) => SHOWN_TOTALS.test(k)));
      if (Object.keys(kept).length < Object.keys(row.totals).length) {
        out.totals = kept;
        trimmedNow = true;
      }
    }
    if (step.truncate && row.failure && row.failure.output.length > FAILURE_OUTPUT_KEEP) {
      out.failure = { ...row.failure, output: `[…] ${row.failure.output.slice(-FAILURE_OUTPUT_KEEP)}` };
      truncatedNow = true;
    }
    return out;
  });
  const result = { ...run.result, rows };
  const after = counterPoints(result);
  const quantisedNow = before > 0 && step.counters !== 'keep';
  if (after === before && !quantisedNow && !truncatedNow && !trimmedNow && !profilesNow) return run;

  // Counted against the original run when this one came from a reduced link.
  const original = prior ? prior.counterPoints.before : before;
  const now: LinkReduction['counters'] = after === 0 && original > 0 ? 'dropped' : after < original ? 'thinned' : quantisedNow ? 'quantised' : 'kept';
  const counters = COUNTER_ORDER[Math.max(COUNTER_ORDER.indexOf(now), COUNTER_ORDER.indexOf(prior?.counters ?? 'kept'))]!;
  const truncated = truncatedNow || prior?.failureOutputs === 'truncated';
  const trimmed = trimmedNow || prior?.totals === 'trimmed';
  const profiles: LinkReduction['profiles'] = step.profiles === 'drop' && profilesNow ? 'dropped'
    : (step.profiles !== 'keep' && profilesNow) || prior?.profiles === 'reduced' ? 'reduced' : prior?.profiles;
  const reduction: LinkReduction = {
    counters, counterPoints: { before: original, after }, totals: trimmed ? 'trimmed' : 'kept',
    failureOutputs: truncated ? 'truncated' : 'kept', ...(profiles ? { profiles } : {}), note: '',
  };
  return { ...run, result, reduction: { ...reduction, note: reductionNote(reduction, result) } };
}

/** What a reduction did, in a sentence or three, for the page to show with the run (`result`: as the link holds it). */
export function reductionNote(r: Omit<LinkReduction, 'note'>, result: ExperimentResult): string {
  const { counters, counterPoints: { before, after } } = r;
  const trimmed = r.totals === 'trimmed';
  const truncated = r.failureOutputs === 'truncated';
  const fmt = (n: number) => n.toLocaleString('en-US');
  const notes: string[] = [];
  const stored = `each value to about 1/${COUNTER_LEVELS} of its series’ largest and each sample time to about 1/${fmt(TIME_STEPS)} of its row’s duration`;
  if (counters === 'quantised') notes.push(`To fit the link, the counter series keep ${stored}.`);
  else if (counters === 'rounded') notes.push('To fit the link, the counter values were rounded to 4 significant digits (times to the millisecond).');
  else if (counters === 'thinned') {
    notes.push(`To fit the link, the counter series were thinned to ${fmt(after)} of their ${fmt(before)} samples ` +
      `(evenly spaced in each row, first and last kept), keeping ${stored}.`);
  } else if (counters === 'dropped') notes.push(`The counter series (${fmt(before)} samples) are not in this link: they do not fit.`);
  if (trimmed) notes.push('Counter totals the tables do not show were left out.');
  if (truncated) notes.push(`Failed rows' console output was shortened to its last ${fmt(FAILURE_OUTPUT_KEEP)} characters.`);
  if (r.profiles === 'reduced') {
    const kept = result.rows.find((row) => row.profile)?.profile;
    notes.push(`The rows' profiles were cut to their top ${kept?.top.length ?? LINK_PROFILE_TOP} functions and the calling ` +
      `contexts with at least ${(100 * (kept?.minShare ?? LINK_PROFILE_MIN_SHARE)).toFixed(0)}% of each row's time ` +
      '(the rest counted in the callers).');
  } else if (r.profiles === 'dropped') notes.push('The rows\' profiles are not in this link: they do not fit.');
  notes.push('The JSON export of the original run has everything.');
  return notes.join(' ');
}

// ---------------------------------------------------------------------------
// Decoding

/** The run a link holds (the run shown, B, of a comparison link). */
export async function decodePermalink(fragment: string): Promise<SharedRun> {
  const payload = await decodeLink(fragment);
  if (payload.kind === 'sweep') throw new PermalinkError('This link holds a sweep, not a run: open it in the lab’s Sweep view.');
  return payload.kind === 'run' ? payload.run : payload.b;
}

/**
 * Reads a link's fragment value ('2.…' or a format-1 '1.…'); also accepts
 * it with '#r=' or 'r=' in front, or a whole URL with 'r=…' in its
 * fragment.  Throws PermalinkError saying what is wrong.
 */
export async function decodeLink(fragment: string): Promise<LinkPayload> {
  if (typeof fragment !== 'string') throw new PermalinkError('There is no result link to read.');
  let value = fragment.trim();
  const hash = value.indexOf('#');
  if (hash >= 0) value = value.slice(hash + 1);
  const param = value.split('&').find((p) => p.startsWith(`${PERMALINK_KEY}=`));
  if (param !== undefined) value = param.slice(PERMALINK_KEY.length + 1);
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
    throw new PermalinkError('This is not a vaxlab result link: it should begin with a format number, as in "#r=2.".');
  }
  const version = Number(versionText);
  if (version !== PERMALINK_VERSION && version !== JSON_LINK_VERSION) checkVersion(version, 'link format');
  if (parts.length !== 3) {
    throw new PermalinkError(
      'This result link is damaged: it should have three parts separated by dots (format, checksum, data). ' +
        'It may have been cut when it was copied.',
    );
  }
  const [, checksum, data] = parts as [string, string, string];
  if (!/^[0-9a-f]{8}$/.test(checksum)) {
    throw new PermalinkError(`This result link is damaged: its checksum (the part after "${version}.") should be 8 hexadecimal digits.`);
  }

  if (data === '') throw new PermalinkError('This result link is damaged: its data part (after the checksum) is empty.');
  const compressed = base64urlDecode(data);
  const bytes = await inflateRaw(compressed, version === JSON_LINK_VERSION ? MAX_JSON_BYTES : MAX_PAYLOAD_BYTES);
  if (hex32(crc32(bytes)) !== checksum) {
    throw new PermalinkError(
      'This result link is damaged: its checksum does not match its contents, so it was changed or cut after it was made.',
    );
  }
  return version === JSON_LINK_VERSION ? { kind: 'run', run: readJsonRun(bytes) } : readPayload(bytes);
}

/** A format-1 link's contents: the JSON of a run. */
function readJsonRun(json: Uint8Array): SharedRun {
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

/** A format-2 link's payload: its kind, then the value. */
function readPayload(bytes: Uint8Array): LinkPayload {
  if (bytes.length === 0) throw new PermalinkError('This result link is damaged: it holds nothing.');
  const kind = bytes[0]!;
  if (kind !== PAYLOAD_KINDS.run && kind !== PAYLOAD_KINDS.comparison && kind !== PAYLOAD_KINDS.sweep) {
    throw new PermalinkError(
      `This link holds something this page cannot show (kind ${kind}): it was made by a newer vaxlab. ` +
        'Open it with the vaxlab that made it, or update this one.',
    );
  }
  let value: unknown;
  try {
    value = decodeValue(bytes.subarray(1), DECODE_LIMITS);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    if (/newer vaxlab/.test(e.message)) throw new PermalinkError(`This result link was made by a newer vaxlab: ${e.message}.`);
    throw new PermalinkError(`This result link cannot be read: ${e.message}.`);
  }
  if (kind === PAYLOAD_KINDS.run) return { kind: 'run', run: withNote(validateSharedRun(value)) };
  if (kind === PAYLOAD_KINDS.sweep) return readSweep(value);
  if (!isPlainObject(value) || Object.keys(value).length !== 2 || !Object.hasOwn(value, 'a') || !Object.hasOwn(value, 'b')) {
    throw new ShapeError('a comparison link holds two runs, a and b, and nothing else');
  }
  return { kind: 'comparison', a: withNote(validateSharedRun(value.a, 'a')), b: withNote(validateSharedRun(value.b, 'b')) };
}

/** A sweep link's value: { sweep, omitted }, the sweep checked as a sweep's JSON file is. */
function readSweep(value: unknown): LinkPayload {
  if (!isPlainObject(value) || Object.keys(value).length !== 2 || !Object.hasOwn(value, 'sweep') || !Object.hasOwn(value, 'omitted')) {
    throw new ShapeError('a sweep link holds a sweep and what it left out, and nothing else');
  }
  const omitted = value.omitted;
  if (!Array.isArray(omitted) || omitted.length > 8 || !omitted.every((o) => typeof o === 'string' && o.length <= 200)) {
    throw new ShapeError('omitted: a short list of words');
  }
  try {
    return { kind: 'sweep', sweep: validateSweep(value.sweep, 'sweep'), omitted };
  } catch (e) {
    throw new PermalinkError(`This sweep link does not hold a sweep's result: ${e instanceof Error ? e.message : String(e)}.`);
  }
}

/** A run whose reduction came without its note (format 2 sends none): the note written from the reduction. */
function withNote(run: SharedRun): SharedRun {
  const r = run.reduction;
  if (!r || r.note !== '') return run;
  return { ...run, reduction: { ...r, note: reductionNote(r, run.result) } };
}

function checkVersion(found: number, what: string): void {
  const current = what === 'link format' ? PERMALINK_VERSION : RESULT_VERSION;
  if (found === current) return;
  const relation = found > current ? 'a newer' : 'an older';
  const advice = found > current ? 'Open it with the vaxlab that made it, or update this one.' : 'This vaxlab no longer reads it.';
  throw new PermalinkError(
    `This result link was made by ${relation} vaxlab (${what} ${found}; this page reads ${what} ${what === 'link format' ? `${JSON_LINK_VERSION} and ${current}` : current}). ${advice}`,
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
  counters: oneOf('kept', 'rounded', 'quantised', 'thinned', 'dropped'),
  counterPoints: obj({ before: int(), after: int() }),
  failureOutputs: oneOf('kept', 'truncated'),
  note: str(2000),
}, { totals: oneOf('kept', 'trimmed'), profiles: oneOf('reduced', 'dropped') });

const RUN = obj({
  experiment: str(100),
  config: obj({ cpu: oneOf('750', '780'), memoryMB: MEMORY_MB_SCHEMA, set: numbers, parameters: numbers },
    // Any name: a variant this page does not have is said when the run is run again, not refused here.
    { disk: oneOf(...DISK_TIMINGS), spin: oneOf('locked'), kernel: str(100, /^[A-Za-z0-9_.-]+$/, 'a kernel variant\'s name'),
      // Any the runner takes: more than the page's form does (MAX_PAGE_SEEDS) is said when the run is run again.
      spinSeeds: int(2, MAX_SPIN_SEEDS) }),
  result: RESULT_SCHEMA,
}, { reduction: REDUCTION, ranAt: str(40, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/, 'a date and time (ISO 8601, UTC)') });

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

/** Checks that v is a SharedRun this vaxlab can show; returns a clean copy or throws PermalinkError.  `path`
 *  names it in messages (a comparison's "a" or "b"). */
export function validateSharedRun(v: unknown, path?: string): SharedRun {
  // A result of another version says so, before its fields are checked.
  if (isPlainObject(v) && isPlainObject(v.result) && v.result.format === RESULT_FORMAT) {
    const version = v.result.version;
    if (typeof version === 'number' && Number.isInteger(version)) checkVersion(version, 'result format');
  }
  try {
    const run: SharedRun = check(RUN, v, path);
    checkSeries(run.result, path ? `${path}.result` : 'result');
    // Numbers in their ranges (no negative time, no absurd size): nothing drawn wrong from a crafted link.
    checkRanges(run.result, path ? `${path}.result` : 'result');
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
